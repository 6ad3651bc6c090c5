"""Settings (Ctrl+,) and Conversation Settings…: the dialogs, what they
save, and that a change reaches the NEXT request, never the streaming one."""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Generator
from typing import Any

import pytest
from PyQt6.QtCore import QPoint
from PyQt6.QtWidgets import QDialog, QDialogButtonBox, QGroupBox, QLabel, QMenu

from app.core.backends.base import FinishReason, GenerationRequest
from app.core.backends.scripted import ScriptedBackend
from app.core.config import preferences as prefs_mod
from app.core.config.preferences import (
    RANDOM_SEED,
    ConversationSettings,
    Preferences,
    load_preferences,
    save_preferences,
)
from app.core.conversation.model import (
    DEFAULT_SYSTEM_PROMPT,
    Conversation,
    MessageStatus,
)
from app.core.store import (
    Store,
    conversation_from_info,
    default_path,
)
from app.ui.conversation.controller import ChatState
from app.ui.dialogs.conversation_settings import ConversationSettingsDialog
from app.ui.dialogs.settings import SettingsDialog
from app.ui.services.background import join_background_threads

Std = QDialogButtonBox.StandardButton

def _load(store: Store, conversation_id: str) -> Conversation | None:
    """The conversation as the window loads it (``ConversationLibrary.load``)."""
    info = store.get_conversation(conversation_id)
    return None if info is None else conversation_from_info(info, store.load_messages(conversation_id))



def click(dialog: Any, which: QDialogButtonBox.StandardButton) -> None:
    button = dialog.buttons.button(which)
    assert button is not None
    button.click()


def make_dialog(qtbot: Any, **kwargs: Any) -> SettingsDialog:
    kwargs.setdefault("gpu_supported", False)
    dialog = SettingsDialog(**kwargs)
    qtbot.addWidget(dialog)
    dialog.show()
    return dialog


def message(dialog: Any, name: str) -> str:
    label = dialog.rows[name].message
    return label.text() if label.isVisible() else ""


# -- the Settings dialog --------------------------------------------------------------------


def test_opens_grouped_with_the_saved_values(qtbot: Any) -> None:
    saved = Preferences(temperature=1.3, top_k=7, seed=7, n_ctx=2048, n_threads=1, system_prompt="Hi there.")
    assert save_preferences(saved)
    dialog = make_dialog(qtbot)
    assert dialog.windowTitle() == "Settings"
    assert {g.title() for g in dialog.findChildren(QGroupBox)} == {
        "Sampling", "Model", "System prompt", "Documents", "Appearance"}
    assert dialog.preferences() == saved
    assert dialog.spins["temperature"].value() == 1.3 and dialog.spins["n_ctx"].value() == 2048
    assert not dialog.seed_random.isChecked() and dialog.spins["seed"].isEnabled()
    assert dialog.system_prompt.toPlainText() == "Hi there."
    assert not dialog.gpu_row_visible  # this llama.cpp: no GPU backend
    texts = " ".join(label.text() for label in dialog.findChildren(QLabel))
    assert "next reply" in texts and "next time a model is loaded" in texts
    assert all(not message(dialog, name) for name in dialog.rows)


def test_spin_boxes_have_the_bounds(qtbot: Any) -> None:
    dialog = make_dialog(qtbot)
    s = dialog.spins
    assert (s["temperature"].minimum(), s["temperature"].maximum()) == (0.0, 2.0)
    assert (s["top_p"].minimum(), s["top_p"].maximum()) == (0.0, 1.0)
    assert (s["top_k"].minimum(), s["top_k"].maximum()) == (0, 1000)
    assert (s["min_p"].minimum(), s["min_p"].maximum()) == (0.0, 1.0)
    assert (s["repeat_penalty"].minimum(), s["repeat_penalty"].maximum()) == (0.5, 2.0)
    assert (s["n_ctx"].minimum(), s["n_ctx"].maximum(), s["n_ctx"].singleStep()) == (512, 131072, 256)
    assert s["n_threads"].maximum() == prefs_mod.cpu_count() and s["n_threads"].specialValueText() == "Automatic"
    assert s["n_gpu_layers"].minimum() == -1 and s["n_gpu_layers"].specialValueText() == "All"


def test_gpu_layers_show_only_with_gpu_support(qtbot: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    assert make_dialog(qtbot, gpu_supported=True).gpu_row_visible
    answer = threading.Event()
    monkeypatch.setattr(prefs_mod, "gpu_offload_supported", lambda: None)
    monkeypatch.setattr(prefs_mod, "detect_gpu_offload", lambda: answer.wait(10) and True)
    dialog = make_dialog(qtbot, gpu_supported=None)
    assert not dialog.gpu_row_visible  # found out in the background
    answer.set()
    qtbot.waitUntil(lambda: dialog.gpu_row_visible, timeout=5000)
    assert join_background_threads(5.0)


def test_edit_ok_saves_and_reopening_shows_it(qtbot: Any) -> None:
    dialog = make_dialog(qtbot)
    dialog.spins["temperature"].setValue(1.25)
    dialog.spins["top_p"].setValue(0.8)
    dialog.spins["max_tokens"].setValue(500)
    dialog.seed_random.setChecked(False)
    dialog.spins["seed"].setValue(1234)
    dialog.spins["n_ctx"].setValue(2048)
    dialog.spins["n_threads"].setValue(1)
    dialog.system_prompt.setPlainText("Be terse. 简短。")
    dialog.overflow.setCurrentIndex(dialog.overflow.findData("middle"))
    with qtbot.waitSignal(dialog.preferences_applied) as blocker:
        click(dialog, Std.Ok)
    expected = dataclasses.replace(Preferences(), temperature=1.25, top_p=0.8, max_tokens=500, seed=1234,
                                   n_ctx=2048, n_threads=1, system_prompt="Be terse. 简短。", overflow="middle")
    assert blocker.args == [expected]
    assert dialog.result() == QDialog.DialogCode.Accepted and not dialog.isVisible()
    assert load_preferences() == expected
    again = make_dialog(qtbot)
    assert again.preferences() == expected
    again.seed_random.setChecked(True)
    assert not again.spins["seed"].isEnabled()
    click(again, Std.Apply)
    assert again.isVisible() and load_preferences().seed is None


def test_an_invalid_value_shows_its_message_and_ok_is_refused(qtbot: Any) -> None:
    dialog = make_dialog(qtbot)
    applied: list[Any] = []
    dialog.preferences_applied.connect(applied.append)
    dialog.spins["n_ctx"].setValue(1000)
    assert message(dialog, "n_ctx") == "Context length must be a multiple of 256 (for example 768 or 1,024)."
    assert dialog.rows["n_ctx"].message.property("tone") == "error"
    assert message(dialog, "max_tokens")  # 1,024 > 1,000
    click(dialog, Std.Ok)
    assert dialog.isVisible() and dialog.result() != QDialog.DialogCode.Accepted
    assert dialog.status.isVisible() and "Not saved" in dialog.status.text()
    assert applied == [] and load_preferences() == Preferences()
    click(dialog, Std.Apply)
    assert applied == []
    dialog.spins["n_ctx"].setValue(1024)
    assert not message(dialog, "n_ctx") and not message(dialog, "max_tokens")
    dialog.system_prompt.setPlainText("x" * 8001)
    assert "too long" in message(dialog, "system_prompt")
    click(dialog, Std.Ok)
    assert dialog.isVisible() and applied == []
    dialog.system_prompt.setPlainText("fine")
    click(dialog, Std.Ok)
    assert not dialog.isVisible() and load_preferences().n_ctx == 1024


def test_reset_to_defaults_fills_the_form_and_saves_only_on_apply(qtbot: Any) -> None:
    custom = Preferences(temperature=1.9, seed=3, n_ctx=8192, max_tokens=2000, system_prompt="Custom.")
    assert save_preferences(custom)
    dialog = make_dialog(qtbot)
    click(dialog, Std.RestoreDefaults)
    assert dialog.preferences() == Preferences()
    assert dialog.seed_random.isChecked() and dialog.system_prompt.toPlainText() == DEFAULT_SYSTEM_PROMPT
    assert load_preferences() == custom  # nothing saved yet
    click(dialog, Std.Apply)
    assert load_preferences() == Preferences()
    assert dialog.isVisible()


def test_cancel_saves_nothing(qtbot: Any) -> None:
    dialog = make_dialog(qtbot)
    dialog.spins["temperature"].setValue(1.5)
    click(dialog, Std.Cancel)
    assert not dialog.isVisible() and load_preferences() == Preferences()


def test_a_context_beyond_the_trained_one_warns_but_saves(qtbot: Any) -> None:
    dialog = make_dialog(qtbot)
    dialog.spins["n_ctx"].setValue(8192)
    assert not message(dialog, "n_ctx")
    dialog.set_trained_ctx(2048)
    assert "trained with a context of 2,048 tokens" in message(dialog, "n_ctx")
    assert dialog.rows["n_ctx"].message.property("tone") == "warning"
    click(dialog, Std.Ok)
    assert not dialog.isVisible() and load_preferences().n_ctx == 8192


def test_reload_model_now_saves_then_asks(qtbot: Any) -> None:
    dialog = make_dialog(qtbot)
    dialog.spins["n_ctx"].setValue(2048)
    with qtbot.waitSignal(dialog.reload_model_requested):
        dialog.reload_button.click()
    assert load_preferences().n_ctx == 2048 and not dialog.isVisible()
    refused = make_dialog(qtbot, reload_available=False)
    assert not refused.reload_button.isEnabled()


def test_a_settings_file_that_cannot_be_written_is_said(qtbot: Any, tmp_path: Any) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    dialog = make_dialog(qtbot, settings_path=blocker / "settings.json")  # its folder is a file
    applied: list[Any] = []
    dialog.preferences_applied.connect(applied.append)
    dialog.spins["temperature"].setValue(1.0)
    click(dialog, Std.Apply)
    assert len(applied) == 1 and not dialog.saved  # applies for this session
    assert "could not be written" in dialog.status.text() and "Traceback" not in dialog.status.text()


# -- the Conversation Settings dialog ---------------------------------------------------------


def make_conv_dialog(qtbot: Any, current: ConversationSettings | None = None,
                     defaults: Preferences | None = None) -> ConversationSettingsDialog:
    dialog = ConversationSettingsDialog("c1", current, defaults or Preferences(temperature=0.4), "Chat")
    qtbot.addWidget(dialog)
    dialog.show()
    return dialog


def test_conversation_dialog_shows_settings_values_until_ticked(qtbot: Any) -> None:
    dialog = make_conv_dialog(qtbot)
    assert not dialog.overrides["temperature"].isChecked() and not dialog.spins["temperature"].isEnabled()
    assert dialog.spins["temperature"].value() == 0.4  # what Settings says
    assert not dialog.system_prompt.isEnabled() and dialog.system_prompt.toPlainText() == DEFAULT_SYSTEM_PROMPT
    assert dialog.settings() == ConversationSettings()
    dialog.overrides["temperature"].setChecked(True)
    dialog.spins["temperature"].setValue(1.1)
    dialog.system_override.setChecked(True)
    dialog.system_prompt.setPlainText("Pirate.")
    dialog.overrides["seed"].setChecked(True)
    assert dialog.seed_random.isChecked() and not dialog.spins["seed"].isEnabled()
    with qtbot.waitSignal(dialog.settings_accepted) as blocker:
        click(dialog, Std.Ok)
    assert blocker.args == ["c1", ConversationSettings(system_prompt="Pirate.", temperature=1.1, seed=RANDOM_SEED)]
    assert not dialog.isVisible()


def test_conversation_dialog_keeps_unknown_keys_and_clears(qtbot: Any) -> None:
    current = ConversationSettings(top_k=3, seed=5, extra={"stop": ["END"]})
    dialog = make_conv_dialog(qtbot, current)
    assert dialog.overrides["top_k"].isChecked() and dialog.spins["top_k"].value() == 3
    assert not dialog.seed_random.isChecked() and dialog.spins["seed"].value() == 5
    assert dialog.settings() == current
    click(dialog, Std.RestoreDefaults)  # "Use Settings for All"
    assert dialog.settings() == ConversationSettings(extra={"stop": ["END"]})


def test_conversation_dialog_refuses_an_invalid_prompt(qtbot: Any) -> None:
    dialog = make_conv_dialog(qtbot)
    emitted: list[Any] = []
    dialog.settings_accepted.connect(lambda *a: emitted.append(a))
    dialog.system_override.setChecked(True)
    dialog.system_prompt.setPlainText("y" * 9000)
    click(dialog, Std.Ok)
    assert dialog.isVisible() and emitted == [] and "too long" in message(dialog, "system_prompt")


# -- the window: menus, the next request, persistence ---------------------------------------------


class RecordingBackend(ScriptedBackend):
    """A scripted backend that keeps every request it was sent and, like a
    model, stops at its max_tokens."""

    def __init__(self, requests: list[GenerationRequest], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.requests = requests

    def generate(self, request: GenerationRequest, cancel: threading.Event) -> Generator[str, None, FinishReason]:
        self.requests.append(request)
        self.n_tokens = request.params.max_tokens
        return (yield from super().generate(request, cancel))


def recording(requests: list[GenerationRequest], **kwargs: Any) -> Any:
    return lambda: RecordingBackend(requests, **kwargs)


@pytest.mark.qt_log_ignore("This plugin does not support raise")  # offscreen: raise_() is a no-op
def test_settings_and_conversation_settings_are_in_the_edit_menu(qtbot: Any, make_window: Any) -> None:
    window = make_window(lambda: ScriptedBackend(rate=2000, n_tokens=5))
    assert window.menus.settings_action.shortcut().toString() == "Ctrl+,"
    edit = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Edit")
    assert window.menus.settings_action in edit.actions() and window.menus.conversation_settings_action in edit.actions()
    window.menus.settings_action.trigger()
    dialog = window.settings_dialog
    assert dialog is not None and dialog.isVisible()
    window.menus.settings_action.trigger()  # the same one comes to the front
    assert window.settings_dialog is dialog
    click(dialog, Std.Cancel)
    window.menus.conversation_settings_action.trigger()
    assert window.settings_wiring.conversation_settings_dialog.isVisible()
    click(window.settings_wiring.conversation_settings_dialog, Std.Cancel)


def test_a_change_while_streaming_is_for_the_next_request(qtbot: Any, make_window: Any) -> None:
    requests: list[GenerationRequest] = []
    window = make_window(recording(requests, rate=100))
    chat = window.chat
    wiring = window.settings_wiring
    with qtbot.waitSignal(chat.prompt_processed, timeout=5000):
        chat.send("first")
    assert chat.state == ChatState.GENERATING and len(requests) == 1
    # Settings › temperature 1.7, and this conversation's own top_k and prompt, mid-reply
    window.menus.settings_action.trigger()
    dialog = window.settings_dialog
    dialog.spins["temperature"].setValue(1.7)
    click(dialog, Std.Apply)
    window.settings_wiring.save_conversation_settings(
        chat.conversation.id, ConversationSettings(top_k=3, system_prompt="Own prompt."))
    click(dialog, Std.Ok)
    running = requests[0]
    assert running.params.temperature == 0.6 and running.params.top_k == 40
    assert running.messages[0].content == DEFAULT_SYSTEM_PROMPT
    reply = chat.current_reply
    assert reply is not None and reply.message.status == MessageStatus.STREAMING  # untouched, still going
    with qtbot.waitSignal(chat.reply_settled, timeout=5000):
        chat.stop()
    with qtbot.waitSignal(chat.reply_settled, timeout=10000):
        wiring.apply_preferences(dataclasses.replace(wiring.preferences, max_tokens=8))
        chat.send("second")
    sent = requests[1]
    assert (sent.params.temperature, sent.params.top_k, sent.params.max_tokens) == (1.7, 3, 8)
    assert sent.messages[0].content == "Own prompt."
    # regenerate, edit and continue each take the settings of the moment too
    wiring.apply_preferences(dataclasses.replace(wiring.preferences, temperature=0.2))
    with qtbot.waitSignal(chat.reply_settled, timeout=10000):
        assert chat.regenerate()
    assert requests[-1].params.temperature == 0.2 and requests[-1].messages[0].content == "Own prompt."
    wiring.apply_preferences(dataclasses.replace(wiring.preferences, temperature=0.3))
    first_prompt = chat.conversation.messages[0]
    with qtbot.waitSignal(chat.reply_settled, timeout=10000):
        assert chat.send_edit("first, edited", first_prompt.id)
    assert requests[-1].params.temperature == 0.3
    wiring.apply_preferences(dataclasses.replace(wiring.preferences, temperature=0.9, max_tokens=4000))
    with qtbot.waitSignal(chat.prompt_processed, timeout=5000):
        chat.regenerate()
    qtbot.waitUntil(lambda: len(chat.current_reply.message) > 0, timeout=5000)
    with qtbot.waitSignal(chat.reply_settled, timeout=5000):
        chat.stop()
    wiring.apply_preferences(dataclasses.replace(wiring.preferences, temperature=1.1, max_tokens=8))
    stopped = chat.conversation.messages[-1]
    assert stopped.status == MessageStatus.STOPPED
    with qtbot.waitSignal(chat.reply_settled, timeout=10000):
        assert chat.continue_reply(stopped.id)
    assert requests[-1].params.temperature == 1.1 and requests[-1].continue_text


def test_reload_model_now_loads_the_current_model_again(qtbot: Any, make_window: Any) -> None:
    loads: list[int] = []

    def factory() -> ScriptedBackend:
        loads.append(1)
        return ScriptedBackend(rate=2000, n_tokens=5)

    window = make_window(factory)
    assert loads == [1]
    window.menus.settings_action.trigger()
    dialog = window.settings_dialog
    assert dialog.reload_button.isEnabled()
    dialog.spins["n_ctx"].setValue(2048)
    with qtbot.waitSignal(window.chat.model_ready, timeout=10000):
        dialog.reload_button.click()
    assert loads == [1, 1] and load_preferences().n_ctx == 2048
    assert window.chat.state == ChatState.IDLE


@pytest.mark.qt_log_ignore("This plugin does not support raise", "This plugin does not support grabbing")
def test_conversation_settings_from_the_sidebar_are_stored_with_it(qtbot: Any, make_window: Any) -> None:
    requests: list[GenerationRequest] = []
    window = make_window(recording(requests, rate=3000, n_tokens=5))
    chat = window.chat
    with qtbot.waitSignal(chat.reply_settled, timeout=10000):
        chat.send("hello")
    conv = chat.conversation
    qtbot.waitUntil(lambda: window.sidebar.model.row_of(conv.id) >= 0, timeout=5000)
    row = window.sidebar.model.row_of(conv.id)
    rect = window.sidebar.list.visualRect(window.sidebar.model.index(row))
    window.sidebar._on_context_menu_requested(QPoint(rect.center()))
    menu = window.sidebar.findChildren(QMenu)[-1]
    action = next(a for a in menu.actions() if a.text() == "Conversation Settings…")
    action.trigger()
    menu.close()
    dialog = window.settings_wiring.conversation_settings_dialog
    assert dialog.conversation_id == conv.id and dialog.isVisible()
    dialog.overrides["temperature"].setChecked(True)
    dialog.spins["temperature"].setValue(1.5)
    dialog.system_override.setChecked(True)
    dialog.system_prompt.setPlainText("Answer like a sailor.")
    click(dialog, Std.Ok)
    assert conv.overrides == {"temperature": 1.5, "system_prompt": "Answer like a sailor."}
    with qtbot.waitSignal(chat.reply_settled, timeout=10000):
        chat.send("again")
    assert requests[-1].params.temperature == 1.5
    assert requests[-1].messages[0].content == "Answer like a sailor."
    with qtbot.waitSignal(window.services.shutdown_finished, timeout=10000):
        window.close()
    result = Store.open(default_path(), recover=False)
    assert result.store is not None
    try:
        info = result.store.get_conversation(conv.id)
        assert info is not None
        assert (info.system_prompt, info.params) == ("Answer like a sailor.", {"temperature": 1.5})
        loaded = _load(result.store, conv.id)
        assert loaded is not None and loaded.overrides == conv.overrides
    finally:
        result.store.close()


def test_a_new_conversation_is_stored_with_settings_chosen_before_its_first_message(
    qtbot: Any, make_window: Any
) -> None:
    window = make_window(lambda: ScriptedBackend(rate=3000, n_tokens=5))
    chat = window.chat
    conv = chat.conversation
    window.settings_wiring.save_conversation_settings(conv.id, ConversationSettings(seed=RANDOM_SEED, top_p=0.5))
    with qtbot.waitSignal(chat.reply_settled, timeout=10000):
        chat.send("hello")
    with qtbot.waitSignal(window.services.shutdown_finished, timeout=10000):
        window.close()
    result = Store.open(default_path(), recover=False)
    assert result.store is not None
    try:
        info = result.store.get_conversation(conv.id)
        assert info is not None and info.system_prompt is None and info.params == {"top_p": 0.5, "seed": None}
    finally:
        result.store.close()


def test_every_wrapped_note_gets_its_lines(qtbot: Any) -> None:
    """The dialog grows to what its wrapped notes need at its width: the
    Documents group's hint once cut the Sampling group's note."""
    from PyQt6.QtWidgets import QLabel

    dialog = make_dialog(qtbot)
    qtbot.waitExposed(dialog)
    labels = [w for w in dialog.findChildren(QLabel) if w.wordWrap() and w.isVisible() and w.text()]
    assert labels
    cut = [w.text()[:40] for w in labels if w.height() < w.heightForWidth(w.width())]
    assert not cut, cut
