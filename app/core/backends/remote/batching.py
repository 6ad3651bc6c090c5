"""A stream read a socket read at a time, not a line at a time (Qt-free).

At tens of thousands of tiny deltas a second, Python run per SSE line / per
NDJSON line on the producer thread competes with the GUI thread for the GIL
(issue #18). The readers here take one raw read (up to 64 KB, hundreds of
events) and find its whole events with bytes operations that run in C
(``rfind``, ``count``, ``split``, ``replace``, one ``decode``), and
``decode_json_batch`` parses all their JSON payloads with the C scanner
mapped over them, so the Python run per event is a few list operations.

Exactness: only a *plain* stretch takes the fast way: for SSE, whole events
each exactly one ``data: `` line (any mix of ``\\n``, ``\\r\\n``, ``\\r``
line ends), for NDJSON whole lines; its size under the line and event limits.
Everything else (a partial event at either end of a read, a comment, an
``event:``/``id:``/``retry:`` field, a multi-line ``data``, a blank-line run,
the stream's first line with its byte-order mark, a stretch past a limit)
goes through ``reading``'s per-line splitter and ``SSEParser``, so the
events, limits and errors are those of the per-line path
(tests/core/backends/remote/test_batching.py checks it against them on random
streams cut at random places). A payload the batch cannot parse exactly is
left for the caller's per-event path (its careful message).

One reader per response, used by the thread reading it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import repeat
from operator import itemgetter
from typing import Any

from app.core.backends.remote.reading import _SSE_NEWLINE, ReadLimitError, SSEParser, _line

#: json's C scanner (what ``json.loads`` runs): (value, end) of the JSON value at an index.
_SCAN: Callable[[str, int], tuple[Any, int]] = json.JSONDecoder().scan_once  # type: ignore[attr-defined]  # set in __init__, not in typeshed
#: Payloads scanned per C call (about 0.3 ms of GIL for short deltas).
JSON_SLICE = 128
_VALUE = itemgetter(0)
_END = itemgetter(1)
_DATA_SEP = "\n\ndata: "


@dataclass
class EventRun:
    """Consecutive events of one type (``event``: "" = "message"), their data in order."""

    event: str
    data: list[str] = field(default_factory=list)


#: What a reader hands on, in stream order: a run of events, or None for a comment line (a keep-alive).
SSEItem = EventRun | None


class SSEReader:
    """Server-sent events of a stream fed one read at a time (``feed``),
    then ``close`` at its end. Lines over ``max_line`` bytes or events over
    ``max_event`` bytes of data raise ``ReadLimitError`` as the per-line path does."""

    def __init__(self, max_line: int, max_event: int) -> None:
        self._max_line = max_line
        self._plain_max = min(max_line, max_event)
        self._parser = SSEParser(max_event)
        self._pending = bytearray()
        self._skip_lf = False
        self._error: ReadLimitError | None = None

    def feed(self, chunk: bytes) -> list[SSEItem]:
        """The events (and comment lines) ``chunk`` completes. A limit passed
        in it raises once the events before it were handed on (next call)."""
        _raise_pending(self._error)
        out: list[SSEItem] = []
        try:
            self._feed(chunk, out)
        except ReadLimitError as exc:
            if not out:
                raise
            self._error = exc
        return out

    def _feed(self, chunk: bytes, out: list[SSEItem]) -> None:
        at = 0
        if self._skip_lf:
            self._skip_lf = False
            if chunk[:1] == b"\n":
                at = 1  # the "\n" of a "\r\n" cut between two reads
        if not self._idle():
            at = self._slow(chunk, at, out, until_idle=True)
        end = _last_blank_line_end(chunk, at)
        if end > at:
            if end - at <= self._plain_max and self._plain(chunk[at:end], out):
                at = end
            else:
                at = self._slow(chunk, at, out, until_idle=False, stop=end)
        if at < len(chunk):
            self._slow(chunk, at, out, until_idle=False)

    def close(self) -> list[SSEItem]:
        """The end of the stream: an unterminated last line is read too
        (it can be a comment; an event needs its blank line to count)."""
        _raise_pending(self._error)
        out: list[SSEItem] = []
        if self._pending:
            line = bytes(self._pending)
            self._pending.clear()
            self._on_line(line, out)
        return out

    def _idle(self) -> bool:
        return not self._pending and self._parser.idle

    def _plain(self, block: bytes, out: list[SSEItem]) -> bool:
        """``block`` (whole events from an idle state, ending with a blank
        line) read the fast way if it is only one-line ``data: `` events."""
        if b"\r" in block:
            block = block.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        events = block.count(b"\n\ndata:") + 1
        if not block.startswith(b"data:") or block.count(b"\n") != 2 * events:
            return False
        # Every "\n" is in a "\n\ndata:" or the final "\n\n": the events are
        # exactly the "data:" lines, each value free of line ends.
        text = block.decode("utf-8", "replace")
        if block.count(b"\n\ndata: ") + block.startswith(b"data: ") == events:
            data = text[6:-2].split(_DATA_SEP)  # each "data: ": its one space goes
        else:  # some servers write "data:" with no space
            data = [d[1:] if d[:1] == " " else d for d in text[5:-2].split(_DATA_SEP[:-1])]
        if out and isinstance(out[-1], EventRun) and not out[-1].event:
            out[-1].data += data
        else:
            out.append(EventRun("", data))
        return True

    def _slow(self, chunk: bytes, at: int, out: list[SSEItem], *, until_idle: bool, stop: int = -1) -> int:
        """Lines of ``chunk[at:stop]`` through the per-line path; with
        ``until_idle``, only until an event is complete (or a blank line
        read). Returns where it stopped."""
        stop = len(chunk) if stop < 0 else stop
        while at < stop:
            match = _SSE_NEWLINE.search(chunk, at, stop)
            if match is None:
                if len(self._pending) + stop - at > self._max_line:
                    raise ReadLimitError("line", self._max_line)
                self._pending += chunk[at:stop]
                return stop
            line = _line(self._pending, chunk, at, match.start(), self._max_line)
            at = match.end()
            if at == len(chunk) and match.group() == b"\r":
                self._skip_lf = True
            self._on_line(line, out)
            if until_idle and self._idle():
                break
        return at

    def _on_line(self, line: bytes, out: list[SSEItem]) -> None:
        if line[:1] == b":":
            out.append(None)
            return
        event = self._parser.feed(line)
        if event is None:
            return
        last = out[-1] if out else None
        if last is not None and last.event == event.event:
            last.data.append(event.data)
        else:
            out.append(EventRun(event.event, [event.data]))


def _last_blank_line_end(chunk: bytes, at: int) -> int:
    """Just after the last blank line of ``chunk[at:]`` that ends with "\\n"
    (a line end, then "\\n" or "\\r\\n": "\\n\\n", "\\n\\r\\n" or "\\r\\r\\n");
    ``at`` when there is none. (Ending in "\\n", it cannot be half a "\\r\\n".)"""
    lf = chunk.rfind(b"\n\n", at)
    end = lf + 2 if lf >= 0 else at
    for pattern in (b"\n\r\n", b"\r\r\n"):
        found = chunk.rfind(pattern, at)
        if found >= 0:
            end = max(end, found + 3)
    return end


class NDJSONReader:
    """The lines of a newline-delimited stream fed one read at a time: each
    ``feed`` returns the lines it completes (without "\\n", a "\\r" before it
    dropped), as bytes, like ``reading.iter_lines(..., sse=False)``."""

    def __init__(self, max_line: int) -> None:
        self._max_line = max_line
        self._pending = bytearray()
        self._error: ReadLimitError | None = None

    def feed(self, chunk: bytes) -> list[bytes]:
        """The lines ``chunk`` completes. A line over the limit raises once
        the lines before it were handed on (at the next call)."""
        _raise_pending(self._error)
        first = chunk.find(b"\n")
        if first < 0:
            if len(self._pending) + len(chunk) > self._max_line:
                raise ReadLimitError("line", self._max_line)
            self._pending += chunk
            return []
        line = _line(self._pending, chunk, 0, first, self._max_line)
        lines = [line[:-1] if line.endswith(b"\r") else line]
        last = chunk.rfind(b"\n")
        if last > first:
            block = chunk[first + 1:last]
            more = block.split(b"\n")
            if last - first - 1 > self._max_line:
                too_long = [k for k, x in enumerate(more) if len(x) > self._max_line]
                if too_long:
                    del more[too_long[0]:]
                    self._error = ReadLimitError("line", self._max_line)
            if b"\r" in block:
                more = [x[:-1] if x.endswith(b"\r") else x for x in more]
            lines += more
            if self._error is not None:
                return lines
        if len(chunk) - last - 1 > self._max_line:
            self._error = ReadLimitError("line", self._max_line)
            return lines
        self._pending += chunk[last + 1:]
        return lines

    def close(self) -> list[bytes]:
        _raise_pending(self._error)
        if not self._pending:
            return []
        line = bytes(self._pending)
        self._pending.clear()
        return [line[:-1] if line.endswith(b"\r") else line]


def _raise_pending(error: ReadLimitError | None) -> None:
    if error is not None:
        raise error


def decode_json_batch(texts: list[str]) -> list[Any] | None:
    """``[json.loads(t) for t in texts]`` in one pass of the C scanner, or
    None when any of them is not exactly one JSON value with nothing around
    it (then the caller reads them one by one, for the right message)."""
    found: list[tuple[Any, int]] = []
    try:
        for start in range(0, len(texts), JSON_SLICE):
            # In slices: one C call holds the GIL throughout (the GUI thread waits).
            found += map(_SCAN, texts[start:start + JSON_SLICE], repeat(0))
    except (ValueError, RecursionError):
        return None
    # A value the scanner cannot start ends map early (StopIteration).
    if len(found) != len(texts) or list(map(_END, found)) != list(map(len, texts)):
        return None
    return list(map(_VALUE, found))
