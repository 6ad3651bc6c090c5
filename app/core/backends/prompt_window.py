"""Which part of a conversation the model is sent, and at what cost (Qt-free).

A conversation outgrows the model's context sooner or later. ``PromptWindow``
chooses the messages that fit, under the user's overflow policy:

* ``rolling``: the system prompt and the newest turns that fit (the oldest go);
* ``middle``: the system prompt, the FIRST exchange (what the chat is about)
  and the newest turns that fit; the middle goes;
* ``stop``: nothing is dropped: a send that does not fit is refused with a
  message.

Cost: a send must not cost work proportional to the whole history (a
1,000-turn chat used to re-render and re-tokenize everything, 4.2 s, before the
first token). Each message's token count is measured once and cached by
(role, content); the window is found by walking back from the newest message
only as far as the context reaches, and only that window is rendered and
tokenized exactly. The work is bounded by the context size, not the history.

KV-cache reuse: llama.cpp reuses the longest common prefix of the previous
evaluation. A window that slid by one turn each send would change that prefix
every time and re-evaluate everything, so when the window must move it moves
by a good step (it then fills only ``1 - slack`` of the budget), and later
sends keep the same first message while it still fits: the prefix, and the
cache, stay valid for many turns.
"""

from __future__ import annotations

import enum
import logging
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from app.core.backends.base import BackendError, ChatMessage
from app.core.base.i18n import QT_TRANSLATE_NOOP, translate

log = logging.getLogger(__name__)

#: A reply always gets at least this many tokens (else the message is refused).
MIN_REPLY_TOKENS = 64
#: Measured counts kept (about 100 bytes each).
CACHE_SIZE = 50_000


class OverflowPolicy(str, enum.Enum):
    ROLLING = "rolling"
    MIDDLE = "middle"
    STOP = "stop"

    @classmethod
    def parse(cls, value: str) -> OverflowPolicy:
        try:
            return cls(value)
        except ValueError:
            return cls.ROLLING


#: What the policies are called for the user: English, translated where shown
#: (``translate("PromptWindow", label)``).
POLICY_LABELS = {
    OverflowPolicy.ROLLING: QT_TRANSLATE_NOOP("PromptWindow", "Drop the oldest messages (rolling window)"),
    OverflowPolicy.MIDDLE: QT_TRANSLATE_NOOP("PromptWindow", "Keep the first exchange, drop the middle"),
    OverflowPolicy.STOP: QT_TRANSLATE_NOOP("PromptWindow", "Stop at the limit (start a new chat)"),
}


@dataclass(frozen=True)
class Window:
    """The prompt chosen for one request."""

    tokens: list[int]
    max_tokens: int
    #: Ids of the conversation messages left out (oldest first).
    dropped_ids: tuple[str, ...] = ()
    #: How many messages were measured (not from the cache) for this send.
    measured: int = 0


class PromptWindow:
    """Fits messages into ``n_ctx`` tokens. One per backend; not thread-safe
    (the backend's thread uses it)."""

    def __init__(
        self,
        render: Callable[[Sequence[ChatMessage]], list[int]],
        measure: Callable[[ChatMessage], int],
        n_ctx: int,
        slack: float = 0.25,
        overhead: Callable[[], int] | int = 0,
    ) -> None:
        self._render = render
        self._measure = measure
        self.n_ctx = n_ctx
        self.slack = slack
        #: Tokens a prompt has besides its messages (BOS, the generation prompt).
        self._overhead = overhead
        self._counts: OrderedDict[tuple[str, str, int], int] = OrderedDict()
        self._anchor: tuple[str, str, str] | None = None  # first message kept last time
        self.measured_total = 0

    @property
    def overhead(self) -> int:
        if callable(self._overhead):
            self._overhead = int(self._overhead())
        return self._overhead

    def count(self, message: ChatMessage) -> int:
        """The tokens ``message`` takes in a prompt (measured once, cached by
        role, text and number of images)."""
        key = (message.role, message.content, len(message.images))
        n = self._counts.get(key)
        if n is None:
            n = max(1, int(self._measure(message)))
            self._counts[key] = n
            self.measured_total += 1
            if len(self._counts) > CACHE_SIZE:
                self._counts.popitem(last=False)
        return n

    def fit(self, messages: Sequence[ChatMessage], max_tokens: int, policy: OverflowPolicy | str) -> Window:
        policy = OverflowPolicy.parse(policy) if isinstance(policy, str) else policy
        measured_before = self.measured_total
        n_ctx = self.n_ctx
        max_tokens = max(1, min(max_tokens, n_ctx))
        if callable(self._overhead):
            self._overhead = int(self._overhead())
        budget = n_ctx - max_tokens - self._overhead
        head = list(messages[:1]) if messages and messages[0].role == "system" else []
        rest = list(messages[len(head):])
        if policy is OverflowPolicy.MIDDLE and len(rest) > 2:
            # The first exchange stays (the user message and the reply to it),
            # unless it is what is being sent now.
            kept = 2 if len(rest) > 3 and rest[1].role == "assistant" else 1
            head, rest = head + rest[:kept], rest[kept:]
        head_tokens = sum(self.count(m) for m in head)

        # The earliest start whose window fits, walking back from the newest.
        start = self._earliest_start(rest, budget - head_tokens)
        if start == 0:
            prompt = self._render(head + rest)
            if len(prompt) + max_tokens <= n_ctx:
                self._anchor = None
                return Window(prompt, max_tokens, (), self.measured_total - measured_before)
            start = self._next_turn(rest, 0)
        if policy is OverflowPolicy.STOP:
            total = sum(self.count(m) for m in messages)
            raise BackendError(translate(
                "PromptWindow", "The conversation no longer fits the model's context (about {total:,} tokens with "
                "{reply:,} kept for the reply; the context holds {n_ctx:,}). Start a new chat, "
                "or choose to drop older messages in Settings."
            ).format(total=total, reply=max_tokens, n_ctx=n_ctx))
        start = self._stable_start(rest, start, budget - head_tokens)
        while True:
            if start >= len(rest) - 1:
                return self._last_only(head, rest, max_tokens, measured_before)
            prompt = self._render(head + rest[start:])
            if len(prompt) + max_tokens <= n_ctx:
                first = rest[start]
                self._anchor = (first.role, first.content, first.id)
                dropped = tuple(m.id for m in rest[:start] if m.id)
                log.info("context: %d messages left out (policy %s)", start, policy.value)
                return Window(prompt, max_tokens, dropped, self.measured_total - measured_before)
            start = self._next_turn(rest, start)  # the estimate was short: one turn more

    # -- helpers -------------------------------------------------------------------

    def _earliest_start(self, rest: list[ChatMessage], budget: int) -> int:
        used = 0
        for i in range(len(rest) - 1, -1, -1):
            used += self.count(rest[i])
            if used > budget:
                return self._next_turn(rest, i)
        return 0

    def _stable_start(self, rest: list[ChatMessage], minimum: int, budget: int) -> int:
        """Keep last time's first message when the window from it still fits
        (same prompt prefix: the KV cache is reused); else move by a step."""
        if self._anchor is not None:
            for i in range(minimum, len(rest)):
                m = rest[i]
                if (m.role, m.content, m.id) == self._anchor:
                    return i
                if i - minimum > 64:  # it is far behind: not worth the search
                    break
        roomy = self._earliest_start(rest, int(budget * (1.0 - self.slack)))
        return max(minimum, roomy)

    @staticmethod
    def _next_turn(rest: list[ChatMessage], i: int) -> int:
        """The first user message after index ``i`` (a window starts with a
        whole turn); the last message if there is none."""
        for j in range(i + 1, len(rest)):
            if rest[j].role == "user":
                return j
        return max(len(rest) - 1, 0)

    def _last_only(self, head: list[ChatMessage], rest: list[ChatMessage], max_tokens: int, measured_before: int) -> Window:
        last = rest[-1:] if rest else []
        prompt = self._render(head + last)
        min_reply = min(MIN_REPLY_TOKENS, max_tokens)
        limit = self.n_ctx - min_reply
        if len(prompt) > limit:
            raise BackendError(translate(
                "PromptWindow", "Message too long for the model's context ({tokens} tokens, "
                "limit {limit}): the context holds {n_ctx} tokens and at least "
                "{reply} are kept for the reply. Shorten the message."
            ).format(tokens=len(prompt), limit=limit, n_ctx=self.n_ctx, reply=min_reply))
        self._anchor = (last[0].role, last[0].content, last[0].id) if last else None
        dropped = tuple(m.id for m in rest[:-1] if m.id)
        return Window(prompt, min(max_tokens, self.n_ctx - len(prompt)), dropped,
                      self.measured_total - measured_before)
