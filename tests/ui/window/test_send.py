"""SendController: edit mode and Esc, and the checks before a message goes."""

from __future__ import annotations

from typing import Any

from PyQt6.QtCore import Qt

from app.core.backends.scripted import ScriptedBackend
from app.ui.conversation.controller import ChatState
from app.ui.window.queued import QueuedMessages
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


def test_a_message_sent_while_a_reply_streams_is_queued_and_sent_when_it_ends(qtbot: Any, make_window: Any) -> None:
    window = make_window(lambda: ScriptedBackend(rate=200, n_tokens=60))
    with qtbot.waitSignal(window.chat.reply_started, timeout=5000):
        window.enter_prompt("a long answer, please")
    window.prompt.setPlainText("and another thing")
    window.send_controller.send()
    assert window.prompt.toPlainText() == "", "the box is free for more"
    assert isinstance(window.queued, QueuedMessages) and window.queued.texts() == ["and another thing"]
    (chip,) = window.queued.chips()
    assert chip.isVisible() and "and another thing" in chip.label.text()
    assert len(window.chat.conversation.messages) == 2, "not sent yet"
    with qtbot.waitSignal(window.chat.reply_started, timeout=20000):
        pass  # the first reply ends, the queued message goes
    assert window.queued.texts() == [] and not window.queued.tray.isVisible()
    assert [m.content for m in window.chat.conversation.messages][2] == "and another thing"
    with qtbot.waitSignal(window.chat.reply_settled, timeout=20000):
        window.chat.stop()


def test_a_queued_message_can_be_edited_or_removed(qtbot: Any, make_window: Any) -> None:
    window = make_window(lambda: ScriptedBackend(rate=50))
    with qtbot.waitSignal(window.chat.reply_started, timeout=5000):
        window.enter_prompt("a long answer, please")
    for text in ("first queued", "second queued"):
        window.prompt.setPlainText(text)
        window.send_controller.send()
    first, second = window.queued.chips()
    assert second.remove_button.accessibleName() == "Remove the queued message"
    assert first.edit_button.accessibleName() == "Edit the queued message"
    qtbot.mouseClick(second.remove_button, Qt.MouseButton.LeftButton)
    assert window.queued.texts() == ["first queued"]
    qtbot.mouseClick(first.edit_button, Qt.MouseButton.LeftButton)
    assert window.queued.texts() == [] and window.prompt.toPlainText() == "first queued"
    window.prompt.setPlainText("first queued, edited")
    window.send_controller.send()
    assert window.queued.texts() == ["first queued, edited"], "sending again queues it again"
    with qtbot.waitSignal(window.chat.reply_settled, timeout=20000):
        window.send_controller.escape()  # Esc stops the reply; the queue stays until it is over
    qtbot.waitUntil(lambda: window.queued.texts() == [], timeout=5000)
    assert window.chat.conversation.messages[2].content == "first queued, edited"
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


def test_a_send_while_scrolled_up_glides_down_to_the_new_message(qtbot: Any, make_window: Any) -> None:
    window = make_window(lambda: ScriptedBackend(rate=20000, n_tokens=400))
    for question in ("one", "two", "three"):
        with qtbot.waitSignal(window.chat.reply_settled, timeout=20000):
            window.enter_prompt(question)
    bar = window.view.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 2 * bar.pageStep(), timeout=10000)
    bar.setValue(0)
    seen: list[tuple[int, int]] = []
    bar.valueChanged.connect(lambda v: seen.append((v, bar.maximum())))
    with qtbot.waitSignal(window.chat.reply_settled, timeout=20000):
        window.enter_prompt("four")
    qtbot.waitUntil(lambda: window.view.at_bottom(), timeout=5000)
    short = [(v, top) for v, top in seen if v < top]  # a step on the way, not the bottom of that moment
    assert len(short) >= 3 and seen[0][0] < seen[0][1], seen


def test_a_queued_paste_shows_its_first_words_only(qtbot: Any) -> None:
    from app.ui.window.queued import PREVIEW_CHARS, QueuedChip, _Queued

    chip = QueuedChip(_Queued("word  \n " * 1_000_000, "c"))
    qtbot.addWidget(chip)
    shown = chip.label.text()
    assert shown.endswith("…") and len(shown) < PREVIEW_CHARS + 40 and "\n" not in shown
    short = QueuedChip(_Queued("What about  the second one?", "c"))
    qtbot.addWidget(short)
    assert short.label.text().endswith("What about the second one?")
