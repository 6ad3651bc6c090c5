"""The context menu: Copy, the message's actions, Select All."""

from __future__ import annotations

from PyQt6.QtWidgets import QWidget

from app.ui.conversation.menu import MenuTarget, build_context_menu


def test_the_menu_lists_the_message_actions_and_runs_them(qtbot) -> None:
    parent = QWidget()
    qtbot.addWidget(parent)
    acted: list[tuple[str, str]] = []
    target = MenuTarget("m1", False, [("previous", "‹"), ("branch", "1/2"), ("copy", "Copy"), ("edit", "Edit")])
    menu = build_context_menu(parent, False, target, lambda: None, lambda: None, lambda a, m: acted.append((a, m)),
                              lambda m: acted.append(("toggle", m)))
    texts = [a.text() for a in menu.actions() if not a.isSeparator()]
    assert texts == ["Copy", "Copy Message", "Show Thoughts", "Previous Version", "Edit", "Select All"]
    assert not menu.actions()[0].isEnabled()
    menu.actions()[4].trigger()
    menu.actions()[2].trigger()
    assert acted == [("edit", "m1"), ("toggle", "m1")]
    plain = build_context_menu(parent, True, None, lambda: None, lambda: None, lambda a, m: None, lambda m: None)
    assert [a.text() for a in plain.actions() if not a.isSeparator()] == ["Copy", "Select All"]
