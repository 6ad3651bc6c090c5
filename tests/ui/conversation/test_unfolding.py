"""ThoughtsUnfolder: an item's thinking kept in step with its text, its
thoughts unfolded into a plain-text document filled in work slices, folded
away with any selection inside them, remembered per message id."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from PyQt6.QtCore import QObject
from PyQt6.QtGui import QFont, QPalette

from app.core.conversation.model import Message
from app.core.text.thinking import thinking_spans
from app.ui.conversation.documents import DocumentFactory
from app.ui.conversation.find import FindHighlighter
from app.ui.conversation.geometry import Metrics
from app.ui.conversation.items import THOUGHTS_PIECE, Item, ItemList, Pos, ThoughtsState
from app.ui.conversation.selection import Selection
from app.ui.conversation.thoughts import ThoughtsFold
from app.ui.conversation.unfolding import ThoughtsUnfolder
from app.ui.services.slicer import TimeSlicer


class _Harness:
    def __init__(self) -> None:
        self.owner = QObject()
        self.items = ItemList()
        self.metrics = Metrics(QFont(), lambda: 500)
        self.fold = ThoughtsFold(FindHighlighter(TimeSlicer(), lambda: None))
        self.sel = Selection(self.items, QPalette)
        self.jobs: list[Iterator[None]] = []
        self.heights: dict[int, float] = {}
        self.toggled: list[tuple[str, bool]] = []
        self.unfolder = ThoughtsUnfolder(
            self.items, self.fold, DocumentFactory(self.owner, self.metrics), self.metrics, self.queue, self.sel,
            self.heights.__setitem__, lambda: None, lambda: None, lambda mid, on: self.toggled.append((mid, on)),
        )

    def queue(self, key: str, job: Callable[[], Iterator[None] | None]) -> None:
        steps = job()
        if steps is not None:
            self.jobs.append(steps)

    def run(self) -> int:
        """Run the queued jobs to their end; the steps they took."""
        n = 0
        for steps in self.jobs:
            for _ in steps:
                n += 1
        self.jobs = []
        return n

    def add(self, content: str) -> Item:
        msg = Message("assistant", content)
        item = Item(msg.id, "assistant", msg, live=True)
        self.unfolder.sync(item, thinking_spans(content))
        self.items.items.append(item)
        self.items.reindex()
        return item


def test_only_the_answer_is_rendered_and_the_thinking_follows_the_text(qapp) -> None:
    h = _Harness()
    item = h.add("<think>one two</think>The answer")
    assert item.think is not None and (item.think.start, item.think.closed) == (7, True)
    assert h.unfolder.answer_source(item, item.message.content) == "The answer"
    assert h.unfolder.answer_source(item, "no thinking now") == "no thinking now"
    assert item.think is None


def test_unfolding_fills_a_plain_text_document_in_slices_and_folding_drops_it(qapp) -> None:
    h = _Harness()
    thoughts = "<b>not markup</b> " * (THOUGHTS_PIECE // 6)
    item = h.add(f"<think>{thoughts}</think>Answer")
    h.unfolder.toggle(item.id)
    assert item.think is not None and item.think.expanded and item.think.filling
    assert h.run() > 1, "filled in more than one work step"
    assert item.think.ready and item.think.doc is not None
    shown = item.think.doc.toPlainText()
    assert shown.replace("\n", "") == thoughts.strip(), "plain text (display-only breaks aside), never parsed"
    assert h.toggled == [(item.id, True)] and h.unfolder.is_open(item.id) and 0 in h.heights
    h.sel.anchor, h.sel.cursor = Pos(0, -1, 0), Pos(0, -1, 5)  # a selection inside the thoughts
    h.unfolder.set_expanded(item, False)
    assert item.think.doc is None and h.sel.anchor is None and h.sel.cursor is None
    assert h.toggled[-1] == (item.id, False) and not h.unfolder.is_open(item.id)


def test_a_message_not_shown_is_remembered_unfolded_and_learns_it_when_made(qapp) -> None:
    h = _Harness()
    msg = Message("assistant", "<think>hmm</think>yes")
    h.unfolder.set_expanded_by_id(msg.id, True)
    assert h.unfolder.is_open(msg.id) and h.toggled == []
    item = Item(msg.id, "assistant", msg)
    spans = thinking_spans(msg.content)
    assert spans is not None
    item.think = ThoughtsState.of(spans)  # as made on a helper thread: folded
    assert not item.think.expanded
    h.unfolder.mark_open([item])
    assert item.think.expanded
    h.unfolder.forget(msg.id)
    assert not h.unfolder.is_open(msg.id)
