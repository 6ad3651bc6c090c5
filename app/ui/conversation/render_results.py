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

import math
from collections.abc import Callable, Iterator

from app.core.render.blocks import Unit
from app.ui.conversation.commit_log import CommitLog
from app.ui.conversation.documents import DocumentFactory
from app.ui.conversation.geometry import Metrics
from app.ui.conversation.items import Item, ItemList, UnitSlot
from app.ui.conversation.streaming import StreamingTail
from app.ui.conversation.unit_window import UnitWindow
from app.ui.services.render import RenderJob, RenderResult

Queue = Callable[[str, Callable[[], Iterator[None] | None]], None]


class RenderResults:
    """Swaps rendered units into ``items``; ``finalizing`` holds the ids of
    messages whose final render is awaited. ``settled(message_id, first)``
    is called once a final render is in place: ``first`` is the first unit
    that is not the same document at the same place as before (the units
    above it, and what is above the item, did not change)."""

    def __init__(
        self,
        items: ItemList,
        docs: DocumentFactory,
        metrics: Metrics,
        stream: StreamingTail,
        queue: Queue,
        set_height: Callable[[int, float], None],
        tail_changed: Callable[[Item], None],  # the tail's first blocks became units
        settled: Callable[[str, int | None], None],  # (message id, the first unit that changed; None: all may have)
        schedule_visibility: Callable[[], None],
        units: UnitWindow,
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
        self._units = units
        self.finalizing: set[str] = set()
        #: When streamed text arrived and was shown rendered (the doctor's math delays).
        self.commits = CommitLog()

    def on_rendered(self, result: RenderResult) -> None:
        job = result.job
        item = self._list.get(job.message_id)
        if item is None:
            return  # cleared or removed meanwhile
        if job.kind in ("stream", "stream_plain"):
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
        def superseded() -> bool:
            return not item.streaming or self._list.get(item.id) is not item or job.token != item.committed

        planned = self._planned(item, job, units)
        built: list[UnitSlot] = []
        try:
            for unit, slot in zip(units, planned, strict=True):
                if slot is not None:
                    built.append(slot)   # far from the viewport: built when the reader comes near
                    continue
                yield from self._docs.prepare(unit)  # formula images, one per step
                if superseded():
                    return
                built.append(self._docs.build_unit(unit))
                yield
            if superseded():
                return
        finally:
            if superseded():
                _delete_docs(built)  # nobody will hold them
        assert item.message is not None
        item.units.extend(built)
        item.committed += len(job.text)
        item.commit_asked = item.committed
        item.rendered_len = item.committed
        self._stream.cut_tail(item, item.committed)
        self._tail_changed(item)
        self.commits.shown(item.id, item.committed)
        self._stream.maybe_commit(item)
        if any(slot is not None for slot in planned):
            self._schedule_visibility()  # the window builds them as they come near

    def _planned(self, item: Item, job: RenderJob, units: tuple[Unit, ...]) -> list[UnitSlot | None]:
        """For each new unit of a streamed piece: None to build its document
        now, or a slot without one (an estimated height) when it will lie far
        from the viewport. A long reply streaming fast has a tail screens
        long, so the units cut from its front are far above the bottom the
        view follows: building them only for the window to drop them again
        was most of the GUI thread's work at 50,000 tok/s.

        Where the view will be after the swap is judged both ways: scrolled
        as now, and moved by the height's change (following the bottom, or
        keeping what the reader sees below a change above). A unit is left
        unbuilt only when it is outside the live window in both."""
        if not units:
            return []
        m = self._metrics
        # whole pixels, kept as made for these metrics: the swap's pinned
        # scroll (StreamFlow._swap_in_place) needs a whole change of height
        key = m.estimate_key()
        width = key[0]
        slots = [UnitSlot(unit, None, float(math.ceil(m.estimate_unit(unit, width))), estimated_for=key)
                 for unit in units]
        ahead = item.units + slots
        if not self._units.windowed(item, ahead):
            return [None] * len(units)
        first = len(item.units)
        value, _h = self._units.viewport()
        change = sum(slot.height for slot in slots) - self._stream.front_height(item, item.committed + len(job.text))
        near = self._units.live_at(item, ahead, (value, value + change))
        return [None if first + n in near else slot for n, slot in enumerate(slots)]

    def _apply_final(self, item: Item, units: tuple[Unit, ...]) -> Iterator[None]:
        """Swap the final units in, in one step: every unit whose HTML did not
        change keeps its document (or its measured height); new ones near the
        viewport are built first (a slice each), far ones of a long message
        get an estimated height (``UnitWindow``)."""
        reuse: dict[str, list[UnitSlot]] = {}
        for u in item.units:
            if u.doc is not None or u.measured_width >= 0:
                reuse.setdefault(u.unit.body, []).append(u)
        width = self._metrics.content_width()
        new: list[UnitSlot] = []
        origin: list[UnitSlot | None] = []  # the slot each new one reuses
        for unit in units:
            same = reuse.get(unit.body)
            if same:
                old = same.pop(0)
                new.append(UnitSlot(unit, old.doc, old.height, old.measured_width))
                origin.append(old)
            else:
                new.append(UnitSlot(unit, None, self._metrics.estimate_unit(unit, width)))
                origin.append(None)
        if item.live or item.tail is not None:
            span = self._units.live(item, new)
            for n in span:
                slot = new[n]
                if slot.doc is None:
                    yield from self._docs.prepare(slot.unit)  # formula images, one per step
                    new[n] = self._docs.build_unit(slot.unit)
                    yield
                    if self._list.get(item.id) is not item:
                        break
        if self._list.get(item.id) is not item:
            held = {id(u.doc) for u in item.units if u.doc is not None}
            _delete_docs([u for u in new if id(u.doc) not in held])
            return
        _delete_docs([u for same in reuse.values() for u in same])  # documents of units that changed
        # The first unit not shown as before: not the old slot at its place, or built now.
        first = next((n for n, (a, b, c) in enumerate(zip(item.units, origin, new, strict=False))
                      if a is not b or a.doc is not c.doc), min(len(item.units), len(new)))
        if item.tail is not None:
            item.tail.deleteLater()
        item.units = new
        item.doc_span = None
        item.tail = item.tail_cursor = None
        item.breaker = None
        item.tail_height = 0.0
        item.final_pending = False
        self.finalizing.discard(item.id)
        assert item.message is not None
        item.rendered_len = item.committed = len(item.message)
        self.relayout(item)
        self.commits.finished(item.id)
        self._settled(item.id, first)

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


def _delete_docs(slots: list[UnitSlot]) -> None:
    """Free the documents of units nobody shows any more."""
    for u in slots:
        if u.doc is not None:
            u.doc.deleteLater()
            u.doc = None
