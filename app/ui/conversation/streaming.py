"""A streaming reply's tail (``StreamingTail``): streamed text routed to
the thoughts or to a plain tail document (appended through a private cursor
in O(len(text)), with display-only breaks from
``app.core.text.textbreak``), completed Markdown blocks sent to the render
thread, and the text they cover cut off the tail's front once their units
are in.

Threading rule: GUI thread only.
"""

from __future__ import annotations

import bisect

from PyQt6.QtGui import QTextCursor

from app.core.render import blocks
from app.core.render.blocks import PLAIN_PIECE, RENDER_LIMIT
from app.core.render.markdown import BlockScanner
from app.core.text.textbreak import DisplayBreaker
from app.core.text.thinking import ThinkingSplitter
from app.ui.conversation.documents import DocumentFactory
from app.ui.conversation.find import FindHighlighter
from app.ui.conversation.geometry import Metrics
from app.ui.conversation.items import BREAK_LIMIT, Item, ThoughtsState, utf16_prefix
from app.ui.conversation.thoughts import ThoughtsFold
from app.ui.services.render import PRIORITY_NOW, RenderJob, RenderService

#: One commit covers at most about this much text (whole blocks or pieces):
#: cutting a commit off the tail's front costs Qt time in proportion to it.
COMMIT_MAX_CHARS = 16384
#: A commit holds about this many formulas at most (see ``_math_bounded``).
COMMIT_MAX_FORMULAS = 8


def _math_bounded(content: str, start: int, cuts: list[int]) -> int:
    """The furthest of ``cuts`` (block ends after ``start``) whose commit
    holds at most about ``COMMIT_MAX_FORMULAS`` formulas (at least the first
    block): typesetting is the slow part of a render, and a commit that
    waits for a long one makes the next one longer still. Counted by
    delimiter characters, O(commit), no parsing."""
    weight, lo = 0, start
    for n, cut in enumerate(cuts):
        weight += content.count("$", lo, cut) + 2 * (content.count("\\(", lo, cut) + content.count("\\[", lo, cut))
        if n and weight > 2 * COMMIT_MAX_FORMULAS:
            return cuts[n - 1]
        lo = cut
    return cuts[-1]


class StreamingTail:
    """The streaming side of the items (see the module docstring)."""

    def __init__(
        self, docs: DocumentFactory, metrics: Metrics, thoughts: ThoughtsFold, find: FindHighlighter,
        render_service: RenderService,
    ) -> None:
        self._docs = docs
        self._metrics = metrics
        self._thoughts = thoughts
        self._find = find
        self._render = render_service

    def new_tail(self, item: Item) -> None:
        doc = self._docs.new_document()
        doc.setTextWidth(self._metrics.content_width())
        item.tail = doc
        item.tail_cursor = QTextCursor(doc)
        item.breaker = DisplayBreaker(BREAK_LIMIT)
        item.tail_height = 0.0
        item.tail_start = item.tail_end = item.committed
        item.tail_breaks = []

    def stream_text(self, item: Item, text: str) -> str:
        """Route streamed text: thinking to the item's thoughts, the answer to
        the tail; returns the answer part. Without a splitter (a user
        message, or a reply whose answer has begun) all of it is answer."""
        splitter = item.splitter
        if splitter is not None:
            thought, text = splitter.feed(text)
            if splitter.thoughts_start is not None:
                self.stream_thoughts(item, splitter, thought)
            if splitter.state == "answer":
                item.splitter = None  # from now on every piece is answer
                think = item.think
                if think is not None and splitter.answer_start is not None:
                    # The answer begins here: the tail and the commits start at it.
                    think.answer = splitter.answer_start
                    item.committed = item.commit_asked = item.tail_start = item.tail_end = think.answer
                    item.tail_breaks = []
        if text:
            self.tail_insert(item, text)
        return text

    def stream_thoughts(self, item: Item, splitter: ThinkingSplitter, thought: str) -> None:
        """Streamed thoughts: counted; appended to their document when unfolded."""
        think = item.think
        if think is None:
            assert splitter.thoughts_start is not None
            start = splitter.thoughts_start
            think = item.think = ThoughtsState(start, start, -1, False, words=0)
            think.expanded = item.id in self._thoughts.open
        if thought:
            think.end += len(thought)
            think.words = splitter.words
            if think.doc is not None:
                if think.filling:
                    think.pending.append(thought)
                else:
                    self._thoughts.insert(think, thought)
        if splitter.closed and not think.closed:
            think.closed = True
            if think.doc is not None and not think.filling:
                self._thoughts.trim(think)

    def tail_insert(self, item: Item, text: str) -> None:
        """Append source text to the tail document, with the display-only
        breaks the breaker asks for (their source offsets are kept, so a
        committed prefix can be cut off the tail exactly)."""
        assert item.breaker is not None and item.tail_cursor is not None
        breaks = item.breaker.feed(text)
        cursor = item.tail_cursor
        cursor.movePosition(QTextCursor.MoveOperation.End)
        start = 0
        for b in breaks:
            if b > start:
                cursor.insertText(text[start:b])
            if not (cursor.atBlockStart() and cursor.block().length() == 1 and cursor.position() == 0):
                cursor.insertBlock()
                item.tail_breaks.append(item.tail_end + b)
            start = b
        cursor.insertText(text[start:])
        item.tail_end += len(text)
        if item.tail is not None:
            self._find.changed(item.tail)

    def maybe_commit(self, item: Item) -> None:
        """Send newly completed blocks of the streaming message to the render
        thread; an open block too long to render (it will stay plain) goes in
        plain pieces as they settle, so the tail stays short. The block cuts
        are found by a scanner that reads each line once."""
        msg = item.message
        if msg is None or item.commit_asked > item.committed:
            return  # one commit in flight at a time
        if item.splitter is not None:
            return  # the answer has not begun (thinking, or "<thi" undecided)
        content = msg.content
        scan = item.scan
        if scan is None or scan.start > item.committed or scan.pos < item.committed:
            scan = item.scan = BlockScanner(item.committed)
        scan.feed(content)
        scan.forget_before(item.committed)
        cuts = scan.cuts_after(content, item.committed)
        if cuts and item.plain_block:  # the long block ended: the rest of it, plain, in bounded commits
            end = cuts[0]
            if end - item.committed > COMMIT_MAX_CHARS:
                end = blocks.settled_plain_end(content[: cuts[0]], item.committed, COMMIT_MAX_CHARS)
            if end <= item.committed or end >= cuts[0]:
                end = cuts[0]
                item.plain_block = False
            self._commit(item, "stream_plain", end)
            return
        if cuts:  # whole blocks; a burst of them in bounded commits (the tail's front is cut at once)
            within = bisect.bisect_right(cuts, item.committed + COMMIT_MAX_CHARS)
            self._commit(item, "stream", _math_bounded(content, item.committed, cuts[: max(1, within)]))
            return
        if not item.plain_block:
            if len(content) - item.committed <= RENDER_LIMIT + PLAIN_PIECE:
                return
            if len(content[item.committed :].strip()) <= RENDER_LIMIT:
                return
            item.plain_block = True  # shown plain when whole too: commit it as it settles
        end = blocks.settled_plain_end(content, item.committed, COMMIT_MAX_CHARS)
        if end > item.committed:
            self._commit(item, "stream_plain", end)

    def _commit(self, item: Item, kind: str, cut: int) -> None:
        assert item.message is not None
        item.commit_asked = cut
        self._render.request(
            RenderJob(item.id, kind, item.message.content[item.committed : cut], token=item.committed), PRIORITY_NOW
        )

    @staticmethod
    def _front(item: Item, upto: int) -> tuple[int, int, int]:
        """Where source text [tail_start, upto) ends in the tail document:
        (display breaks inside it, its document position, the last position)."""
        assert item.tail is not None
        n_breaks = bisect.bisect_right(item.tail_breaks, upto)
        doc_chars = (upto - item.tail_start) + n_breaks
        rest = item.tail.characterCount() - 1
        return n_breaks, min(utf16_prefix(item, upto, doc_chars), rest), rest

    def front_height(self, item: Item, upto: int) -> float:
        """How tall source text [tail_start, upto) is at the tail's front (what
        ``cut_tail(item, upto)`` would remove), as the tail is laid out now."""
        if item.tail is None or upto <= item.tail_start:
            return 0.0
        _n, position, rest = self._front(item, upto)
        layout = item.tail.documentLayout()
        if position >= rest or layout is None:
            return float(item.tail_height)
        return float(layout.blockBoundingRect(item.tail.findBlock(position)).top())

    def cut_tail(self, item: Item, upto: int) -> None:
        """Remove source text [tail_start, upto) from the front of the tail
        (it is shown as units now): O(removed), whatever the tail's length."""
        if item.tail is None or upto <= item.tail_start:
            return
        n_breaks, position, _rest = self._front(item, upto)
        cursor = QTextCursor(item.tail)
        cursor.setPosition(0)
        cursor.setPosition(position, QTextCursor.MoveMode.KeepAnchor)
        removed = cursor.selectionEnd()
        cursor.removeSelectedText()
        self._find.cut_front(item.tail, removed)
        del item.tail_breaks[:n_breaks]
        item.tail_start = upto
