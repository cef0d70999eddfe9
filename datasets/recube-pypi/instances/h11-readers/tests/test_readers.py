"""Hidden tests of h11/_readers.py (h11 0.14.0).

External tests go through the connection, which looks up a reader in READERS for the
peer's state and turns the received bytes into events with it. Internal tests call the
readers and their helpers directly on a ReceiveBuffer.
"""

import pytest

import h11
from h11._readers import (
    READERS,
    ChunkedReader,
    ContentLengthReader,
    Http10Reader,
    _decode_header_lines,
    expect_nothing,
    maybe_read_from_IDLE_client,
    maybe_read_from_SEND_RESPONSE_server,
)
from h11._receivebuffer import ReceiveBuffer


def buffer(data):
    buf = ReceiveBuffer()
    buf += data
    return buf


def client_waiting_for_response():
    conn = h11.Connection(h11.CLIENT)
    conn.send(h11.Request(method="GET", target="/", headers=[("Host", "x")]))
    conn.send(h11.EndOfMessage())
    return conn


# External: through the connection (_connection.py).
def test_client_reads_informational_then_final_response():
    conn = client_waiting_for_response()
    conn.receive_data(b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
    first = conn.next_event()
    assert type(first) is h11.InformationalResponse
    assert (first.status_code, first.reason) == (100, b"Continue")
    second = conn.next_event()
    assert type(second) is h11.Response
    assert (second.status_code, second.reason, second.http_version) == (404, b"Not Found", b"1.1")
    assert isinstance(conn.next_event(), h11.EndOfMessage)


def test_server_reads_a_chunked_body_with_trailers():
    conn = h11.Connection(h11.SERVER)
    conn.receive_data(
        b"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
        b"3\r\nabc\r\n2;ext=1\r\nde\r\n0\r\nX-Sum: 5\r\n\r\n"
    )
    assert isinstance(conn.next_event(), h11.Request)
    first = conn.next_event()
    assert (first.data, first.chunk_start, first.chunk_end) == (b"abc", True, True)
    second = conn.next_event()
    assert (second.data, second.chunk_start, second.chunk_end) == (b"de", True, True)
    end = conn.next_event()
    assert isinstance(end, h11.EndOfMessage)
    assert list(end.headers) == [(b"x-sum", b"5")]


def test_folded_header_lines_are_joined_with_a_space():
    conn = h11.Connection(h11.SERVER)
    conn.receive_data(b"GET / HTTP/1.1\r\nHost: x\r\nX-Long: one\r\n \t two\r\n\r\n")
    event = conn.next_event()
    assert list(event.headers) == [(b"host", b"x"), (b"x-long", b"one two")]


def test_peer_closing_mid_body_is_a_remote_protocol_error():
    conn = h11.Connection(h11.SERVER)
    conn.receive_data(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc")
    assert isinstance(conn.next_event(), h11.Request)
    assert conn.next_event().data == b"abc"
    conn.receive_data(b"")
    with pytest.raises(h11.RemoteProtocolError) as excinfo:
        conn.next_event()
    assert str(excinfo.value) == (
        "peer closed connection without sending complete message body "
        "(received 3 bytes, expected 10)"
    )


def test_http10_response_body_runs_until_the_connection_closes():
    conn = client_waiting_for_response()
    conn.receive_data(b"HTTP/1.0 200 OK\r\n\r\nhello")
    response = conn.next_event()
    assert response.http_version == b"1.0"
    assert conn.next_event().data == b"hello"
    assert conn.next_event() is h11.NEED_DATA
    conn.receive_data(b"")
    assert isinstance(conn.next_event(), h11.EndOfMessage)
    assert isinstance(conn.next_event(), h11.ConnectionClosed)


# Internal: the readers and helpers, called directly.
def test_maybe_read_from_idle_client_parses_a_request():
    assert maybe_read_from_IDLE_client(buffer(b"GET /x HTTP/1.1\r\nHost: a")) is None
    request = maybe_read_from_IDLE_client(buffer(b"PUT /x?y HTTP/1.0\r\nA: 1\r\n\r\n"))
    assert (request.method, request.target, request.http_version) == (b"PUT", b"/x?y", b"1.0")
    assert list(request.headers) == [(b"a", b"1")]


def test_maybe_read_from_idle_client_refuses_bad_request_lines():
    with pytest.raises(h11.LocalProtocolError):
        maybe_read_from_IDLE_client(buffer(b"\r\n"))
    with pytest.raises(h11.LocalProtocolError):
        maybe_read_from_IDLE_client(buffer(b"GET\r\n\r\n"))
    with pytest.raises(h11.LocalProtocolError):
        maybe_read_from_IDLE_client(buffer(b" GET / HTTP/1.1"))


def test_maybe_read_from_send_response_server_fills_in_missing_reason():
    response = maybe_read_from_SEND_RESPONSE_server(buffer(b"HTTP/1.1 204\r\n\r\n"))
    assert type(response) is h11.Response
    assert (response.status_code, response.reason, response.http_version) == (204, b"", b"1.1")
    info = maybe_read_from_SEND_RESPONSE_server(buffer(b"HTTP/1.1 101 Switching\r\nUpgrade: h2c\r\n\r\n"))
    assert type(info) is h11.InformationalResponse
    assert list(info.headers) == [(b"upgrade", b"h2c")]


def test_content_length_reader_counts_down_then_ends():
    reader = ContentLengthReader(4)
    buf = buffer(b"ab")
    assert reader(buf).data == b"ab"
    assert reader(buf) is None
    buf += b"cdef"
    assert reader(buf).data == b"cd"
    assert isinstance(reader(buf), h11.EndOfMessage)
    assert bytes(buf) == b"ef"
    with pytest.raises(h11.RemoteProtocolError):
        ContentLengthReader(2).read_eof()


def test_chunked_reader_splits_a_chunk_across_reads():
    reader = ChunkedReader()
    buf = buffer(b"a\r\n01234")
    first = reader(buf)
    assert (first.data, first.chunk_start, first.chunk_end) == (b"01234", True, False)
    buf += b"56789\r\n0\r\n\r\n"
    second = reader(buf)
    assert (second.data, second.chunk_start, second.chunk_end) == (b"56789", False, True)
    end = reader(buf)
    assert isinstance(end, h11.EndOfMessage)
    assert list(end.headers) == []
    with pytest.raises(h11.LocalProtocolError):
        ChunkedReader()(buffer(b"zz\r\n"))
    with pytest.raises(h11.RemoteProtocolError):
        ChunkedReader().read_eof()


def test_http10_reader_and_expect_nothing():
    reader = Http10Reader()
    assert reader(buffer(b"")) is None
    assert reader(buffer(b"all of it")).data == b"all of it"
    assert isinstance(reader.read_eof(), h11.EndOfMessage)
    assert expect_nothing(buffer(b"")) is None
    with pytest.raises(h11.LocalProtocolError):
        expect_nothing(buffer(b"x"))


def test_decode_header_lines_folds_continuations():
    lines = [b"A: 1", b"  more", b"B:2"]
    assert list(_decode_header_lines(lines)) == [(b"A", b"1 more"), (b"B", b"2")]
    with pytest.raises(h11.LocalProtocolError):
        list(_decode_header_lines([b" starts folded", b"A: 1"]))
    with pytest.raises(h11.LocalProtocolError):
        list(_decode_header_lines([b"no colon here"]))


def test_readers_table_maps_states_to_readers():
    assert READERS[(h11.CLIENT, h11.IDLE)] is maybe_read_from_IDLE_client
    assert READERS[(h11.SERVER, h11.SEND_RESPONSE)] is maybe_read_from_SEND_RESPONSE_server
    assert READERS[(h11.SERVER, h11.DONE)] is expect_nothing
    assert READERS[h11.SEND_BODY] == {
        "chunked": ChunkedReader,
        "content-length": ContentLengthReader,
        "http/1.0": Http10Reader,
    }
