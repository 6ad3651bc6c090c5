"""One reply, owned by one object: the Qt half.

The lifecycle (phases, outcome, telemetry, the meta written at the end) is
Qt-free in ``app.core.conversation.reply``; its module docstring has the phase
diagram. This ``Reply`` adds the signals and talks to whatever shows the
reply through the ``ReplySink`` protocol (the ``ChatView`` in the app, a fake
in tests). ``settled`` is emitted exactly once.

Everything a reply shows goes to its own message id; a notice or another
reply can never land inside it. Threading rule: GUI thread only.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Protocol

from PyQt6.QtCore import QObject, pyqtBoundSignal, pyqtSignal

from app.core.backends.base import FinishReason
from app.core.conversation.model import Conversation, Message, MessageStatus
from app.core.conversation.reply import (
    ReplyLifecycle,
    ReplyOutcome,
    ReplyPhase,
    ReplyTelemetry,
    finalize_meta,
    outcome_of,
)

__all__ = ["Reply", "ReplyOutcome", "ReplyPhase", "ReplySink", "ReplyStats", "ReplyTelemetry"]

#: The name the window, the doctor and the benchmarks know the telemetry by.
ReplyStats = ReplyTelemetry


class ReplySink(Protocol):
    """What a reply shows itself in (``ChatView`` implements it)."""

    #: A message's final render is on screen; arg: message id.
    message_settled: pyqtBoundSignal

    def append_stream(self, message_id: str, text: str) -> None: ...

    def finish_stream(self, message_id: str) -> None: ...

    def has_item(self, item_id: str) -> bool: ...

    def set_prompt_progress(self, message_id: str, done: int, total: int) -> None: ...


class Reply(QObject):
    """One reply (see the module docstring)."""

    #: The phase changed; arg: ReplyPhase.
    phase_changed = pyqtSignal(object)
    #: Every token is on screen (finalizing began); arg: ReplyTelemetry.
    finished = pyqtSignal(object)
    #: The reply is completely over; arg: ReplyTelemetry.
    settled = pyqtSignal(object)

    def __init__(
        self,
        request_id: int,
        message: Message,
        sink: ReplySink,
        model_name: str = "",
        sent_at: float | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.message = message
        self.sink = sink
        self.model_name = model_name
        self.stats = ReplyTelemetry(
            request_id=request_id, sent_at=time.monotonic() if sent_at is None else sent_at, message_id=message.id
        )
        self._lifecycle = ReplyLifecycle()
        self._worker_done = False
        self._rendered = False
        self.expected_seq = 0
        #: Called with force=False as text arrives and force=True when the
        #: reply ends (the conversation library saves it: crash safety).
        self.saver: Callable[[bool], None] | None = None
        #: The conversation the reply belongs to (it may not be the one shown).
        self.conversation: Conversation | None = None
        self._connect_signals()

    def _connect_signals(self) -> None:
        self.sink.message_settled.connect(self._on_message_settled)

    @property
    def request_id(self) -> int:
        return self.stats.request_id

    @property
    def phase(self) -> ReplyPhase:
        return self._lifecycle.phase

    @property
    def outcome(self) -> ReplyOutcome:
        return self._lifecycle.outcome

    @property
    def active(self) -> bool:
        """True while text may still arrive (the UI shows 'generating')."""
        return self._lifecycle.active

    def _set_phase(self, phase: ReplyPhase) -> None:
        if self._lifecycle.advance(phase):
            self.phase_changed.emit(phase)

    # -- events from the controller ------------------------------------------------

    def on_worker_started(self) -> None:
        self._set_phase(ReplyPhase.READING_PROMPT)

    def on_prompt_progress(self, done: int, total: int) -> None:
        """``done`` of the prompt's ``total`` tokens were read: shown on the
        reply until its first token."""
        if self.phase in (ReplyPhase.SENDING, ReplyPhase.READING_PROMPT) and self.sink.has_item(self.message.id):
            self.sink.set_prompt_progress(self.message.id, done, total)

    def on_first_token(self, at: float) -> None:
        self.stats.first_token_at = at
        if self.phase in (ReplyPhase.SENDING, ReplyPhase.READING_PROMPT):
            self._set_phase(ReplyPhase.STREAMING)

    def add_text(self, text: str, produced_at: list[float]) -> None:
        """Show text taken from the buffer by the consumer's tick.

        Tokens that carry no text (half of a UTF-8 character, held back until
        the rest comes; only control characters) still count as shown: what
        they stand for is on screen as soon as there is any."""
        if not self.active:
            return
        if not text:
            self.stats.record_shown(text, produced_at, time.monotonic())
            return
        self.message.append(text)
        self.sink.append_stream(self.message.id, text)
        self.stats.record_shown(text, produced_at, time.monotonic())
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
        msg = self.message
        msg.status, self._lifecycle.outcome = outcome_of(self.stats.finish_reason)
        if msg.status == MessageStatus.ERROR:
            msg.error = self.stats.error
        self._finalize()

    def stop(self) -> None:
        """Stop: the UI is idle when this returns; the partial text is kept."""
        if not self.active:
            return
        stats = self.stats
        stats.stop_pressed_at = time.monotonic()
        stats.finish_reason = FinishReason.CANCELLED
        self.message.status = MessageStatus.STOPPED
        self._lifecycle.outcome = ReplyOutcome.STOPPED
        self._finalize()
        stats.idle_at = time.monotonic()

    def _finalize(self) -> None:
        stats = self.stats
        stats.ended_at = time.monotonic()
        finalize_meta(self.message, stats, self.model_name)
        self._set_phase(ReplyPhase.FINALIZING)
        if self.saver is not None:
            self.saver(True)
        if self.sink.has_item(self.message.id):
            self.sink.finish_stream(self.message.id)
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

    def on_item_dropped(self) -> None:
        """The sink forgot this message (another conversation is shown, or
        the message left the path shown): no final render will come."""
        if self.phase == ReplyPhase.FINALIZING:
            self._rendered = True
            self._maybe_settle()

    def _maybe_settle(self) -> None:
        if self.phase != ReplyPhase.FINALIZING or not self._rendered:
            return
        if self.outcome == ReplyOutcome.STOPPED and not self._worker_done:
            return
        self.stats.settled_at = time.monotonic()
        self._set_phase(ReplyPhase.SETTLED)
        self.sink.message_settled.disconnect(self._on_message_settled)
        self.settled.emit(self.stats)
