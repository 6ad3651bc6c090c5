"""A reasoning model's thinking in the conversation view: folded under a
header, unfolded on click as plain text, kept apart from the answer."""

from __future__ import annotations

import pytest
from PyQt6.QtCore import Qt
from PyQt6.QtGui import QGuiApplication

from app.core.conversation.model import Message, MessageStatus
from app.core.conversation.sample import history_messages
from app.core.text.thinking import strip_thinking
from app.ui.conversation.view import ChatView


def start(view: ChatView) -> Message:
    msg = Message("assistant", status=MessageStatus.STREAMING)
    view.add_message(msg)
    return msg


def feed(view: ChatView, msg: Message, *chunks: str) -> None:
    for chunk in chunks:
        msg.append(chunk)
        view.append_stream(msg.id, chunk)


def finish(qtbot, view: ChatView, msg: Message) -> None:
    msg.status = MessageStatus.COMPLETE
    with qtbot.waitSignal(view.message_settled, timeout=20000, check_params_cb=lambda mid: mid == msg.id):
        view.finish_stream(msg.id)


def stream(qtbot, view: ChatView, text: str, piece: int) -> Message:
    msg = start(view)
    feed(view, msg, *(text[i : i + piece] for i in range(0, len(text), piece)))
    finish(qtbot, view, msg)
    return msg


def click_header(qtbot, view: ChatView, message_id: str, expanded: bool) -> None:
    point = view.probe.thinking_header_point(message_id)
    assert point is not None
    with qtbot.waitSignal(view.thoughts_toggled, timeout=2000) as blocker:
        qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=point.toPoint())
    assert blocker.args == [message_id, expanded]


@pytest.mark.parametrize("piece", [1, 3, 100])
def test_thoughts_are_folded_and_a_click_shows_then_hides_them(qtbot, view, piece: int) -> None:
    msg = stream(qtbot, view, "<think>secret plan</think>The answer", piece)
    assert view.probe.message_text(msg.id) == "The answer"
    assert view.probe.thinking_header(msg.id) == "▸ Thought for 2 words"
    # Folded: the thoughts are nowhere on screen.
    assert view.probe.thoughts_text(msg.id) is None
    assert view.probe.point_of_text(msg.id, "secret") is None
    assert "secret" not in view.probe.all_text()

    click_header(qtbot, view, msg.id, True)
    qtbot.waitUntil(lambda: view.probe.thoughts_text(msg.id) == "secret plan", timeout=5000)
    assert view.probe.thinking_header(msg.id).startswith("▾")
    assert view.probe.point_of_text(msg.id, "secret plan") is not None
    answer_at = view.probe.point_of_text(msg.id, "The answer")
    thoughts_at = view.probe.point_of_text(msg.id, "secret plan")
    assert answer_at is not None and thoughts_at is not None and thoughts_at.y() < answer_at.y()
    assert view.probe.message_text(msg.id) == "The answer"  # kept apart from the answer

    click_header(qtbot, view, msg.id, False)
    assert view.probe.thoughts_text(msg.id) is None
    assert view.probe.point_of_text(msg.id, "secret") is None
    assert view.probe.thinking_header(msg.id).startswith("▸")


def test_the_header_is_a_pointing_hand_target(qtbot, view) -> None:
    msg = stream(qtbot, view, "<think>a b c</think>Done.", 5)
    point = view.probe.thinking_header_point(msg.id)
    assert point is not None
    qtbot.mouseMove(view.viewport(), point.toPoint())
    qtbot.waitUntil(lambda: view.viewport().cursor().shape() == Qt.CursorShape.PointingHandCursor, timeout=2000)
    answer = view.probe.point_of_text(msg.id, "Done")
    assert answer is not None
    qtbot.mouseMove(view.viewport(), answer.toPoint())
    qtbot.waitUntil(lambda: view.viewport().cursor().shape() == Qt.CursorShape.IBeamCursor, timeout=2000)


def test_tags_split_across_chunks_never_flash_as_text(qtbot, view) -> None:
    msg = start(view)
    feed(view, msg, "\n<thi")
    assert view.probe.message_text(msg.id) == "" and view.probe.thinking_header(msg.id) == ""
    feed(view, msg, "nk>")
    assert view.probe.thinking_header(msg.id) == "▸ Thinking…"
    feed(view, msg, "secret pl", "an is ", "long</th")
    assert view.probe.message_text(msg.id) == ""
    assert view.probe.thinking_header(msg.id) == "▸ Thinking… · 4 words"
    feed(view, msg, "ink>\n\n", "The ")
    assert view.probe.message_text(msg.id) == "The "
    feed(view, msg, "answer\n\nSecond **para**.")
    finish(qtbot, view, msg)
    assert view.probe.message_text(msg.id) == "The answer\nSecond para."
    assert view.probe.thinking_header(msg.id) == "▸ Thought for 4 words"


def test_a_think_tag_that_is_not_at_the_start_is_text(qtbot, view) -> None:
    msg = stream(qtbot, view, "Use the <think> tag, then </think>.", 4)
    assert view.probe.thinking_header(msg.id) == ""
    assert view.probe.message_text(msg.id) == "Use the <think> tag, then </think>."
    msg = stream(qtbot, view, "<thi", 1)  # stopped inside what looked like a tag
    assert view.probe.thinking_header(msg.id) == ""
    assert view.probe.message_text(msg.id) == "<thi"


def test_the_answer_is_rendered_as_markdown_while_streaming_and_after(qtbot, view) -> None:
    msg = start(view)
    feed(view, msg, "<think>\n**not bold**\n\n# not a heading\n</think>\n\n# Title\n\nFirst para.\n\n", "tail")
    # Completed answer blocks are committed and rendered; the thoughts never are.
    qtbot.waitUntil(lambda: view.probe.message_text(msg.id).startswith("Title\n"), timeout=10000)
    finish(qtbot, view, msg)
    assert view.probe.message_text(msg.id) == "Title\nFirst para.\ntail"
    view.toggle_thoughts(msg.id)
    qtbot.waitUntil(lambda: view.probe.thoughts_text(msg.id) is not None, timeout=5000)
    assert view.probe.thoughts_text(msg.id) == "**not bold**\n\n# not a heading"


def test_unfolded_while_streaming_the_thoughts_grow_live(qtbot, view) -> None:
    msg = start(view)
    feed(view, msg, "<think>first ")
    view.toggle_thoughts(msg.id)
    assert view.thoughts_expanded(msg.id)
    qtbot.waitUntil(lambda: view.probe.thoughts_text(msg.id) == "first ", timeout=5000)
    feed(view, msg, "second", " third</think>Answer")
    assert view.probe.thoughts_text(msg.id) == "first second third"
    assert view.probe.thinking_header(msg.id) == "▾ Thought for 3 words"
    finish(qtbot, view, msg)
    assert view.probe.thoughts_text(msg.id) == "first second third"
    assert view.probe.message_text(msg.id) == "Answer"


def test_a_reply_stopped_while_thinking(qtbot, view) -> None:
    msg = start(view)
    feed(view, msg, "<think>still thinking about it</th")
    assert view.probe.thinking_header(msg.id) == "▸ Thinking… · 4 words"
    view.toggle_thoughts(msg.id)
    qtbot.waitUntil(lambda: view.probe.thoughts_text(msg.id) == "still thinking about it", timeout=5000)
    msg.status = MessageStatus.STOPPED
    with qtbot.waitSignal(view.message_settled, timeout=20000):
        view.finish_stream(msg.id)
    # The stream ended inside what could have been "</think>": it is thoughts.
    qtbot.waitUntil(lambda: view.probe.thoughts_text(msg.id) == "still thinking about it</th", timeout=5000)
    assert view.probe.message_text(msg.id) == ""
    assert view.probe.thinking_header(msg.id) == "▾ Thought for 4 words"


def test_history_messages_show_their_thinking_folded(qtbot, view) -> None:
    user = Message("user", "<think>a user's text is never thinking</think> hi")
    reply = Message("assistant", "\n<think>\nweigh the options\n</think>\n\n**Bold** answer")
    with qtbot.waitSignal(view.viewport_ready, timeout=10000):
        view.add_messages([user, reply])
    qtbot.waitUntil(lambda: view.probe.message_text(reply.id) == "Bold answer", timeout=10000)
    assert view.probe.thinking_header(user.id) == ""
    assert "<think>" in view.probe.message_text(user.id)
    assert view.probe.thinking_header(reply.id) == "▸ Thought for 3 words"
    assert view.probe.thoughts_text(reply.id) is None
    click_header(qtbot, view, reply.id, True)
    qtbot.waitUntil(lambda: view.probe.thoughts_text(reply.id) == "weigh the options", timeout=5000)
    # A single finished message (add_message) too.
    other = Message("assistant", "<think>x</think>Shown.")
    view.add_message(other)
    qtbot.waitUntil(lambda: view.probe.message_text(other.id) == "Shown.", timeout=10000)
    assert view.probe.thinking_header(other.id) == "▸ Thought for 1 word"


def test_hostile_thoughts_are_shown_as_literal_text(qtbot, view) -> None:
    hostile = '<script>alert(1)</script> <b>bold</b> <img src="file:///etc/passwd"> [x](javascript:alert(1)) &amp;'
    msg = stream(qtbot, view, f"<think>{hostile}</think>Fine.", 7)
    view.toggle_thoughts(msg.id)
    qtbot.waitUntil(lambda: view.probe.thoughts_text(msg.id) is not None, timeout=5000)
    assert view.probe.thoughts_text(msg.id) == hostile
    doc = view.probe.thoughts_document(msg.id)
    assert doc is not None
    block = doc.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fmt = it.fragment().charFormat()
            assert not fmt.isAnchor() and not fmt.isImageFormat()
            assert fmt.fontWeight() <= 400
            it += 1
        block = block.next()
    assert view.probe.message_links(msg.id) == []


def test_folding_is_kept_per_message_through_virtualization(qtbot, view) -> None:
    msgs = history_messages(300)
    thinker = Message("assistant", "<think>remember me</think>Early answer.")
    msgs.insert(1, thinker)
    with qtbot.waitSignal(view.viewport_ready, timeout=20000):
        view.add_messages(msgs)
    with qtbot.waitSignal(view.viewport_ready, timeout=20000):
        view.verticalScrollBar().setValue(0)
    view.set_thoughts_expanded(thinker.id, True)
    qtbot.waitUntil(lambda: view.probe.thoughts_text(thinker.id) == "remember me", timeout=5000)
    # Far away: its documents are dropped, the state is kept.
    with qtbot.waitSignal(view.viewport_ready, timeout=20000):
        view.scroll_to_bottom()
    qtbot.waitUntil(lambda: view.probe.thoughts_text(thinker.id) is None, timeout=5000)
    assert view.thoughts_expanded(thinker.id)
    with qtbot.waitSignal(view.viewport_ready, timeout=20000):
        view.verticalScrollBar().setValue(0)
    qtbot.waitUntil(lambda: view.probe.thoughts_text(thinker.id) == "remember me", timeout=5000)
    assert view.probe.thinking_header(thinker.id).startswith("▾")
    # And when the conversation is shown again.
    view.clear()
    with qtbot.waitSignal(view.viewport_ready, timeout=20000):
        view.add_messages(msgs[:5])
    qtbot.waitUntil(lambda: view.probe.thoughts_text(thinker.id) == "remember me", timeout=5000)


def test_copying_a_message_copies_the_answer_only(qtbot, view) -> None:
    msg = stream(qtbot, view, "<think>private</think>\n**The** answer", 6)
    point = view.probe.footer_action_point(msg.id, "copy")
    assert point is not None
    with qtbot.waitSignal(view.copied, timeout=2000) as blocker:
        qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=point.toPoint())
    assert blocker.args == ["message", "**The** answer"]
    assert QGuiApplication.clipboard().text() == "**The** answer"


def test_select_all_copies_answers_without_thinking(qtbot, view) -> None:
    msgs = [
        Message("user", "question"),
        Message("assistant", "<think>hidden</think>Answer one."),
        Message("assistant", "Answer two."),
    ]
    with qtbot.waitSignal(view.viewport_ready, timeout=10000):
        view.add_messages(msgs)
    view.setFocus()
    qtbot.keyClick(view, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClick(view, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    assert QGuiApplication.clipboard().text() == "\n\n".join(strip_thinking(m.content) for m in msgs)
    assert "hidden" not in QGuiApplication.clipboard().text()


def test_finding_a_match_inside_folded_thoughts_unfolds_them(qtbot, view) -> None:
    msg = stream(qtbot, view, "<think>the needle is here</think>No needle... wait, a needle.", 50)
    view.set_find("needle", (msg.id, 1))  # the first match in the answer: stays folded
    assert not view.thoughts_expanded(msg.id)
    view.set_find("needle", (msg.id, 0))  # the match in the thoughts
    qtbot.waitUntil(lambda: view.probe.thoughts_text(msg.id) == "the needle is here", timeout=5000)
    assert view.thoughts_expanded(msg.id)
