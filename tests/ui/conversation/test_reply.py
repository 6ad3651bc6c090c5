"""The Qt half of a reply, against a fake sink (no view)."""

from __future__ import annotations

from PyQt6.QtCore import QObject, pyqtSignal

from app.core.backends.base import FinishReason
from app.core.conversation.model import Message, MessageStatus, Role
from app.ui.conversation.reply import Reply, ReplyOutcome, ReplyPhase


class FakeSink(QObject):
    #: A message's final render is on screen; arg: message id.
    message_settled = pyqtSignal(str)

    def __init__(self, shown: bool = True) -> None:
        super().__init__()
        self.shown = shown
        self.calls: list[tuple[str, ...]] = []

    def append_stream(self, message_id: str, text: str) -> None:
        self.calls.append(("append", message_id, text))

    def finish_stream(self, message_id: str) -> None:
        self.calls.append(("finish", message_id))

    def has_item(self, item_id: str) -> bool:
        return self.shown

    def set_prompt_progress(self, message_id: str, done: int, total: int) -> None:
        self.calls.append(("progress", message_id, str(done), str(total)))


def make(sink: FakeSink) -> tuple[Reply, list[ReplyPhase], list[object]]:
    msg = Message(Role.ASSISTANT.value, status=MessageStatus.STREAMING)
    reply = Reply(7, msg, sink, "model", sent_at=0.0)
    phases: list[ReplyPhase] = []
    settled: list[object] = []
    reply.phase_changed.connect(phases.append)
    reply.settled.connect(settled.append)
    return reply, phases, settled


def test_a_reply_streams_drains_finalizes_and_settles_once(qapp) -> None:
    sink = FakeSink()
    reply, phases, settled = make(sink)
    saves: list[bool] = []
    reply.saver = saves.append
    reply.on_worker_started()
    reply.add_text("Hello", [1.0])
    reply.on_producer_done(FinishReason.STOP, "", 1, 3, 2.0)
    reply.on_drained()
    assert phases == [ReplyPhase.READING_PROMPT, ReplyPhase.STREAMING, ReplyPhase.DRAINING, ReplyPhase.FINALIZING]
    assert sink.calls == [("append", reply.message.id, "Hello"), ("finish", reply.message.id)]
    assert reply.message.status == MessageStatus.COMPLETE and reply.outcome == ReplyOutcome.COMPLETE
    assert reply.message.meta.model == "model" and reply.message.meta.tokens == 1
    assert saves == [False, True] and settled == []
    sink.message_settled.emit("another message")
    assert settled == []
    sink.message_settled.emit(reply.message.id)
    sink.message_settled.emit(reply.message.id)
    assert settled == [reply.stats] and reply.phase == ReplyPhase.SETTLED
    assert reply.stats.render_passes == 1


def test_tokens_without_text_count_as_shown(qapp) -> None:
    """A token holding half of a UTF-8 character brings no text: its chunk's
    token still counts, or the doctor reports it "never shown" (a CI run did,
    with a 2-token reply that was one split character)."""
    sink = FakeSink()
    reply, _phases, _settled = make(sink)
    reply.on_worker_started()
    reply.add_text("", [1.0])
    assert reply.stats.tokens_shown == 1 and reply.stats.first_shown_at is None
    assert sink.calls == [] and reply.message.content == ""
    reply.add_text("\ufffd", [1.5])
    reply.on_producer_done(FinishReason.LENGTH, "", 2, 3, 2.0)
    assert reply.stats.tokens_shown == reply.stats.tokens_produced == 2
    assert reply.message.content == "\ufffd" and sink.calls == [("append", reply.message.id, "\ufffd")]


def test_a_stopped_reply_settles_after_its_worker_exits(qapp) -> None:
    sink = FakeSink(shown=False)  # another conversation is shown: nothing to render
    reply, _phases, settled = make(sink)
    reply.add_text("Hal", [])
    reply.stop()
    assert reply.message.status == MessageStatus.STOPPED and reply.outcome == ReplyOutcome.STOPPED
    assert not reply.active and settled == [] and ("finish", reply.message.id) not in sink.calls
    reply.add_text("more", [])  # too late: never shown
    reply.on_producer_done(FinishReason.CANCELLED, "", 3, 3, 5.0)
    assert settled == [reply.stats] and reply.stats.finish_reason == FinishReason.CANCELLED
    assert reply.message.content == "Hal"


def test_a_finalizing_reply_whose_item_was_dropped_settles(qapp) -> None:
    sink = FakeSink()
    reply, _phases, settled = make(sink)
    reply.on_producer_done(FinishReason.ERROR, "boom", 0, 0, 1.0)
    reply.on_drained()
    assert reply.message.status == MessageStatus.ERROR and reply.message.error == "boom"
    assert settled == []
    reply.on_item_dropped()
    assert settled == [reply.stats] and reply.outcome == ReplyOutcome.FAILED
