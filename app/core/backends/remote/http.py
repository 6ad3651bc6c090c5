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

Deadlines: httpx's read timeout is per read, so a server that trickles a byte
now and then (or sends nothing but SSE keep-alive comments) would hold a
request forever. ``set_deadline(t)`` bounds every read from then on to end by
``t`` (``time.monotonic()``); a read that would go past it raises
``httpx.ReadTimeout`` and ``deadline_expired`` turns True. The model list sets
one deadline for the whole list; a stream moves it forward each time real data
arrives (so only data, not keep-alives, keeps a stream alive).

Redirects are never followed by the client (``follow_redirects=False``): the
backends decide (app.core.backends.remote.base: a GET may follow one to the
same address, nothing else does).

Credentials never go into a URL httpx sees (httpx logs URLs): a login from the
base URL is passed as ``auth`` (HTTP Basic). httpx also logs every response's
reason phrase, which a server may fill with anything (an API key echoed
back): a filter on the ``httpx`` logger puts the standard phrase for the code
in its place, and httpcore's debug traces keep only their event names (their
values hold the status line and headers). Both are installed when this
module is imported.
"""

from __future__ import annotations

import logging
import socket
import ssl
import threading
import time
from http import HTTPStatus
from typing import Any

import httpcore
import httpx


class _StandardReasonPhrase(logging.Filter):
    """httpx's "HTTP Request: …" records with the server's reason phrase
    replaced by the standard one for the status code (or none)."""

    FORMAT = 'HTTP Request: %s %s "%s %d %s"'

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if record.msg == self.FORMAT and isinstance(args, tuple) and len(args) == 5:
            code = args[3]
            try:
                phrase = HTTPStatus(code).phrase if isinstance(code, int) else ""
            except ValueError:  # not a code HTTPStatus knows
                phrase = ""
            record.args = (*args[:4], phrase)
        return True


class _TraceNamesOnly(logging.Filter):
    """httpcore's debug traces ("receive_response_headers.complete
    return_value=(b'HTTP/1.1', 418, b'<anything>', [...])") cut to the event name."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str) and not record.args and " " in record.msg:
            record.msg = record.msg.partition(" ")[0]
        return True


_HTTPX_LOG_FILTER = _StandardReasonPhrase()
_TRACE_FILTER = _TraceNamesOnly()
logging.getLogger("httpx").addFilter(_HTTPX_LOG_FILTER)
for _name in ("httpcore.connection", "httpcore.http11", "httpcore.http2", "httpcore.proxy"):
    logging.getLogger(_name).addFilter(_TRACE_FILTER)

#: The longest a connection may take to open (seconds).
CONNECT_TIMEOUT_MAX_S = 15.0


def connect_timeout(stall_s: float) -> float:
    """The connect timeout of a client whose stall timeout is ``stall_s``."""
    return min(stall_s, CONNECT_TIMEOUT_MAX_S)


class _Deadline:
    """The deadline the reads of one client keep (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._at: float | None = None
        self.expired = False

    def set(self, at: float | None) -> None:
        with self._lock:
            self._at = at
            self.expired = False

    def clamp(self, timeout: float | None) -> float | None:
        """``timeout`` shortened to the deadline; raises httpcore.ReadTimeout
        once it has passed."""
        with self._lock:
            at = self._at
        if at is None:
            return timeout
        left = at - time.monotonic()
        if left <= 0:
            self.expired = True
            raise httpcore.ReadTimeout("the deadline passed")
        return left if timeout is None else min(timeout, left)

    def passed(self) -> bool:
        with self._lock:
            at = self._at
        return at is not None and time.monotonic() >= at


class _DeadlineStream(httpcore.NetworkStream):
    """A network stream whose reads end by the client's deadline."""

    def __init__(self, inner: httpcore.NetworkStream, deadline: _Deadline) -> None:
        self._inner = inner
        self._deadline = deadline

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        try:
            return self._inner.read(max_bytes, self._deadline.clamp(timeout))
        except httpcore.ReadTimeout:
            if self._deadline.passed():
                self._deadline.expired = True
            raise

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, timeout)

    def close(self) -> None:
        self._inner.close()

    def start_tls(
        self, ssl_context: ssl.SSLContext, server_hostname: str | None = None, timeout: float | None = None
    ) -> httpcore.NetworkStream:
        return _DeadlineStream(self._inner.start_tls(ssl_context, server_hostname, timeout), self._deadline)

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class _RecordingBackend(httpcore.SyncBackend):
    def __init__(self, deadline: _Deadline | None = None) -> None:
        self._lock = threading.Lock()
        self._sockets: list[socket.socket] = []
        self._deadline = deadline or _Deadline()
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
        return _DeadlineStream(stream, self._deadline)

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

    def __init__(
        self,
        stall_s: float,
        headers: dict[str, str] | None = None,
        verify: bool = True,
        auth: tuple[str, str] | None = None,
    ) -> None:
        self._stall_s = stall_s
        self._headers = headers or {}
        self._verify = verify
        self._auth = auth
        self._deadline = _Deadline()
        self._lock = threading.Lock()
        self._client: httpx.Client | None = None
        self._backend: _RecordingBackend | None = None

    @property
    def client(self) -> httpx.Client:
        with self._lock:
            if self._client is None or (self._backend is not None and self._backend.aborted):
                old = self._client
                self._backend = _RecordingBackend(self._deadline)
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
        stall = self._stall_s
        timeout = httpx.Timeout(connect=connect_timeout(stall), read=stall, write=stall, pool=stall)
        return httpx.Client(transport=transport, timeout=timeout, headers=self._headers, trust_env=False,
                            follow_redirects=False, auth=self._auth)

    def set_deadline(self, at: float | None) -> None:
        """Every read from now on ends by ``at`` (``time.monotonic()``); None:
        no deadline (only the per-read stall timeout)."""
        self._deadline.set(at)

    @property
    def deadline_expired(self) -> bool:
        """True when a read was cut by the deadline (since the last ``set_deadline``)."""
        return self._deadline.expired

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
