"""An httpx client whose connections another thread can cut at once.

Threading rule: one ``AbortableClient`` is used by one thread (the inference
worker); ``abort()`` is the only method other threads may call.

Why: closing an httpx response from another thread does not unblock a read in
progress (see docs: streaming pitfalls), and a server reading a long prompt
sends no headers for seconds, so there is no response to close yet. The client
records the socket of every connection it opens (through a small httpcore
network backend); ``abort()`` shuts them down (``SHUT_RDWR``), which makes the
blocked read return at once, in the connect, header or body phase alike, and
tells the server the client has gone, so it stops generating.
"""

from __future__ import annotations

import socket
import threading
from typing import Any

import httpcore
import httpx


class _RecordingBackend(httpcore.SyncBackend):
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._sockets: list[socket.socket] = []
        self.aborted = False

    def connect_tcp(self, *args: Any, **kwargs: Any) -> httpcore.NetworkStream:
        stream = super().connect_tcp(*args, **kwargs)
        sock = stream.get_extra_info("socket")
        with self._lock:
            if self.aborted:
                stream.close()
                raise httpcore.ConnectError("the request was stopped")
            if sock is not None:
                self._sockets = [s for s in self._sockets if s.fileno() != -1]
                self._sockets.append(sock)
        return stream

    def abort(self) -> None:
        with self._lock:
            self.aborted = True
            sockets, self._sockets = self._sockets, []
        for sock in sockets:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:  # already closed
                pass


class AbortableClient:
    """``httpx.Client`` plus ``abort()``. After an abort the next ``client``
    access builds a fresh connection pool (keep-alive is lost, nothing else).

    ``stall_s`` is the read timeout: the longest silence accepted from the
    server between two bytes (connect timeout: min(stall_s, 15 s)).
    """

    def __init__(self, stall_s: float, headers: dict[str, str] | None = None, verify: bool = True) -> None:
        self._stall_s = stall_s
        self._headers = headers or {}
        self._verify = verify
        self._lock = threading.Lock()
        self._client: httpx.Client | None = None
        self._backend: _RecordingBackend | None = None

    @property
    def client(self) -> httpx.Client:
        with self._lock:
            if self._client is None or (self._backend is not None and self._backend.aborted):
                old = self._client
                self._backend = _RecordingBackend()
                self._client = self._make_client(self._backend)
            else:
                old = None
        if old is not None:
            old.close()
        return self._client

    def _make_client(self, backend: _RecordingBackend) -> httpx.Client:
        transport = httpx.HTTPTransport(verify=self._verify, trust_env=False, retries=0)
        # httpx has no public hook for its network backend; the pool keeps it
        # here (httpcore 1.x). tests/core/backends/remote/test_http.py fails if it moves.
        pool = transport._pool
        if not hasattr(pool, "_network_backend"):
            raise RuntimeError("httpcore's connection pool changed: cannot make requests abortable")
        pool._network_backend = backend
        timeout = httpx.Timeout(connect=min(self._stall_s, 15.0), read=self._stall_s, write=self._stall_s, pool=self._stall_s)
        return httpx.Client(transport=transport, timeout=timeout, headers=self._headers, trust_env=False, follow_redirects=True)

    @property
    def aborted(self) -> bool:
        with self._lock:
            return self._backend is not None and self._backend.aborted

    def abort(self) -> None:
        """Cut every connection now (any thread). Quick: a few syscalls."""
        with self._lock:
            backend = self._backend
        if backend is not None:
            backend.abort()

    def close(self) -> None:
        with self._lock:
            client, self._client, self._backend = self._client, None, None
        if client is not None:
            client.close()
