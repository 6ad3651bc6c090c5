"""MenuBar: every menu built in one place, in order."""

from __future__ import annotations

from typing import Any

from app.core.backends.scripted import ScriptedBackend
from app.ui.window.menus import MenuBar


def titles(menu: Any) -> list[str]:
    return [a.text() for a in menu.actions() if not a.isSeparator()]


def test_the_menu_bar_and_the_edit_menu(qtbot: Any, make_window: Any) -> None:
    window = make_window(lambda: ScriptedBackend(rate=2000))
    menus = window.menus
    assert isinstance(menus, MenuBar) and window.edit_menu is menus.edit_menu
    bar = [a.text() for a in window.menuBar().actions()]
    assert bar == ["&File", "&Edit", "&Model", "&View", "&Go", "&Help"]
    assert titles(window.edit_menu) == [
        "&Copy", "Select &All", "Copy Conversation as &Markdown", "Re&generate Reply",
        "&Find in Conversation…", "Find &Next", "Find Pre&vious", "&Search All Conversations…",
        "Conversation Se&ttings…", "S&ettings…",
    ]
    assert menus.manage_models_action in window.model_menu.actions()
    # Shortcuts that work with the menu bar hidden are the window's too.
    for action in (menus.regenerate_action, menus.search_action, menus.settings_action, menus.manage_models_action):
        assert action in window.actions()
