"""What a reply shows before its first text: typing dots on a timer that
stops when no reply waits or the view is hidden, and the prompt's progress
(tokens read of all, a bar, the time left) once the backend tells it."""

from __future__ import annotations

from PyQt6.QtCore import QObject

from app.core.conversation.model import Message, MessageStatus
from app.ui.conversation.geometry import Metrics
from app.ui.conversation.items import Item, ItemList
from app.ui.conversation.waiting import WaitingRows, format_left


def waiting_reply(view) -> Message:
    view.add_messages([Message("user", "a long document")])
    reply = Message("assistant", status=MessageStatus.STREAMING)
    view.add_message(reply)
    return reply


def test_typing_dots_move_until_the_first_text_and_stop_when_hidden(qtbot, view) -> None:
    reply = waiting_reply(view)
    assert view.probe.waiting_row(reply.id) == (True, "", None), "the dots: no progress told"
    assert view.probe.typing_dots_moving
    phase = view._waiting.phase
    qtbot.waitUntil(lambda: view._waiting.phase != phase, timeout=2000)
    view.hide()
    qtbot.waitUntil(lambda: not view.probe.typing_dots_moving, timeout=2000)
    view.show()
    assert view.probe.typing_dots_moving
    reply.append("Hello")
    view.append_stream(reply.id, "Hello")
    assert not view.probe.waiting_row(reply.id)[0]
    qtbot.waitUntil(lambda: not view.probe.typing_dots_moving, timeout=2000)


def test_prompt_progress_shows_tokens_read_a_bar_and_then_the_time_left(qtbot, view) -> None:
    reply = waiting_reply(view)
    view.set_prompt_progress(reply.id, 512, 4096)
    waiting, words, fraction = view.probe.waiting_row(reply.id)
    assert waiting and fraction == 512 / 4096
    assert words == "Reading your message… 512 of 4,096 tokens", "no guess from one report"
    rows = view._waiting
    rows.set_progress(reply.id, 1024, 4096, now=rows._progress[reply.id].first_at + 1.0)  # 512 tokens/s
    assert view.probe.waiting_row(reply.id)[1].endswith("· about 6 s left")
    assert view.probe.waiting_row(reply.id)[2] == 0.25
    view.grab()  # paints the row (no warnings, no errors)


def test_the_time_left_reads_in_seconds_then_minutes(qapp) -> None:
    assert format_left(0.2) == "about 1 s left"
    assert format_left(42) == "about 42 s left"
    assert format_left(150) == "about 2 min left"


def test_only_a_reply_that_showed_nothing_waits(qapp) -> None:
    items = ItemList()
    rows = WaitingRows(items, Metrics.__new__(Metrics), lambda _i: None, lambda: True, QObject())
    empty = Item("r", "assistant", Message("assistant", status=MessageStatus.STREAMING), streaming=True)
    written = Item("w", "assistant", Message("assistant", "hi", status=MessageStatus.STREAMING), streaming=True)
    done = Item("d", "assistant", Message("assistant", ""), streaming=False)
    assert rows.waiting(empty) and not rows.waiting(written) and not rows.waiting(done)
    assert not rows.waiting(Item("u", "user", Message("user", ""), streaming=True))
