"""Which units of a long message hold documents (``UnitWindow``).

A laid-out ``QTextDocument`` costs a few hundred bytes per character, so a
message of megabytes cannot keep a document for every unit. Like the items
of the list (``LiveWindow``), the units of a message with more than
``UNIT_WINDOW_MIN`` units hold documents only near the viewport:
``LIVE_ABOVE`` screens above to ``LIVE_BELOW`` below are built, and units
further than ``KEEP_MARGIN`` screens drop theirs. A unit without a document
keeps its measured height (or an estimate until it is first built), so the
item's height does not change when a document is dropped.

Plain Python over the item's rows; GUI thread only.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable

from app.ui.conversation.geometry import ItemLayout, Metrics, unit_tops
from app.ui.conversation.items import KEEP_MARGIN, LIVE_ABOVE, LIVE_BELOW, UNIT_GAP, Item, ItemList, UnitSlot

#: Messages with at most this many units keep a document for each (the
#: window is for the long ones; short ones are built whole, as before).
UNIT_WINDOW_MIN = 16


class UnitWindow:
    """``viewport()`` gives (scroll value, viewport height) now."""

    def __init__(
        self, items: ItemList, layout: ItemLayout, metrics: Metrics, viewport: Callable[[], tuple[float, float]]
    ) -> None:
        self._list = items
        self._layout = layout
        self._metrics = metrics
        self._viewport = viewport

    def viewport(self) -> tuple[float, float]:
        """(scroll value, viewport height) now."""
        return self._viewport()

    @staticmethod
    def windowed(item: Item, units: list[UnitSlot] | None = None) -> bool:
        """Only part of ``item``'s units (or of ``units``) hold documents."""
        return len(item.units if units is None else units) > UNIT_WINDOW_MIN

    def live(self, item: Item, units: list[UnitSlot] | None = None) -> range:
        """The units of ``item`` that should hold documents now; with
        ``units``: which of these would, in place of the item's own."""
        return self._spans(item, units)[0]

    def live_at(self, item: Item, units: list[UnitSlot], values: tuple[float, ...]) -> set[int]:
        """Which of ``units`` (in place of ``item``'s own, a windowed list)
        would hold documents with the view scrolled to any of ``values``."""
        index = self._list.index.get(item.id)
        if index is None:
            return set()
        tops = self._tops(item, units, index)
        _value, h = self._viewport()
        near: set[int] = set()
        for value in values:
            near.update(self._between(tops, units, value - LIVE_ABOVE * h, value + h + LIVE_BELOW * h))
        return near

    def keep(self, item: Item) -> range:
        """The units of ``item`` that may keep their documents."""
        return self._spans(item)[1]

    def spans(self, item: Item) -> tuple[range, range]:
        """(``live``, ``keep``) at once: one pass over the units."""
        return self._spans(item)

    def units_above(self, item: Item) -> int:
        """How many of ``item``'s first units lie wholly above the viewport's
        top while the item reaches below it: their height changes would move
        what the reader sees (an item wholly above is
        ``ScrollKeeper.set_height``'s job)."""
        index = self._list.index.get(item.id)
        if index is None or not item.units:
            return 0
        value, _h = self._viewport()
        if self._list.top(index) + item.height <= value + 0.5:
            return 0
        tops = self._tops(item, item.units, index)
        k = bisect.bisect_right(tops, value)  # units starting at or above the top
        while k > 0 and tops[k - 1] + item.units[k - 1].height > value:
            k -= 1
        return k

    def _tops(self, item: Item, slots: list[UnitSlot], index: int) -> list[float]:
        """The content y of each unit (below the unfolded thoughts)."""
        y = self._layout.body_top(index)
        think = item.think
        if think is not None and think.expanded:
            y += self._metrics.thoughts_height(think, self._metrics.content_width()) + UNIT_GAP
        return unit_tops(slots, y)

    def _spans(self, item: Item, units: list[UnitSlot] | None = None) -> tuple[range, range]:
        slots = item.units if units is None else units
        n_units = len(slots)
        if not self.windowed(item, units):
            return range(n_units), range(n_units)
        index = self._list.index.get(item.id)
        if index is None:
            return range(0), range(0)
        tops = self._tops(item, slots, index)
        value, h = self._viewport()
        return (
            self._between(tops, slots, value - LIVE_ABOVE * h, value + h + LIVE_BELOW * h),
            self._between(tops, slots, value - (KEEP_MARGIN + LIVE_ABOVE) * h, value + h + (KEEP_MARGIN + LIVE_BELOW) * h),
        )

    @staticmethod
    def _between(tops: list[float], slots: list[UnitSlot], y0: float, y1: float) -> range:
        """The units meeting content ys [y0, y1]."""
        first = max(0, bisect.bisect_right(tops, y0) - 1)
        if tops[first] + slots[first].height < y0:
            first += 1
        last = bisect.bisect_right(tops, y1) - 1
        return range(first, last + 1) if last >= first else range(0)
