"""The consumer side of the pipeline: the tick that takes text from the
inference service's chunk buffer and hands it to the streaming ``Reply``,
and the registry of replies not settled yet.

One tick drains the buffer within a time budget (TICK_BUDGET_S), at most
TICK_MAX_CHARS per drain, checks every chunk's request id and sequence
number, and filters control characters out of the text. The reply owns its
lifecycle (``app.ui.conversation.reply``).

Threading rule: GUI thread only.
"""

from __future__ import annotations

import logging
import time

from PyQt6.QtCore import QObject, Qt, QTimer, pyqtSignal

from app.core.conversation.reply import ReplyPhase, ReplyTelemetry
from app.ui.conversation.reply import Reply
from app.ui.services.activity import traced
from app.ui.services.inference import GenerationResult, InferenceService
from app.ui.services.slicer import SliceScheduler

log = logging.getLogger(__name__)

__all__ = ["TICK_BUDGET_S", "TICK_MAX_CHARS", "TICK_MS", "StreamConsumer", "clean_text"]

TICK_MS = 25             # consumer tick (the brief asks for 20-40 ms)
TICK_BUDGET_S = 0.004    # time budget of one tick's drain
TICK_MAX_CHARS = 4096    # at most this much text per drain (and append) call

# Model output may contain control characters: keep tab and newline, drop the
# rest (a carriage return included, so "\r\n" split across chunks is one line break).
_CONTROL_CHARS = dict.fromkeys([*range(9), *range(11, 32), 0x7F])


def clean_text(text: str) -> str:
    """``text`` without control characters other than tab and newline."""
    return text.translate(_CONTROL_CHARS)


class StreamConsumer(QObject):
    """Feeds the current reply from the chunk buffer; keeps every reply
    until it settles."""

    #: A reply started streaming (it is the current one now); arg: request id.
    reply_started = pyqtSignal(int)
    #: The model read the prompt and produced its first token; arg: request id.
    prompt_processed = pyqtSignal(int)
    #: Part of the current reply's prompt was read; args: request id, tokens read, tokens in all.
    prompt_progressed = pyqtSignal(int, int, int)
    #: A reply's phase changed; args: request id, ReplyPhase.
    reply_phase_changed = pyqtSignal(int, object)
    #: Every token of a reply is on screen (or it was stopped); arg: ReplyTelemetry.
    reply_finished = pyqtSignal(object)
    #: A reply is completely over; arg: ReplyTelemetry.
    reply_settled = pyqtSignal(object)
    #: The current reply changed (one started, or the last text of one was
    #: shown, or it was stopped); arg: True when a reply is current now.
    streaming_changed = pyqtSignal(bool)
    #: The worker said which messages it left out of a reply's prompt (the
    #: context was full); args: the Reply, a tuple of message ids.
    messages_dropped_reported = pyqtSignal(object, tuple)
    #: The worker said something about how a reply ended (e.g. cut at Rill's
    #: limit for one reply); arg: the text, for people.
    notice_reported = pyqtSignal(str)

    def __init__(self, service: InferenceService, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.service = service
        self._current: Reply | None = None            # the reply text is arriving for
        self._replies: dict[int, Reply] = {}          # every reply not settled yet
        self.last_stats: ReplyTelemetry | None = None  # the last reply that settled
        self.last_request_id = 0                      # the last reply started
        self._tick = QTimer(self)
        self._tick.setInterval(TICK_MS)
        self._tick.setTimerType(Qt.TimerType.PreciseTimer)
        self._connect_signals()

    def _connect_signals(self) -> None:
        s = self.service
        s.first_token_produced.connect(self._on_first_token_produced)
        s.prompt_progressed.connect(self._on_prompt_progressed)
        s.chunks_ready.connect(self._on_chunks_ready)
        s.generation_finished.connect(self._on_generation_finished)
        self._tick.timeout.connect(self._on_tick)

    @property
    def current(self) -> Reply | None:
        """The reply text is arriving for (None: idle)."""
        return self._current

    def replies(self) -> list[Reply]:
        """Every reply not settled yet."""
        return list(self._replies.values())

    def replies_pending(self) -> int:
        return len(self._replies)

    def start(self, reply: Reply) -> None:
        """``reply`` was submitted: it is the current one now."""
        rid = reply.request_id
        self.last_request_id = rid
        self._current = reply
        self._replies[rid] = reply
        reply.phase_changed.connect(lambda phase, rid=rid: self.reply_phase_changed.emit(rid, phase))
        reply.finished.connect(self.reply_finished)
        reply.settled.connect(self._on_reply_settled)
        reply.on_worker_started()
        self._tick.start()
        self.streaming_changed.emit(True)
        self.reply_started.emit(rid)

    def stop(self) -> Reply | None:
        """Stop the current reply (the UI is idle when this returns); returns it."""
        reply = self._current
        if reply is None:
            return None
        self.service.cancel(reply.request_id)
        self._tick.stop()
        self._current = None
        reply.stop()
        self.streaming_changed.emit(False)
        return reply

    # -- slots -------------------------------------------------------------------------

    def _on_first_token_produced(self, rid: int, at: float) -> None:
        reply = self._replies.get(rid)
        if reply is not None and reply is self._current:
            reply.on_first_token(at)
            self.prompt_processed.emit(rid)

    def _on_prompt_progressed(self, rid: int, done: int, total: int) -> None:
        reply = self._replies.get(rid)
        if reply is not None and reply is self._current:
            reply.on_prompt_progress(done, total)
            self.prompt_progressed.emit(rid, done, total)

    def _on_chunks_ready(self, rid: int, seq: int) -> None:
        if self._current is not None and rid == self._current.request_id and not self._tick.isActive():
            self._tick.start()

    @traced("tick")
    def _on_tick(self) -> None:
        reply = self._current
        if reply is None:
            self._tick.stop()
            return
        stats = reply.stats
        stats.ticks += 1
        deadline = time.perf_counter() + TICK_BUDGET_S
        buffer = self.service.buffer
        while True:
            # One bounded drain, shown at once, until the budget is spent:
            # a fast producer never makes one tick append megabytes.
            chunks = buffer.drain(TICK_MAX_CHARS)
            if not chunks:
                break
            parts: list[str] = []
            produced: list[float] = []
            for chunk in chunks:
                if chunk.request_id != stats.request_id:
                    continue  # a stale request's chunk: never shown
                if chunk.seq != reply.expected_seq:
                    stats.seq_errors += 1
                    log.error("chunk out of order: got %d, expected %d", chunk.seq, reply.expected_seq)
                reply.expected_seq = chunk.seq + 1
                parts.append(chunk.text)
                produced.extend(chunk.produced_at)
            if parts:
                reply.add_text(clean_text("".join(parts)), produced)
            if time.perf_counter() >= deadline:
                break
        SliceScheduler.shared().note_busy()   # the view's slices wait for the next turn
        if reply.phase == ReplyPhase.DRAINING and len(buffer) == 0:
            self._tick.stop()
            self._current = None
            self.streaming_changed.emit(False)
            reply.on_drained()

    def _on_generation_finished(self, result: GenerationResult) -> None:
        reply = self._replies.get(result.request_id)
        if reply is None:
            return
        reply.on_producer_done(result.finish_reason, result.error, result.tokens, result.prompt_tokens, result.ended_at)
        self.messages_dropped_reported.emit(reply, tuple(result.dropped_ids))
        if result.notice:
            self.notice_reported.emit(result.notice)
        if reply is self._current:
            if not self._tick.isActive():
                self._tick.start()
            self._on_tick()  # finish now if everything is on screen already

    def _on_reply_settled(self, stats: ReplyTelemetry) -> None:
        reply = self._replies.pop(stats.request_id, None)
        self.last_stats = stats
        self.reply_settled.emit(stats)
        if reply is not None:
            reply.deleteLater()
