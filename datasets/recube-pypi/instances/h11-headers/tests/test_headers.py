"""Hidden tests of h11/_headers.py (h11 0.14.0).

External tests go through the events and the connection, which build their headers with
normalize_and_validate and read Connection, Expect and Transfer-Encoding with the comma
header helpers. Internal tests call the file's own functions and the Headers class.
"""

import pytest

import h11
from h11._headers import (
    Headers,
    get_comma_header,
    has_expect_100_continue,
    normalize_and_validate,
    set_comma_header,
)


# External: through the events (_events.py) and the connection (_connection.py).
def test_request_headers_are_lowercased_but_keep_their_raw_case():
    req = h11.Request(method="GET", target="/", headers=[("Host", "example.org"), ("X-Thing", "A")])
    assert list(req.headers) == [(b"host", b"example.org"), (b"x-thing", b"A")]
    assert req.headers.raw_items() == [(b"Host", b"example.org"), (b"X-Thing", b"A")]


def test_request_refuses_an_illegal_header_name():
    with pytest.raises(h11.LocalProtocolError):
        h11.Request(method="GET", target="/", headers=[("Host", "a"), ("Bad Name", "x")])


def test_connection_close_header_ends_keep_alive():
    conn = h11.Connection(h11.CLIENT)
    conn.send(h11.Request(method="GET", target="/", headers=[("Host", "a"), ("Connection", "Keep-Alive, Close")]))
    assert conn.our_state is h11.SEND_BODY
    assert conn.send(h11.EndOfMessage()) == b""
    assert conn.our_state is h11.MUST_CLOSE


def test_server_waits_for_100_continue_when_client_expects_it():
    conn = h11.Connection(h11.SERVER)
    conn.receive_data(
        b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nExpect: 100-Continue\r\n\r\n"
    )
    assert isinstance(conn.next_event(), h11.Request)
    assert conn.they_are_waiting_for_100_continue


def test_server_response_to_http10_client_gets_connection_close():
    conn = h11.Connection(h11.SERVER)
    conn.receive_data(b"GET / HTTP/1.0\r\n\r\n")
    assert isinstance(conn.next_event(), h11.Request)
    data = conn.send(h11.Response(status_code=200, headers=[("Content-Length", "0")]))
    assert data == b"HTTP/1.1 200 \r\nContent-Length: 0\r\nConnection: close\r\n\r\n"


# Internal: the file's own functions and class.
def test_normalize_and_validate_accepts_str_and_bytes():
    headers = normalize_and_validate([("Content-Type", b"text/plain"), (b"Accept", "*/*")])
    assert isinstance(headers, Headers)
    assert list(headers) == [(b"content-type", b"text/plain"), (b"accept", b"*/*")]


def test_normalize_and_validate_merges_repeated_equal_content_length():
    headers = normalize_and_validate([("Content-Length", "5"), ("content-length", "5, 5")])
    assert list(headers) == [(b"content-length", b"5")]
    with pytest.raises(h11.LocalProtocolError):
        normalize_and_validate([("Content-Length", "5"), ("Content-Length", "6")])
    with pytest.raises(h11.LocalProtocolError):
        normalize_and_validate([("Content-Length", "five")])


def test_normalize_and_validate_accepts_only_chunked_transfer_encoding():
    headers = normalize_and_validate([("Transfer-Encoding", "CHUNKED")])
    assert list(headers) == [(b"transfer-encoding", b"chunked")]
    with pytest.raises(h11.LocalProtocolError) as excinfo:
        normalize_and_validate([("Transfer-Encoding", "gzip")])
    assert excinfo.value.error_status_hint == 501
    with pytest.raises(h11.LocalProtocolError):
        normalize_and_validate([("Transfer-Encoding", "chunked"), ("Transfer-Encoding", "chunked")])


def test_headers_sequence_protocol():
    headers = normalize_and_validate([("A", "1"), ("B", "2")])
    assert len(headers) == 2
    assert headers[1] == (b"b", b"2")
    assert headers == [(b"a", b"1"), (b"b", b"2")]
    assert bool(headers)
    assert not normalize_and_validate([])
    assert repr(headers) == "<Headers([(b'a', b'1'), (b'b', b'2')])>"


def test_get_comma_header_splits_lowercases_and_skips_empty_values():
    headers = normalize_and_validate(
        [("Connection", "Keep-Alive, , Upgrade"), ("Other", "x"), ("connection", "CLOSE")]
    )
    assert get_comma_header(headers, b"connection") == [b"keep-alive", b"upgrade", b"close"]
    assert get_comma_header(headers, b"missing") == []


def test_set_comma_header_replaces_every_old_value():
    headers = normalize_and_validate([("Connection", "keep-alive"), ("Host", "a"), ("connection", "upgrade")])
    new = set_comma_header(headers, b"connection", [b"close"])
    assert list(new) == [(b"host", b"a"), (b"connection", b"close")]
    assert new.raw_items() == [(b"Host", b"a"), (b"Connection", b"close")]


def test_has_expect_100_continue_needs_http11():
    req = h11.Request(method="POST", target="/", headers=[("Host", "a"), ("Expect", "100-continue")])
    assert has_expect_100_continue(req)
    old = h11.Request(method="POST", target="/", headers=[("Expect", "100-continue")], http_version="1.0")
    assert not has_expect_100_continue(old)
    plain = h11.Request(method="POST", target="/", headers=[("Host", "a")])
    assert not has_expect_100_continue(plain)
