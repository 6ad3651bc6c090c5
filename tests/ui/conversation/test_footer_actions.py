"""The quiet actions: each message's actions are icon buttons (Lucide SVGs
in the theme's colours) with their names as tooltips, shown on the message
under the pointer, the one the keyboard is on, and always on the last reply."""

from __future__ import annotations

from PyQt6.QtCore import QPoint, QPointF, Qt
from PyQt6.QtGui import QColor, QImage

from app.core.conversation.model import Message
from app.ui.misc import icons, theme


def shown_view(qtbot, view):
    first, reply = Message("user", "first question"), Message("assistant", "an answer")
    view.add_messages([first, reply])
    view.set_decorator(lambda mid: (None, ("edit", "delete") if mid == first.id else ("regenerate", "delete")))
    qtbot.waitUntil(lambda: view.probe.point_of_text(first.id, "question") is not None, timeout=5000)
    return first, reply


def test_actions_show_on_hover_and_always_on_the_last_reply(qtbot, view) -> None:
    first, reply = shown_view(qtbot, view)
    assert view.actions_shown(reply.id), "the last reply keeps its actions"
    assert not view.actions_shown(first.id), "quiet until hovered"
    point = view.probe.footer_action_point(first.id, "edit")
    assert point is not None
    qtbot.mouseMove(view.viewport(), point.toPoint())
    qtbot.waitUntil(lambda: view.actions_shown(first.id), timeout=2000)
    assert view._shown.hover_action == "edit"
    far = view.probe.footer_action_point(reply.id, "copy")
    assert far is not None
    qtbot.mouseMove(view.viewport(), far.toPoint())
    qtbot.waitUntil(lambda: not view.actions_shown(first.id), timeout=2000)
    view._on_hovered("", "")
    assert not view.actions_shown(first.id) and view.actions_shown(reply.id)


def test_keyboard_focus_shows_the_actions_of_the_message_last_clicked(qtbot, view) -> None:
    first, _reply = shown_view(qtbot, view)
    point = view.probe.point_of_text(first.id, "question")
    assert point is not None
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=point.toPoint())
    view._on_hovered("", "")
    assert view.actions_shown(first.id), "the message clicked (the keyboard is on it)"
    view.clearFocus()
    qtbot.waitUntil(lambda: not view.hasFocus(), timeout=2000)
    assert not view.actions_shown(first.id)
    view.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.waitUntil(view.hasFocus, timeout=2000)
    assert view.actions_shown(first.id)


def test_the_buttons_are_icons_named_by_their_tooltips_and_still_click(qtbot, view) -> None:
    first, reply = shown_view(qtbot, view)
    copy = view.probe.footer_action_point(reply.id, "copy")
    regenerate = view.probe.footer_action_point(reply.id, "regenerate")
    assert copy is not None and regenerate is not None
    assert regenerate.x() - copy.x() < 40, "squares side by side, not words"
    assert view.tooltip_at(regenerate) == "Regenerate"
    assert view.tooltip_at(QPointF(copy.x(), copy.y() - 200)) == ""
    assert "Copy" in view.probe.footer_texts(first.id), "the names stay (menu, screen readers)"
    with qtbot.waitSignal(view.message_action_requested, timeout=2000) as blocker:
        qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(round(regenerate.x()), round(regenerate.y())))
    assert blocker.args == ["regenerate", reply.id]


def test_the_facts_line_is_muted_and_at_the_column_end(qtbot, view) -> None:
    reply = Message("assistant", "an answer")
    reply.meta.tokens = 12
    view.add_messages([reply])
    qtbot.waitUntil(lambda: bool(view.probe.message_footer(reply.id)), timeout=5000)
    layout = view._layout.footer_layout(view._item(reply.id), 0.0)
    facts = [r for k, _t, r in layout if k == "facts"]
    assert facts and facts[0].right() <= view._metrics.text_x() + view._metrics.content_width() + 0.5
    assert facts[0].right() > view._metrics.text_x() + view._metrics.content_width() - 2


def test_icons_are_drawn_in_the_colour_asked_for_each_theme(qapp) -> None:
    for name in icons.ICONS:
        for t in (theme.LIGHT, theme.DARK):
            colour = t.qcolor("muted")
            image: QImage = icons.pixmap(name, colour, 16, 1.0).toImage()
            assert image.width() == 16
            inked = [image.pixelColor(x, y) for x in range(16) for y in range(16) if image.pixelColor(x, y).alpha() > 200]
            assert inked, f"{name}: nothing drawn"
            assert all(abs(c.red() - colour.red()) < 3 for c in inked), f"{name}: another colour"
    assert icons.pixmap("copy", QColor("#000000"), 16, 2.0).devicePixelRatio() == 2.0
    assert icons.pixmap("no-such-icon", QColor("#000000"), 16).toImage().pixelColor(8, 8).alpha() == 0
