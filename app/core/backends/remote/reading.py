"""Bounded reads of a server's response: bodies, lines, SSE events (Qt-free).

Everything a server sends is read in raw pieces (one socket read each, at
most 64 KB) and every piece is checked against a limit (app.core.base.limits)
BEFORE it is kept, so no answer, however long, compressed or hostile, grows
memory past its limit:

* ``read_body``: a whole body (a model list, an error, a JSON reply) up to
  ``limit`` bytes; gzip and deflate are unpacked here, piece by piece, with the
  unpacked size capped as well (``zlib`` ``max_length``): a gzip bomb stops at
  the limit. Any other ``Content-Encoding`` is refused (``EncodingRefused``).
* ``iter_lines``: the lines of a stream, each at most ``max_line`` bytes
  (checked while the line grows, not once it ends).
* ``SSEParser``: WHATWG event-stream fields over those lines, an event's data
  at most ``max_event`` bytes.
* ``loads_gently``: ``json.loads`` that decodes a top-level array (or the
  arrays directly inside a top-level object: ``{"data": [...]}``) one element
  at a time. ``json.loads`` holds the GIL for the whole document (80 ms for a
  list of 200,000 models), which would stall the GUI thread although the
  list is read on a background thread; between elements the interpreter can
  switch threads.

Each raw read is followed by a look at ``cancel``: Stop ends a read loop
within one read, whatever the size of the line or event being read.

One thread per response (the one reading it).
"""

from __future__ import annotations

import json
import re
import threading
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import httpx

#: Content-Encoding values that mean "not compressed".
_IDENTITY = frozenset({"", "identity"})
_INFLATE = frozenset({"gzip", "x-gzip", "deflate"})
_SSE_NEWLINE = re.compile(rb"\r\n|\r|\n")


class ReadLimitError(Exception):
    """A response passed a limit. ``kind``: "line", "event", "body" or
    "inflated" (a compressed body that unpacks past ``limit``); ``limit`` in bytes."""

    def __init__(self, kind: str, limit: int) -> None:
        super().__init__(f"{kind} over {limit} bytes")
        self.kind = kind
        self.limit = limit


class EncodingRefused(Exception):
    """The response is compressed in a way that is not read here (``encoding``)."""

    def __init__(self, encoding: str) -> None:
        super().__init__(encoding)
        self.encoding = encoding


def content_encoding(response: httpx.Response) -> str:
    """The response's Content-Encoding, lower case, "" for none or identity."""
    value = response.headers.get("content-encoding", "").strip().lower()
    codings = [c.strip() for c in value.split(",") if c.strip() and c.strip() != "identity"]
    return ", ".join(codings)


def raw_chunks(response: httpx.Response, cancel: threading.Event | None = None) -> Iterator[bytes]:
    """The body as the socket delivers it (no decoding), ending early once
    ``cancel`` is set (checked after every read)."""
    if response.is_stream_consumed:
        # A response read already (tests build some from bytes): its content.
        yield response.content
        return
    for chunk in response.iter_raw():
        if cancel is not None and cancel.is_set():
            return
        if chunk:
            yield chunk


def read_body(response: httpx.Response, limit: int, cancel: threading.Event | None = None,
              *, truncate: bool = False) -> bytes:
    """The body, unpacked, at most ``limit`` bytes. More: ``ReadLimitError``
    ("body", or "inflated" when it was compressed), or with ``truncate`` the
    first ``limit`` bytes (an error body, of which only a quote is needed).
    Unknown compression: ``EncodingRefused``."""
    encoding = content_encoding(response)
    if response.is_stream_consumed:
        encoding = ""  # httpx unpacked it already
    if encoding and encoding not in _INFLATE:
        raise EncodingRefused(encoding)
    inflater = zlib.decompressobj(wbits=31) if encoding in ("gzip", "x-gzip") else None
    out = bytearray()
    for chunk in raw_chunks(response, cancel):
        if encoding == "deflate" and inflater is None:
            # RFC 9110 says zlib-wrapped; some servers send raw deflate.
            inflater = zlib.decompressobj(wbits=15 if _looks_zlib(chunk) else -15)
        pieces = _inflate(inflater, chunk, limit - len(out) + 1) if inflater is not None else (chunk,)
        for piece in pieces:
            if len(out) + len(piece) > limit:
                if truncate:
                    out += piece[: limit - len(out)]
                    return bytes(out)
                raise ReadLimitError("inflated" if encoding else "body", limit)
            out += piece
    return bytes(out)


def _looks_zlib(data: bytes) -> bool:
    return len(data) >= 2 and (data[0] & 0x0F) == 8 and ((data[0] << 8) | data[1]) % 31 == 0


def _inflate(inflater: zlib._Decompress, data: bytes, room: int) -> Iterator[bytes]:
    """``data`` unpacked in pieces of at most ``room`` bytes (then the caller
    knows the limit is passed, and stops asking)."""
    try:
        while data:
            piece = inflater.decompress(data, max(1, room))
            yield piece
            data = inflater.unconsumed_tail
            if not piece and not data:
                return
    except zlib.error as exc:
        raise httpx.DecodingError(f"the compressed body is damaged: {exc}") from None


def iter_lines(chunks: Iterable[bytes], max_line: int, *, sse: bool) -> Iterator[bytes]:
    """Lines of ``chunks``, without their ends. ``sse``: "\\r\\n", "\\r" and
    "\\n" end a line (the event-stream rules); else only "\\n" (NDJSON: JSON
    may carry U+2028 and friends raw; a "\\r" before the "\\n" is dropped).
    A line over ``max_line`` bytes raises ``ReadLimitError("line")`` as soon
    as it is that long. An unterminated last line is yielded too."""
    pending = bytearray()
    skip_lf = False
    for chunk in chunks:
        if skip_lf and chunk[:1] == b"\n":
            chunk = chunk[1:]
        skip_lf = False
        start = 0
        if sse:
            for match in _SSE_NEWLINE.finditer(chunk):
                yield _line(pending, chunk, start, match.start(), max_line)
                start = match.end()
                if match.end() == len(chunk) and match.group() == b"\r":
                    skip_lf = True  # a "\r\n" cut between two reads
        else:
            end = chunk.find(b"\n")
            while end != -1:
                line = _line(pending, chunk, start, end, max_line)
                yield line[:-1] if line.endswith(b"\r") else line
                start = end + 1
                end = chunk.find(b"\n", start)
        if len(pending) + len(chunk) - start > max_line:
            raise ReadLimitError("line", max_line)
        pending += chunk[start:]
    if pending:
        line = bytes(pending)
        yield line[:-1] if not sse and line.endswith(b"\r") else line


def _line(pending: bytearray, chunk: bytes, start: int, end: int, max_line: int) -> bytes:
    if len(pending) + end - start > max_line:
        raise ReadLimitError("line", max_line)
    if not pending:
        return chunk[start:end]
    line = bytes(pending) + chunk[start:end]
    pending.clear()
    return line


@dataclass(frozen=True)
class Event:
    """One server-sent event: its type ("" = "message") and its data."""

    event: str
    data: str


class SSEParser:
    """Event-stream fields (WHATWG): ``data:`` lines joined with "\\n", ``event:``,
    ``:`` comments skipped, a blank line dispatches. ``id`` and ``retry`` are
    read and not used (Rill does not reconnect a reply)."""

    def __init__(self, max_event: int) -> None:
        self._max_event = max_event
        self._data: list[bytes] = []
        self._size = 0
        self._event = b""
        self._first = True

    @property
    def idle(self) -> bool:
        """True between events (and past the stream's first line): no field
        of an event not yet complete is held."""
        return not self._first and not self._data and not self._event

    def feed(self, line: bytes) -> Event | None:
        """The event ``line`` completes, if any."""
        if self._first:
            self._first = False
            if line.startswith(b"\xef\xbb\xbf"):
                line = line[3:]  # a byte-order mark may start the stream
        if not line:
            if not self._data and not self._event:
                return None
            event = Event(self._event.decode("utf-8", "replace"),
                          b"\n".join(self._data).decode("utf-8", "replace"))
            self._data, self._size, self._event = [], 0, b""
            return event
        if line.startswith(b":"):
            return None
        name, _, value = line.partition(b":")
        if value.startswith(b" "):
            value = value[1:]
        if name == b"data":
            self._size += len(value) + 1
            if self._size > self._max_event:
                raise ReadLimitError("event", self._max_event)
            self._data.append(value)
        elif name == b"event":
            self._event = value[:256]
        return None


_DECODER = json.JSONDecoder()
_WS = re.compile(r"[ \t\n\r]*")


def loads_gently(text: str) -> Any:
    """``json.loads(text)`` (same result, same ``ValueError`` on bad JSON),
    decoding big arrays element by element (see the module docstring)."""
    end = _skip(text, 0)
    value: Any
    if text.startswith("[", end):
        value, end = _array(text, end)
    elif text.startswith("{", end):
        value, end = _object(text, end)
    else:
        value, end = _DECODER.raw_decode(text, end)
    if _skip(text, end) != len(text):
        raise ValueError("extra data after the JSON document")
    return value


def _skip(text: str, at: int) -> int:
    match = _WS.match(text, at)
    return match.end() if match else at


def _array(text: str, at: int) -> tuple[list[Any], int]:
    items: list[Any] = []
    at = _skip(text, at + 1)
    if text.startswith("]", at):
        return items, at + 1
    while True:
        item, at = _DECODER.raw_decode(text, _skip(text, at))
        items.append(item)
        at = _skip(text, at)
        if text.startswith(",", at):
            at += 1
        elif text.startswith("]", at):
            return items, at + 1
        else:
            raise ValueError(f"expected , or ] at {at}")


def _object(text: str, at: int) -> tuple[dict[str, Any], int]:
    out: dict[str, Any] = {}
    at = _skip(text, at + 1)
    if text.startswith("}", at):
        return out, at + 1
    while True:
        key, at = _DECODER.raw_decode(text, _skip(text, at))
        if not isinstance(key, str):
            raise ValueError(f"expected a key at {at}")
        at = _skip(text, at)
        if not text.startswith(":", at):
            raise ValueError(f"expected : at {at}")
        at = _skip(text, at + 1)
        if text.startswith("[", at):
            out[key], at = _array(text, at)
        else:
            out[key], at = _DECODER.raw_decode(text, at)
        at = _skip(text, at)
        if text.startswith(",", at):
            at += 1
        elif text.startswith("}", at):
            return out, at + 1
        else:
            raise ValueError(f"expected , or }} at {at}")
