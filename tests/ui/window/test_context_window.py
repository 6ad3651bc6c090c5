"""The window tells the user which earlier messages the model no longer sees,
and sends with the chosen overflow policy."""

from __future__ import annotations

import threading
from collections.abc import Generator

from PyQt6.QtCore import Qt

from app.core.backends.base import FinishReason, GenerationRequest
from app.core.backends.scripted import ScriptedBackend


class WindowedBackend(ScriptedBackend):
    """Reports that every message but the newest two was left out."""

    requests: list[GenerationRequest] = []

    def generate(self, request: GenerationRequest, cancel: threading.Event) -> Generator[str, None, FinishReason]:
        WindowedBackend.requests.append(request)
        ids = [m.id for m in request.messages if m.id]
        self.last_dropped_ids = tuple(ids[:-2]) if len(ids) > 2 else ()
        yield "Reply."
        return FinishReason.STOP


def send(qtbot, window, text: str) -> None:
    with qtbot.waitSignal(window.chat.reply_settled, timeout=10000):
        window.prompt.setPlainText(text)
        qtbot.keyClick(window.prompt, Qt.Key.Key_Return)


def test_a_notice_names_the_messages_left_out_once(qtbot, make_window) -> None:
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


class CountingBackend(ScriptedBackend):
    """Reports exact prompt sizes like the local model does."""

    def load(self, *args, **kwargs):
        import dataclasses

        info = super().load(*args, **kwargs)
        return dataclasses.replace(info, n_ctx=1000)

    def generate(self, request: GenerationRequest, cancel: threading.Event) -> Generator[str, None, FinishReason]:
        self.last_prompt_tokens = 300
        for _ in range(50):
            if cancel.wait(0.002):
                return FinishReason.CANCELLED
            yield "tok "
        return FinishReason.STOP


def test_the_context_meter_follows_typing_streaming_and_replies(qtbot, make_window) -> None:
    window = make_window(lambda: CountingBackend(rate=1000))
    meter = window.context_meter
    assert meter.isVisibleTo(window) and meter.limit == 1000
    qtbot.waitUntil(lambda: meter.used > 0)  # the (empty) conversation's system prompt, estimated
    empty = meter.used
    window.prompt.setPlainText("word " * 400)  # ≈ 571 tokens by the estimate
    qtbot.waitUntil(lambda: meter.used > empty + 500, timeout=3000)
    assert not meter.exact and "≈" in meter.text()
    send(qtbot, window, "hello there")
    # After the reply: the backend's exact count, prompt (300) + reply (50).
    qtbot.waitUntil(lambda: meter.exact, timeout=3000)
    assert meter.used == 350 and "≈" not in meter.text()
    window.prompt.setPlainText("x " * 2000)
    qtbot.waitUntil(lambda: meter.used > 1000, timeout=3000)
    assert meter.property("level") == "full" and "no longer sees" in meter.toolTip()


def test_the_overflow_policy_from_settings_reaches_the_request(qtbot, make_window) -> None:
    from app.core.config.preferences import Preferences

    WindowedBackend.requests = []
    window = make_window(lambda: WindowedBackend(rate=1000))
    window.settings_wiring.apply_preferences(Preferences(overflow="stop"))
    send(qtbot, window, "hello")
    assert WindowedBackend.requests[-1].overflow == "stop"


def test_a_conversation_opened_again_starts_from_its_last_replys_count(qtbot, make_window) -> None:
    from app.core.conversation.model import Conversation, Message
    from app.core.text.tokens_estimate import estimate

    window = make_window(lambda: CountingBackend(rate=1000))
    meter = window.context_meter
    send(qtbot, window, "hello there")
    qtbot.waitUntil(lambda: meter.exact, timeout=3000)
    assert meter.used == 350  # prompt (300) + reply (50), as the backend counted them
    earlier = window.chat.conversation.messages
    follow_up = Message("user", "and the sea?", parent_id=earlier[-1].id)
    # The same messages, as the history gives them back another day (a new
    # conversation object, so nothing remembered from this session is used).
    again = Conversation(title="again", messages=[*earlier, follow_up])
    window.chat.show_conversation(again)
    expected = 350 + estimate("and the sea?").tokens + 4  # the stored count + the message after it
    qtbot.waitUntil(lambda: meter.used == expected, timeout=3000)
    assert not meter.exact and "≈" in meter.text()  # another model may be loaded: an estimate now
