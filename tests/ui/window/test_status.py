"""StatusLabels: the model, the chat's state and the stream's health in words."""

from __future__ import annotations

from typing import Any

from app.core.backends.base import ModelInfo
from app.core.backends.scripted import ScriptedBackend
from app.ui.window.status import StatusLabels


def test_the_labels_follow_the_chat(qtbot: Any, make_window: Any) -> None:
    window = make_window(lambda: ScriptedBackend(rate=50))
    labels = window.status_labels
    assert isinstance(labels, StatusLabels) and labels.state_label is window.state_label
    assert labels.state_label.text() == "Ready"
    with qtbot.waitSignal(window.chat.reply_started, timeout=5000):
        window.enter_prompt("talk to me")
    qtbot.waitUntil(lambda: labels.state_label.text() == "Generating…  (Esc to stop)", timeout=10000)
    qtbot.waitUntil(lambda: labels.health_label.text() != "", timeout=10000)
    with qtbot.waitSignal(window.chat.reply_settled, timeout=20000):
        window.chat.stop()
    qtbot.waitUntil(lambda: labels.state_label.text() == "Ready" and labels.health_label.text() == "", timeout=10000)


def test_the_model_label_names_the_model_or_the_failure(qtbot: Any, make_window: Any) -> None:
    window = make_window(lambda: ScriptedBackend(rate=5000, n_tokens=3))
    label = window.status_labels.model_label
    info = ModelInfo(name="tiny", path="/models/tiny.gguf", n_ctx=2048, n_threads=1, chat_template="chatml")
    window.chat.model_ready.emit(info)
    assert label.text() == "tiny  ·  context 2048  ·  1 thread  ·  template: chatml"
    assert label.toolTip() == "/models/tiny.gguf"
    window.chat.model_failed.emit("no such file")
    assert label.text() == "No model loaded: choose one in the Model menu" and label.toolTip() == "no such file"
