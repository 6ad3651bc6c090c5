"""Streams from hostile servers (issue #17, items 5 and 6): an endless line,
an endless event, a gzip bomb, keep-alives forever, Stop during a huge line,
a reply past the reply limit; over real sockets."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable

import pytest

from app.core.backends.base import BackendError, CancelEvent, ChatMessage, FinishReason, GenerationRequest
from app.core.backends.remote.client import make_backend
from app.core.backends.remote.servers import ServerConfig
from app.core.base import limits
from tests.helpers.hostile_server import Exchange, HostileServer, endless_sse_event, endless_sse_line, gzip_zeros

REQUEST = GenerationRequest(1, (ChatMessage("user", "hi"),))
SSE = [("Content-Type", "text/event-stream")]
NDJSON = [("Content-Type", "application/x-ndjson")]


def config(url: str, kind: str = "openai", stall_s: float = 60.0) -> ServerConfig:
    return ServerConfig(name="Hostile", kind=kind, base_url=url, stall_s=stall_s)


def run(url: str, kind: str = "openai", stall_s: float = 60.0, cancel: threading.Event | None = None,
        on_piece: Callable[[str], None] | None = None) -> tuple[list[str], FinishReason | None, BackendError | None]:
    backend = make_backend(config(url, kind, stall_s), "m")
    pieces: list[str] = []
    gen = backend.generate(REQUEST, cancel or CancelEvent())
    try:
        while True:
            piece = next(gen)
            pieces.append(piece)
            if on_piece is not None:
                on_piece(piece)
    except StopIteration as stop:
        return pieces, stop.value, None
    except BackendError as exc:
        return pieces, None, exc
    finally:
        gen.close()
        backend.close()


def sse_event(obj: object) -> bytes:
    return b"data: " + json.dumps(obj).encode() + b"\n\n"


def content(text: str) -> dict[str, object]:
    return {"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}]}


endless_line = endless_sse_line


def endless_ndjson_line(ex: Exchange) -> None:
    ex.head(200, NDJSON, chunked=True)
    ex.chunk(b'{"message": {"content": "')
    while True:
        ex.chunk(b"x" * 65536)


@pytest.mark.parametrize(("kind", "handler"), [("openai", endless_line), ("ollama", endless_ndjson_line)])
def test_an_endless_line_stops_at_the_line_limit(kind: str, handler: Callable[[Exchange], None]) -> None:
    with HostileServer(handler) as server:
        pieces, reason, error = run(server.url, kind)
        assert server.client_gone.wait(5)
    assert error is not None, (reason, len(pieces))
    message = str(error)
    assert "sent a line longer than 4 MB, Rill's limit for one line" in message, message
    assert "context window" not in message  # not the empty-stream guess of before


endless_event = endless_sse_event(sse_event(content("hello ")))


def test_an_endless_event_stops_at_the_event_limit() -> None:
    with HostileServer(endless_event) as server:
        pieces, _, error = run(server.url)
        assert server.client_gone.wait(5)
    assert error is not None and "sent an event larger than 4 MB" in str(error), error
    assert "".join(pieces) == "hello "  # what came before is kept


def gzip_stream(ex: Exchange) -> None:
    ex.head(200, SSE + [("Content-Encoding", "gzip")], chunked=True)
    for piece in gzip_zeros():
        ex.chunk(piece)


def test_a_compressed_stream_is_refused_by_name() -> None:
    """Rill asks for identity; a gzip stream (here a bomb) is not unpacked at all."""
    with HostileServer(gzip_stream) as server:
        _, _, error = run(server.url)
        assert server.client_gone.wait(5)
    assert error is not None and "sent the reply compressed (gzip)" in str(error), error
    assert server.requests[0].headers.get("accept-encoding") == "identity"


def pings_forever(ex: Exchange) -> None:
    ex.head(200, SSE, chunked=True)
    ex.chunk(sse_event(content("a")))
    for _ in range(100):  # 20 s of keep-alives, then the stream ends (without [DONE])
        ex.chunk(b": ping\n\n")
        ex.wait(0.2)
    ex.chunk(b"")


def test_keep_alive_comments_do_not_reset_the_stall_timeout() -> None:
    with HostileServer(pings_forever) as server:
        pieces, _, error = run(server.url, stall_s=1.5)
        assert server.client_gone.wait(5)
    assert error is not None
    message = str(error)
    assert "sent only keep-alive messages and no reply for 1.5 s" in message, message
    assert "".join(pieces) == "a"


def empty_events_forever(ex: Exchange) -> None:
    ex.head(200, SSE, chunked=True)
    for _ in range(100):
        ex.chunk(b"data:\n\n\n\n")
        ex.wait(0.2)
    ex.chunk(b"")


def test_empty_events_do_not_reset_the_stall_timeout_either() -> None:
    with HostileServer(empty_events_forever) as server:
        _, _, error = run(server.url, stall_s=1.0)
    assert error is not None and "no reply for 1 s" in str(error), error


def test_a_silent_server_after_real_data_is_a_plain_stall() -> None:
    def handler(ex: Exchange) -> None:
        ex.head(200, SSE, chunked=True)
        ex.chunk(sse_event(content("a")))
        ex.wait(30)

    with HostileServer(handler) as server:
        _, _, error = run(server.url, stall_s=1.0)
    assert error is not None and "nothing arrived for 1 s" in str(error), error


def slow_real_data(ex: Exchange) -> None:
    """Data every 0.3 s with a 2 s stall timeout: longer in all (3 s) than
    the timeout, never silent for that long: must not be called stalled."""
    ex.head(200, SSE, chunked=True)
    for i in range(10):
        ex.chunk(b": ping\n\n")
        ex.chunk(sse_event(content(str(i))))
        ex.wait(0.3)
    ex.chunk(sse_event({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}))
    ex.chunk(b"data: [DONE]\n\n")
    ex.chunk(b"")


def test_real_data_keeps_a_slow_stream_alive() -> None:
    with HostileServer(slow_real_data) as server:
        pieces, reason, error = run(server.url, stall_s=2.0)
    assert error is None and reason is FinishReason.STOP and "".join(pieces) == "0123456789"


def slow_endless_line(kind: str, sent: list[int]) -> Callable[[Exchange], None]:
    """One endless line at 16 KB per 20 ms: the 4 MB line limit is 5 s away."""

    def handler(ex: Exchange) -> None:
        ex.head(200, SSE if kind == "openai" else NDJSON, chunked=True)
        ex.chunk(b'data: {"choices": [{"delta": {"content": "' if kind == "openai" else b'{"message": {"content": "')
        while True:
            ex.chunk(b"x" * 16384)
            sent.append(16384)
            ex.wait(0.02)

    return handler


@pytest.mark.parametrize("kind", ["openai", "ollama"])
def test_stop_during_an_endless_line_ends_the_worker_within_a_read(kind: str) -> None:
    """Stop while the server pours one endless line in (no event ever
    completes): the worker ends at once, long before the 4 MB line limit."""
    cancel = CancelEvent()
    sent: list[int] = []
    with HostileServer(slow_endless_line(kind, sent)) as server:
        outcome: list[object] = []

        def worker() -> None:
            outcome.append(run(server.url, kind, cancel=cancel))

        thread = threading.Thread(target=worker)
        thread.start()
        assert server.wait_for(lambda: sum(sent) >= 64 * 1024, 10)  # mid-line
        cancel.set()
        thread.join(10)
        assert not thread.is_alive()
        assert server.client_gone.wait(5)
    assert sum(sent) < limits.MAX_LINE_BYTES
    pieces, reason, error = outcome[0]  # type: ignore[misc]  # the tuple run() returns
    assert reason is FinishReason.CANCELLED and error is None, error


def big_reply(ex: Exchange) -> None:
    """5 events of 1,000,000 characters each: 5 M characters in all."""
    ex.head(200, SSE, chunked=True)
    for i in range(5):
        ex.chunk(sse_event(content(chr(ord("a") + i) * 1_000_000)))
    ex.chunk(b"data: [DONE]\n\n")
    ex.chunk(b"")


def test_a_huge_delta_never_travels_whole() -> None:
    """The backend hands 1,000,000-character deltas on in MAX_DELTA_CHARS
    pieces (the reply's own limit is the inference worker's: tests/ui/window/test_limits.py)."""
    with HostileServer(big_reply) as server:
        pieces, reason, error = run(server.url)
    assert error is None
    assert "".join(pieces) == "".join(chr(ord("a") + i) * 1_000_000 for i in range(5))
    assert max(len(p) for p in pieces) <= limits.MAX_DELTA_CHARS
