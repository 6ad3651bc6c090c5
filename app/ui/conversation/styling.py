"""The look of the view's items changing under them (``ItemStyler``): a new
zoom (fonts), a new theme (code colours) and a new text width (a resize,
or the reading column's width set).
Each costs O(n) plain arithmetic at once (every item's height scaled), and
Qt work only for the items holding documents (near the viewport, bounded
by the screen): they take the new font or colours in work slices, and are
measured then; the others when they next come into view.

Threading rule: GUI thread only.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from PyQt6.QtGui import QFont

from app.ui.conversation.documents import DocumentFactory
from app.ui.conversation.geometry import Metrics
from app.ui.conversation.items import ITEM_GAP, Item, ItemList, UnitSlot
from app.ui.conversation.render_results import Queue, RenderResults
from app.ui.conversation.scrolling import ScrollKeeper
from app.ui.conversation.virtualizer import LiveWindow


class ItemStyler:
    """Zoom, theme and width changes applied to the items (see the module
    docstring); ``base_font()`` is the view's font now."""

    def __init__(
        self,
        items: ItemList,
        metrics: Metrics,
        docs: DocumentFactory,
        window: LiveWindow,
        results: RenderResults,
        scroll: ScrollKeeper,
        queue: Queue,
        base_font: Callable[[], QFont],
        schedule_visibility: Callable[[], None],
        repaint: Callable[[], None],
    ) -> None:
        self._list = items
        self._metrics = metrics
        self._docs = docs
        self._window = window
        self._results = results
        self._scroll = scroll
        self._queue = queue
        self._base_font = base_font
        self._schedule_visibility = schedule_visibility
        self._repaint = repaint
        self._width = -1.0  # the text width the items were last laid out at
        # Each zoom and theme change is a new generation: its jobs have keys
        # of their own (a job of the last change still running is not taken
        # for the new one's: the units it already passed would keep the old
        # font or colours), and a job of an older generation stops.
        self._zoom_generation = 0
        self._theme_generation = 0

    # ------------------------------------------------------------------ zoom

    def set_zoom(self, factor: float) -> None:
        """Show the text at ``factor`` times its base size."""
        if factor == self._metrics.zoom or factor <= 0:
            return
        stick = self._scroll.at_bottom()
        old_line = self._metrics.line_height()
        old_width = self._metrics.content_width()
        self._metrics.zoom = factor
        self._metrics.set_fonts(self._base_font())
        ratio = self._metrics.line_height() / old_line
        width = self._metrics.content_width()  # the reading column grows with the text
        scale = ratio * ratio * old_width / width  # more lines (wider letters, same width) of taller lines
        if self._width > 0:
            self._width = width  # (not a resize: the documents take the width with the font)
        heights: list[float] = []
        self._zoom_generation += 1
        generation = self._zoom_generation
        for item in self._list.items:
            if item.live or item.tail is not None:
                for u in item.units:
                    if u.doc is None:  # a far unit of a long message: scaled like a far item
                        u.height *= scale
                self._queue(f"zoom:{generation}:{item.id}", lambda it=item: self._refont(it, generation))  # type: ignore[misc]  # mypy: a lambda with a default argument
            else:
                item.height *= scale
            heights.append(item.height + ITEM_GAP)
        self._list.heights.rebuild(heights)
        if stick:
            self._queue(f"zoom:{generation}:bottom", self._scroll.to_bottom)
        self._scroll.update_range()
        if stick:
            self._scroll.to_bottom()
        self._schedule_visibility()
        self._repaint()

    def _refont(self, item: Item, generation: int) -> Iterator[None]:
        """Give an item's documents the current font and measure them (a work
        job: one document per step)."""
        width = self._metrics.content_width()
        for u in item.units:
            if self._list.get(item.id) is not item or generation != self._zoom_generation:
                return
            if u.doc is not None and u.unit.math:  # formula images are drawn at the font's size
                self._rebuild(u)
                yield
            elif u.doc is not None and u.doc.defaultFont() != self._metrics.font:
                u.doc.setDefaultFont(self._metrics.font)
                u.doc.setTextWidth(width)
                u.height, u.measured_width = u.doc.size().height(), width
                yield
        if item.tail is not None and item.tail.defaultFont() != self._metrics.font:
            item.tail.setDefaultFont(self._metrics.font)
            item.tail.setTextWidth(width)
            item.tail_height = item.tail.size().height()
        think = item.think
        if think is not None and think.doc is not None and think.doc.defaultFont() != self._metrics.font:
            think.doc.setDefaultFont(self._metrics.font)
            think.doc.setTextWidth(width)
            if not think.filling:
                think.height, think.measured_width = think.doc.size().height(), width
        index = self._list.index.get(item.id)
        if index is not None and self._list.get(item.id) is item:
            self._scroll.set_height(index, self._metrics.item_height(item))
            item.measured_width = width
        self._repaint()

    # ------------------------------------------------------------------ theme

    def restyle(self) -> None:
        """Take the current theme: code blocks near the viewport get new
        documents in work slices (same heights), the others when they are
        next built."""
        if self._docs.restyle():
            self._theme_generation += 1
            generation = self._theme_generation
            for item_id in list(self._window.live):
                item = self._list.get(item_id)
                if item is not None and any(u.doc is not None and u.unit.kind != "plain" for u in item.units):
                    self._queue(f"restyle:{generation}:{item.id}", lambda it=item: self._restyle(it, generation))  # type: ignore[misc]  # mypy: a lambda with a default argument
        self._repaint()

    def _restyle(self, item: Item, generation: int) -> Iterator[None]:
        for u in item.units:
            if self._list.get(item.id) is not item or generation != self._theme_generation:
                return
            if u.doc is not None and u.unit.kind != "plain":
                self._rebuild(u)
                self._repaint()
                yield

    def _rebuild(self, u: UnitSlot) -> None:
        """A new document for ``u`` (new colours, or formula images at a new size)."""
        built = self._docs.build_unit(u.unit)
        old, u.doc, u.height, u.measured_width = u.doc, built.doc, built.height, built.measured_width
        if old is not None:
            old.deleteLater()

    # ------------------------------------------------------------------ width

    def set_column(self, chars: int) -> None:
        """The reading column at most ``chars`` average characters wide (0:
        the whole viewport): re-laid out as a resize is."""
        chars = max(0, chars)
        if chars == self._metrics.column_chars:
            return
        self._metrics.column_chars = chars
        self.resized()
        self._repaint()

    def resized(self) -> None:
        """The viewport's size changed: items holding documents re-lay out
        now; the others' heights are scaled (text wraps inversely to the
        width) and measured when they come into view."""
        width = self._metrics.content_width()
        if width != self._width:
            old_width, self._width = self._width, width
            stick = self._scroll.at_bottom()
            ratio = old_width / width if old_width > 0 else 1.0
            frame = self._metrics.frame_height()
            live: list[Item] = []
            scale = ratio != 1.0
            for item in self._list.items:
                if item.live or item.tail is not None:
                    live.append(item)
                elif scale and item.height > frame and item.kind != "notice":
                    # (units without documents re-estimate themselves: their
                    # measured_width no longer matches)
                    item.height = frame + (item.height - frame) * ratio
            self._list.heights.rebuild(i.height + ITEM_GAP for i in self._list.items)
            for item in live:
                self._results.relayout(item)
            self._scroll.update_range()
            if stick:
                self._scroll.to_bottom()
        else:
            self._scroll.update_range()
        self._schedule_visibility()
