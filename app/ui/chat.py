"""The chat controller: connects the inference service to the transcript.

It owns the consumer side of the pipeline: a tick timer that drains the
chunk buffer within a time budget and appends plain text, a throttled
low-priority pass that renders completed Markdown blocks, and the final
render when a reply ends. Widgets stay thin; tests can drive this directly.
"""

from __future__ import annotations

import enum
import logging
import time
from dataclasses import dataclass, field

from PyQt6.QtCore import QObject, Qt, QTimer, pyqtSignal

from app.core.backend import FinishReason, ModelInfo, SamplingParams
from app.core.conversation import Conversation, MessageStatus
from app.core.metrics import Reservoir
from app.ui.inference import BackendFactory, GenerationResult, InferenceService
from app.ui.throttle import Throttle
from app.ui.transcript import MessageSpan, TranscriptView

log = logging.getLogger(__name__)

TICK_MS = 25             # consumer tick (the brief asks for 20-40 ms)
TICK_BUDGET_S = 0.008    # time budget of one tick's drain
TICK_MAX_CHARS = 16384   # at most this much text per drain call
RENDER_INTERVAL_MS = 120 # spacing of deferred Markdown passes while streaming
RENDER_BUDGET_S = 0.006  # time budget of one deferred pass
RENDER_YIELD_CHARS = 4096  # a pass waits while more than this is waiting to be shown


# Model output may contain control characters: keep tab and newline, drop the
# rest (a carriage return included, so "\r\n" split across chunks is one line break).
_CONTROL_CHARS = dict.fromkeys([*range(0, 9), *range(11, 32), 0x7F])


class ChatState(str, enum.Enum):
    NO_MODEL = "no_model"
    LOADING = "loading"
    IDLE = "idle"
    GENERATING = "generating"


@dataclass
class ReplyStats:
    """What happened to one reply, from send to final render (monotonic times)."""

    request_id: int
    sent_at: float
    first_token_at: float | None = None
    first_shown_at: float | None = None
    last_token_at: float | None = None       # production time of the last token shown
    last_shown_at: float | None = None
    producer_done_at: float | None = None    # the worker's last token / exit
    backlog_at_producer_done: int = 0        # tokens produced but not yet shown then
    ended_at: float | None = None           # final render done
    stop_pressed_at: float | None = None
    idle_at: float | None = None             # UI idle after Stop
    worker_exit_at: float | None = None
    finish_reason: FinishReason | None = None
    error: str = ""
    tokens_produced: int = 0
    prompt_tokens: int = 0                   # after history trimming, as the backend saw it
    tokens_shown: int = 0
    chars_shown: int = 0
    ticks: int = 0
    render_passes: int = 0
    render_pass_s: list[float] = field(default_factory=list)
    token_to_screen_s: Reservoir = field(default_factory=Reservoir)  # seconds, sampled
    seq_errors: int = 0
    span: MessageSpan | None = None


class ChatController(QObject):
    """Drives one conversation (GUI thread only)."""

    #: The controller's state changed; arg: ChatState.
    state_changed = pyqtSignal(object)
    #: A model finished loading; arg: ModelInfo.
    model_ready = pyqtSignal(object)
    #: A model failed to load; arg: the message shown to the user.
    model_failed = pyqtSignal(str)
    #: A reply started streaming; arg: request id.
    reply_started = pyqtSignal(int)
    #: The model finished reading the prompt and produced its first token; arg: request id.
    prompt_processed = pyqtSignal(int)
    #: A reply reached its final render; arg: ReplyStats.
    reply_finished = pyqtSignal(object)
    #: A reply is completely over: final render done and, if it was stopped,
    #: its worker has exited too (worker_exit_at is set); arg: ReplyStats.
    reply_settled = pyqtSignal(object)
    #: Stop took effect in the UI (idle now); arg: request id.
    reply_stopped = pyqtSignal(int)

    def __init__(self, transcript: TranscriptView, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.transcript = transcript
        self.conversation = Conversation()
        self.params = SamplingParams()
        self.service = InferenceService(self)
        self.model_info: ModelInfo | None = None
        self.state = ChatState.NO_MODEL
        self._current: ReplyStats | None = None    # the reply streaming now
        self.last_stats: ReplyStats | None = None  # the last reply that ended
        self._producer_done: GenerationResult | None = None
        self._expected_seq = 0
        self._stopped: dict[int, ReplyStats] = {}   # waiting for their worker to exit
        self._finalize_queue: list[tuple[ReplyStats, str, str]] = []
        self._finalize_timer = QTimer(self)
        self._finalize_timer.setSingleShot(True)
        self._finalize_timer.timeout.connect(self._on_finalize_step)
        self._tick = QTimer(self)
        self._tick.setInterval(TICK_MS)
        self._tick.setTimerType(Qt.TimerType.PreciseTimer)
        self._render = Throttle(self._on_render_due, RENDER_INTERVAL_MS, self)
        self._connect_signals()

    def _connect_signals(self) -> None:
        s = self.service
        s.model_load_started.connect(self._on_model_load_started)
        s.model_loaded.connect(self._on_model_loaded)
        s.model_load_failed.connect(self._on_model_load_failed)
        s.first_token_produced.connect(self._on_first_token_produced)
        s.chunks_ready.connect(self._on_chunks_ready)
        s.generation_finished.connect(self._on_generation_finished)
        self._tick.timeout.connect(self._on_tick)

    @property
    def current_stats(self) -> ReplyStats | None:
        """The streaming reply's stats (None when idle). Read-only use."""
        return self._current

    # -- model ----------------------------------------------------------------

    def load_model(self, factory: BackendFactory, description: str) -> None:
        if self.state == ChatState.GENERATING:
            self.stop()
        self.service.load(factory, description)

    def _set_state(self, state: ChatState) -> None:
        if state != self.state:
            self.state = state
            self.state_changed.emit(state)

    def _on_model_load_started(self, description: str) -> None:
        self.model_info = None
        self._set_state(ChatState.LOADING)

    def _on_model_loaded(self, info: ModelInfo) -> None:
        self.model_info = info
        for warning in info.warnings:
            self.transcript.add_notice(f"⚠ {warning}", "warning")
        self._set_state(ChatState.IDLE)
        self.model_ready.emit(info)

    def _on_model_load_failed(self, message: str) -> None:
        self.transcript.add_notice(
            f"Could not load the model. {message}\nChoose a GGUF model with File › Open Model…", "error"
        )
        self._set_state(ChatState.NO_MODEL)
        self.model_failed.emit(message)

    # -- sending and stopping -----------------------------------------------------

    def send(self, text: str) -> bool:
        """Send a prompt; False (and nothing changes) when not ready or empty."""
        text = text.strip()
        if not text or self.state != ChatState.IDLE:
            return False
        self._flush_deferred_finalize()  # a just-stopped reply closes first
        self.conversation.add_user(text)
        self.transcript.add_user_message(text)
        messages = self.conversation.prompt()
        self.conversation.start_reply()
        self.transcript.begin_reply()
        sent_at = time.monotonic()
        rid = self.service.submit(messages, self.params)
        self._current = ReplyStats(request_id=rid, sent_at=sent_at)
        self._producer_done = None
        self._expected_seq = 0
        self._tick.start()
        self._set_state(ChatState.GENERATING)
        self.reply_started.emit(rid)
        return True

    def stop(self) -> None:
        """Stop the streaming reply: the UI is idle when this returns."""
        stats = self._current
        if stats is None:
            return
        stats.stop_pressed_at = time.monotonic()
        self.service.cancel(stats.request_id)
        self._tick.stop()
        self._render.cancel()
        self._current = None
        self._stopped[stats.request_id] = stats
        stats.finish_reason = FinishReason.CANCELLED
        self.conversation.messages[-1].status = MessageStatus.STOPPED
        self._set_state(ChatState.IDLE)
        stats.idle_at = time.monotonic()
        self.reply_stopped.emit(stats.request_id)
        # The partial reply's final render is deferred: it is not on Stop's path.
        self._queue_finalize(stats, "⏹ Stopped", "info")

    def new_chat(self) -> None:
        self.stop()
        self._flush_deferred_finalize()
        self.conversation.clear()
        self.transcript.clear_transcript()

    # -- consumer side ----------------------------------------------------------

    def _on_first_token_produced(self, rid: int, at: float) -> None:
        if self._current is not None and rid == self._current.request_id:
            self._current.first_token_at = at
            self.prompt_processed.emit(rid)

    def _on_chunks_ready(self, rid: int, seq: int) -> None:
        if self._current is not None and rid == self._current.request_id and not self._tick.isActive():
            self._tick.start()

    def _on_tick(self) -> None:
        stats = self._current
        if stats is None:
            self._tick.stop()
            return
        stats.ticks += 1
        deadline = time.perf_counter() + TICK_BUDGET_S
        buffer = self.service.buffer
        parts: list[str] = []
        latencies_from: list[float] = []
        while True:
            chunks = buffer.drain(TICK_MAX_CHARS)
            if not chunks:
                break
            for chunk in chunks:
                if chunk.request_id != stats.request_id:
                    continue  # a stale request's chunk: never shown
                if chunk.seq != self._expected_seq:
                    stats.seq_errors += 1
                    log.error("chunk out of order: got %d, expected %d", chunk.seq, self._expected_seq)
                self._expected_seq = chunk.seq + 1
                parts.append(chunk.text)
                latencies_from.extend(chunk.produced_at)
            if time.perf_counter() >= deadline:
                break
        if parts:
            text = "".join(parts).translate(_CONTROL_CHARS)
            self.transcript.append_reply_text(text)
            self.conversation.messages[-1].append(text)
            now = time.monotonic()
            if stats.first_shown_at is None:
                stats.first_shown_at = now
            stats.last_shown_at = now
            stats.tokens_shown += len(latencies_from)
            stats.chars_shown += len(text)
            stats.last_token_at = latencies_from[-1]
            stats.token_to_screen_s.extend([now - t for t in latencies_from])
            if "\n" in text:
                self._render()
        if self._producer_done is not None and len(buffer) == 0:
            self._finish_current()

    def _on_render_due(self) -> None:
        """Deferred, low-priority Markdown pass over completed blocks."""
        stats = self._current
        if stats is None:
            return
        if self.service.buffer.depth_chars > RENDER_YIELD_CHARS and self._producer_done is None:
            # The display is falling behind: showing text comes first.
            self._render()
            return
        t0 = time.perf_counter()
        committed = self.transcript.commit_completed_blocks(RENDER_BUDGET_S)
        if committed:
            stats.render_passes += 1
            stats.render_pass_s.append(time.perf_counter() - t0)
            if self.transcript.streaming:
                self._render()  # more may be complete already; the throttle spaces it

    def _on_generation_finished(self, result: GenerationResult) -> None:
        stopped = self._stopped.pop(result.request_id, None)
        if stopped is not None:
            stopped.worker_exit_at = result.ended_at
            stopped.tokens_produced = result.tokens
            stopped.prompt_tokens = result.prompt_tokens
            if stopped.ended_at is not None:  # its final render came first
                self.reply_settled.emit(stopped)
            return
        if self._current is None or result.request_id != self._current.request_id:
            return  # stale
        self._producer_done = result
        self._current.tokens_produced = result.tokens
        self._current.prompt_tokens = result.prompt_tokens
        self._current.producer_done_at = result.ended_at
        self._current.backlog_at_producer_done = result.tokens - self._current.tokens_shown
        if not self._tick.isActive():
            self._tick.start()
        self._on_tick()  # finish now if everything is on screen already

    def _finish_current(self) -> None:
        """Everything the worker produced is on screen: the reply has ended."""
        stats, result = self._current, self._producer_done
        assert stats is not None and result is not None
        self._tick.stop()
        self._render.cancel()
        self._current = None
        self._producer_done = None
        stats.finish_reason = result.finish_reason
        stats.error = result.error
        msg = self.conversation.messages[-1]
        note, kind = "", "info"
        if result.finish_reason == FinishReason.ERROR:
            msg.status = MessageStatus.ERROR
            msg.error = result.error
            note, kind = f"⚠ Error: {result.error}", "error"
        elif result.finish_reason == FinishReason.LENGTH:
            msg.status = MessageStatus.TRUNCATED
            note = "✂ Reply cut at the token limit"
        else:
            msg.status = MessageStatus.COMPLETE
        self._set_state(ChatState.IDLE)
        self._queue_finalize(stats, note, kind)

    # -- final render -------------------------------------------------------------

    def _queue_finalize(self, stats: ReplyStats, note: str, kind: str) -> None:
        self._finalize_queue.append((stats, note, kind))
        self._finalize_timer.start(0)

    def _on_finalize_step(self) -> None:
        """One time-boxed slice of the final render; re-armed while work remains."""
        if not self._finalize_queue:
            return
        stats, note, kind = self._finalize_queue[0]
        t0 = time.perf_counter()
        self.transcript.commit_completed_blocks(RENDER_BUDGET_S, final=True)
        stats.render_pass_s.append(time.perf_counter() - t0)
        stats.render_passes += 1
        if self.transcript.pending_chars:
            self._finalize_timer.start(0)
            return
        self._close_reply(*self._finalize_queue.pop(0))

    def _flush_deferred_finalize(self) -> None:
        """Finish any pending final render now (a new message is about to start)."""
        self._finalize_timer.stop()
        while self._finalize_queue:
            self._close_reply(*self._finalize_queue.pop(0))

    def _close_reply(self, stats: ReplyStats, note: str, kind: str) -> None:
        if not self.transcript.streaming:
            return
        t0 = time.perf_counter()
        stats.span = self.transcript.finalize_reply(note, kind)
        stats.render_pass_s.append(time.perf_counter() - t0)
        stats.ended_at = time.monotonic()
        self.last_stats = stats
        self.reply_finished.emit(stats)
        if stats.stop_pressed_at is None or stats.worker_exit_at is not None:
            self.reply_settled.emit(stats)

    def shutdown(self) -> bool:
        self.stop()
        self._flush_deferred_finalize()
        return self.service.shutdown()
