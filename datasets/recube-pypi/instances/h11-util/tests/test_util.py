"""Hidden tests of h11/_util.py (h11 0.14.0).

External tests go through the connection and the events, which raise its protocol errors,
turn a peer's bad data into RemoteProtocolError, coerce fields with bytesify and name their
states with Sentinel. Internal tests call the file's own exceptions and helpers directly.
"""

import re

import pytest

import h11
from h11._util import (
    LocalProtocolError,
    ProtocolError,
    RemoteProtocolError,
    Sentinel,
    bytesify,
    validate,
)


# External: through the connection (_connection.py, _readers.py) and the events (_events.py).
def test_malformed_request_from_peer_raises_remote_protocol_error():
    conn = h11.Connection(h11.SERVER)
    conn.receive_data(b"GET / HTTP/1.1\r\nHost: a\r\nBad Header\r\n\r\n")
    with pytest.raises(h11.RemoteProtocolError) as excinfo:
        conn.next_event()
    assert isinstance(excinfo.value, h11.ProtocolError)
    assert not isinstance(excinfo.value, h11.LocalProtocolError)
    assert excinfo.value.error_status_hint == 400


def test_oversized_request_head_suggests_status_431():
    conn = h11.Connection(h11.SERVER, max_incomplete_event_size=20)
    conn.receive_data(b"GET / HTTP/1.1\r\nHost: " + b"a" * 40)
    with pytest.raises(h11.RemoteProtocolError) as excinfo:
        conn.next_event()
    assert excinfo.value.error_status_hint == 431


def test_sending_a_response_as_client_raises_local_protocol_error():
    conn = h11.Connection(h11.CLIENT)
    with pytest.raises(h11.LocalProtocolError) as excinfo:
        conn.send(h11.Response(status_code=200, headers=[]))
    assert isinstance(excinfo.value, h11.ProtocolError)
    assert excinfo.value.error_status_hint == 400
    assert conn.our_state is h11.ERROR


def test_request_fields_accept_str_bytearray_and_memoryview():
    req = h11.Request(method=bytearray(b"GET"), target=memoryview(b"/x"), headers=[("Host", "a")])
    assert req.method == b"GET"
    assert req.target == b"/x"
    assert type(req.target) is bytes
    with pytest.raises(TypeError):
        h11.Request(method="GET", target="/", headers=[("Host", 1)])


def test_connection_states_are_sentinels_named_by_repr():
    assert repr(h11.IDLE) == "IDLE"
    assert repr(h11.CLIENT) == "CLIENT"
    assert type(h11.SEND_BODY) is h11.SEND_BODY
    assert h11.Connection(h11.CLIENT).our_state is h11.IDLE


# Internal: the file's own exceptions and helpers.
def test_protocol_error_cannot_be_instantiated_directly():
    with pytest.raises(TypeError):
        ProtocolError("nope")


def test_protocol_error_subclasses_carry_a_status_hint():
    err = LocalProtocolError("bad thing")
    assert str(err) == "bad thing"
    assert err.error_status_hint == 400
    assert RemoteProtocolError("worse", 505).error_status_hint == 505
    assert issubclass(LocalProtocolError, ProtocolError)
    assert issubclass(RemoteProtocolError, ProtocolError)


def test_local_error_reraises_as_remote_keeping_message_and_hint():
    err = LocalProtocolError("oops", error_status_hint=418)
    with pytest.raises(RemoteProtocolError) as excinfo:
        err._reraise_as_remote_protocol_error()
    assert excinfo.value is err
    assert type(err) is RemoteProtocolError
    assert str(err) == "oops"
    assert err.error_status_hint == 418


def test_validate_returns_named_groups_of_a_full_match():
    regex = re.compile(rb"(?P<name>[a-z]+)=(?P<value>[0-9]+)")
    assert validate(regex, b"abc=12") == {"name": b"abc", "value": b"12"}
    with pytest.raises(LocalProtocolError) as excinfo:
        validate(regex, b"abc=12x")
    assert str(excinfo.value) == "malformed data"


def test_validate_formats_its_message_only_with_arguments():
    regex = re.compile(rb"[0-9]+")
    with pytest.raises(LocalProtocolError) as excinfo:
        validate(regex, b"x1", "bad number {!r}", b"x1")
    assert str(excinfo.value) == "bad number b'x1'"
    with pytest.raises(LocalProtocolError) as excinfo:
        validate(regex, b"x1", "literal {braces}")
    assert str(excinfo.value) == "literal {braces}"


def test_sentinel_class_is_its_own_type():
    class MY_STATE(Sentinel, metaclass=Sentinel):
        pass

    assert type(MY_STATE) is MY_STATE
    assert isinstance(MY_STATE, Sentinel)
    assert repr(MY_STATE) == "MY_STATE"


def test_bytesify():
    data = b"abc"
    assert bytesify(data) is data
    assert bytesify("abc") == b"abc"
    assert bytesify(bytearray(b"xy")) == b"xy"
    assert bytesify(memoryview(b"z")) == b"z"
    with pytest.raises(TypeError):
        bytesify(10)
    with pytest.raises(UnicodeEncodeError):
        bytesify("caf\u00e9")
