"""The welcome of a new conversation: the model, what it can take, a few
example prompts that fill the message box; gone once the conversation
starts, back for a new chat."""

from __future__ import annotations

from PyQt6.QtCore import Qt
from PyQt6.QtWidgets import QApplication

from app.core.backends.scripted import ScriptedBackend
from app.ui.window.empty_state import EmptyState


def test_a_new_conversation_welcomes_with_the_model_and_examples(qtbot, make_window) -> None:
    window = make_window(lambda: ScriptedBackend.from_text("Sure.", rate=2000))
    empty = window.empty_state
    assert isinstance(empty, EmptyState)
    qtbot.waitUntil(empty.isVisible, timeout=5000)
    assert empty.title.text().startswith("Chat with Scripted producer")
    assert len(empty.example_buttons) == 4
    assert all(b.accessibleName().startswith("Example: ") for b in empty.example_buttons)
    assert empty.geometry().width() <= window.view.viewport().width()
    first = empty.example_buttons[0]
    qtbot.mouseClick(first, Qt.MouseButton.LeftButton)
    assert window.prompt.toPlainText() == first.text(), "the example fills the box"
    assert QApplication.focusWidget() is window.prompt
    with qtbot.waitSignal(window.chat.reply_settled, timeout=20000):
        qtbot.keyClick(window.prompt, Qt.Key.Key_Return)
    assert not empty.isVisible(), "gone once the conversation started"
    window.menus.new_chat_action.trigger()
    qtbot.waitUntil(empty.isVisible, timeout=5000)


def test_the_facts_say_the_context_and_where_the_model_runs(qtbot, make_window) -> None:
    from app.core.backends.base import ModelInfo

    window = make_window(lambda: ScriptedBackend(rate=2000))
    empty = window.empty_state
    empty._on_model_ready(ModelInfo("Tiny", path="/models/tiny.gguf", n_ctx=8192))
    assert empty.facts.text() == "Reads up to 8,192 tokens at a time · Runs on this computer"
    empty._on_model_ready(ModelInfo("qwen on box", path="http://127.0.0.1:8080"))
    assert empty.facts.text() == "Answers from http://127.0.0.1:8080"
