"""FindReveal: the current match is scrolled to the middle of the viewport
once its message is built, its folded thoughts unfolded first when the
match is in them; matches of folded thoughts are counted from their text."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from PyQt6.QtCore import QObject
from PyQt6.QtGui import QFont, QPalette
from PyQt6.QtWidgets import QScrollBar

from app.core.conversation.model import Message
from app.core.render.blocks import Unit
from app.core.text.thinking import thinking_spans
from app.ui.conversation.documents import DocumentFactory
from app.ui.conversation.find import FindHighlighter
from app.ui.conversation.find_reveal import FindReveal
from app.ui.conversation.geometry import ItemLayout, Metrics
from app.ui.conversation.items import Item, ItemList
from app.ui.conversation.scrolling import ScrollKeeper
from app.ui.conversation.selection import Selection
from app.ui.conversation.thoughts import ThoughtsFold
from app.ui.conversation.unfolding import ThoughtsUnfolder
from app.ui.services.slicer import TimeSlicer

PAGE = 200


class _Harness:
    def __init__(self) -> None:
        self.owner = QObject()
        self.items = ItemList()
        self.metrics = Metrics(QFont(), lambda: 500)
        self.docs = DocumentFactory(self.owner, self.metrics)
        self.find = FindHighlighter(TimeSlicer(), lambda: None)
        self.fold = ThoughtsFold(self.find)
        self.bar = QScrollBar()
        self.scroll = ScrollKeeper(self.items, self.bar, lambda: PAGE)
        self.jobs: list[Iterator[None]] = []
        self.unfolder = ThoughtsUnfolder(
            self.items, self.fold, self.docs, self.metrics, self.queue, Selection(self.items, QPalette),
            self.scroll.set_height, lambda: None, lambda: None, lambda _mid, _on: None,
        )
        self.layout = ItemLayout(self.items, self.metrics, self.fold.label, lambda _item: [])
        self.shown: list[str] = []
        self.reveal = FindReveal(
            self.items, self.find, self.layout, self.unfolder, self.scroll, self.shown.append, lambda: None
        )

    def queue(self, key: str, job: Callable[[], Iterator[None] | None]) -> None:
        steps = job()
        if steps is not None:
            self.jobs.append(steps)

    def run(self) -> None:
        for steps in self.jobs:
            for _ in steps:
                pass
        self.jobs = []

    def add(self, content: str) -> Item:
        """A finished, built message below the others."""
        msg = Message("assistant", content)
        item = Item(msg.id, "assistant", msg, live=True)
        spans = thinking_spans(content)
        self.unfolder.sync(item, spans)
        answer = content if spans is None else content[spans.answer_start :]
        item.units = [self.docs.build_unit(Unit("plain", answer))]
        item.rendered_len = len(msg)
        item.height = self.metrics.item_height(item)
        self.items.items.append(item)
        self.items.reindex()
        self.scroll.update_range()
        return item


def test_the_current_match_is_scrolled_to_the_middle_of_the_viewport(qapp) -> None:
    h = _Harness()
    for k in range(30):
        h.add(f"filler {k}")
    target = h.add("before the needle")
    for k in range(10):
        h.add(f"after {k}")
    h.reveal.set_find("needle", (target.id, 0))
    assert h.shown == [target.id] and h.reveal.pending is None
    index = h.items.index[target.id]
    assert h.scroll.value > 0
    assert abs(h.scroll.value - (h.layout.body_top(index) - PAGE / 2)) < 1  # the match's line (the first), mid-screen


def test_a_match_in_folded_thoughts_unfolds_them_first(qapp) -> None:
    h = _Harness()
    item = h.add("<think>a needle in thought</think>and a needle in the answer")
    h.find.set_text("needle")
    assert h.reveal.hidden_thought_matches(item) == 1
    h.reveal.set_find("needle", (item.id, 0))
    assert item.think is not None and item.think.expanded, "unfolded"
    assert h.reveal.pending == (item.id, 0), "revealed once the thoughts are shown"
    h.run()
    assert h.reveal.hidden_thought_matches(item) == 0  # shown now: counted in their document
    assert h.reveal.try_reveal() and h.reveal.pending is None


def test_a_match_of_a_message_gone_is_forgotten(qapp) -> None:
    h = _Harness()
    item = h.add("needle")
    item.rendered_len = -1  # not rendered yet: the reveal waits
    h.reveal.set_find("needle", (item.id, 0))
    assert h.reveal.pending == (item.id, 0)
    h.reveal.forget({item.id})
    assert h.reveal.pending is None
    h.reveal.set_find("needle", ("unknown", 0))
    assert h.reveal.pending is None and h.find.text == "needle"
    assert h.find.current == ("unknown", 0)
    h.reveal.clear()  # New Chat: the needle stays (the bar is open), the current match goes
    assert h.find.current is None and h.find.text == "needle"
