"""The conversation view's scroll position over its items' heights
(``ScrollKeeper``): the scroll bar's range from the Fenwick tree of heights,
following the bottom, and an item's height changed without moving what the
reader looks at (an item above the viewport that grows pushes the scroll
value by as much; a view at the bottom stays at the bottom).

Threading rule: GUI thread only.
"""

from __future__ import annotations

from collections.abc import Callable

from PyQt6.QtWidgets import QScrollBar

from app.ui.conversation.items import ITEM_GAP, ItemList


class ScrollKeeper:
    """The vertical scroll bar of the view; ``page()`` gives the viewport's height now."""

    def __init__(self, items: ItemList, bar: QScrollBar, page: Callable[[], int]) -> None:
        self._list = items
        self._bar = bar
        self._page = page
        #: True while the bar moves only to follow an item growing at the
        #: bottom: the content above it just moves up (its pixels can be moved).
        self.following = False

    @property
    def value(self) -> int:
        return self._bar.value()

    def set_value(self, value: int) -> None:
        self._bar.setValue(value)

    def page_height(self) -> int:
        return self._page()

    def at_bottom(self) -> bool:
        return self._bar.value() >= self._bar.maximum() - 4

    def to_bottom(self) -> None:
        self._bar.setValue(self._bar.maximum())

    def update_range(self) -> None:
        """The bar's range and page step from the items' total height."""
        page = self._page()
        self._bar.setPageStep(max(1, page))
        self._bar.setRange(0, max(0, int(self._list.total()) - page))

    def set_height(self, index: int, height: float, above_top: float = 0.0) -> None:
        """Change an item's height, keeping the content under the viewport
        still. ``above_top``: how much of the change lies above the
        viewport's top inside the item (its units built there), moved past
        unless the view follows the bottom."""
        item = self._list.items[index]
        delta = height - item.height
        stick = self.at_bottom()
        if abs(delta) < 0.01:
            if above_top and not stick:
                self._bar.setValue(round(self._bar.value() + above_top))
            return
        above = self._list.top(index) + item.height <= self._bar.value() + 0.5
        item.height = height
        self._list.heights.set(index, height + ITEM_GAP)
        if stick:
            # following from the range's change on: a shrinking range moves the value too
            self.following = index == len(self._list.items) - 1   # nothing below it moves differently
            try:
                self.update_range()
                self._bar.setValue(self._bar.maximum())
            finally:
                self.following = False
            return
        self.update_range()
        if above:
            self._bar.setValue(round(self._bar.value() + delta))
        elif above_top:
            self._bar.setValue(round(self._bar.value() + above_top))
