"""The window tells the user which earlier messages the model no longer sees,
and sends with the chosen overflow policy."""

from __future__ import annotations

import threading
from collections.abc import Generator

from PyQt6.QtCore import Qt

from app.core.backend import FinishReason, GenerationRequest
from app.core.scripted import ScriptedBackend


class WindowedBackend(ScriptedBackend):
    """Reports that every message but the newest two was left out."""

    requests: list[GenerationRequest] = []

    def generate(self, request: GenerationRequest, cancel: threading.Event) -> Generator[str, None, FinishReason]:
        WindowedBackend.requests.append(request)
        ids = [m.id for m in request.messages if m.id]
        self.last_dropped_ids = tuple(ids[:-2]) if len(ids) > 2 else ()
        yield "Reply."
        return FinishReason.STOP


def send(qtbot, window, text: str) -> None:  # type: ignore[no-untyped-def]
    with qtbot.waitSignal(window.chat.reply_settled, timeout=10000):
        window.prompt.setPlainText(text)
        qtbot.keyClick(window.prompt, Qt.Key.Key_Return)


def test_a_notice_names_the_messages_left_out_once(qtbot, make_window) -> None:  # type: ignore[no-untyped-def]
    WindowedBackend.requests = []
    window = make_window(lambda: WindowedBackend(rate=1000))
    notices: list[str] = []
    window.chat.notice_shown.connect(lambda text, kind: notices.append(text))
    send(qtbot, window, "First question about rivers")
    assert notices == []
    send(qtbot, window, "Second question")
    assert len(notices) == 1
    assert "no longer sees an earlier message (“First question about rivers”)" in notices[0]
    send(qtbot, window, "Third question")  # 3 left out now: told again
    assert len(notices) == 2 and "3 earlier messages (from “First question about rivers” to “Second question”)" in notices[1]
    # Each request carries the message ids and the policy.
    last = WindowedBackend.requests[-1]
    assert last.overflow == "rolling"
    assert [m.role for m in last.messages if m.id][-1] == "user"
    window.chat.overflow = "middle"
    send(qtbot, window, "Fourth")
    assert WindowedBackend.requests[-1].overflow == "middle"
