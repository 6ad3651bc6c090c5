"""One reply's lifecycle, Qt-free: its phases, outcome, telemetry and the
meta written into its message when it ends.

    sending ─▶ reading_prompt ─▶ streaming ─▶ draining ─▶ finalizing ─▶ settled
       │              │              │            │
       └──────────────┴──── stop ────┴────────────┴──▶ finalizing (stopped) ─▶ settled
                              error ─────────────────▶ finalizing (failed)  ─▶ settled

* sending: submitted to the inference thread, nothing heard yet.
* reading_prompt: the worker is evaluating the prompt (no token yet).
* streaming: tokens arrive; the consumer's tick hands them on.
* draining: the worker is done; text is still in the buffer.
* finalizing: every token is on screen; the whole message is being rendered.
* settled: the final render is on screen and, for a stopped reply, the worker
  has exited too.

``ReplyLifecycle`` is that diagram as a table: a move it does not list is
refused (``advance`` returns False) rather than applied. The Qt half (signals,
the view) is ``app.ui.conversation.reply.Reply``.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from app.core.backends.base import FinishReason
from app.core.conversation.model import Message, MessageStatus
from app.core.pipeline.metrics import Reservoir

__all__ = [
    "TRANSITIONS",
    "ReplyLifecycle",
    "ReplyOutcome",
    "ReplyPhase",
    "ReplyTelemetry",
    "finalize_meta",
    "outcome_of",
]


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


#: The phases a phase may move to (the module diagram). Every phase before
#: finalizing may go to finalizing (stop); settled is the end.
TRANSITIONS: dict[ReplyPhase, frozenset[ReplyPhase]] = {
    ReplyPhase.SENDING: frozenset(
        {ReplyPhase.READING_PROMPT, ReplyPhase.STREAMING, ReplyPhase.DRAINING, ReplyPhase.FINALIZING}
    ),
    ReplyPhase.READING_PROMPT: frozenset({ReplyPhase.STREAMING, ReplyPhase.DRAINING, ReplyPhase.FINALIZING}),
    ReplyPhase.STREAMING: frozenset({ReplyPhase.DRAINING, ReplyPhase.FINALIZING}),
    ReplyPhase.DRAINING: frozenset({ReplyPhase.FINALIZING}),
    ReplyPhase.FINALIZING: frozenset({ReplyPhase.SETTLED}),
    ReplyPhase.SETTLED: frozenset(),
}

#: The phases in which text may still arrive (the UI shows "generating").
ACTIVE_PHASES = frozenset({ReplyPhase.SENDING, ReplyPhase.READING_PROMPT, ReplyPhase.STREAMING, ReplyPhase.DRAINING})


class ReplyLifecycle:
    """The phase and outcome of one reply, moved only along ``TRANSITIONS``."""

    def __init__(self) -> None:
        self.phase = ReplyPhase.SENDING
        self.outcome = ReplyOutcome.PENDING

    @property
    def active(self) -> bool:
        """True while text may still arrive."""
        return self.phase in ACTIVE_PHASES

    def can_advance(self, phase: ReplyPhase) -> bool:
        return phase in TRANSITIONS[self.phase]

    def advance(self, phase: ReplyPhase) -> bool:
        """Move to ``phase``; False (nothing changes) when the table does not
        allow it (staying in the same phase included)."""
        if not self.can_advance(phase):
            return False
        self.phase = phase
        return True


@dataclass
class ReplyTelemetry:
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

    def record_shown(self, text: str, produced_at: list[float], now: float) -> None:
        """Text (with the production time of each of its tokens) reached the screen at ``now``.

        Empty ``text`` (tokens holding only half a character) counts its tokens
        but is not a first or last showing."""
        if not text:
            self.tokens_shown += len(produced_at)
            return
        if self.first_shown_at is None:
            self.first_shown_at = now
        self.last_shown_at = now
        self.tokens_shown += len(produced_at)
        self.chars_shown += len(text)
        if produced_at:
            self.last_token_at = produced_at[-1]
            self.token_to_screen_s.add_offsets(now, produced_at)


def outcome_of(reason: FinishReason | None) -> tuple[MessageStatus, ReplyOutcome]:
    """The message status and reply outcome of a reply whose worker ended for ``reason``."""
    if reason == FinishReason.ERROR:
        return MessageStatus.ERROR, ReplyOutcome.FAILED
    if reason == FinishReason.LENGTH:
        return MessageStatus.TRUNCATED, ReplyOutcome.COMPLETE
    return MessageStatus.COMPLETE, ReplyOutcome.COMPLETE


def finalize_meta(message: Message, telemetry: ReplyTelemetry, model_name: str = "") -> None:
    """Write what the footer and the history show about a finished reply
    (model, finish reason, tokens, first-token time, rate) into ``message.meta``."""
    t = telemetry
    meta = message.meta
    meta.model = model_name
    meta.finish_reason = t.finish_reason.value if t.finish_reason else ""
    meta.tokens = t.tokens_shown
    meta.prompt_tokens = t.prompt_tokens
    if t.first_token_at is not None:
        meta.ttft_ms = round((t.first_token_at - t.sent_at) * 1000, 1)
        if t.last_token_at and t.tokens_shown > 1 and t.last_token_at > t.first_token_at:
            meta.tokens_per_s = round((t.tokens_shown - 1) / (t.last_token_at - t.first_token_at), 1)
