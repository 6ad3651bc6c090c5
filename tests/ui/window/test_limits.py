"""Rill's limits on a reply (issue #17): a server that sends one enormous
delta, or never stops, gets its reply cut at MAX_REPLY_CHARS with a notice;
a huge delta reaches the view in bounded pieces; the reply is kept and marked."""

from __future__ import annotations

import threading
from collections.abc import Generator
from typing import Any

import pytest

from app.core.backends.base import FinishReason, GenerationRequest
from app.core.backends.scripted import ScriptedBackend
from app.core.base import limits
from app.core.conversation.model import MessageStatus
from app.ui.services import inference


class FloodBackend(ScriptedBackend):
    """Sends ``pieces`` deltas of ``size`` characters each, at once."""

    def __init__(self, size: int, pieces: int) -> None:
        super().__init__(rate=0)
        self.size, self.pieces = size, pieces

    def generate(self, request: GenerationRequest, cancel: threading.Event) -> Generator[str, None, FinishReason]:
        for n in range(self.pieces):
            if cancel.is_set():
                return FinishReason.CANCELLED
            yield chr(ord("a") + n % 26) * self.size
        return FinishReason.STOP


def test_a_reply_past_the_limit_is_cut_with_a_notice(qtbot: Any, make_window: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(inference, "MAX_REPLY_CHARS", 50_000)
    window = make_window(lambda: FloodBackend(size=30_000, pieces=1000))
    chat = window.chat
    notices: list[tuple[str, str]] = []
    chat.notice_shown.connect(lambda text, kind: notices.append((text, kind)))
    chunk_sizes: list[int] = []
    buffer_put = chat.service.buffer.put

    def put(chunk: Any, cancel: Any = None) -> bool:
        chunk_sizes.append(len(chunk.text))
        return bool(buffer_put(chunk, cancel))

    monkeypatch.setattr(chat.service.buffer, "put", put)
    with qtbot.waitSignal(chat.reply_settled, timeout=30_000):
        chat.send("flood me")
    reply = chat.conversation.messages[-1]
    assert len(reply.content) == 50_000
    assert reply.content == "a" * 30_000 + "b" * 20_000, "every character up to the limit, in order"
    assert reply.status == MessageStatus.TRUNCATED.value
    assert any("cut at 50,000 characters" in text and kind == "warning" for text, kind in notices)
    # A batch closes once it holds MAX_PIECE_CHARS: at most one more piece over.
    assert chunk_sizes and max(chunk_sizes) < 2 * inference.MAX_PIECE_CHARS, "one huge delta went on as one piece"


def test_the_worker_uses_the_limits_of_the_one_place() -> None:
    assert inference.MAX_REPLY_CHARS == limits.MAX_REPLY_CHARS and inference.MAX_PIECE_CHARS == limits.MAX_PIECE_CHARS
