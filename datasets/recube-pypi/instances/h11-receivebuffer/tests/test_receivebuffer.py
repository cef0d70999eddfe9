"""Hidden tests of h11/_receivebuffer.py (h11 0.14.0).

External tests go through the connection, which keeps the bytes it has received in a
ReceiveBuffer that the readers take lines, heads and bodies from. Internal tests call
ReceiveBuffer's methods directly.
"""

import pytest

import h11
from h11._receivebuffer import ReceiveBuffer


# External: through the connection (_connection.py) and its readers (_readers.py).
def test_request_head_fed_one_byte_at_a_time_arrives_whole():
    conn = h11.Connection(h11.SERVER)
    events = []
    for byte in b"GET /a HTTP/1.1\r\nHost: x\r\n\r\n":
        conn.receive_data(bytes([byte]))
        events.append(conn.next_event())
    assert all(event is h11.NEED_DATA for event in events[:-1])
    assert isinstance(events[-1], h11.Request)
    assert events[-1].target == b"/a"
    assert list(events[-1].headers) == [(b"host", b"x")]


def test_request_head_with_bare_newlines_is_accepted():
    conn = h11.Connection(h11.SERVER)
    conn.receive_data(b"GET / HTTP/1.1\nHost: x\nX-A: 1\n\n")
    event = conn.next_event()
    assert isinstance(event, h11.Request)
    assert list(event.headers) == [(b"host", b"x"), (b"x-a", b"1")]


def test_bytes_after_the_message_stay_as_trailing_data():
    conn = h11.Connection(h11.SERVER)
    conn.receive_data(b"GET / HTTP/1.1\r\nHost: x\r\n\r\nGET /next HTTP/1.1\r\n")
    assert isinstance(conn.next_event(), h11.Request)
    assert isinstance(conn.next_event(), h11.EndOfMessage)
    assert conn.next_event() is h11.PAUSED
    assert conn.trailing_data == (b"GET /next HTTP/1.1\r\n", False)


def test_content_length_body_is_delivered_as_it_arrives():
    conn = h11.Connection(h11.SERVER)
    conn.receive_data(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nab")
    assert isinstance(conn.next_event(), h11.Request)
    first = conn.next_event()
    assert isinstance(first, h11.Data) and first.data == b"ab"
    assert conn.next_event() is h11.NEED_DATA
    conn.receive_data(b"cdeEXTRA")
    second = conn.next_event()
    assert isinstance(second, h11.Data) and second.data == b"cde"
    assert isinstance(conn.next_event(), h11.EndOfMessage)
    assert conn.trailing_data == (b"EXTRA", False)


def test_obviously_invalid_first_byte_fails_before_the_line_ends():
    conn = h11.Connection(h11.SERVER)
    conn.receive_data(b"\x16\x03\x01")
    with pytest.raises(h11.RemoteProtocolError):
        conn.next_event()


# Internal: ReceiveBuffer's own methods.
def test_buffer_grows_with_iadd_and_reports_its_length():
    buf = ReceiveBuffer()
    assert not buf
    assert len(buf) == 0
    buf += b"abc"
    buf += bytearray(b"de")
    assert buf
    assert len(buf) == 5
    assert bytes(buf) == b"abcde"


def test_maybe_extract_at_most():
    buf = ReceiveBuffer()
    assert buf.maybe_extract_at_most(3) is None
    buf += b"hello"
    assert buf.maybe_extract_at_most(3) == bytearray(b"hel")
    assert buf.maybe_extract_at_most(10) == bytearray(b"lo")
    assert buf.maybe_extract_at_most(1) is None
    assert len(buf) == 0


def test_maybe_extract_next_line_waits_for_crlf():
    buf = ReceiveBuffer()
    buf += b"5\r"
    assert buf.maybe_extract_next_line() is None
    buf += b"\nrest"
    assert buf.maybe_extract_next_line() == bytearray(b"5\r\n")
    assert bytes(buf) == b"rest"
    assert buf.maybe_extract_next_line() is None


def test_maybe_extract_lines_stops_at_the_blank_line():
    buf = ReceiveBuffer()
    buf += b"line one\r\nline two\r\n"
    assert buf.maybe_extract_lines() is None
    buf += b"\r\nbody"
    assert buf.maybe_extract_lines() == [bytearray(b"line one"), bytearray(b"line two")]
    assert bytes(buf) == b"body"


def test_maybe_extract_lines_accepts_bare_newlines():
    buf = ReceiveBuffer()
    buf += b"a\nb\r\n\nc"
    assert buf.maybe_extract_lines() == [bytearray(b"a"), bytearray(b"b")]
    assert bytes(buf) == b"c"


def test_maybe_extract_lines_on_a_leading_blank_line_returns_no_lines():
    buf = ReceiveBuffer()
    buf += b"\r\nnext"
    assert buf.maybe_extract_lines() == []
    assert bytes(buf) == b"next"
    buf = ReceiveBuffer()
    buf += b"\nnext"
    assert buf.maybe_extract_lines() == []
    assert bytes(buf) == b"next"


def test_is_next_line_obviously_invalid_request_line():
    buf = ReceiveBuffer()
    assert not buf.is_next_line_obviously_invalid_request_line()
    buf += b"GET"
    assert not buf.is_next_line_obviously_invalid_request_line()
    buf = ReceiveBuffer()
    buf += b" GET"
    assert buf.is_next_line_obviously_invalid_request_line()
    buf = ReceiveBuffer()
    buf += b"\x16\x03"
    assert buf.is_next_line_obviously_invalid_request_line()
