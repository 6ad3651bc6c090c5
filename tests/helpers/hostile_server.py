"""A raw-socket HTTP server whose answers a test writes byte by byte.

The fault server (fault_server.py) breaks well-formed llama-server/Ollama
answers; this one lets a test be any server at all: an endless body, a gzip
bomb, a 2 GB line, a reason phrase holding the key, a redirect to another
address. Stdlib only, real sockets on 127.0.0.1.

Each connection's request is read (request line, headers, a Content-Length
body), recorded, and handed to ``handler(exchange)``, which writes what it
likes with ``exchange.send(...)`` (or the helpers ``head``/``chunk``) and
returns; the connection is then closed. ``send`` raises ``ClientGone`` once
the client has left, so an endless handler ends when the client does::

    def endless(ex: Exchange) -> None:
        ex.head(200, [("Content-Type", "application/json")])
        while True:
            ex.send(b"x" * 65536)

    with HostileServer(endless) as server:
        ...  # point a client at server.url
        assert server.client_gone.wait(5)

``stop()`` shuts every connection down and joins every thread (the conftest
fails a test that leaks one).
"""

from __future__ import annotations

import socket
import threading
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

__all__ = ["ClientGone", "Exchange", "HostileServer", "Request", "gzip_zeros"]


class ClientGone(Exception):
    """The client closed or reset the connection (or the server is stopping)."""


@dataclass
class Request:
    method: str
    path: str
    headers: dict[str, str]  # lower-case names
    body: bytes


@dataclass
class Exchange:
    """One request and the socket to answer it on."""

    request: Request
    sock: socket.socket
    stopping: threading.Event
    sent: int = 0  # bytes sent so far on this connection
    _gone: threading.Event = field(default_factory=threading.Event)

    def send(self, data: bytes) -> None:
        if self.stopping.is_set():
            raise ClientGone()
        try:
            self.sock.sendall(data)
        except OSError as exc:
            self._gone.set()
            raise ClientGone() from exc
        self.sent += len(data)

    def head(self, status: int, headers: list[tuple[str, str]], reason: str = "OK", *,
             chunked: bool = False) -> None:
        """Status line and headers (raw: ``reason`` and values go out as given,
        encoded as Latin-1 the way HTTP/1.1 carries them)."""
        lines = [f"HTTP/1.1 {status} {reason}"] + [f"{k}: {v}" for k, v in headers]
        if chunked:
            lines.append("Transfer-Encoding: chunked")
        self.send(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))

    def chunk(self, data: bytes) -> None:
        """One HTTP chunk (after ``head(..., chunked=True)``); b"" ends the body."""
        self.send(f"{len(data):x}\r\n".encode() + data + b"\r\n")

    def wait(self, seconds: float) -> None:
        """Sleep ``seconds``, or less if the server stops (then ``ClientGone``)."""
        if self.stopping.wait(seconds):
            raise ClientGone()

    def client_left(self, timeout: float = 0.0) -> bool:
        """True once the client has closed its side (nothing more to read)."""
        self.sock.settimeout(timeout)
        try:
            data = self.sock.recv(65536, socket.MSG_PEEK)
        except (TimeoutError, BlockingIOError):
            return False
        except OSError:
            return True
        return data == b""


def gzip_zeros(block: int = 1024 * 1024) -> Iterator[bytes]:
    """An endless gzip stream of zero bytes (about 1 KB per MB unpacked)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    zeros = bytes(block)
    first = True
    while True:
        data = packer.compress(zeros) + packer.flush(zlib.Z_SYNC_FLUSH)
        if first or data:
            first = False
            yield data


class HostileServer:
    """Serves ``handler`` on 127.0.0.1 (a free port), one thread per connection."""

    def __init__(self, handler: Callable[[Exchange], None]) -> None:
        self.handler = handler
        self.requests: list[Request] = []
        self.errors: list[str] = []
        #: Set when a handler's ``send`` found the client gone.
        self.client_gone = threading.Event()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(0.05)
        self._port = int(self._listener.getsockname()[1])
        self._threads: list[threading.Thread] = []
        self._socks: list[socket.socket] = []
        self._acceptor = threading.Thread(target=self._accept, name="hostile-accept", daemon=True)

    @property
    def port(self) -> int:
        return self._port

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> HostileServer:
        self._acceptor.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        self._acceptor.join(5)
        self._listener.close()
        with self._lock:
            socks, threads = list(self._socks), list(self._threads)
        for sock in socks:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        for thread in threads:
            thread.join(5)
        for sock in socks:
            sock.close()

    def __enter__(self) -> HostileServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def wait_for(self, predicate: Callable[[], bool], timeout: float = 5.0) -> bool:
        """Wait (in 10 ms steps) until ``predicate()`` is true."""
        done = threading.Event()
        for _ in range(int(timeout * 100)):
            if predicate():
                return True
            done.wait(0.01)
        return predicate()

    def _accept(self) -> None:
        while not self._stopping.is_set():
            try:
                sock, _ = self._listener.accept()
            except (TimeoutError, OSError):
                continue
            thread = threading.Thread(target=self._serve, args=(sock,), name="hostile-conn", daemon=True)
            with self._lock:
                self._socks.append(sock)
                self._threads.append(thread)
            thread.start()

    def _serve(self, sock: socket.socket) -> None:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            while not self._stopping.is_set():
                request = self._read_request(sock)
                if request is None:
                    return
                with self._lock:
                    self.requests.append(request)
                exchange = Exchange(request, sock, self._stopping)
                try:
                    sock.settimeout(None)
                    self.handler(exchange)
                except ClientGone:
                    self.client_gone.set()
                    return
                except Exception as exc:  # noqa: BLE001 - recorded for the test to see
                    self.errors.append(f"{type(exc).__name__}: {exc}")
                    return
                if exchange._gone.is_set():
                    self.client_gone.set()
                return  # one request per connection: the handler decides the framing
        finally:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def _read_request(self, sock: socket.socket) -> Request | None:
        sock.settimeout(0.1)
        data = b""
        while b"\r\n\r\n" not in data:
            if self._stopping.is_set():
                return None
            try:
                piece = sock.recv(65536)
            except TimeoutError:
                continue
            except OSError:
                return None
            if not piece:
                return None
            data += piece
        head, _, rest = data.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        method, path, _ = (lines[0].split(" ") + ["", ""])[:3]
        headers: dict[str, str] = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        length = int(headers.get("content-length", "0") or 0)
        while len(rest) < length:
            try:
                piece = sock.recv(65536)
            except TimeoutError:
                if self._stopping.is_set():
                    return None
                continue
            except OSError:
                return None
            if not piece:
                return None
            rest += piece
        return Request(method, path, headers, rest[:length])


# -- Streams that never end (the stream-limit tests and benchmarks/hostile.py) --

SSE_HEADERS = [("Content-Type", "text/event-stream")]


def endless_sse_line(ex: Exchange) -> None:
    """A ``data:`` line that never ends."""
    ex.head(200, SSE_HEADERS, chunked=True)
    ex.chunk(b'data: {"choices": [{"delta": {"content": "')
    block = b"x" * 65536
    while True:
        ex.chunk(block)


def endless_sse_event(first: bytes) -> Callable[[Exchange], None]:
    """``first`` (a whole event), then ``data:`` lines and never the blank line that ends an event."""
    def handler(ex: Exchange) -> None:
        ex.head(200, SSE_HEADERS, chunked=True)
        ex.chunk(first)
        line = b"data: " + b"y" * (512 * 1024) + b"\n"  # lines under the line limit, the event never ends
        while True:
            ex.chunk(line)
    return handler
