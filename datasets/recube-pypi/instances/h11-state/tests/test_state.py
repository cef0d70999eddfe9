"""Hidden tests of h11/_state.py (h11 0.14.0).

External tests go through the connection, whose our_state, their_state and states come
from a ConnectionState fed every event sent and received. Internal tests drive
ConnectionState and its transition tables directly.
"""

import pytest

import h11
from h11._events import ConnectionClosed, Data, EndOfMessage, InformationalResponse, Request, Response
from h11._state import (
    _SWITCH_CONNECT,
    _SWITCH_UPGRADE,
    CLIENT,
    CLOSED,
    DONE,
    ERROR,
    IDLE,
    MIGHT_SWITCH_PROTOCOL,
    MUST_CLOSE,
    SEND_BODY,
    SEND_RESPONSE,
    SERVER,
    SWITCHED_PROTOCOL,
    ConnectionState,
)


def full_cycle(client, server):
    client_bytes = client.send(h11.Request(method="GET", target="/", headers=[("Host", "a")]))
    client_bytes += client.send(h11.EndOfMessage())
    server.receive_data(client_bytes)
    assert isinstance(server.next_event(), h11.Request)
    assert isinstance(server.next_event(), h11.EndOfMessage)
    server_bytes = server.send(h11.Response(status_code=200, headers=[("Content-Length", "0")]))
    server_bytes += server.send(h11.EndOfMessage())
    client.receive_data(server_bytes)
    assert isinstance(client.next_event(), h11.Response)
    assert isinstance(client.next_event(), h11.EndOfMessage)


# External: through the connection (_connection.py).
def test_connection_states_follow_a_request_response_cycle():
    client = h11.Connection(h11.CLIENT)
    server = h11.Connection(h11.SERVER)
    assert client.states == {h11.CLIENT: h11.IDLE, h11.SERVER: h11.IDLE}
    full_cycle(client, server)
    assert client.states == {h11.CLIENT: h11.DONE, h11.SERVER: h11.DONE}
    assert (server.our_state, server.their_state) == (h11.DONE, h11.DONE)


def test_start_next_cycle_resets_a_keep_alive_connection():
    client = h11.Connection(h11.CLIENT)
    server = h11.Connection(h11.SERVER)
    full_cycle(client, server)
    client.start_next_cycle()
    assert client.states == {h11.CLIENT: h11.IDLE, h11.SERVER: h11.IDLE}
    server.start_next_cycle()
    full_cycle(client, server)
    assert server.states == {h11.CLIENT: h11.DONE, h11.SERVER: h11.DONE}


def test_start_next_cycle_refuses_an_unfinished_connection():
    client = h11.Connection(h11.CLIENT)
    client.send(h11.Request(method="GET", target="/", headers=[("Host", "a")]))
    with pytest.raises(h11.LocalProtocolError):
        client.start_next_cycle()


def test_connection_close_request_moves_both_sides_to_must_close():
    client = h11.Connection(h11.CLIENT)
    client.send(h11.Request(method="GET", target="/", headers=[("Host", "a"), ("Connection", "close")]))
    client.send(h11.EndOfMessage())
    assert client.states == {h11.CLIENT: h11.MUST_CLOSE, h11.SERVER: h11.SEND_RESPONSE}


def test_upgrade_request_waits_in_might_switch_protocol():
    client = h11.Connection(h11.CLIENT)
    client.send(h11.Request(method="GET", target="/", headers=[("Host", "a"), ("Upgrade", "websocket"), ("Connection", "upgrade")]))
    client.send(h11.EndOfMessage())
    assert client.our_state is h11.MIGHT_SWITCH_PROTOCOL
    client.receive_data(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: upgrade\r\n\r\n")
    assert isinstance(client.next_event(), h11.InformationalResponse)
    assert client.states == {h11.CLIENT: h11.SWITCHED_PROTOCOL, h11.SERVER: h11.SWITCHED_PROTOCOL}


# Internal: ConnectionState and the transition tables.
def test_new_connection_state_is_idle_and_keep_alive():
    cs = ConnectionState()
    assert cs.states == {CLIENT: IDLE, SERVER: IDLE}
    assert cs.keep_alive is True
    assert cs.pending_switch_proposals == set()


def test_process_event_request_moves_server_to_send_response():
    cs = ConnectionState()
    cs.process_event(CLIENT, Request)
    assert cs.states == {CLIENT: SEND_BODY, SERVER: SEND_RESPONSE}
    cs.process_event(CLIENT, Data)
    cs.process_event(CLIENT, EndOfMessage)
    cs.process_event(SERVER, InformationalResponse)
    cs.process_event(SERVER, Response)
    cs.process_event(SERVER, EndOfMessage)
    assert cs.states == {CLIENT: DONE, SERVER: DONE}


def test_process_event_refuses_an_event_the_state_does_not_allow():
    cs = ConnectionState()
    with pytest.raises(h11.LocalProtocolError) as excinfo:
        cs.process_event(CLIENT, Data)
    assert str(excinfo.value) == "can't handle event type Data when role=CLIENT and state=IDLE"


def test_keep_alive_disabled_turns_done_into_must_close():
    cs = ConnectionState()
    cs.process_event(CLIENT, Request)
    cs.process_event(CLIENT, EndOfMessage)
    cs.process_keep_alive_disabled()
    assert cs.keep_alive is False
    assert cs.states == {CLIENT: MUST_CLOSE, SERVER: SEND_RESPONSE}


def test_closing_client_forces_server_to_must_close():
    cs = ConnectionState()
    cs.process_event(CLIENT, ConnectionClosed)
    assert cs.states == {CLIENT: CLOSED, SERVER: MUST_CLOSE}
    cs = ConnectionState()
    cs.process_error(SERVER)
    assert cs.states == {CLIENT: IDLE, SERVER: ERROR}


def test_switch_proposal_accepted_by_the_server():
    cs = ConnectionState()
    cs.process_client_switch_proposal(_SWITCH_UPGRADE)
    cs.process_event(CLIENT, Request)
    cs.process_event(CLIENT, EndOfMessage)
    assert cs.states == {CLIENT: MIGHT_SWITCH_PROTOCOL, SERVER: SEND_RESPONSE}
    with pytest.raises(h11.LocalProtocolError):
        cs.process_event(SERVER, Response, _SWITCH_CONNECT)
    cs.process_event(SERVER, InformationalResponse, _SWITCH_UPGRADE)
    assert cs.states == {CLIENT: SWITCHED_PROTOCOL, SERVER: SWITCHED_PROTOCOL}


def test_switch_proposal_declined_by_a_plain_response():
    cs = ConnectionState()
    cs.process_client_switch_proposal(_SWITCH_CONNECT)
    cs.process_event(CLIENT, Request)
    cs.process_event(CLIENT, EndOfMessage)
    assert cs.states[CLIENT] is MIGHT_SWITCH_PROTOCOL
    cs.process_event(SERVER, Response)
    assert cs.pending_switch_proposals == set()
    assert cs.states == {CLIENT: DONE, SERVER: SEND_BODY}


def test_start_next_cycle_needs_both_sides_done():
    cs = ConnectionState()
    with pytest.raises(h11.LocalProtocolError):
        cs.start_next_cycle()
    cs.process_event(CLIENT, Request)
    cs.process_event(CLIENT, EndOfMessage)
    cs.process_event(SERVER, Response)
    with pytest.raises(h11.LocalProtocolError):
        cs.start_next_cycle()
    cs.process_event(SERVER, EndOfMessage)
    cs.start_next_cycle()
    assert cs.states == {CLIENT: IDLE, SERVER: IDLE}
