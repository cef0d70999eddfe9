"""Hidden tests of h11/_writers.py (h11 0.14.0).

External tests go through the connection, which looks up a writer in WRITERS for its own
state and serialises every event it sends with it. Internal tests call the writers
directly with a list's append as the write callback.
"""

import pytest

import h11
from h11._headers import normalize_and_validate
from h11._writers import (
    WRITERS,
    ChunkedWriter,
    ContentLengthWriter,
    Http10Writer,
    write_any_response,
    write_headers,
    write_request,
)


def collect(func, *args):
    out = []
    func(*args, out.append)
    return b"".join(out)


def server_after_request(request_bytes):
    conn = h11.Connection(h11.SERVER)
    conn.receive_data(request_bytes)
    assert isinstance(conn.next_event(), h11.Request)
    return conn


# External: through the connection (_connection.py).
def test_client_sends_request_line_with_host_header_first():
    conn = h11.Connection(h11.CLIENT)
    data = conn.send(
        h11.Request(method="GET", target="/path?q=1", headers=[("Accept", "*/*"), ("Host", "example.org")])
    )
    assert data == b"GET /path?q=1 HTTP/1.1\r\nHost: example.org\r\nAccept: */*\r\n\r\n"


def test_client_sends_a_chunked_body():
    conn = h11.Connection(h11.CLIENT)
    conn.send(h11.Request(method="POST", target="/", headers=[("Host", "a"), ("Transfer-Encoding", "chunked")]))
    assert conn.send(h11.Data(data=b"hello world")) == b"b\r\nhello world\r\n"
    assert conn.send(h11.Data(data=b"")) == b""
    assert conn.send(h11.EndOfMessage(headers=[("X-Done", "yes")])) == b"0\r\nX-Done: yes\r\n\r\n"


def test_server_refuses_more_body_than_its_content_length():
    conn = server_after_request(b"GET / HTTP/1.1\r\nHost: a\r\n\r\n")
    head = conn.send(h11.Response(status_code=200, reason="OK", headers=[("Content-Length", "3")]))
    assert head == b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\n"
    assert conn.send(h11.Data(data=b"ab")) == b"ab"
    with pytest.raises(h11.LocalProtocolError):
        conn.send(h11.Data(data=b"cd"))


def test_server_answers_http10_client_by_closing_after_the_body():
    conn = server_after_request(b"GET / HTTP/1.0\r\n\r\n")
    head = conn.send(h11.Response(status_code=200, headers=[]))
    assert head == b"HTTP/1.1 200 \r\nConnection: close\r\n\r\n"
    assert conn.send(h11.Data(data=b"raw body")) == b"raw body"
    assert conn.send(h11.EndOfMessage()) == b""
    assert conn.our_state is h11.MUST_CLOSE


def test_server_sends_informational_response_before_final_one():
    conn = server_after_request(b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nExpect: 100-continue\r\n\r\n")
    assert conn.send(h11.InformationalResponse(status_code=100, headers=[])) == b"HTTP/1.1 100 \r\n\r\n"


# Internal: the writers, called directly.
def test_write_headers_puts_host_first_and_ends_with_blank_line():
    headers = normalize_and_validate([("X-A", "1"), ("HOST", "h"), ("x-b", "2")])
    assert collect(write_headers, headers) == b"HOST: h\r\nX-A: 1\r\nx-b: 2\r\n\r\n"
    assert collect(write_headers, normalize_and_validate([])) == b"\r\n"


def test_write_request_only_sends_http11():
    request = h11.Request(method="DELETE", target="/item/7", headers=[("Host", "a")])
    assert collect(write_request, request) == b"DELETE /item/7 HTTP/1.1\r\nHost: a\r\n\r\n"
    old = h11.Request(method="GET", target="/", headers=[], http_version="1.0")
    with pytest.raises(h11.LocalProtocolError):
        collect(write_request, old)


def test_write_any_response_writes_status_line_and_reason():
    response = h11.Response(status_code=404, reason="Not Found", headers=[("Content-Length", "0")])
    assert collect(write_any_response, response) == b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n"
    old = h11.Response(status_code=200, headers=[], http_version="1.0")
    with pytest.raises(h11.LocalProtocolError):
        collect(write_any_response, old)


def test_content_length_writer_needs_exactly_the_declared_length():
    writer = ContentLengthWriter(5)
    assert collect(writer, h11.Data(data=b"abc")) == b"abc"
    with pytest.raises(h11.LocalProtocolError):
        collect(writer, h11.EndOfMessage())
    assert collect(writer, h11.Data(data=b"de")) == b"de"
    assert collect(writer, h11.EndOfMessage()) == b""
    with pytest.raises(h11.LocalProtocolError):
        collect(ContentLengthWriter(1), h11.Data(data=b"xy"))


def test_content_length_writer_refuses_trailers():
    writer = ContentLengthWriter(0)
    with pytest.raises(h11.LocalProtocolError):
        collect(writer, h11.EndOfMessage(headers=[("X-T", "1")]))


def test_chunked_writer_frames_data_in_hex_sized_chunks():
    writer = ChunkedWriter()
    assert collect(writer, h11.Data(data=b"x" * 26)) == b"1a\r\n" + b"x" * 26 + b"\r\n"
    assert collect(writer, h11.Data(data=b"")) == b""
    assert collect(writer, h11.EndOfMessage()) == b"0\r\n\r\n"


def test_http10_writer_writes_data_raw_and_refuses_trailers():
    writer = Http10Writer()
    assert collect(writer, h11.Data(data=b"abc")) == b"abc"
    assert collect(writer, h11.EndOfMessage()) == b""
    with pytest.raises(h11.LocalProtocolError):
        collect(writer, h11.EndOfMessage(headers=[("X-T", "1")]))


def test_writers_table_maps_states_to_writers():
    assert WRITERS[(h11.CLIENT, h11.IDLE)] is write_request
    assert WRITERS[(h11.SERVER, h11.IDLE)] is write_any_response
    assert WRITERS[(h11.SERVER, h11.SEND_RESPONSE)] is write_any_response
    assert WRITERS[h11.SEND_BODY] == {
        "chunked": ChunkedWriter,
        "content-length": ContentLengthWriter,
        "http/1.0": Http10Writer,
    }
