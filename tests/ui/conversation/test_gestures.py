"""PointerGestures: press, drag and double click select; a click acts on
what is under it; hovering shows what is clickable; a context menu is
about the message under the mouse, or from the keyboard the last clicked."""

from __future__ import annotations

from PyQt6.QtCore import QPointF, Qt

from app.core.conversation.model import Message
from app.ui.conversation.gestures import PointerGestures
from app.ui.conversation.hittest import HitTester
from app.ui.conversation.items import PAD_X, Pos
from app.ui.conversation.view_actions import ViewActions
from tests.ui.conversation.parts import Parts


class _Harness:
    def __init__(self) -> None:
        self.p = p = Parts()
        self.messages = Parts.rendered([Message("user", "alpha beta gamma"), Message("assistant", "delta epsilon")])
        p.rows.add_messages(self.messages)
        p.rows.add_notice("a notice")
        p.live.update()
        p.run()
        self.copied: list[tuple[str, str]] = []
        self.requested: list[tuple[str, str]] = []
        self.toggled: list[str] = []
        self.cursors: list[Qt.CursorShape] = []
        self.tooltips: list[str] = []
        actions = ViewActions(
            p.items, p.sel, lambda what, text: self.copied.append((what, text)), lambda _u: None, lambda _u: None,
            lambda action, mid: self.requested.append((action, mid)),
        )
        p.footer = self.footer = [("copy", "Copy")]
        self.gestures = PointerGestures(
            p.items, HitTester(p.items, p.layout), p.scroll, lambda: p.width, p.sel, actions,
            lambda _item: self.footer, self.toggled.append, lambda c: self.cursors.append(c.shape()),
            self.tooltips.append, p.repaint,
        )

    def point_of(self, index: int, needle: str) -> QPointF:
        """Viewport point of ``needle``'s first character in item ``index``'s first unit."""
        p = self.p
        item = p.items.items[index]
        doc = item.units[0].doc
        assert doc is not None
        position = doc.find(needle).selectionStart()
        uy = next(iter(p.layout.rows(item, p.layout.body_top(index))))[4]
        block = doc.findBlock(position)
        text_layout = block.layout()
        assert text_layout is not None
        line = text_layout.lineForTextPosition(position - block.position())
        x = line.cursorToX(position - block.position())[0] + PAD_X + 1
        return QPointF(x, uy - p.scroll.value + line.y() + line.height() / 2)


def test_a_drag_selects_and_a_shift_press_extends(qapp) -> None:
    h = _Harness()
    g, sel = h.gestures, h.p.sel
    g.press(h.point_of(0, "alpha"), extend=False)
    assert sel.anchor == sel.cursor and sel.anchor is not None and not sel.active
    g.move(h.point_of(0, "gamma"), left_held=True)
    assert sel.active and sel.ordered() is not None
    g.release(h.point_of(0, "gamma"))
    assert sel.selected_text() == "alpha beta "
    g.press(h.point_of(1, "epsilon"), extend=True)
    assert sel.anchor is not None and sel.anchor.item == 0 and sel.cursor is not None and sel.cursor.item == 1
    assert h.requested == [], "a drag is not a click"


def test_a_double_click_selects_the_word(qapp) -> None:
    h = _Harness()
    h.gestures.double_click(h.point_of(0, "beta"))
    assert h.p.sel.selected_text() == "beta"


def test_a_click_on_a_footer_action_runs_it_and_hovering_shows_a_hand(qapp) -> None:
    h = _Harness()
    p = h.p
    index = 1
    fy = p.items.top(index) + p.items.items[index].height - 10.0 - p.metrics.line_height(p.metrics.small)
    (_kind, _text, rect), = [f for f in p.layout.footer_layout(p.items.items[index], fy) if f[0] == "action:copy"]
    point = QPointF(rect.center().x(), rect.center().y() - p.scroll.value)
    h.gestures.move(point, left_held=False)
    assert h.cursors[-1] == Qt.CursorShape.PointingHandCursor
    h.gestures.move(h.point_of(0, "alpha"), left_held=False)
    assert h.cursors[-1] == Qt.CursorShape.IBeamCursor and h.tooltips == []
    h.gestures.press(point, extend=False)
    h.gestures.release(point)
    mid = h.messages[1].id
    assert h.requested == [("copy", mid)] and h.copied == [("message", "delta epsilon")]


def test_the_menu_is_about_the_message_under_the_mouse_or_the_last_clicked(qapp) -> None:
    h = _Harness()
    target = h.gestures.menu_target(h.point_of(0, "alpha"), keyboard=False)
    assert target is not None and target.message_id == h.messages[0].id and target.actions == h.footer
    assert target.thoughts is None
    keyboard = h.gestures.menu_target(QPointF(0, 0), keyboard=True)
    assert keyboard is not None and keyboard.message_id == h.messages[1].id, "the last message, never a notice"
    h.p.sel.cursor = Pos(0, 0, 1)  # clicked in the first one
    keyboard = h.gestures.menu_target(QPointF(0, 0), keyboard=True)
    assert keyboard is not None and keyboard.message_id == h.messages[0].id
