"""The Qt-free reply lifecycle: the transition table is the docstring's
diagram, telemetry and the meta written at the end."""

from __future__ import annotations

import pytest

from app.core.backends.base import FinishReason
from app.core.conversation.deletion import MessageDeletion
from app.core.conversation.model import Conversation, Message, MessageStatus, Role
from app.core.conversation.reply import (
    TRANSITIONS,
    ReplyLifecycle,
    ReplyOutcome,
    ReplyPhase,
    ReplyTelemetry,
    finalize_meta,
    outcome_of,
)

P = ReplyPhase


def test_the_happy_path_follows_the_diagram() -> None:
    life = ReplyLifecycle()
    assert life.phase == P.SENDING and life.outcome == ReplyOutcome.PENDING and life.active
    for phase in (P.READING_PROMPT, P.STREAMING, P.DRAINING, P.FINALIZING, P.SETTLED):
        assert life.advance(phase), phase
    assert life.phase == P.SETTLED and not life.active


@pytest.mark.parametrize("start", [P.SENDING, P.READING_PROMPT, P.STREAMING, P.DRAINING])
def test_stop_goes_to_finalizing_from_every_active_phase(start: ReplyPhase) -> None:
    assert P.FINALIZING in TRANSITIONS[start]


def test_moves_the_diagram_does_not_have_are_refused() -> None:
    life = ReplyLifecycle()
    assert not life.advance(P.SETTLED), "settled only after finalizing"
    assert not life.advance(P.SENDING), "staying is not a move"
    life.advance(P.STREAMING)
    assert not life.advance(P.READING_PROMPT), "never back"
    life.advance(P.FINALIZING)
    assert not life.advance(P.DRAINING) and not life.active
    life.advance(P.SETTLED)
    assert all(not life.advance(p) for p in P), "settled is the end"
    assert life.phase == P.SETTLED


def test_outcome_of_each_finish_reason() -> None:
    assert outcome_of(FinishReason.STOP) == (MessageStatus.COMPLETE, ReplyOutcome.COMPLETE)
    assert outcome_of(FinishReason.LENGTH) == (MessageStatus.TRUNCATED, ReplyOutcome.COMPLETE)
    assert outcome_of(FinishReason.ERROR) == (MessageStatus.ERROR, ReplyOutcome.FAILED)


def test_telemetry_and_the_meta_of_a_finished_reply() -> None:
    t = ReplyTelemetry(request_id=1, sent_at=10.0, first_token_at=10.5, finish_reason=FinishReason.STOP, prompt_tokens=7)
    t.record_shown("hello", [10.5, 10.75, 11.0], now=11.25)
    assert (t.tokens_shown, t.chars_shown, t.first_shown_at, t.last_token_at) == (3, 5, 11.25, 11.0)
    assert sorted(t.token_to_screen_s.values) == [0.25, 0.5, 0.75]
    msg = Message(Role.ASSISTANT.value, "hello")
    finalize_meta(msg, t, "tiny-model")
    meta = msg.meta
    assert (meta.model, meta.finish_reason, meta.tokens, meta.prompt_tokens) == ("tiny-model", "stop", 3, 7)
    assert meta.ttft_ms == 500.0 and meta.tokens_per_s == 4.0  # 2 tokens after the first in 0.5 s


def test_no_first_token_no_rates() -> None:
    msg = Message(Role.ASSISTANT.value, "")
    finalize_meta(msg, ReplyTelemetry(request_id=2, sent_at=1.0, finish_reason=FinishReason.CANCELLED))
    assert msg.meta.finish_reason == "cancelled" and msg.meta.ttft_ms is None and not msg.meta.tokens_per_s


def test_a_deletion_is_a_record_undone_once() -> None:
    conv = Conversation()
    user = conv.add_user("q")
    reply = conv.add(Message(Role.ASSISTANT.value, "a"))
    assert MessageDeletion.apply(conv, "missing") is None
    deletion = MessageDeletion.apply(conv, user.id)
    assert deletion is not None and deletion.count == 2 and conv.messages == []
    assert deletion.undo() and conv.messages == [user, reply]
    assert not deletion.undo() and conv.messages == [user, reply]
    streaming = conv.start_reply()
    assert MessageDeletion.apply(conv, streaming.id) is None, "a streaming reply is not deleted"
