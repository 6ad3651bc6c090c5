"""Clipboard data made only when pasted (LazyTextMime)."""

from __future__ import annotations

from app.ui.conversation.selection import LazyTextMime


def test_the_text_is_made_once_and_only_when_asked_for(qapp) -> None:  # type: ignore[no-untyped-def]
    calls: list[int] = []
    mime = LazyTextMime(lambda: calls.append(1) or "made")  # type: ignore[func-returns-value]
    assert mime.hasFormat("text/plain") and calls == []
    assert mime.text() == "made" and mime.text() == "made"
    assert calls == [1]
