"""Metrics and ItemLayout: estimates before layout, rows and footer pieces."""

from __future__ import annotations

from PyQt6.QtGui import QFont

from app.core.conversation.model import Message
from app.core.render.blocks import Unit
from app.ui.conversation.geometry import ItemLayout, Metrics
from app.ui.conversation.items import Item, ItemList, UnitSlot


def test_estimates_grow_with_the_text_and_the_zoom(qapp) -> None:
    metrics = Metrics(QFont(), lambda: 700)
    short = metrics.estimate_text(100, 0, metrics.content_width())
    long = metrics.estimate_text(10_000, 0, metrics.content_width())
    assert long > short > 0
    metrics.zoom = 2.0
    metrics.set_fonts(QFont())
    assert metrics.estimate_text(10_000, 0, metrics.content_width()) > long
    assert metrics.font.pixelSize() == 28


def test_rows_follow_each_other_and_the_footer_lists_the_actions(qapp) -> None:
    metrics = Metrics(QFont(), lambda: 700)
    items = ItemList()
    item = Item("m", "assistant", Message("assistant", "x"), units=[UnitSlot(Unit("plain", "a"), height=20.0),
                                                                    UnitSlot(Unit("plain", "b"), height=30.0)])
    item.height = metrics.item_height(item)
    items.items.append(item)
    items.reindex()
    layout = ItemLayout(items, metrics, lambda _item: "", lambda _item: [("copy", "Copy"), ("edit", "Edit")])
    rows = list(layout.rows(item, 100.0))
    assert [r[0] for r in rows] == [0, 1]
    assert rows[1][4] > rows[0][4] + 20.0
    kinds = [k for k, _t, _r in layout.footer_layout(item, 0.0)]
    assert kinds == ["action:copy", "action:edit"]
    assert layout.think_header_rect(0) is None
