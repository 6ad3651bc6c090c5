"""Find in the conversation: one rule for the bar and the view, matches
cached per document and found in time slices, never while painting."""

from __future__ import annotations

from PyQt6.QtGui import QTextDocument

from app.core.conversation.model import Message, MessageStatus
from app.core.conversation.sample import history_messages
from app.ui.conversation.find import (
    count_chunks,
    find_pattern,
    message_texts,
    text_matches,
)
from app.ui.conversation.find_bar import FindBar


def test_the_rule_is_literal_case_insensitive_and_keeps_offsets() -> None:
    pattern = find_pattern("the")
    assert pattern is not None
    assert text_matches(pattern, "The cat, THE hat; theme") == [0, 9, 18]
    assert text_matches(find_pattern("a.b"), "axb a.b") == [4]
    assert find_pattern("") is None and find_pattern("two\nlines") is None
    assert sum(count_chunks(pattern, "the " * 1000, 100)) == 1000


def test_a_message_is_searched_as_shown_thoughts_first() -> None:
    msg = Message("assistant", "<think> pondering </think>The [link](http://the.example) answer")
    assert next(iter(message_texts(msg))) == "pondering"
    assert "the.example" in list(message_texts(msg))[1]  # not rendered yet: the source
    assert list(message_texts(Message("user", "plain"))) == ["plain"]


def _stream_reply(view, text: str) -> Message:
    msg = Message("assistant", status=MessageStatus.STREAMING)
    view.add_message(msg)
    msg.append(text)
    view.append_stream(msg.id, text)
    return msg


def test_painting_with_find_active_never_searches_a_document(qtbot, view, monkeypatch) -> None:
    # A 100 K-character streaming reply (one paragraph: it stays in the tail).
    msg = _stream_reply(view, "the quick fox " * 7200)
    view.set_find("the")
    qtbot.waitUntil(lambda: view.probe.find_matches(msg.id) == 7200, timeout=10000)
    calls: list[int] = []
    original = QTextDocument.find
    monkeypatch.setattr(QTextDocument, "find", lambda self, *a: calls.append(1) or original(self, *a))
    scans = view.probe.find_scans()
    for _ in range(5):
        view.viewport().repaint()
    assert calls == []
    assert view.probe.find_scans() == scans, "painting only reads the cached ranges"


def test_matches_follow_the_streaming_text(qtbot, view) -> None:
    msg = _stream_reply(view, "the start ")
    view.set_find("the")
    qtbot.waitUntil(lambda: view.probe.find_matches(msg.id) == 1, timeout=5000)
    for n in range(2, 6):
        piece = "and the next "
        msg.append(piece)
        view.append_stream(msg.id, piece)
        qtbot.waitUntil(lambda n=n: view.probe.find_matches(msg.id) == n, timeout=5000)


def test_the_bar_counts_what_the_view_highlights(qtbot, view) -> None:
    msgs = [Message("user", "Where is the example?"),
            Message("assistant", "See [the docs](http://example.com/the) or `the example`, **the** end.")]
    with qtbot.waitSignal(view.viewport_ready, timeout=10000):
        view.add_messages(msgs)
    qtbot.waitUntil(lambda: all(m.rendered is not None for m in msgs), timeout=10000)
    bar = FindBar(lambda: msgs)
    qtbot.addWidget(bar)
    for needle in ("the", "example"):
        view.set_find(needle)
        with qtbot.waitSignal(bar.search_finished, timeout=5000):
            bar.edit.setText(needle)
        for m in msgs:
            qtbot.waitUntil(lambda m=m: view.probe.find_matches(m.id) is not None, timeout=5000)
            assert view.probe.find_matches(m.id) == sum(1 for mid, _k in bar.matches if mid == m.id), needle
    # "example" in the link's URL is not shown: not counted (the source has it)
    assert sum(1 for mid, _k in bar.matches if mid == msgs[1].id) == 1


def test_next_and_previous_reveal_the_right_match(qtbot, view) -> None:
    msgs = history_messages(200)
    with qtbot.waitSignal(view.viewport_ready, timeout=20000):
        view.add_messages(msgs)
    bar = FindBar(lambda: msgs)
    qtbot.addWidget(bar)
    bar.highlight_requested.connect(lambda text: view.set_find(text))
    bar.match_selected.connect(lambda mid, nth: view.set_find(bar.edit.text(), (mid, nth)))
    with qtbot.waitSignal(bar.search_finished, timeout=10000):
        bar.edit.setText("turn 10)")
    assert len(bar.matches) == 1
    target = bar.matches[0][0]
    qtbot.waitUntil(lambda: view.probe.point_of_text(target, "turn 10)") is not None, timeout=10000)
    point = view.probe.point_of_text(target, "turn 10)")
    assert point is not None and 0 <= point.y() <= view.viewport().height()
    assert view.probe.find_state() == ("turn 10)", (target, 0))
    with qtbot.waitSignal(bar.search_finished, timeout=10000):
        bar.edit.setText("turn 1")
    ids = [mid for mid, _k in bar.matches]
    bar.find_previous()  # wraps to the last match
    assert view.probe.find_state()[1] == bar.matches[-1]
    qtbot.waitUntil(lambda: view.probe.point_of_text(ids[-1], "turn 1") is not None, timeout=10000)
    bar.find_next()
    assert view.probe.find_state()[1] == bar.matches[0]


def test_a_long_message_is_searched_in_several_slices(qtbot) -> None:
    prompt = Message("user", "the words go on " * 250_000)  # 4 MB
    bar = FindBar(lambda: [prompt])
    qtbot.addWidget(bar)
    with qtbot.waitSignal(bar.search_finished, timeout=30000) as blocker:
        bar.edit.setText("the")
    assert blocker.args == [250_000]
    assert bar.slices > 1, "the budget is checked inside the message"
