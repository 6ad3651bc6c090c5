"""StreamConsumer: the tick that takes a scripted reply out of the chunk
buffer and hands it, in order and cleaned, to the streaming Reply."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PyQt6.QtCore import QObject, QTimer, pyqtSignal

from app.core.backends.base import ChatMessage, FinishReason, SamplingParams
from app.core.backends.scripted import ScriptedBackend
from app.core.conversation.model import Message, MessageStatus, Role
from app.ui.conversation.consumer import StreamConsumer, clean_text
from app.ui.conversation.reply import Reply, ReplyOutcome, ReplyPhase
from app.ui.services.inference import InferenceService


class RecordingSink(QObject):
    """A view stand-in: records what the reply shows; its final render
    "lands" on the next turn of the event loop, as the view's does."""

    #: A message's final render is on screen; arg: message id.
    message_settled = pyqtSignal(str)

    def __init__(self) -> None:
        super().__init__()
        self.appended: list[str] = []
        self.finished: list[str] = []
        self.progress: list[tuple[int, int]] = []

    def append_stream(self, message_id: str, text: str) -> None:
        self.appended.append(text)

    def finish_stream(self, message_id: str) -> None:
        self.finished.append(message_id)
        QTimer.singleShot(0, lambda: self.message_settled.emit(message_id))

    def has_item(self, item_id: str) -> bool:
        return True

    def set_prompt_progress(self, message_id: str, done: int, total: int) -> None:
        self.progress.append((done, total))


@pytest.fixture
def service(qtbot) -> Iterator[InferenceService]:
    svc = InferenceService()
    yield svc
    if not svc.is_finished():
        with qtbot.waitSignal(svc.shutdown_finished, timeout=10000):
            svc.request_shutdown()


def load(qtbot, service: InferenceService, backend: ScriptedBackend) -> None:
    with qtbot.waitSignal(service.model_loaded, timeout=10000):
        service.load(lambda: backend, "scripted")


def start_reply(service: InferenceService, consumer: StreamConsumer, sink: RecordingSink) -> Reply:
    rid = service.submit((ChatMessage("user", "hi"),), SamplingParams())
    reply = Reply(rid, Message(Role.ASSISTANT.value, status=MessageStatus.STREAMING), sink, "scripted")
    consumer.start(reply)
    return reply


def test_clean_text_keeps_tab_and_newline_and_drops_other_controls() -> None:
    assert clean_text("a\tb\nc") == "a\tb\nc"
    assert clean_text("x\r\ny\x00z\x1b[0m\x7f!") == "x\nyz[0m!"
    assert clean_text("héllo 世界 🙂") == "héllo 世界 🙂"


def test_a_scripted_reply_is_shown_in_order_cleaned_and_settles(qtbot, service: InferenceService) -> None:
    tokens = [f"w{i} ".encode() for i in range(200)] + [b"bell\x07 cr\r\n", b"end"]
    load(qtbot, service, ScriptedBackend(tokens, rate=0))
    consumer = StreamConsumer(service)
    sink = RecordingSink()
    streaming: list[bool] = []
    started: list[int] = []
    finished: list[object] = []
    consumer.streaming_changed.connect(streaming.append)
    consumer.reply_started.connect(started.append)
    consumer.reply_finished.connect(finished.append)

    with qtbot.waitSignal(consumer.reply_settled, timeout=10000) as settled:
        reply = start_reply(service, consumer, sink)
        assert consumer.current is reply and consumer.replies_pending() == 1
        assert started == [reply.request_id] and consumer.last_request_id == reply.request_id

    stats = settled.args[0]
    expected = "".join(t.decode() for t in tokens).replace("\x07", "").replace("\r", "")
    assert "".join(sink.appended) == expected
    assert reply.message.content == expected and reply.message.status == MessageStatus.COMPLETE
    assert stats.seq_errors == 0 and stats.finish_reason == FinishReason.STOP
    assert stats.request_id == reply.request_id and stats.ticks >= 1
    assert sink.finished == [reply.message.id]
    assert streaming == [True, False] and finished == [stats]
    assert consumer.current is None and consumer.replies_pending() == 0 and consumer.last_stats is stats


def test_stop_makes_the_consumer_idle_at_once_and_the_reply_settles_later(qtbot, service: InferenceService) -> None:
    load(qtbot, service, ScriptedBackend([b"tick "], rate=50, n_tokens=100000))
    consumer = StreamConsumer(service)
    sink = RecordingSink()
    streaming: list[bool] = []
    consumer.streaming_changed.connect(streaming.append)
    reply = start_reply(service, consumer, sink)
    qtbot.waitUntil(lambda: bool(sink.appended), timeout=10000)

    with qtbot.waitSignal(consumer.reply_settled, timeout=10000):
        assert consumer.stop() is reply
        # Idle when stop() returns, before the worker has even heard of it.
        assert consumer.current is None and streaming == [True, False]
        assert reply.outcome == ReplyOutcome.STOPPED and reply.message.status == MessageStatus.STOPPED
        assert reply.phase == ReplyPhase.FINALIZING and consumer.replies_pending() == 1
        assert consumer.stop() is None  # nothing current any more
    shown = "".join(sink.appended)
    assert shown and reply.message.content == shown and set(shown.split()) == {"tick"}
    assert consumer.replies_pending() == 0 and consumer.last_stats is not None
    assert consumer.last_stats.finish_reason == FinishReason.CANCELLED


def test_chunks_of_another_request_are_never_shown(qtbot, service: InferenceService) -> None:
    load(qtbot, service, ScriptedBackend([b"mine "], rate=0, n_tokens=50))
    consumer = StreamConsumer(service)
    sink = RecordingSink()
    # A request nobody shows: its text lands in the same buffer.
    other = service.submit((ChatMessage("user", "other"),), SamplingParams())
    with qtbot.waitSignal(consumer.reply_settled, timeout=10000) as settled:
        reply = start_reply(service, consumer, sink)
    assert reply.request_id != other
    assert "".join(sink.appended) == "mine " * 50
    assert settled.args[0].seq_errors == 0
