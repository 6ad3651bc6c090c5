"""Find in the conversation: one matching rule for the find bar and the
view, and the view's match cache (``FindHighlighter``).

The rule (``find_pattern``/``text_matches``): the needle as literal text,
case-insensitive (per character, so offsets stay those of the text), never
across a line or paragraph break. A message is searched as the text shown,
in the order shown (``message_texts``): its thoughts, then each rendered
unit (or the answer's source while it has no units); so the n-th match the
bar counts is the n-th the view highlights.

``FindHighlighter`` keeps the match ranges of each document: computed once
per document change or needle change, in time-boxed slices
(``app.ui.services.slicer.TimeSlicer``), never while painting; a streaming
tail is rescanned only where text was appended. Painting only reads the
cached ranges of the part of a document on screen.

Threading rule: GUI thread only (``text_matches`` and ``message_texts`` are
plain Python).
"""

from __future__ import annotations

import bisect
import re
import weakref
from collections.abc import Callable, Iterator

from PyQt6.QtCore import QRectF
from PyQt6.QtGui import QTextCursor, QTextDocument

from app.core.conversation.model import Message, Role
from app.core.render import blocks
from app.core.render.blocks import Unit
from app.core.text.thinking import thinking_spans
from app.ui.services.slicer import TimeSlicer

CHUNK = 65536  # characters matched per step of a long text
APPEND_SCAN_NOW = 8192  # appended characters scanned at once (see ``FindHighlighter.changed``)

_BREAKS = re.compile("[\n\u2029\u2028]")


def find_pattern(needle: str) -> re.Pattern[str] | None:
    """The compiled rule for ``needle`` (None: nothing to find)."""
    if not needle or _BREAKS.search(needle):
        return None
    return re.compile(re.escape(needle), re.IGNORECASE)


def text_matches(pattern: re.Pattern[str], text: str, start: int = 0, end: int | None = None) -> list[int]:
    """Start offsets of the non-overlapping matches in ``text[start:end]``
    (offsets into ``text``)."""
    return [m.start() for m in pattern.finditer(text, start, len(text) if end is None else end)]


def unit_text(unit: Unit) -> str:
    """The text shown for one unit (what its document holds)."""
    if unit.kind == "plain":
        return unit.body.removesuffix("\n")
    return blocks.units_plain_text([unit])


def thoughts_text(message: Message) -> str:
    """The thoughts as shown unfolded ("" without thinking)."""
    if message.role != Role.ASSISTANT.value:
        return ""
    spans = thinking_spans(message.content)
    if spans is None:
        return ""
    return message.content[spans.thoughts_start : spans.thoughts_end].strip()


def message_texts(message: Message) -> Iterator[str]:
    """The texts a message shows, in order: its thoughts, then its rendered
    units (or, not rendered yet, the answer's source)."""
    content = message.content
    start = 0
    if message.role == Role.ASSISTANT.value:
        spans = thinking_spans(content)
        if spans is not None:
            yield content[spans.thoughts_start : spans.thoughts_end].strip()
            start = spans.answer_start
    units = message.rendered
    if units is None:
        yield content[start:] if start else content
        return
    for unit in units:
        yield unit_text(unit)


def count_chunks(pattern: re.Pattern[str], text: str, width: int) -> Iterator[int]:
    """Match counts of ``text`` in chunks of about ``width`` characters (a
    match is counted in the chunk where it starts): the caller can stop
    between chunks."""
    at = 0
    while at < len(text):
        stop = min(len(text), at + width)
        k = 0
        last = at
        for m in pattern.finditer(text, at):
            if m.start() >= stop:
                break
            k += 1
            last = m.end()
        yield k
        at = max(stop, last)


def _utf16(text: str, offsets: list[int]) -> list[int]:
    """Code point offsets into ``text`` as document (UTF-16) positions."""
    if text.isascii():
        return offsets
    out: list[int] = []
    extra = 0
    prev = 0
    for off in offsets:
        chunk = text[prev:off]
        if not chunk.isascii():
            extra += sum(1 for ch in chunk if ord(ch) > 0xFFFF)
        out.append(off + extra)
        prev = off
    return out


class _Ranges:
    """The matches of one document: (start, end) positions, and how far the
    document has been scanned (a tail grows at its end)."""

    __slots__ = ("pending", "scanned", "shapes", "starts")

    def __init__(self) -> None:
        self.shapes: dict[tuple[int, int, float, int, int], QRectF] = {}
        self.starts: list[int] = []
        self.scanned = 0      # document positions before this are scanned
        self.pending = True   # a scan is queued


class FindHighlighter:
    """The view's find state: the needle, the current match, the cached
    match ranges per document."""

    def __init__(self, slicer: TimeSlicer, on_ready: Callable[[], None]) -> None:
        self._slicer = slicer
        self._on_ready = on_ready
        self.text = ""
        self.pattern: re.Pattern[str] | None = None
        self.current: tuple[str, int] | None = None  # message id, n-th match in it
        self._docs: weakref.WeakKeyDictionary[QTextDocument, _Ranges] = weakref.WeakKeyDictionary()
        self._thoughts: dict[str, tuple[str, int]] = {}  # message id -> (key, count)
        self._generation = 0
        self.scans = 0  # document scans run (tests)

    @property
    def active(self) -> bool:
        return self.pattern is not None

    def set_text(self, text: str) -> None:
        if text == self.text:
            return
        self.text = text
        self.pattern = find_pattern(text)
        self._docs = weakref.WeakKeyDictionary()
        self._thoughts = {}
        self._generation += 1

    def forget(self, message_ids: set[str]) -> None:
        """Those messages are gone."""
        if self.current is not None and self.current[0] in message_ids:
            self.current = None
        for mid in message_ids:
            self._thoughts.pop(mid, None)

    def clear(self) -> None:
        self.current = None
        self._docs = weakref.WeakKeyDictionary()
        self._thoughts = {}

    # -------------------------------------------------------------- documents

    def ranges(self, doc: QTextDocument, now: bool = False) -> list[int] | None:
        """Match start positions in ``doc`` (sorted; each match is
        ``len(text)`` long), or None while they are being computed (then
        they are asked for, in a later slice). ``now``: compute them at once
        (one document; never while painting)."""
        if self.pattern is None:
            return []
        entry = self._docs.get(doc)
        if entry is None:
            entry = self._docs[doc] = _Ranges()
            self._ask(doc, entry)
        if now and (entry.pending or entry.scanned < doc.characterCount() - 1):
            self._scan(doc, entry)
        return None if entry.pending else entry.starts

    def shapes(self, doc: QTextDocument) -> dict[tuple[int, int, float, int, int], QRectF]:
        """A cache the painter keeps match rectangles in, per (block
        position, block length, text width, offset in block, length)."""
        entry = self._docs.get(doc)
        if entry is None:
            return {}
        if len(entry.shapes) > 4096:
            entry.shapes.clear()
        return entry.shapes

    def changed(self, doc: QTextDocument) -> None:
        """Text was appended to ``doc`` (a tail, the thoughts): rescan its end,
        at once when little was appended (a tick's worth: the repaint the
        append asks for then shows its matches, and no second, full one is
        needed), otherwise in a later slice."""
        entry = self._docs.get(doc)
        if entry is None or entry.pending:
            return
        if doc.characterCount() - 1 - entry.scanned <= APPEND_SCAN_NOW:
            self._scan(doc, entry)
            return
        entry.pending = True
        self._ask(doc, entry)

    def invalidate(self, doc: QTextDocument) -> None:
        """``doc`` changed other than at its end: found again when next asked for."""
        self._docs.pop(doc, None)

    def cut_front(self, doc: QTextDocument, positions: int) -> None:
        """The first ``positions`` document positions of ``doc`` were removed."""
        entry = self._docs.get(doc)
        if entry is None:
            return
        k = bisect.bisect_left(entry.starts, positions)
        entry.starts = [s - positions for s in entry.starts[k:]]
        entry.scanned = max(0, entry.scanned - positions)

    def _ask(self, doc: QTextDocument, entry: _Ranges) -> None:
        generation = self._generation

        def job() -> None:
            if generation == self._generation and self._docs.get(doc) is entry and entry.pending:
                self._scan(doc, entry)
                self._on_ready()

        self._slicer.queue(f"find:{id(doc)}:{id(entry)}:{entry.scanned}", job)

    def _scan(self, doc: QTextDocument, entry: _Ranges) -> None:
        """Scan ``doc`` from where the last scan could still have missed a match."""
        assert self.pattern is not None
        self.scans += 1
        end = doc.characterCount() - 1
        back = max(0, entry.scanned - len(self.text) + 1)
        keep = bisect.bisect_left(entry.starts, back)
        del entry.starts[keep:]
        if back == 0:
            text = doc.toPlainText()
        else:
            cursor = QTextCursor(doc)
            cursor.setPosition(back)
            cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
            text = cursor.selectedText()
        entry.starts.extend(back + p for p in _utf16(text, text_matches(self.pattern, text)))
        entry.scanned = end
        entry.pending = False

    # -------------------------------------------------------------- counts

    def hidden_thought_matches(self, message_id: str, key: str, text: Callable[[], str]) -> int:
        """Matches in a message's thoughts while they are not shown (counted
        with the same rule on the text they would show; cached per ``key``)."""
        if self.pattern is None:
            return 0
        cached = self._thoughts.get(message_id)
        if cached is None or cached[0] != key:
            cached = self._thoughts[message_id] = (key, len(text_matches(self.pattern, text())))
        return cached[1]
