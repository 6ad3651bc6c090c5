"""Applying the render thread's results to the view's items
(``RenderResults``): streamed blocks swapped in for the start of the tail,
the final render of a whole message (reusing every document whose HTML did
not change), and first renders of finished messages; and laying an item out
again at the current text width (``relayout``).

Building documents happens in work slices (the view's ``TimeSlicer``, given
as ``queue``); heights go through ``set_height`` so the view keeps what the
reader looks at still.

Threading rule: GUI thread only.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from app.core.render.blocks import Unit
from app.ui.conversation.documents import DocumentFactory
from app.ui.conversation.geometry import Metrics
from app.ui.conversation.items import Item, ItemList, UnitSlot
from app.ui.conversation.streaming import StreamingTail
from app.ui.services.render import RenderJob, RenderResult

Queue = Callable[[str, Callable[[], Iterator[None] | None]], None]


class RenderResults:
    """Swaps rendered units into ``items``; ``finalizing`` holds the ids of
    messages whose final render is awaited. ``settled(message_id)`` is called
    once a final render is in place."""

    def __init__(
        self,
        items: ItemList,
        docs: DocumentFactory,
        metrics: Metrics,
        stream: StreamingTail,
        queue: Queue,
        set_height: Callable[[int, float], None],
        tail_changed: Callable[[Item], None],
        settled: Callable[[str], None],
        schedule_visibility: Callable[[], None],
    ) -> None:
        self._list = items
        self._docs = docs
        self._metrics = metrics
        self._stream = stream
        self._queue = queue
        self._set_height = set_height
        self._tail_changed = tail_changed
        self._settled = settled
        self._schedule_visibility = schedule_visibility
        self.finalizing: set[str] = set()

    def on_rendered(self, result: RenderResult) -> None:
        job = result.job
        item = self._list.get(job.message_id)
        if item is None:
            return  # cleared or removed meanwhile
        if job.kind == "stream":
            if not item.streaming or job.token != item.committed:
                return  # stale (the final render supersedes it)
            self._queue(f"stream:{item.id}:{job.token}", lambda: self._apply_stream(item, job, result.units))
        elif job.kind == "final":
            msg = item.message
            if msg is None or job.token != len(msg):
                return
            msg.rendered = result.units
            self._queue(f"final:{item.id}", lambda: self._apply_final(item, result.units))
        else:  # history / user: a finished message seen for the first time
            msg = item.message
            if msg is None or job.token != len(msg):
                return
            msg.rendered = result.units
            item.units = [UnitSlot(u) for u in result.units]
            item.rendered_len = len(msg)
            self.relayout(item)
            self._schedule_visibility()

    def _apply_stream(self, item: Item, job: RenderJob, units: tuple[Unit, ...]) -> Iterator[None]:
        """Build the new units' documents (a slice each), then swap them in for
        the same text at the start of the tail in one step."""
        built: list[UnitSlot] = []
        for unit in units:
            yield from self._docs.prepare(unit)
            if not item.streaming or self._list.get(item.id) is not item:
                return
            built.append(self._docs.build_unit(unit))
            yield
        if not item.streaming or self._list.get(item.id) is not item or job.token != item.committed:
            return
        assert item.message is not None
        item.units.extend(built)
        item.committed += len(job.text)
        item.commit_asked = item.committed
        item.rendered_len = item.committed
        self._stream.cut_tail(item, item.committed)
        self._tail_changed(item)
        self._stream.maybe_commit(item)

    def _apply_final(self, item: Item, units: tuple[Unit, ...]) -> Iterator[None]:
        reuse: dict[str, list[UnitSlot]] = {}
        for u in item.units:
            if u.doc is not None:
                reuse.setdefault(u.unit.body, []).append(u)
        new: list[UnitSlot] = []
        live = item.live or item.tail is not None
        for unit in units:
            same = reuse.get(unit.body)
            if same:
                old = same.pop(0)
                new.append(UnitSlot(unit, old.doc, old.height, old.measured_width))
                continue
            if live:
                yield from self._docs.prepare(unit)
                new.append(self._docs.build_unit(unit))
                yield
            else:
                new.append(UnitSlot(unit))
        if self._list.get(item.id) is not item:
            return
        item.units = new
        item.tail = item.tail_cursor = None
        item.breaker = None
        item.tail_height = 0.0
        item.final_pending = False
        self.finalizing.discard(item.id)
        assert item.message is not None
        item.rendered_len = item.committed = len(item.message)
        self.relayout(item)
        self._settled(item.id)

    def relayout(self, item: Item) -> None:
        """Lay the item's documents out at the current text width, and set its height."""
        width = self._metrics.content_width()
        for u in item.units:
            doc = u.doc
            if doc is not None and u.measured_width != width:
                if u.unit.math and self._docs.math.refit(u.unit.math, self._metrics.font, u.measured_width, width):
                    # a formula wider than the column is drawn to fit it
                    built = self._docs.build_unit(u.unit).doc
                    assert built is not None
                    doc.deleteLater()
                    u.doc = doc = built
                doc.setTextWidth(width)
                u.height = doc.size().height()
                u.measured_width = width
        if item.tail is not None and item.tail.textWidth() != width:
            item.tail.setTextWidth(width)
            item.tail_height = item.tail.size().height()
        think = item.think
        if think is not None and think.doc is not None and think.doc.textWidth() != width:
            think.doc.setTextWidth(width)
            if not think.filling:
                think.height, think.measured_width = think.doc.size().height(), width
        index = self._list.index.get(item.id)
        if index is not None:
            self._set_height(index, self._metrics.item_height(item))
