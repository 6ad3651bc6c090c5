"""RenderResults: render results swapped into items, stale ones dropped."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import cast

from PyQt6.QtCore import QObject
from PyQt6.QtGui import QFont

from app.core.conversation.model import Message
from app.core.render.blocks import Unit
from app.ui.conversation.documents import DocumentFactory
from app.ui.conversation.geometry import ItemLayout, Metrics
from app.ui.conversation.items import ITEM_GAP, Item, ItemList, UnitSlot
from app.ui.conversation.render_results import RenderResults
from app.ui.conversation.streaming import StreamingTail
from app.ui.conversation.unit_window import UnitWindow
from app.ui.services.render import RenderJob, RenderResult


class _Harness:
    def __init__(self) -> None:
        self.owner = QObject()
        self.items = ItemList()
        self.metrics = Metrics(QFont(), lambda: 500)
        self.docs = DocumentFactory(self.owner, self.metrics)
        self.heights: dict[int, float] = {}
        self.settled: list[tuple[str, int | None]] = []
        self.scheduled = 0
        self.results = RenderResults(
            self.items, self.docs, self.metrics,
            cast(StreamingTail, None),  # only streamed results use the tail
            self.run, self.set_height, lambda item: None, lambda mid, first: self.settled.append((mid, first)), self.schedule,
            UnitWindow(self.items, ItemLayout(self.items, self.metrics, lambda _i: "", lambda _i: []), self.metrics,
                       lambda: (0.0, 300.0)),
        )

    def run(self, key: str, job: Callable[[], Iterator[None] | None]) -> None:
        steps = job()
        if steps is not None:
            for _ in steps:
                pass

    def set_height(self, index: int, height: float) -> None:
        self.heights[index] = height
        self.items.items[index].height = height
        self.items.heights.set(index, height + ITEM_GAP)

    def schedule(self) -> None:
        self.scheduled += 1

    def add(self, item: Item) -> None:
        self.items.index[item.id] = len(self.items.items)
        self.items.items.append(item)
        self.items.heights.append(item.height + ITEM_GAP)


def test_a_first_render_gives_the_message_its_units_and_a_measured_height(qapp) -> None:
    h = _Harness()
    msg = Message("assistant", "hello")
    h.add(Item("m", "assistant", msg))
    units = (Unit("plain", "hello"),)
    h.results.on_rendered(RenderResult(RenderJob("m", "history", "hello", token=len(msg)), units))
    item = h.items.items[0]
    assert [u.unit for u in item.units] == list(units) and item.rendered_len == len(msg)
    assert msg.rendered == units
    assert 0 in h.heights and h.scheduled == 1


def test_a_stale_or_unknown_result_is_dropped(qapp) -> None:
    h = _Harness()
    msg = Message("assistant", "hello")
    h.add(Item("m", "assistant", msg))
    h.results.on_rendered(RenderResult(RenderJob("m", "history", "hel", token=3), (Unit("plain", "hel"),)))
    h.results.on_rendered(RenderResult(RenderJob("gone", "final", "x", token=1), (Unit("plain", "x"),)))
    assert h.items.items[0].units == [] and msg.rendered is None and h.settled == []


def test_a_final_render_reuses_unchanged_documents_and_settles(qapp) -> None:
    h = _Harness()
    msg = Message("assistant", "a\n\nb")
    item = Item("m", "assistant", msg, live=True, final_pending=True)
    kept = h.docs.build_unit(Unit("plain", "a"))
    item.units = [kept, UnitSlot(Unit("plain", "old"))]
    h.add(item)
    h.results.finalizing.add("m")
    units = (Unit("plain", "a"), Unit("plain", "b"))
    h.results.on_rendered(RenderResult(RenderJob("m", "final", "a\n\nb", token=len(msg)), units))
    assert item.units[0].doc is kept.doc  # same HTML: same document
    assert item.units[1].doc is not None and item.units[1].doc.toPlainText() == "b"
    assert item.rendered_len == item.committed == len(msg) and not item.final_pending
    # the first unit kept its document: what changed begins at the second
    assert h.results.finalizing == set() and h.settled == [("m", 1)]
