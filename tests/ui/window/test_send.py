"""SendController: edit mode and Esc, and the checks before a message goes."""

from __future__ import annotations

from typing import Any

from app.core.backends.scripted import ScriptedBackend
from app.ui.conversation.controller import ChatState
from app.ui.window.send import SendController


def test_an_edit_fills_the_box_and_esc_cancels_it(qtbot: Any, make_window: Any) -> None:
    window = make_window(lambda: ScriptedBackend(rate=5000, n_tokens=3))
    sender = window.send_controller
    assert isinstance(sender, SendController)
    with qtbot.waitSignal(window.chat.reply_settled, timeout=20000):
        window.enter_prompt("first question")
    question = window.chat.conversation.messages[0]
    window.chat.edit_requested.emit(question.id, "first question, edited")
    assert sender.editing == question.id
    assert window.prompt.toPlainText() == "first question, edited"
    assert window.statusBar().currentMessage().startswith("Editing your message")
    sender.escape()
    assert sender.editing is None and window.prompt.toPlainText() == ""
    assert window.statusBar().currentMessage() == "Edit cancelled"


def test_sending_an_edit_makes_a_new_version(qtbot: Any, make_window: Any) -> None:
    window = make_window(lambda: ScriptedBackend(rate=5000, n_tokens=3))
    with qtbot.waitSignal(window.chat.reply_settled, timeout=20000):
        window.enter_prompt("first question")
    question = window.chat.conversation.messages[0]
    window.chat.edit_requested.emit(question.id, "second version")
    with qtbot.waitSignal(window.chat.reply_settled, timeout=20000):
        window.send_controller.send()
    assert window.send_controller.editing is None and window.prompt.toPlainText() == ""
    assert window.chat.conversation.messages[0].content == "second version"
    assert len(window.chat.conversation.messages) == 2


def test_esc_without_an_edit_stops_the_reply(qtbot: Any, make_window: Any) -> None:
    window = make_window(lambda: ScriptedBackend(rate=50))
    with qtbot.waitSignal(window.chat.reply_started, timeout=5000):
        window.enter_prompt("a long answer, please")
    with qtbot.waitSignal(window.chat.reply_settled, timeout=20000):
        window.send_controller.escape()
    qtbot.waitUntil(lambda: window.chat.state == ChatState.IDLE, timeout=5000)


def test_nothing_is_sent_while_a_reply_streams(qtbot: Any, make_window: Any) -> None:
    window = make_window(lambda: ScriptedBackend(rate=50))
    with qtbot.waitSignal(window.chat.reply_started, timeout=5000):
        window.enter_prompt("a long answer, please")
    window.prompt.setPlainText("and another thing")
    window.send_controller.send()
    assert window.prompt.toPlainText() == "and another thing"
    assert window.statusBar().currentMessage().startswith("Not sent: Rill is still answering")
    assert len(window.chat.conversation.messages) == 2
    with qtbot.waitSignal(window.chat.reply_settled, timeout=20000):
        window.chat.stop()


def test_a_message_over_the_context_stays_in_the_box(qtbot: Any, make_window: Any) -> None:
    window = make_window(lambda: ScriptedBackend(rate=5000, n_tokens=3))
    window.prompt_area.set_context_limit(8)
    window.prompt.setPlainText("word " * 400)
    window.send_controller.send()
    assert window.prompt.toPlainText() == "word " * 400
    assert window.statusBar().currentMessage().startswith("Not sent: the message is longer")
    assert window.chat.conversation.messages == []
