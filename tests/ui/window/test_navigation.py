"""Keyboard navigation: the message box, the list and the next conversation."""

from __future__ import annotations

from typing import Any

from app.core.backends.scripted import ScriptedBackend
from app.ui.window.navigation import KeyboardNavigation


def test_next_and_previous_conversation_activate_neighbours(qtbot: Any, make_window: Any) -> None:
    window = make_window(lambda: ScriptedBackend(rate=2000))
    nav = window.navigation
    assert isinstance(nav, KeyboardNavigation)
    window.sidebar.model.upsert("a", "A", 2.0, False)
    window.sidebar.model.upsert("b", "B", 1.0, False)
    window.sidebar.select("a")
    with qtbot.waitSignal(window.sidebar.conversation_activated, timeout=2000) as blocker:
        nav.next_chat_action.trigger()
    assert blocker.args == ["b"]
    with qtbot.waitSignal(window.sidebar.conversation_activated, timeout=2000) as blocker:
        nav.previous_chat_action.trigger()
    assert blocker.args == ["a"]
    assert nav.shortcuts_action in window.menus.help_menu.actions()
