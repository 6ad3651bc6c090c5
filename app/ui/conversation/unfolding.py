"""Folding and unfolding a reply's thoughts in the view (``ThoughtsUnfolder``):
an item's thinking kept in step with its text (``sync``, ``answer_source``:
only the answer is ever rendered as Markdown), the unfolded thoughts'
document filled from the message's text in work slices (``THOUGHTS_PIECE``
characters each, laid out as they go; thoughts streamed meanwhile wait in
``pending``), the item's height, a selection inside thoughts that are folded
away, and the remembered unfolded set (``ThoughtsFold.open``), kept per
message id, also for a message not shown (yet).

Threading rule: GUI thread only.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from PyQt6.QtGui import QTextCursor, QTextDocument

from app.core.text.textbreak import DisplayBreaker
from app.core.text.thinking import ThinkingSpans, thinking_spans
from app.ui.conversation.documents import DocumentFactory
from app.ui.conversation.geometry import Metrics
from app.ui.conversation.items import BREAK_LIMIT, THOUGHTS_PIECE, Item, ItemList, ThoughtsState
from app.ui.conversation.render_results import Queue
from app.ui.conversation.selection import Selection
from app.ui.conversation.thoughts import ThoughtsFold


class ThoughtsUnfolder:
    """Items' thoughts folded and unfolded (see the module docstring);
    ``toggled(message_id, unfolded)`` is called on every change shown."""

    def __init__(
        self,
        items: ItemList,
        fold: ThoughtsFold,
        docs: DocumentFactory,
        metrics: Metrics,
        queue: Queue,
        selection: Selection,
        set_height: Callable[[int, float], None],
        schedule_visibility: Callable[[], None],
        repaint: Callable[[], None],
        toggled: Callable[[str, bool], None],
    ) -> None:
        self._list = items
        self._fold = fold
        self._docs = docs
        self._metrics = metrics
        self._queue = queue
        self._sel = selection
        self._set_height = set_height
        self._schedule_visibility = schedule_visibility
        self._repaint = repaint
        self._toggled = toggled

    # ------------------------------------------------------------------ an item's thinking

    def answer_source(self, item: Item, content: str) -> str:
        """The part of ``content`` rendered as Markdown (the answer), with
        the item's thinking brought up to date from the whole text."""
        if item.kind != "assistant":
            return content
        spans = thinking_spans(content)
        self.sync(item, spans)
        return content if spans is None else content[spans.answer_start :]

    def sync(self, item: Item, spans: ThinkingSpans | None) -> None:
        """Make the item's thinking match ``spans`` (the whole content's)."""
        think = item.think
        if spans is None:
            if think is not None:
                self._fold.drop(think)
                item.think = None
            return
        if think is None:
            item.think = think = ThoughtsState.of(spans)
            think.expanded = item.id in self._fold.open
            return
        changed = (think.start, think.end) != (spans.thoughts_start, spans.thoughts_end)
        think.start, think.end, think.answer, think.closed = (
            spans.thoughts_start, spans.thoughts_end, spans.answer_start, spans.closed
        )
        if changed:
            # (a stream that ended inside "</th": the held text is thoughts after all)
            think.words = -1
            if think.doc is not None:
                self._fold.drop(think)
                if think.expanded and self._list.index.get(item.id) is not None:
                    self.start_fill(item)

    def mark_open(self, items: list[Item]) -> None:
        """Items made off the GUI thread learn which thoughts are unfolded."""
        if self._fold.open:
            for item in items:
                if item.think is not None and item.id in self._fold.open:
                    item.think.expanded = True

    # ------------------------------------------------------------------ the thoughts' document

    def start_fill(self, item: Item) -> None:
        """Give unfolded thoughts their document, filled in work slices."""
        think, msg = item.think, item.message
        assert think is not None and msg is not None
        text = msg.content[think.start : think.end]
        doc = self._docs.new_document()
        doc.setTextWidth(self._metrics.content_width())
        think.doc, think.cursor, think.breaker = doc, QTextCursor(doc), DisplayBreaker(BREAK_LIMIT)
        think.filling, think.pending, think.shown = True, [], False
        self._queue(f"thoughts:{item.id}:{id(doc)}", lambda: self._fill(item, think, doc, text))

    def _fill(self, item: Item, think: ThoughtsState, doc: QTextDocument, text: str) -> Iterator[None]:
        for start in range(0, len(text), THOUGHTS_PIECE):
            if item.think is not think or think.doc is not doc:
                return  # folded, dropped or cleared meanwhile
            self._fold.insert(think, text[start : start + THOUGHTS_PIECE])
            doc.size()  # lay this piece out now, in this slice
            yield
        if item.think is not think or think.doc is not doc:
            return
        for piece in think.pending:
            self._fold.insert(think, piece)
        think.pending = []
        think.filling = False
        if think.closed or not item.streaming:
            self._fold.trim(think)
        width = self._metrics.content_width()
        if doc.textWidth() != width:
            doc.setTextWidth(width)
        think.height, think.measured_width = doc.size().height(), width
        index = self._list.index.get(item.id)
        if index is not None and self._list.items[index] is item:
            self._set_height(index, self._metrics.item_height(item))
            self._repaint()

    # ------------------------------------------------------------------ folding

    def set_expanded(self, item: Item, expanded: bool) -> None:
        """Unfold (True) or fold a shown item's thoughts."""
        think = item.think
        assert think is not None
        if expanded:
            self._fold.open.add(item.id)
        else:
            self._fold.open.discard(item.id)
        if think.expanded == expanded:
            return
        think.expanded = expanded
        index = self._list.index[item.id]
        if expanded:
            if think.doc is None and (item.live or item.tail is not None):
                self.start_fill(item)
        else:
            self._fold.drop(think)
            sel = self._sel
            for pos in (sel.anchor, sel.cursor):
                if pos is not None and pos.item == index and pos.unit < 0:
                    sel.anchor = sel.cursor = None  # its text is gone
        self._set_height(index, self._metrics.item_height(item))
        self._schedule_visibility()
        self._repaint()
        self._toggled(item.id, expanded)

    def set_expanded_by_id(self, message_id: str, expanded: bool) -> None:
        """Unfold (True) or fold a message's thoughts, shown or not."""
        item = self._list.get(message_id)
        if item is None or item.think is None:
            if expanded:
                self._fold.open.add(message_id)
            else:
                self._fold.open.discard(message_id)
            return
        self.set_expanded(item, expanded)

    def toggle(self, message_id: str) -> None:
        """Fold or unfold a message's thoughts (what clicking its header does)."""
        item = self._list.get(message_id)
        if item is not None and item.think is not None:
            self.set_expanded(item, not item.think.expanded)

    def is_open(self, message_id: str) -> bool:
        return message_id in self._fold.open

    def forget(self, message_id: str) -> None:
        """The message left the view: its thoughts are no longer remembered unfolded."""
        self._fold.open.discard(message_id)
