"""ScrollKeeper: the bar's range from the heights; a height changed above
the viewport, or at the bottom, does not move what the reader sees."""

from __future__ import annotations

from PyQt6.QtWidgets import QScrollBar

from app.core.conversation.model import Message
from app.ui.conversation.items import ITEM_GAP, Item, ItemList
from app.ui.conversation.scrolling import ScrollKeeper


def _keeper(n: int, page: int = 300) -> tuple[ItemList, QScrollBar, ScrollKeeper]:
    items = ItemList()
    for k in range(n):
        items.items.append(Item(f"m{k}", "user", Message("user", "x"), height=100.0))
    items.reindex()
    bar = QScrollBar()
    keeper = ScrollKeeper(items, bar, lambda: page)
    keeper.update_range()
    return items, bar, keeper


def test_the_range_is_the_total_height_less_a_page(qapp) -> None:
    _items, bar, keeper = _keeper(10)
    assert bar.maximum() == int(10 * (100 + ITEM_GAP)) - 300 and bar.pageStep() == 300
    assert not keeper.at_bottom()
    keeper.to_bottom()
    assert keeper.at_bottom() and keeper.value == bar.maximum()


def test_an_item_growing_above_the_viewport_moves_the_value_with_it(qapp) -> None:
    items, _bar, keeper = _keeper(10)
    keeper.set_value(500)
    keeper.set_height(1, 150.0)  # item 1 ends at 212 px, above the viewport's top
    assert keeper.value == 550 and items.items[1].height == 150.0
    assert items.top(2) == 2 * ITEM_GAP + 250.0
    keeper.set_height(8, 200.0)  # below: nothing moves
    assert keeper.value == 550


def test_a_view_at_the_bottom_stays_there(qapp) -> None:
    _items, bar, keeper = _keeper(10)
    keeper.to_bottom()
    keeper.set_height(9, 400.0)
    assert keeper.at_bottom() and bar.maximum() == int(9 * (100 + ITEM_GAP) + 400 + ITEM_GAP) - 300


def test_growth_above_the_top_inside_an_item_moves_the_value_unless_it_follows_the_bottom(qapp) -> None:
    _items, bar, keeper = _keeper(20)
    keeper.set_value(850)  # inside item 8
    keeper.set_height(8, 60.0, above_top=-40.0)  # its units above the top got 40 px shorter
    assert keeper.value == 810
    keeper.set_height(8, 60.0, above_top=25.0)  # the same height: units above grown, others shrunk
    assert keeper.value == 835
    keeper.to_bottom()
    keeper.set_height(19, 40.0, above_top=-60.0)  # following the bottom: it stays there
    assert keeper.at_bottom() and keeper.value == bar.maximum()
    keeper.set_height(19, 40.0, above_top=30.0)
    assert keeper.at_bottom()
