"""app.core.backends.remote.http: AbortableClient, and the guard on the
httpx/httpcore internals it reaches into (it fails if they change)."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator

import httpcore
import httpx
import pytest

from app.core.backends.remote import http


def test_httpx_still_keeps_its_network_backend_where_the_client_replaces_it() -> None:
    transport = httpx.HTTPTransport(trust_env=False, retries=0)
    pool = transport._pool  # the reach-in this test guards
    assert isinstance(pool, httpcore.ConnectionPool)
    assert isinstance(pool._network_backend, httpcore.SyncBackend)
    client = http.AbortableClient(stall_s=5)
    try:
        inner = client.client._transport  # the client's transport, as httpx keeps it
        assert isinstance(inner, httpx.HTTPTransport)
        assert isinstance(inner._pool._network_backend, http._RecordingBackend)
    finally:
        client.close()


@pytest.fixture
def silent_server() -> Iterator[tuple[str, list[socket.socket]]]:
    """A server that accepts connections, reads the request and never answers."""
    listener = socket.create_server(("127.0.0.1", 0))
    accepted: list[socket.socket] = []
    stop = threading.Event()

    def serve() -> None:
        listener.settimeout(0.1)
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                continue
            accepted.append(conn)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}/", accepted
    stop.set()
    thread.join(5)
    listener.close()
    for conn in accepted:
        conn.close()


def test_abort_cuts_a_request_waiting_for_its_headers(silent_server: tuple[str, list[socket.socket]]) -> None:
    url, accepted = silent_server
    client = http.AbortableClient(stall_s=60)  # without abort() the read would wait a minute
    outcome: list[BaseException | httpx.Response] = []

    def request() -> None:
        try:
            outcome.append(client.client.get(url))
        except BaseException as exc:  # noqa: BLE001 - the outcome is what the test looks at
            outcome.append(exc)

    thread = threading.Thread(target=request)
    thread.start()
    deadline = threading.Event()
    while not accepted and not deadline.wait(0.01):
        pass
    client.abort()
    thread.join(10)
    assert not thread.is_alive(), "abort() did not unblock the read"
    assert len(outcome) == 1 and isinstance(outcome[0], httpx.TransportError), outcome
    assert client.aborted
    fresh = client.client  # a new pool after an abort
    assert not client.aborted and fresh is client.client
    client.close()


def test_a_connection_made_after_abort_is_refused_at_once() -> None:
    backend = http._RecordingBackend()
    backend.abort()
    listener = socket.create_server(("127.0.0.1", 0))
    try:
        with pytest.raises(httpcore.ConnectError):
            backend.connect_tcp("127.0.0.1", listener.getsockname()[1], timeout=5)
    finally:
        listener.close()
