"""Clipboard data made only when pasted (LazyTextMime)."""

from __future__ import annotations

from app.ui.conversation.selection import LazyTextMime


def test_the_text_is_made_once_and_only_when_asked_for(qapp) -> None:
    calls: list[int] = []
    mime = LazyTextMime(lambda: calls.append(1) or "made")
    assert mime.hasFormat("text/plain") and calls == []
    assert mime.text() == "made" and mime.text() == "made"
    assert calls == [1]


def test_a_selection_over_whole_messages_copies_their_source(qtbot, view) -> None:
    from app.core.conversation.model import Message

    msgs = [Message("user", "first **bold**"), Message("assistant", "<think>hmm</think>second")]
    with qtbot.waitSignal(view.viewport_ready, timeout=10000):
        view.add_messages(msgs)
    assert not view.has_selection()
    view.select_all()
    assert view.has_selection()
    assert view.selected_text() == "first **bold**\n\nsecond"
