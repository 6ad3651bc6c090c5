"""A small fault-injecting HTTP server for the remote-backend tests and benchmarks.

Stdlib only (no Qt, no third-party packages). It speaks two protocols:

* OpenAI-compatible chat completions, streamed as SSE the way llama-server
  does it: ``data: {json}`` + blank line, a first delta
  ``{"role": "assistant", "content": null}``, content deltas, a last chunk with
  ``finish_reason`` and an empty delta, then ``data: [DONE]``; content type
  ``text/event-stream`` without a charset.  ``GET /v1/models`` lists models.
* Ollama's native ``POST /api/chat`` (NDJSON, one object per line, a final
  ``"done": true`` object) and ``GET /api/tags``.

What a response looks like (and how it breaks) is a :class:`Scenario`;
``server.scenario`` may be replaced at any time and the next request uses it::

    with FaultServer(Scenario(write_sizes=(1,), fault="close_mid")) as server:
        ...  # point a client at server.url
        assert server.client_gone.wait(5)

Everything a client sends is recorded (``server.requests``); what the server
noticed about the client is recorded too (``client_gone``,
``disconnect_times``, ``active_streams``, ``stalled``).  Tests wait on these
with :meth:`FaultServer.wait_for` instead of sleeping.

Transport details worth knowing when reading a test:

* Every response byte (status line, headers, chunked framing, body) goes
  through one writer. With ``write_sizes`` each logical write is cut into
  pieces of those sizes (the size sequence cycles over the whole response)
  and every piece is sent on its own (TCP_NODELAY, optional
  ``write_delay_s`` between pieces), so UTF-8 characters, SSE lines, chunk
  headers and even the status line arrive split anywhere.
* Streams use ``Transfer-Encoding: chunked`` (one HTTP chunk per SSE event /
  NDJSON line) and keep the connection alive afterwards, like llama-server
  and Ollama; ``Scenario(chunked=False)`` sends a close-delimited body instead.
* JSON is written with raw UTF-8 (``ensure_ascii=False``, like llama-server
  and Ollama); ``Scenario(ascii_json=True)`` escapes it as llama-cpp-python's
  server does.
"""

from __future__ import annotations

import dataclasses
import datetime
import email.utils
import itertools
import json
import math
import select
import socket
import socketserver
import threading
import time
import traceback
from collections.abc import Callable, Iterable
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, NamedTuple
from urllib.parse import urlsplit

__all__ = [
    "DEFAULT_TEXT",
    "FAULTS",
    "FaultServer",
    "RecordedRequest",
    "Scenario",
    "split_text",
]

#: The default reply: ASCII, CJK, emoji with skin tone and ZWJ sequences, a
#: combining accent (e + U+0301) next to a precomposed one, and a code fence.
DEFAULT_TEXT = (
    "Hello, world! Grüße — 你好，世界。\n"
    "Emoji: 👋🏽 👩\u200d💻 👨\u200d👩\u200d👧\u200d👦 🏳\ufe0f\u200d🌈\n"
    "Combining: e\u0301 and cafe\u0301 (precomposed: café).\n"
    "\n"
    "```python\n"
    "def greet(name: str) -> str:\n"
    '    return f"héllo {name} 😀"\n'
    "```\n"
    "Done."
)

#: Every value ``Scenario.fault`` accepts ("" = no fault).
FAULTS = frozenset(
    {
        "",
        "http401",
        "http403",
        "http404",
        "http429",
        "http500",
        "error_event",
        "malformed",
        "close_mid",
        "end_mid",
        "empty_stream",
        "stall",
        "not_stream",
        "html",
        "slow_headers",
    }
)
_HTTP_FAULTS = {"http401": 401, "http403": 403, "http404": 404, "http429": 429, "http500": 500}
_MID_STREAM_FAULTS = {"error_event", "malformed", "close_mid", "end_mid", "stall"}

ERROR_MESSAGE = "fault server: injected error"
HTML_BODY = (
    "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n"
    "<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx/1.24.0</center>\r\n"
    "</body>\r\n</html>\r\n"
)
RETRY_AFTER_S = 7


def split_text(text: str, pieces: int | None = None) -> list[str]:
    """``text`` cut into ``pieces`` nearly equal runs of code points (default:
    one piece per ~3 characters); never more pieces than characters, none for ""."""
    if not text:
        return []
    n = pieces if pieces is not None else math.ceil(len(text) / 3)
    n = max(1, min(n, len(text)))
    bounds = [i * len(text) // n for i in range(n + 1)]
    return [text[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]


@dataclasses.dataclass(frozen=True)
class Scenario:
    """How the next chat response is produced (and broken).

    Faults (``fault``):

    * ``http401/403/404/429/500``: that status before any stream, with an
      OpenAI-style body ``{"error": {"message", "type", "code"}}`` on
      ``/v1/...`` and an Ollama-style ``{"error": "..."}`` on ``/api/...``
      (404: ``model "x" not found, try pulling it first``); 429 carries
      ``Retry-After: 7``.
    * ``error_event``: after ``fail_after`` tokens, ``data: {"error": {...,
      "type": "server_error", "code": 500}}`` (Ollama: a line ``{"error":
      "..."}``), the response ends (no ``[DONE]`` / ``done``) and the
      connection is closed.
    * ``malformed``: after ``fail_after`` tokens one event/line whose JSON is
      cut off; the stream then carries on normally to ``[DONE]`` / ``done``
      (so both "skip" and "abort" client policies can be tested).
    * ``close_mid``: after ``fail_after`` tokens the connection is closed
      abruptly (chunked body not terminated: the client sees an incomplete
      body).
    * ``end_mid``: after ``fail_after`` tokens the response ends cleanly (HTTP
      framing complete) but without ``[DONE]`` / ``done``.
    * ``empty_stream``: 200 with the stream's headers, then a cleanly ended
      body with no event/line at all (what llama-cpp-python's server does for
      a streamed prompt longer than its context).
    * ``stall``: after ``fail_after`` tokens nothing more is sent; the
      connection stays open until the client goes away or the server stops.
    * ``not_stream``: 200 with one complete non-streaming JSON object
      (``chat.completion`` / Ollama's ``"done": true`` object),
      ``application/json``.
    * ``html``: 200 ``text/html`` (a proxy's error page).
    * ``slow_headers``: the request is read, then nothing at all is sent (not
      even headers) until the client disconnects or ``headers_delay_s``
      passes; after the delay the normal response follows.

    HTTP-status and ``html`` faults apply to the chat endpoints; with
    ``fault_listing=True`` also to ``GET /v1/models`` and ``GET /api/tags``.
    On a non-streaming request (OpenAI: ``"stream"`` not true; Ollama:
    ``"stream": false``) the mid-stream faults become: ``error_event`` -> 500
    JSON error, ``malformed`` -> a truncated JSON body, ``close_mid`` /
    ``end_mid`` -> connection closed with no response, ``stall`` -> no
    response until the client goes away.
    """

    text: str = DEFAULT_TEXT
    #: How many content tokens ``text`` is cut into (code-point boundaries);
    #: None: one per ~3 characters.
    pieces: int | None = None
    #: Raw socket write sizes in bytes, cycling; None: one write per event.
    write_sizes: tuple[int, ...] | None = None
    #: Pause between two raw pieces when ``write_sizes`` is set (seconds).
    write_delay_s: float = 0.0
    #: SSE line ending: "\n", "\r\n" or "\r" (NDJSON always uses "\n").
    newline: str = "\n"
    #: ``: keep-alive`` comment lines before every SSE event.
    comments: bool = False
    #: Every other SSE event's JSON pretty-printed over several ``data:`` lines.
    multiline_data: bool = False
    #: JSON with \\uXXXX escapes instead of raw UTF-8.
    ascii_json: bool = False
    #: Tokens per second (0 = as fast as possible).
    rate: float = 0.0
    fault: str = ""
    #: Tokens (reasoning + content, in sending order) before a mid-stream fault.
    fail_after: int = 3
    headers_delay_s: float = 10.0
    #: HTTP-status / html faults also on GET /v1/models and /api/tags.
    fault_listing: bool = False
    #: Sent first as ``delta.reasoning_content`` / ``message.thinking`` pieces.
    reasoning: str = ""
    #: "stop" or "length".
    finish_reason: str = "stop"
    #: OpenAI: a chunk with ``"choices": []`` and ``usage`` before ``[DONE]``.
    usage: bool = False
    #: Chunked transfer encoding (True) or a close-delimited body (False).
    chunked: bool = True
    #: Model ids listed by /v1/models (Ollama: with ":latest").
    models: tuple[str, ...] = ("fault-model", "fault-model-large")

    def __post_init__(self) -> None:
        if self.fault not in FAULTS:
            raise ValueError(f"unknown fault {self.fault!r}; one of {sorted(FAULTS)}")
        if self.newline not in ("\n", "\r\n", "\r"):
            raise ValueError(f"newline must be \\n, \\r\\n or \\r, not {self.newline!r}")
        if self.write_sizes is not None and (not self.write_sizes or min(self.write_sizes) < 1):
            raise ValueError("write_sizes must be positive sizes")
        if self.pieces is not None and self.pieces < 1:
            raise ValueError("pieces must be >= 1")
        if not self.models:
            raise ValueError("models must not be empty")

    def content_tokens(self) -> list[str]:
        return split_text(self.text, self.pieces)

    def reasoning_tokens(self) -> list[str]:
        return split_text(self.reasoning)


class RecordedRequest(NamedTuple):
    """One request as received; ``headers`` has lower-cased names."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any  # parsed JSON, or None (no body / not JSON)


class _ClientGone(Exception):
    pass


class _Stopping(Exception):
    pass


class _BadRequest(Exception):
    pass


class _Abort(Exception):
    """End the connection now without writing anything more."""


_CONNECTION_ERRORS = (BrokenPipeError, ConnectionResetError, ConnectionAbortedError)


class _Writer:
    """Every byte of one response goes through here (see the module docstring)."""

    def __init__(self, handler: _Handler, scenario: Scenario) -> None:
        self._handler = handler
        self._sock = handler.connection
        self._sizes = itertools.cycle(scenario.write_sizes) if scenario.write_sizes else None
        self._delay = scenario.write_delay_s
        self._stop = handler.owner._stop_event
        self.headers_sent = False

    def send(self, data: bytes) -> None:
        try:
            if self._sizes is None:
                self._sock.sendall(data)
                return
            pos = 0
            while pos < len(data):
                size = next(self._sizes)
                self._sock.sendall(data[pos : pos + size])
                pos += size
                if self._delay and pos < len(data) and self._stop.wait(self._delay):
                    raise _Stopping
        except (*_CONNECTION_ERRORS, OSError) as exc:
            if self._stop.is_set():
                raise _Stopping from exc
            if isinstance(exc, _CONNECTION_ERRORS):
                raise _ClientGone from exc
            raise


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "fault-server/1.0"
    sys_version = ""
    timeout = None
    server: _HTTPServer

    # -- plumbing ------------------------------------------------------------

    @property
    def owner(self) -> FaultServer:
        return self.server.owner

    def setup(self) -> None:
        super().setup()
        try:
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        except OSError:
            pass

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        pass  # quiet: tests read server.requests, not stderr

    def _read_body(self) -> bytes:
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            parts = []
            while True:
                line = self.rfile.readline(65537)
                if not line:
                    break
                try:
                    size = int(line.split(b";", 1)[0].strip() or b"0", 16)
                except ValueError:
                    raise _BadRequest("bad chunk size") from None
                if size == 0:
                    while self.rfile.readline(65537) not in (b"\r\n", b"\n", b""):
                        pass  # trailers
                    break
                parts.append(self.rfile.read(size))
                self.rfile.readline(3)
            return b"".join(parts)
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            raise _BadRequest("bad Content-Length") from None
        return self.rfile.read(length) if length > 0 else b""

    def _dispatch(self) -> None:  # every method: unknown ones get a JSON 404
        try:
            raw = self._read_body()
        except _BadRequest as exc:
            self.close_connection = True
            try:
                self._send_json(_Writer(self, Scenario()), 400, _openai_error(400, str(exc), "invalid_request_error"))
            except (*_CONNECTION_ERRORS, _ClientGone, _Stopping, OSError):
                pass
            return
        body: Any = None
        if raw:
            try:
                body = json.loads(raw)
            except ValueError:
                body = None
        path = urlsplit(self.path).path
        self.owner._record(
            RecordedRequest(self.command, path, {k.lower(): v for k, v in self.headers.items()}, body)
        )
        scenario = self.owner.scenario
        out = _Writer(self, scenario)
        routes: dict[str, tuple[str, Callable[[_Writer, Scenario, Any], None]]] = {
            "/v1/chat/completions": ("POST", self._openai_chat),
            "/v1/models": ("GET", self._openai_models),
            "/api/chat": ("POST", self._ollama_chat),
            "/api/tags": ("GET", self._ollama_tags),
        }
        try:
            if path not in routes:
                self._send_json(out, 404, _openai_error(404, f"Not found: {path}", "not_found_error"))
            elif routes[path][0] != self.command:
                self._send_json(
                    out, 405, _openai_error(405, f"Method {self.command} not allowed", "invalid_request_error")
                )
            else:
                routes[path][1](out, scenario, body)
        except _ClientGone:
            self.owner._note_client_gone()
            self.close_connection = True
        except (_Stopping, _Abort):
            self.close_connection = True

    # -- response primitives -------------------------------------------------


    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = _dispatch  # noqa: N815 - http.server's names

    def _start(self, out: _Writer, status: int, headers: Iterable[tuple[str, str]], chunked: bool) -> None:
        lines = [
            f"HTTP/1.1 {status} {HTTPStatus(status).phrase}",
            f"Server: {self.server_version}",
            f"Date: {email.utils.formatdate(usegmt=True)}",
            *(f"{k}: {v}" for k, v in headers),
        ]
        if chunked:
            lines.append("Transfer-Encoding: chunked")
        else:
            lines.append("Connection: close")
            self.close_connection = True
        out.send(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
        out.headers_sent = True

    def _send_full(self, out: _Writer, status: int, content_type: str, payload: bytes, extra=()) -> None:
        headers = [("Content-Type", content_type), ("Content-Length", str(len(payload))), *extra]
        lines = [
            f"HTTP/1.1 {status} {HTTPStatus(status).phrase}",
            f"Server: {self.server_version}",
            f"Date: {email.utils.formatdate(usegmt=True)}",
            *(f"{k}: {v}" for k, v in headers),
        ]
        out.send(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + payload)
        out.headers_sent = True

    def _send_json(self, out: _Writer, status: int, obj: Any, extra=(), ascii_json: bool = False) -> None:
        payload = json.dumps(obj, ensure_ascii=ascii_json).encode("utf-8")
        self._send_full(out, status, "application/json", payload, extra)

    @staticmethod
    def _chunk(chunked: bool, data: bytes) -> bytes:
        return b"%x\r\n%s\r\n" % (len(data), data) if chunked else data

    def _end(self, out: _Writer, chunked: bool) -> None:
        if chunked:
            out.send(b"0\r\n\r\n")

    def _close_now(self) -> None:
        """Close abruptly: no more bytes, no chunked terminator."""
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.close_connection = True
        raise _Abort

    def _wait(self, timeout: float | None) -> None:
        """Wait ``timeout`` seconds (None: for ever) while watching the socket
        for the client's EOF; raise _ClientGone / _Stopping."""
        result = self.owner._watch(self.connection, timeout)
        if result == "gone":
            raise _ClientGone
        if result == "stop":
            raise _Stopping

    def _http_fault(self, out: _Writer, scenario: Scenario, ollama: bool, body: Any) -> bool:
        """Send an HTTP-status or html fault if the scenario has one."""
        if scenario.fault == "html":
            self._send_full(out, 200, "text/html", HTML_BODY.encode())
            return True
        status = _HTTP_FAULTS.get(scenario.fault)
        if status is None:
            return False
        extra = [("Retry-After", str(RETRY_AFTER_S))] if status == 429 else []
        if ollama:
            model = _model_name(body, scenario, ollama=True)
            message = {
                401: "unauthorized",
                403: "forbidden",
                404: f'model "{model}" not found, try pulling it first',
                429: "too many requests, please retry later",
                500: "llama runner process has terminated: exit status 2",
            }[status]
            self._send_json(out, status, {"error": message}, extra)
        else:
            message, kind = {
                401: ("Invalid API Key", "authentication_error"),
                403: ("Forbidden: this key may not use this model", "permission_error"),
                404: ("The model does not exist", "not_found_error"),
                429: ("Rate limit reached, please retry later", "rate_limit_error"),
                500: ("Internal server error: injected by the fault server", "server_error"),
            }[status]
            self._send_json(out, status, _openai_error(status, message, kind), extra)
        return True

    # -- listings ------------------------------------------------------------

    def _openai_models(self, out: _Writer, scenario: Scenario, body: Any) -> None:
        if scenario.fault_listing and self._http_fault(out, scenario, False, body):
            return
        created = int(time.time())
        data = [{"id": m, "object": "model", "created": created, "owned_by": "fault-server"} for m in scenario.models]
        self._send_json(out, 200, {"object": "list", "data": data})

    def _ollama_tags(self, out: _Writer, scenario: Scenario, body: Any) -> None:
        if scenario.fault_listing and self._http_fault(out, scenario, True, body):
            return
        models = [
            {
                "name": f"{m}:latest",
                "model": f"{m}:latest",
                "modified_at": "2025-01-01T00:00:00.000000000Z",
                "size": 123 + i,
                "digest": f"{i:064x}",
                "details": {
                    "parent_model": "",
                    "format": "gguf",
                    "family": "llama",
                    "families": ["llama"],
                    "parameter_size": "135M",
                    "quantization_level": "Q4_1",
                },
            }
            for i, m in enumerate(scenario.models)
        ]
        self._send_json(out, 200, {"models": models})

    # -- chat: shared flow -----------------------------------------------------

    def _chat(self, out: _Writer, scenario: Scenario, body: Any, ollama: bool) -> None:
        if isinstance(body, dict):
            stream = body.get("stream", ollama) is not False if ollama else body.get("stream") is True
        else:
            stream = ollama
        if self._http_fault(out, scenario, ollama, body):
            return
        self.owner._stream_started()
        try:
            if scenario.fault == "slow_headers":
                self.owner._note_stalled()
                self._wait(scenario.headers_delay_s)
            fault = "" if scenario.fault == "slow_headers" else scenario.fault
            if fault == "empty_stream":
                ctype = "application/x-ndjson" if ollama else "text/event-stream"
                if stream:
                    self._start(out, 200, [("Content-Type", ctype)], scenario.chunked)
                    self._end(out, scenario.chunked)
                else:
                    self._send_full(out, 200, "application/json", b"")
            elif not stream or fault == "not_stream":
                self._chat_complete(out, scenario, body, ollama, fault if not stream else "")
            elif ollama:
                self._ollama_stream(out, scenario, body, fault)
            else:
                self._openai_stream(out, scenario, body, fault)
        finally:
            self.owner._stream_ended()

    def _tokens(self, scenario: Scenario) -> list[tuple[str, str]]:
        """(kind, text) in sending order: reasoning pieces first, then content."""
        return [("reasoning", t) for t in scenario.reasoning_tokens()] + [
            ("content", t) for t in scenario.content_tokens()
        ]

    def _before_token(self, scenario: Scenario) -> None:
        if scenario.rate > 0:
            self._wait(1.0 / scenario.rate)

    def _mid_fault(
        self, out: _Writer, scenario: Scenario, fault: str, chunked: bool, error_bytes: bytes, broken_bytes: bytes
    ) -> None:
        """Apply a mid-stream fault; returns only for "malformed" (stream goes on)."""
        if fault == "error_event":
            out.send(self._chunk(chunked, error_bytes))
            self._end(out, chunked)
            self._close_now()
        elif fault == "malformed":
            out.send(self._chunk(chunked, broken_bytes))
        elif fault == "close_mid":
            self._close_now()
        elif fault == "end_mid":
            self._end(out, chunked)
            self._close_now()
        elif fault == "stall":
            self.owner._note_stalled()
            self._wait(None)

    def _chat_complete(self, out: _Writer, scenario: Scenario, body: Any, ollama: bool, fault: str) -> None:
        """One JSON object (non-streaming request, or the not_stream fault)."""
        if fault in ("close_mid", "end_mid"):
            self._close_now()
        if fault == "stall":
            self.owner._note_stalled()
            self._wait(None)
        if fault == "error_event":
            obj = {"error": ERROR_MESSAGE} if ollama else _openai_error(500, ERROR_MESSAGE, "server_error")
            self._send_json(out, 500, obj)
            return
        model = _model_name(body, scenario, ollama)
        prompt_n = _prompt_tokens(body)
        tokens = self._tokens(scenario)
        completion_n = len(tokens)
        if ollama:
            message = {"role": "assistant", "content": scenario.text}
            if scenario.reasoning:
                message["thinking"] = scenario.reasoning
            obj = _ollama_final(model, scenario, prompt_n, completion_n)
            obj["message"] = message
        else:
            message = {"role": "assistant", "content": scenario.text}
            if scenario.reasoning:
                message["reasoning_content"] = scenario.reasoning
            obj = {
                "id": f"chatcmpl-fault{self.owner._next_id()}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": model,
                "system_fingerprint": "fault-server",
                "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": scenario.finish_reason}],
                "usage": {
                    "prompt_tokens": prompt_n,
                    "completion_tokens": completion_n,
                    "total_tokens": prompt_n + completion_n,
                },
            }
        payload = json.dumps(obj, ensure_ascii=scenario.ascii_json).encode("utf-8")
        if fault == "malformed":
            payload = payload[: len(payload) // 2]
        self._send_full(out, 200, "application/json", payload)

    # -- OpenAI SSE --------------------------------------------------------------

    def _openai_chat(self, out: _Writer, scenario: Scenario, body: Any) -> None:
        self._chat(out, scenario, body, ollama=False)

    def _openai_stream(self, out: _Writer, scenario: Scenario, body: Any, fault: str) -> None:
        nl = scenario.newline
        chunked = scenario.chunked
        model = _model_name(body, scenario, ollama=False)
        base = {
            "id": f"chatcmpl-fault{self.owner._next_id()}",
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": model,
            "system_fingerprint": "fault-server",
        }
        counter = itertools.count()

        def event(payload: Any) -> bytes:
            index = next(counter)
            if isinstance(payload, str):
                lines = [payload]
            else:
                multiline = scenario.multiline_data and index % 2 == 1
                text = json.dumps(
                    payload,
                    ensure_ascii=scenario.ascii_json,
                    indent=2 if multiline else None,
                    separators=(",", ": ") if multiline else (",", ":"),
                )
                lines = text.split("\n")
            prefix = ""
            if scenario.comments:
                # Alternate a comment in its own block with one glued to the event.
                prefix = f": keep-alive{nl}{nl}" if index % 2 == 0 else f": keep-alive{nl}"
            return (prefix + "".join(f"data: {line}{nl}" for line in lines) + nl).encode("utf-8")

        def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
            return {**base, "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]}

        self._start(out, 200, [("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache")], chunked)
        out.send(self._chunk(chunked, event(chunk({"role": "assistant", "content": None}))))
        error_bytes = event({"error": {"message": ERROR_MESSAGE, "type": "server_error", "code": 500}})
        broken = f'data: {{"choices":[{{"index":0,"delta":{{"content":"broken{nl}{nl}'.encode()
        tokens = self._tokens(scenario)
        mid = fault in _MID_STREAM_FAULTS
        for i, (kind, text) in enumerate(tokens):
            if mid and i == scenario.fail_after:
                self._mid_fault(out, scenario, fault, chunked, error_bytes, broken)
            self._before_token(scenario)
            key = "reasoning_content" if kind == "reasoning" else "content"
            out.send(self._chunk(chunked, event(chunk({key: text}))))
        if mid and scenario.fail_after >= len(tokens):
            self._mid_fault(out, scenario, fault, chunked, error_bytes, broken)
        out.send(self._chunk(chunked, event(chunk({}, scenario.finish_reason))))
        if scenario.usage:
            prompt_n = _prompt_tokens(body)
            usage = {"prompt_tokens": prompt_n, "completion_tokens": len(tokens), "total_tokens": prompt_n + len(tokens)}
            out.send(self._chunk(chunked, event({**base, "choices": [], "usage": usage})))
        out.send(self._chunk(chunked, event("[DONE]")))
        self._end(out, chunked)

    # -- Ollama NDJSON -----------------------------------------------------------

    def _ollama_chat(self, out: _Writer, scenario: Scenario, body: Any) -> None:
        self._chat(out, scenario, body, ollama=True)

    def _ollama_stream(self, out: _Writer, scenario: Scenario, body: Any, fault: str) -> None:
        chunked = scenario.chunked
        model = _model_name(body, scenario, ollama=True)

        def line(obj: Any) -> bytes:
            return (json.dumps(obj, ensure_ascii=scenario.ascii_json, separators=(",", ":")) + "\n").encode("utf-8")

        self._start(out, 200, [("Content-Type", "application/x-ndjson")], chunked)
        error_bytes = line({"error": ERROR_MESSAGE})
        broken = f'{{"model":"{model}","message":{{"role":"assistant","content":"broken\n'.encode()
        tokens = self._tokens(scenario)
        mid = fault in _MID_STREAM_FAULTS
        for i, (kind, text) in enumerate(tokens):
            if mid and i == scenario.fail_after:
                self._mid_fault(out, scenario, fault, chunked, error_bytes, broken)
            self._before_token(scenario)
            message = {"role": "assistant", "content": text if kind == "content" else ""}
            if kind == "reasoning":
                message["thinking"] = text
            obj = {"model": model, "created_at": _now_iso(), "message": message, "done": False}
            out.send(self._chunk(chunked, line(obj)))
        if mid and scenario.fail_after >= len(tokens):
            self._mid_fault(out, scenario, fault, chunked, error_bytes, broken)
        final = _ollama_final(model, scenario, _prompt_tokens(body), len(tokens))
        out.send(self._chunk(chunked, line(final)))
        self._end(out, chunked)


def _openai_error(code: int, message: str, kind: str) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, "type": kind}}


def _now_iso() -> str:
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _model_name(body: Any, scenario: Scenario, ollama: bool) -> str:
    if isinstance(body, dict) and isinstance(body.get("model"), str) and body["model"]:
        return body["model"]
    return f"{scenario.models[0]}:latest" if ollama else scenario.models[0]


def _prompt_tokens(body: Any) -> int:
    """A rough count (~4 characters per token) of the request's messages."""
    chars = 0
    if isinstance(body, dict) and isinstance(body.get("messages"), list):
        for message in body["messages"]:
            if isinstance(message, dict):
                chars += len(str(message.get("content") or ""))
    return max(1, chars // 4)


def _ollama_final(model: str, scenario: Scenario, prompt_n: int, completion_n: int) -> dict[str, Any]:
    return {
        "model": model,
        "created_at": _now_iso(),
        "message": {"role": "assistant", "content": ""},
        "done": True,
        "done_reason": scenario.finish_reason,
        "total_duration": 123_456_789,
        "load_duration": 1_234_567,
        "prompt_eval_count": prompt_n,
        "prompt_eval_duration": 2_345_678,
        "eval_count": completion_n,
        "eval_duration": 98_765_432,
    }


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False  # FaultServer.stop() ends connections itself
    allow_reuse_address = True

    def __init__(self, owner: FaultServer) -> None:
        self.owner = owner
        super().__init__(("127.0.0.1", 0), _Handler)

    def server_bind(self) -> None:
        # HTTPServer.server_bind calls socket.getfqdn(), a DNS lookup; skip it.
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = self.server_address[:2]

    def process_request(self, request: Any, client_address: Any) -> None:
        thread = threading.Thread(
            target=self._serve_connection,
            args=(request, client_address),
            name=f"fault-server-conn-{client_address[1]}",
            daemon=True,
        )
        self.owner._add_connection(request, thread)
        thread.start()

    def _serve_connection(self, request: Any, client_address: Any) -> None:
        try:
            self.finish_request(request, client_address)
        except Exception:  # noqa: BLE001 - never let a request crash or print
            self.handle_error(request, client_address)
        finally:
            self.shutdown_request(request)
            self.owner._remove_connection(request)

    def handle_error(self, request: Any, client_address: Any) -> None:
        import sys

        exc = sys.exc_info()[1]
        if isinstance(exc, (*_CONNECTION_ERRORS, _ClientGone, _Stopping, _Abort)) or self.owner._stop_event.is_set():
            return
        self.owner._record_error(traceback.format_exc())


class FaultServer:
    """A fault-injecting OpenAI-compatible + Ollama server on 127.0.0.1.

    ``FaultServer(scenario)``; use as a context manager or ``start()`` /
    ``stop()``.  Attributes for assertions:

    * ``requests``: list of :class:`RecordedRequest` (method, path, headers
      with lower-cased names, parsed JSON body or None);
    * ``client_gone``: Event set when a streaming response notices that the
      client disconnected (a failed write, or EOF seen while stalling/waiting);
    * ``disconnect_times``: ``time.monotonic()`` of each such detection;
    * ``active_streams``: chat responses currently in progress;
    * ``stalled``: Event set when a ``stall`` or ``slow_headers`` wait begins;
    * ``errors``: tracebacks of unexpected handler exceptions (never printed).
    """

    def __init__(self, scenario: Scenario | None = None) -> None:
        self.scenario: Scenario = scenario if scenario is not None else Scenario()
        self.requests: list[RecordedRequest] = []
        self.client_gone = threading.Event()
        self.stalled = threading.Event()
        self.disconnect_times: list[float] = []
        self.errors: list[str] = []
        self._active = 0
        self._streams_total = 0
        self._ids = itertools.count(1)
        self._cond = threading.Condition()
        self._stop_event = threading.Event()
        self._connections: set[Any] = set()
        self._threads: set[threading.Thread] = set()
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -----------------------------------------------------------------

    def start(self) -> FaultServer:
        if self._httpd is not None:
            return self
        self._stop_event.clear()
        self._httpd = _HTTPServer(self)
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, name="fault-server", daemon=True
        )
        self._thread.start()
        return self

    def stop(self, timeout: float = 1.0) -> None:
        """Stop serving and end every open connection (stalled streams too);
        returns within about ``timeout`` seconds."""
        httpd = self._httpd
        if httpd is None:
            return
        deadline = time.monotonic() + timeout
        self._stop_event.set()
        httpd.shutdown()  # serve_forever polls every 50 ms
        with self._cond:
            connections = list(self._connections)
            threads = list(self._threads)
        for sock in connections:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        httpd.server_close()
        if self._thread is not None:
            self._thread.join(max(0.0, deadline - time.monotonic()))
        for thread in threads:
            thread.join(max(0.0, deadline - time.monotonic()))
        self._httpd = None
        self._thread = None

    def __enter__(self) -> FaultServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("FaultServer is not running")
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    # -- state for assertions ----------------------------------------------------

    @property
    def active_streams(self) -> int:
        with self._cond:
            return self._active

    @property
    def streams_total(self) -> int:
        """Chat responses started since start (or :meth:`reset`)."""
        with self._cond:
            return self._streams_total

    def wait_for(self, predicate: Callable[[], bool], timeout: float = 5.0) -> bool:
        """Wait until ``predicate()`` is true (re-checked whenever the server's
        state changes, and every 50 ms); False on timeout."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while not predicate():
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self._cond.wait(min(remaining, 0.05))
        return True

    def reset(self) -> None:
        """Forget recorded requests, disconnects and errors."""
        with self._cond:
            self.requests.clear()
            self.disconnect_times.clear()
            self.errors.clear()
            self.client_gone.clear()
            self.stalled.clear()
            self._streams_total = 0

    # -- called from handler threads ------------------------------------------------

    def _record(self, request: RecordedRequest) -> None:
        with self._cond:
            self.requests.append(request)
            self._cond.notify_all()

    def _record_error(self, text: str) -> None:
        with self._cond:
            self.errors.append(text)
            self._cond.notify_all()

    def _next_id(self) -> int:
        return next(self._ids)

    def _note_client_gone(self) -> None:
        with self._cond:
            self.disconnect_times.append(time.monotonic())
            self.client_gone.set()
            self._cond.notify_all()

    def _note_stalled(self) -> None:
        with self._cond:
            self.stalled.set()
            self._cond.notify_all()

    def _stream_started(self) -> None:
        with self._cond:
            self._active += 1
            self._streams_total += 1
            self._cond.notify_all()

    def _stream_ended(self) -> None:
        with self._cond:
            self._active -= 1
            self._cond.notify_all()

    def _add_connection(self, sock: Any, thread: threading.Thread) -> None:
        with self._cond:
            self._connections.add(sock)
            self._threads.add(thread)

    def _remove_connection(self, sock: Any) -> None:
        with self._cond:
            self._connections.discard(sock)
            self._threads.discard(threading.current_thread())

    def _watch(self, sock: socket.socket, timeout: float | None) -> str:
        """Wait up to ``timeout`` s (None: no limit) for the client's EOF:
        "timeout", "gone" (EOF or reset) or "stop" (server stopping)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        peek = True
        while True:
            if self._stop_event.is_set():
                return "stop"
            step = 0.05
            if deadline is not None:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return "timeout"
                step = min(step, remaining)
            if not peek:
                self._stop_event.wait(step)
                continue
            try:
                readable, _, _ = select.select([sock], [], [], step)
                if not readable:
                    continue
                data = sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT)
            except BlockingIOError:
                continue
            except (OSError, ValueError):
                return "stop" if self._stop_event.is_set() else "gone"
            if not data:
                return "stop" if self._stop_event.is_set() else "gone"
            peek = False  # the client sent more (pipelining): EOF can no longer be seen
