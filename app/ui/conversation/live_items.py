"""Carrying out the live window's plan (``LiveItems``): items near the
viewport get their documents built in work slices (a unit per slice, the
unfolded thoughts filled alongside), finished messages seen for the first
time are sent to the render thread (the answer only, never the thoughts),
far items drop their documents; a long message's units do the same within
it (``UnitWindow``); then, when every item on screen is built and the
current find match is revealed, ``viewport_ready`` is called.

Threading rule: GUI thread only.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from app.ui.conversation.documents import DocumentFactory
from app.ui.conversation.find_reveal import FindReveal
from app.ui.conversation.geometry import Metrics
from app.ui.conversation.items import Item, ItemList
from app.ui.conversation.render_results import Queue
from app.ui.conversation.selection import Selection
from app.ui.conversation.thoughts import ThoughtsFold
from app.ui.conversation.unfolding import ThoughtsUnfolder
from app.ui.conversation.unit_window import UnitWindow
from app.ui.conversation.virtualizer import LiveWindow
from app.ui.services.render import RenderJob, RenderService


class LiveItems:
    """Builds, renders and drops what ``LiveWindow`` plans (see the module docstring)."""

    def __init__(
        self,
        items: ItemList,
        window: LiveWindow,
        docs: DocumentFactory,
        metrics: Metrics,
        render_service: RenderService,
        queue: Queue,
        fold: ThoughtsFold,
        unfolder: ThoughtsUnfolder,
        reveal: FindReveal,
        selection: Selection,
        set_height: Callable[[int, float, float], None],
        repaint: Callable[[], None],
        viewport_ready: Callable[[], None],
        units: UnitWindow,
    ) -> None:
        self._list = items
        self._window = window
        self._docs = docs
        self._metrics = metrics
        self._render = render_service
        self._queue = queue
        self._fold = fold
        self._unfolder = unfolder
        self._reveal = reveal
        self._sel = selection
        self._set_height = set_height
        self._repaint = repaint
        self._viewport_ready = viewport_ready
        self._units = units

    def update(self) -> None:
        """Build documents for items near the viewport, drop far ones."""
        self._window_units()
        drop, render, build = self._window.plan(self._sel.pins)  # a selection's ends keep their documents
        for item in drop:
            self.drop_documents(item)
        for item, priority in render:
            self._request_render(item, priority)
        for item in build:
            self._queue(f"build:{item.id}", lambda it=item: self._build(it))  # type: ignore[misc]  # mypy: a lambda with a default argument
        self.check_ready()

    def drop_documents(self, item: Item) -> None:
        """The item keeps its units (strings) and height, not their documents."""
        for u in item.units:
            if u.doc is not None:
                u.doc.deleteLater()
                u.doc = None
        if item.think is not None:
            self._fold.drop(item.think)
        item.live = False
        item.doc_span = None
        item.doc_window = None
        self._window.live.discard(item.id)

    def _window_units(self) -> None:
        """Long live messages: units far from the viewport drop their
        documents (not the ends of a selection); the span to build is noted."""
        for item_id in self._window.live:
            item = self._list.get(item_id)
            if item is None or not self._units.windowed(item):
                continue
            live, keep = self._units.spans(item)
            key = (live.start, live.stop, len(item.units))
            if item.doc_window == key:
                continue  # the reader is still among the same units, and no unit came
            item.doc_window = key
            ends = self._sel.unit_ends(self._list.index[item_id])
            for n, u in enumerate(item.units):
                if u.doc is not None and n not in keep and n not in ends:
                    u.doc.deleteLater()
                    u.doc = None  # height and measured width stay
            item.doc_span = live

    def reset(self) -> None:
        """No item holds documents (the view was cleared)."""
        self._window.live = set()

    def check_ready(self) -> None:
        """``viewport_ready`` once every item on screen is rendered and built."""
        if not self._list.items:
            return
        if self._reveal.pending is not None and not self._reveal.try_reveal():
            return
        for index in self._window.visible_range():
            item = self._list.items[index]
            if item.message is not None and item.rendered_len < 0:
                return
            if not item.docs_ready:
                return
        self._viewport_ready()

    def _request_render(self, item: Item, priority: int) -> None:
        msg = item.message
        assert msg is not None
        if item.render_asked == len(msg):
            return
        item.render_asked = len(msg)
        kind = "user" if item.kind == "user" else "history"
        text = self._unfolder.answer_source(item, msg.content)  # the thoughts never go through Markdown
        self._render.request(RenderJob(item.id, kind, text, token=len(msg)), priority)

    def _build(self, item: Item) -> Iterator[None]:
        width = self._metrics.content_width()
        think = item.think
        if think is not None and think.expanded and think.doc is None and item.live:
            self._unfolder.start_fill(item)
        span = None
        if self._units.windowed(item):
            self._metrics.item_height(item)  # every unit without a document gets its estimate
            span = self._units.live(item)
        item.doc_span = span
        shift = 0.0  # growth of units above the viewport's top, inside this item
        above = self._units.units_above(item) if span is not None else 0
        for n, u in enumerate(item.units):
            if self._list.get(item.id) is not item or not item.live:
                return
            if span is not None and n not in span:
                continue
            if u.doc is None:
                yield from self._docs.prepare(u.unit)  # formula images, one per step
                if self._list.get(item.id) is not item or not item.live:
                    return
                old = u.height
                built = self._docs.build_unit(u.unit)
                u.doc, u.height, u.measured_width = built.doc, built.height, width
                if n < above:
                    shift += u.height - old
                yield
            elif u.measured_width != width:
                u.doc.setTextWidth(width)
                u.height = u.doc.size().height()
                u.measured_width = width
        index = self._list.index.get(item.id)
        if index is not None:
            # units grown above the viewport's top move it down by as much, unless it follows the bottom
            self._set_height(index, self._metrics.item_height(item), shift)
            item.measured_width = width
            self._repaint()
