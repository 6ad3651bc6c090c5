"""A reasoning model's "thinking", kept apart from its answer (Qt-free).

Reasoning models either stream their thoughts inline, ``<think>…</think>``
before the answer (DeepSeek-R1, Qwen3 through a raw template), or in a
separate field (``reasoning_content`` from llama-server / vLLM / DeepSeek,
``thinking`` from Ollama). Rill's remote backends turn the separate field into
the inline form, so a message's content has ONE representation whatever the
server: an optional leading ``<think>`` block, then the answer.

The view folds the thinking under "Thinking…"; the prompt builder drops it
(a model is never sent its own earlier thoughts).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

OPEN_TAG = "<think>"
CLOSE_TAG = "</think>"

# Leading whitespace is allowed before the tag (models often emit "\n").
_OPEN_RE = re.compile(r"\A\s*<think>", re.IGNORECASE)
_CLOSE_RE = re.compile(r"</think>", re.IGNORECASE)


@dataclass(frozen=True)
class Thinking:
    """A message's content split into its thinking and its answer."""

    #: The thinking text (without the tags), or None when there is none.
    thoughts: str | None
    #: Everything after ``</think>`` (or the whole content without thinking).
    answer: str
    #: False while the model is still thinking (no ``</think>`` yet).
    closed: bool = True


def split_thinking(content: str) -> Thinking:
    """Split ``content`` into thinking and answer.

    Only a ``<think>`` at the very start (after whitespace) opens a thinking
    block; one elsewhere is ordinary text (a model explaining the tag).
    """
    opened = _OPEN_RE.match(content)
    if opened is None:
        return Thinking(None, content, True)
    rest = content[opened.end():]
    closing = _CLOSE_RE.search(rest)
    if closing is None:
        return Thinking(rest, "", False)
    return Thinking(rest[: closing.start()], rest[closing.end():].lstrip("\r\n"), True)


def strip_thinking(content: str) -> str:
    """``content`` without its leading thinking block (what a prompt carries)."""
    split = split_thinking(content)
    return split.answer if split.thoughts is not None else content


def could_be_open_tag_prefix(content: str) -> bool:
    """True while ``content`` (stripped) might still grow into ``<think>``:
    a streaming view waits before showing "<thi" as text."""
    head = content.lstrip()
    return len(head) < len(OPEN_TAG) and OPEN_TAG.startswith(head.lower())
