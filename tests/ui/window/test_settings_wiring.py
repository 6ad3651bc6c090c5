"""SettingsWiring: the preferences reach the chat, Settings › Reload model
now loads the model again, and Conversation Settings store a conversation's
overrides, the shown one or another one (read from the store)."""

from __future__ import annotations

from typing import Any

import pytest

from app.core.backends.scripted import ScriptedBackend
from app.core.config.preferences import ConversationSettings, Preferences
from app.ui.window.settings_wiring import SettingsWiring


def open_window(qtbot: Any, make_window: Any) -> Any:
    window = make_window(lambda: ScriptedBackend(rate=5000, n_tokens=3))
    if not window.store.available:
        with qtbot.waitSignal(window.store.opened, timeout=10000):
            pass
    return window


def test_preferences_are_what_the_next_request_takes(qtbot: Any, make_window: Any) -> None:
    window = open_window(qtbot, make_window)
    wiring = window.settings_wiring
    assert isinstance(wiring, SettingsWiring)
    wiring.apply_preferences(Preferences(temperature=1.4, system_prompt="Be brief.", overflow="middle"))
    assert wiring.preferences.temperature == 1.4
    chat = window.chat
    assert chat.params.temperature == 1.4 and chat.default_system_prompt == "Be brief." and chat.overflow == "middle"
    assert chat.reply_settings(chat.conversation).system_prompt == "Be brief."


@pytest.mark.qt_log_ignore("This plugin does not support raise")  # offscreen: raise_() is a no-op
def test_reload_model_now_loads_the_last_model_again(qtbot: Any, make_window: Any) -> None:
    window = open_window(qtbot, make_window)
    wiring = window.settings_wiring
    assert wiring.settings_dialog is None
    wiring.open_settings()
    dialog = wiring.settings_dialog
    assert dialog is not None and window.settings_dialog is dialog and dialog.isVisible()
    with qtbot.waitSignal(window.chat.model_ready, timeout=10000):
        dialog.reload_model_requested.emit()
        assert window.statusBar().currentMessage() == "Loading the model again with the new settings…"
    dialog.reject()


def test_conversation_settings_of_another_conversation_are_stored(qtbot: Any, make_window: Any) -> None:
    window = open_window(qtbot, make_window)
    wiring = window.settings_wiring
    with qtbot.waitSignal(window.chat.reply_settled, timeout=20000):
        window.enter_prompt("first")
    first = window.chat.conversation
    window.chat.new_chat()
    assert window.chat.conversation is not first
    wiring.save_conversation_settings(first.id, ConversationSettings(temperature=1.3))
    qtbot.waitUntil(lambda: first.overrides.get("temperature") == 1.3, timeout=5000)
    assert window.statusBar().currentMessage() == "Conversation settings saved: they apply from its next reply."
    assert window.chat.conversation.overrides == {}  # the shown one is untouched
    wiring.open_conversation_settings(first.id)
    dialog = wiring.conversation_settings_dialog
    assert dialog is not None and dialog.isVisible()
    dialog.reject()
    wiring.open_conversation_settings("no-such-conversation")
    qtbot.waitUntil(
        lambda: window.statusBar().currentMessage() == "That conversation is no longer in the history.", timeout=10000
    )
