"""A remote reply's deltas turned into the pieces the inference worker
carries (Qt-free).

Thinking (``reasoning_content`` / Ollama's ``thinking``) is wrapped in
``<think>…</think>`` before the answer (app.core.text.thinking). Consecutive
small deltas of one kind go as one ``TokenRun`` of at most
``MAX_PIECE_CHARS`` (counted as its tokens by the worker): the deltas of one
socket read cost one hand-over, not one each. A delta larger than that goes
alone, in pieces of at most ``MAX_DELTA_CHARS`` (one huge delta never
travels as one string; the reply's own limit, ``MAX_REPLY_CHARS``, is the
inference worker's).

One ``ReplyState`` per reply, on the thread reading it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import NamedTuple

from app.core.backends.base import TokenRun
from app.core.base.limits import MAX_DELTA_CHARS, MAX_PIECE_CHARS
from app.core.text.thinking import CLOSE_TAG, OPEN_TAG


class Delta(NamedTuple):
    """One event of a reply's stream, whatever the server's format (a
    tuple: made per event, it must be cheap)."""

    content: str = ""
    reasoning: str = ""
    finish_reason: str | None = None  # "stop", "length"... when the server says
    done: bool = False                # the stream's explicit end ([DONE], done:true)
    prompt_tokens: int | None = None


@dataclass
class ReplyState:
    """Where a reply's stream is: inside thinking, the finish reason the
    server gave, whether it said the stream ended, the prompt's size it gave."""

    thinking: bool = False
    finish: str | None = None
    ended: bool = False
    prompt_tokens: int | None = None


def reply_pieces(batch: list[Delta], reply: ReplyState) -> Iterator[str]:
    """The text of ``batch``'s deltas (``reply`` follows them; it stops at
    the one that ends the stream)."""
    run: list[str] = []
    run_chars = 0
    for delta in batch:
        if delta.prompt_tokens is not None:
            reply.prompt_tokens = delta.prompt_tokens
        for text, thinking in ((delta.reasoning, True), (delta.content, False)):
            if not text:
                continue
            if thinking != reply.thinking:
                if run:
                    yield _joined(run)
                    run, run_chars = [], 0
                yield OPEN_TAG if thinking else CLOSE_TAG
                reply.thinking = thinking
            if run_chars + len(text) > MAX_PIECE_CHARS:
                if run:
                    yield _joined(run)
                    run, run_chars = [], 0
                if len(text) > MAX_PIECE_CHARS:
                    yield from _cut(text)
                    continue
            run.append(text)
            run_chars += len(text)
        if delta.finish_reason:
            reply.finish = delta.finish_reason
        if delta.done:
            reply.ended = True
            break
    if run:
        yield _joined(run)


def _joined(texts: list[str]) -> str:
    return texts[0] if len(texts) == 1 else TokenRun("".join(texts), len(texts))


def _cut(text: str) -> Iterator[str]:
    for start in range(0, len(text), MAX_DELTA_CHARS):
        yield text[start:start + MAX_DELTA_CHARS]
