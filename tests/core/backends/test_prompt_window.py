"""PromptWindow with a toy tokenizer (one token per word): what fits, what is
dropped under each policy, and that the work does not grow with the history."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.core.backends.base import BackendError, ChatMessage
from app.core.backends.prompt_window import OverflowPolicy, PromptWindow

FRAME = 3  # tokens around each message
OVERHEAD = 2  # BOS + generation prompt


def tokens_of(messages) -> list[int]:
    n = OVERHEAD + sum(FRAME + len(m.content.split()) for m in messages)
    return list(range(n))


def make(n_ctx: int = 200) -> PromptWindow:
    return PromptWindow(tokens_of, lambda m: FRAME + len(m.content.split()), n_ctx, overhead=OVERHEAD)


def conversation(sizes: list[int]) -> list[ChatMessage]:
    out = [ChatMessage("system", "be nice")]
    for i, n in enumerate(sizes):
        role = "user" if i % 2 == 0 else "assistant"
        out.append(ChatMessage(role, " ".join(["w"] * n), id=f"m{i}"))
    if out[-1].role != "user":
        out.append(ChatMessage("user", "last question", id="last"))
    return out


@settings(max_examples=200, deadline=None)
@given(sizes=st.lists(st.integers(min_value=1, max_value=60), min_size=1, max_size=40),
       max_tokens=st.integers(min_value=1, max_value=120),
       policy=st.sampled_from([OverflowPolicy.ROLLING, OverflowPolicy.MIDDLE]))
def test_the_window_always_fits_and_keeps_the_newest(sizes, max_tokens, policy) -> None:
    messages = conversation(sizes)
    window = make()
    try:
        result = window.fit(messages, max_tokens, policy)
    except BackendError as exc:  # only when the last message alone cannot fit
        assert "too long" in str(exc)
        return
    assert len(result.tokens) + result.max_tokens <= 200
    ids = [m.id for m in messages if m.id]
    assert ids[-1] not in result.dropped_ids
    kept = [i for i in ids if i not in result.dropped_ids]
    if policy is OverflowPolicy.ROLLING:
        assert list(result.dropped_ids) == ids[: len(result.dropped_ids)]  # the oldest go
    elif result.dropped_ids:
        assert kept[0] == "m0"  # the first exchange stays
    if result.dropped_ids:  # the window starts with a user turn
        first_kept = next(m for m in messages if m.id and m.id not in result.dropped_ids and m.id != "m0" and m.id != "m1") \
            if policy is OverflowPolicy.MIDDLE else next(m for m in messages if m.id == kept[0])
        assert first_kept.role == "user"


def test_stop_policy_refuses_instead_of_dropping() -> None:
    window = make()
    with pytest.raises(BackendError, match="no longer fits"):
        window.fit(conversation([50] * 10), 50, "stop")
    assert window.fit(conversation([5, 5]), 50, "stop").dropped_ids == ()


def test_only_new_messages_are_measured_and_only_the_window_is_rendered() -> None:
    rendered: list[int] = []

    def render(messages):
        rendered.append(len(messages))
        return tokens_of(messages)

    window = PromptWindow(render, lambda m: FRAME + len(m.content.split()), 200, overhead=OVERHEAD)
    messages = conversation([10] * 2000)
    first = window.fit(messages, 20, "rolling")
    assert first.measured < 40  # walked back only as far as the context reaches
    messages = messages + [ChatMessage("assistant", "sure", id="r"), ChatMessage("user", "more", id="q")]
    second = window.fit(messages, 20, "rolling")
    assert second.measured <= 3
    assert max(rendered) < 40


def test_the_start_stays_put_while_it_fits() -> None:
    window = make()
    messages = conversation([20] * 16)
    starts = []
    for turn in range(5):
        result = window.fit(messages, 20, "rolling")
        starts.append(len(result.dropped_ids))
        messages = messages + [ChatMessage("assistant", "ok", id=f"a{turn}"), ChatMessage("user", "go on", id=f"u{turn}")]
    assert starts[0] > 0 and starts.count(starts[0]) >= 3, starts
