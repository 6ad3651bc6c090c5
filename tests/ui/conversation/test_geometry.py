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


def test_rows_can_skip_the_units_above_a_band_and_give_the_same_rows_from_there(qapp) -> None:
    from app.ui.conversation.geometry import SKIP_ROWS_MIN

    units = [UnitSlot(Unit("code", "<pre>x</pre>", cont=n % 3 == 2), None, 10.0 + n % 7, 500.0)
             for n in range(SKIP_ROWS_MIN * 3)]
    item = Item("m", "assistant", None, units=units)
    layout = ItemLayout(ItemList(), Metrics(QFont(), lambda: 500), lambda _i: "", lambda _i: [])
    every = list(layout.rows(item, 5.0))
    for band_top in (0.0, 5.0, 300.0, 1234.5, every[-1][4] + 1.0, 1e9):
        skipped = list(layout.rows(item, 5.0, skip_to=band_top))
        first = skipped[0][0]
        assert skipped == every[first:], "the same rows, at the same places, from the first one shown"
        assert all(y + h < band_top for _n, _d, h, _u, y in every[:first]), "only rows wholly above are left out"
        assert first == 0 or every[first][4] <= band_top


def test_the_reading_column_is_centred_capped_and_grows_with_the_zoom(qapp) -> None:
    width = [2000]
    metrics = Metrics(QFont(), lambda: width[0])
    capped = metrics.content_width()
    assert capped == round(metrics.column_chars * 7.5)
    assert metrics.text_x() == (2000 - capped) // 2
    bubble = metrics.bubble_rect(0.0, 50.0)
    assert bubble.left() < metrics.text_x() and bubble.right() > metrics.text_x() + capped
    metrics.zoom = 1.5
    assert metrics.content_width() == round(metrics.column_chars * 7.5 * 1.5)
    width[0] = 400  # narrower than the column: the viewport less its margins
    assert metrics.content_width() == 400 - 32 and metrics.text_x() == 16
    assert metrics.bubble_rect(0.0, 10.0).left() >= 4
    metrics.column_chars = 0
    width[0] = 2000
    assert metrics.content_width() == 2000 - 32


def test_footer_pieces_and_copy_buttons_follow_the_column(qapp) -> None:
    metrics = Metrics(QFont(), lambda: 1500)
    items = ItemList()
    item = Item("m", "assistant", Message("assistant", "x"), units=[UnitSlot(Unit("plain", "a"), height=20.0)])
    item.height = metrics.item_height(item)
    items.items.append(item)
    items.reindex()
    layout = ItemLayout(items, metrics, lambda _item: "", lambda _item: [("copy", "Copy")])
    (_kind, _text, rect), = layout.footer_layout(item, 0.0)
    assert rect.left() == metrics.text_x() > 300
    button = layout.copy_button_rect(0.0)
    assert button.right() <= metrics.text_x() + metrics.content_width()
