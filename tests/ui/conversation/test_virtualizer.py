"""LiveWindow: only items near the viewport are planned for documents."""

from __future__ import annotations

from app.core.conversation.model import Message
from app.ui.conversation.items import Item, ItemList
from app.ui.conversation.virtualizer import LiveWindow


def _items(n: int) -> ItemList:
    items = ItemList()
    for k in range(n):
        items.items.append(Item(f"m{k}", "user", Message("user", "x"), height=100.0, rendered_len=1))
    items.reindex()
    return items


def test_the_window_plans_what_is_near_the_viewport_and_drops_far_items() -> None:
    items = _items(100)
    scroll = [0.0]
    window = LiveWindow(items, lambda: (scroll[0], 500.0))
    assert window.visible_range() == range(5)  # 106 px each (with the gap), 500 px high
    _drop, _render, build = window.plan(lambda _i: False)
    assert build[0] is items.items[0] and len(build) < 20
    assert window.live == {i.id for i in build}
    scroll[0] = items.top(80)
    drop, _render, build = window.plan(lambda index: index == 0)  # item 0 holds the selection
    assert items.items[0] not in drop and items.items[1] in drop
    assert all(70 <= items.index[i.id] < 100 for i in build)
