"""StreamAnnouncer: a reply's start and end reach assistive technology, not every token."""

from __future__ import annotations

from typing import Any

from app.core.backends.scripted import ScriptedBackend
from app.ui.conversation.announcer import StreamAnnouncer


def test_a_reply_is_announced_when_it_starts_and_ends(qtbot: Any, make_window: Any) -> None:
    window = make_window(lambda: ScriptedBackend(rate=3000, n_tokens=5))
    announcer = window.announcer
    assert isinstance(announcer, StreamAnnouncer)
    said: list[str] = []
    announcer.announced.connect(said.append)
    with qtbot.waitSignal(window.chat.reply_settled, timeout=10000):
        window.chat.send("hello")
    assert said[0] == "Rill is writing a reply."
    assert said[-1].startswith("Reply finished:") and len(said) == 2
    assert window.state_label.accessibleName() == said[-1]
