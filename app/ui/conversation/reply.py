"""One reply's lifecycle, owned by one object.

    sending ─▶ reading_prompt ─▶ streaming ─▶ draining ─▶ finalizing ─▶ settled
       │              │              │            │
       └──────────────┴──── stop ────┴────────────┴──▶ finalizing (stopped) ─▶ settled
                              error ─────────────────▶ finalizing (failed)  ─▶ settled

* sending: submitted to the inference thread, nothing heard yet.
* reading_prompt: the worker is evaluating the prompt (no token yet).
* streaming: tokens arrive; the controller's tick hands them to ``add_text``.
* draining: the worker is done; text is still in the buffer.
* finalizing: every token is on screen; the whole message is being rendered
  off the GUI thread and swapped in by the view.
* settled: the final render is on screen and, for a stopped reply, the worker
  has exited too. ``settled`` is emitted exactly once.

Everything a reply shows goes to its own message id; a notice or another
reply can never land inside it. Threading rule: GUI thread only.
"""

from __future__ import annotations

import enum
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from PyQt6.QtCore import QObject, pyqtSignal

from app.core.backends.base import FinishReason
from app.core.conversation.model import Message, MessageStatus
from app.core.pipeline.metrics import Reservoir
from app.ui.conversation.view import ChatView


class ReplyPhase(str, enum.Enum):
    SENDING = "sending"
    READING_PROMPT = "reading_prompt"
    STREAMING = "streaming"
    DRAINING = "draining"
    FINALIZING = "finalizing"
    SETTLED = "settled"


class ReplyOutcome(str, enum.Enum):
    PENDING = "pending"
    COMPLETE = "complete"
    STOPPED = "stopped"
    FAILED = "failed"


@dataclass
class ReplyStats:
    """What happened to one reply, from send to settle (monotonic times)."""

    request_id: int
    sent_at: float
    message_id: str = ""
    first_token_at: float | None = None
    first_shown_at: float | None = None
    last_token_at: float | None = None       # production time of the last token shown
    last_shown_at: float | None = None
    producer_done_at: float | None = None    # the worker's last token / exit
    backlog_at_producer_done: int = 0        # tokens produced but not yet shown then
    ended_at: float | None = None            # every token shown (finalizing began)
    settled_at: float | None = None          # final render on screen
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
    token_to_screen_s: Reservoir = field(default_factory=Reservoir)  # seconds, sampled
    seq_errors: int = 0


class Reply(QObject):
    """One reply (see the module docstring)."""

    #: The phase changed; arg: ReplyPhase.
    phase_changed = pyqtSignal(object)
    #: Every token is on screen (finalizing began); arg: ReplyStats.
    finished = pyqtSignal(object)
    #: The reply is completely over; arg: ReplyStats.
    settled = pyqtSignal(object)

    def __init__(
        self,
        request_id: int,
        message: Message,
        view: ChatView,
        model_name: str = "",
        sent_at: float | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.message = message
        self.view = view
        self.model_name = model_name
        self.stats = ReplyStats(
            request_id=request_id, sent_at=time.monotonic() if sent_at is None else sent_at, message_id=message.id
        )
        self.phase = ReplyPhase.SENDING
        self.outcome = ReplyOutcome.PENDING
        self._worker_done = False
        self._rendered = False
        self.expected_seq = 0
        #: Called with force=False as text arrives and force=True when the
        #: reply ends (the conversation library saves it: crash safety).
        self.saver: Callable[[bool], None] | None = None
        #: The conversation the reply belongs to (it may not be the one shown).
        self.conversation: object | None = None
        self._connect_signals()

    def _connect_signals(self) -> None:
        self.view.message_settled.connect(self._on_message_settled)

    @property
    def request_id(self) -> int:
        return self.stats.request_id

    @property
    def active(self) -> bool:
        """True while text may still arrive (the UI shows 'generating')."""
        return self.phase in (ReplyPhase.SENDING, ReplyPhase.READING_PROMPT, ReplyPhase.STREAMING, ReplyPhase.DRAINING)

    def _set_phase(self, phase: ReplyPhase) -> None:
        if phase != self.phase:
            self.phase = phase
            self.phase_changed.emit(phase)

    # -- events from the controller ------------------------------------------------

    def on_worker_started(self) -> None:
        if self.phase == ReplyPhase.SENDING:
            self._set_phase(ReplyPhase.READING_PROMPT)

    def on_first_token(self, at: float) -> None:
        self.stats.first_token_at = at
        if self.phase in (ReplyPhase.SENDING, ReplyPhase.READING_PROMPT):
            self._set_phase(ReplyPhase.STREAMING)

    def add_text(self, text: str, produced_at: list[float]) -> None:
        """Show text taken from the buffer by the controller's tick."""
        if not self.active or not text:
            return
        now = time.monotonic()
        stats = self.stats
        self.message.append(text)
        self.view.append_stream(self.message.id, text)
        if stats.first_shown_at is None:
            stats.first_shown_at = now
        stats.last_shown_at = now
        stats.tokens_shown += len(produced_at)
        stats.chars_shown += len(text)
        if produced_at:
            stats.last_token_at = produced_at[-1]
            stats.token_to_screen_s.extend([now - t for t in produced_at])
        if self.phase in (ReplyPhase.SENDING, ReplyPhase.READING_PROMPT):
            self._set_phase(ReplyPhase.STREAMING)
        if self.saver is not None:
            self.saver(False)

    def on_producer_done(self, finish_reason: FinishReason, error: str, tokens: int, prompt_tokens: int, at: float) -> None:
        """The worker finished this request (any reason)."""
        stats = self.stats
        self._worker_done = True
        stats.worker_exit_at = at
        stats.tokens_produced = tokens
        stats.prompt_tokens = prompt_tokens
        if self.outcome == ReplyOutcome.STOPPED:
            self._maybe_settle()
            return
        stats.producer_done_at = at
        stats.backlog_at_producer_done = tokens - stats.tokens_shown
        stats.finish_reason = finish_reason
        stats.error = error
        if self.active:
            self._set_phase(ReplyPhase.DRAINING)

    def on_drained(self) -> None:
        """Everything the worker produced is on screen."""
        if self.phase != ReplyPhase.DRAINING:
            return
        reason = self.stats.finish_reason
        msg = self.message
        if reason == FinishReason.ERROR:
            msg.status, msg.error = MessageStatus.ERROR, self.stats.error
            self.outcome = ReplyOutcome.FAILED
        elif reason == FinishReason.LENGTH:
            msg.status = MessageStatus.TRUNCATED
            self.outcome = ReplyOutcome.COMPLETE
        else:
            msg.status = MessageStatus.COMPLETE
            self.outcome = ReplyOutcome.COMPLETE
        self._finalize()

    def stop(self) -> None:
        """Stop: the UI is idle when this returns; the partial text is kept."""
        if not self.active:
            return
        stats = self.stats
        stats.stop_pressed_at = time.monotonic()
        stats.finish_reason = FinishReason.CANCELLED
        self.message.status = MessageStatus.STOPPED
        self.outcome = ReplyOutcome.STOPPED
        self._finalize()
        stats.idle_at = time.monotonic()

    def _finalize(self) -> None:
        stats = self.stats
        stats.ended_at = time.monotonic()
        meta = self.message.meta
        meta.model = self.model_name
        meta.finish_reason = stats.finish_reason.value if stats.finish_reason else ""
        meta.tokens = stats.tokens_shown
        meta.prompt_tokens = stats.prompt_tokens
        if stats.first_token_at is not None:
            meta.ttft_ms = round((stats.first_token_at - stats.sent_at) * 1000, 1)
            if stats.last_token_at and stats.tokens_shown > 1 and stats.last_token_at > stats.first_token_at:
                meta.tokens_per_s = round((stats.tokens_shown - 1) / (stats.last_token_at - stats.first_token_at), 1)
        self._set_phase(ReplyPhase.FINALIZING)
        if self.saver is not None:
            self.saver(True)
        if self.view.has_item(self.message.id):
            self.view.finish_stream(self.message.id)
        else:
            self._rendered = True  # not on screen (another conversation is): nothing to render
        self.finished.emit(stats)
        self._maybe_settle()

    # -- settling ----------------------------------------------------------------------

    def _on_message_settled(self, message_id: str) -> None:
        if message_id != self.message.id:
            return
        self._rendered = True
        self.stats.render_passes += 1
        self._maybe_settle()

    def on_view_cleared(self) -> None:
        """The view forgot this message (another conversation is shown)."""
        if self.phase == ReplyPhase.FINALIZING:
            self._rendered = True
            self._maybe_settle()

    def _maybe_settle(self) -> None:
        if self.phase == ReplyPhase.SETTLED or self.phase != ReplyPhase.FINALIZING:
            return
        if not self._rendered:
            return
        if self.outcome == ReplyOutcome.STOPPED and not self._worker_done:
            return
        self.stats.settled_at = time.monotonic()
        self._set_phase(ReplyPhase.SETTLED)
        self.view.message_settled.disconnect(self._on_message_settled)
        self.settled.emit(self.stats)
