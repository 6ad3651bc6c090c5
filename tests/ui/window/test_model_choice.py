"""ModelChoice: the chosen backend is checked and remembered once it has loaded."""

from __future__ import annotations

from typing import Any

from app.core.backends.scripted import ScriptedBackend
from app.core.base import settings
from app.ui.window.model_choice import LAST_BACKEND_KEY, ModelChoice
from app.ui.window.model_menu import server_choice


def test_an_expected_load_is_checked_and_remembered_once_it_works(qtbot: Any, make_window: Any) -> None:
    window = make_window(lambda: ScriptedBackend(rate=2000))
    choice = window.model_choice
    assert isinstance(choice, ModelChoice)
    wanted = server_choice("srv-1", "tiny")
    choice.expect_load("scripted again", wanted)
    with qtbot.waitSignal(window.chat.model_ready, timeout=10000):
        window.chat.load_model(lambda: ScriptedBackend(rate=2000), "scripted again")
    assert window.model_menu.current == wanted
    assert settings.load_settings()[LAST_BACKEND_KEY] == wanted


def test_an_unexpected_load_changes_nothing_remembered(qtbot: Any, make_window: Any) -> None:
    window = make_window(lambda: ScriptedBackend(rate=2000))
    before = settings.load_settings().get(LAST_BACKEND_KEY)
    with qtbot.waitSignal(window.chat.model_ready, timeout=10000):
        window.chat.load_model(lambda: ScriptedBackend(rate=2000), "nobody chose this")
    assert window.model_menu.current is None
    assert settings.load_settings().get(LAST_BACKEND_KEY) == before


def test_a_failed_load_unchecks_the_menu(qtbot: Any, make_window: Any) -> None:
    window = make_window(lambda: ScriptedBackend(rate=2000))
    window.model_choice.expect_load("broken", server_choice("srv-1", "x"))

    def broken() -> ScriptedBackend:
        raise RuntimeError("no such model")

    with qtbot.waitSignal(window.chat.model_failed, timeout=10000):
        window.chat.load_model(broken, "broken")
    assert window.model_menu.current is None
