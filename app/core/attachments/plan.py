"""What one question's prompt gets from the conversation's attachments (Qt-free).

``plan_prompt`` is given the conversation's path (message ids and texts), the
attachments of its messages (with the modes decided when they were sent),
the whole texts of the WHOLE ones and the chunks retrieved for the question,
and returns ``PromptPlan``: the text each message is sent with instead of its
own (a message with whole attachments carries them before its words; the
question carries the retrieved excerpts), the images of each message, and
the sources used.

``decide_new_modes`` decides the mode of the attachments sent with the
question: whole when they fit what the context has left after the
conversation (and the reply's share), else retrieved (``context.plan_modes``).

Threading rule: pure functions (the store thread runs them in the app).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from app.core.attachments.context import (
    Source,
    excerpts_block,
    plan_modes,
    retrieval_budget,
    whole_block,
    whole_budget,
    with_attachments,
    within_budget,
)
from app.core.attachments.record import Attachment, AttachmentKind, AttachmentMode, Extracted
from app.core.text.tokens_estimate import estimate

#: The context assumed when the backend does not say (a remote server).
DEFAULT_CONTEXT = 8192


@dataclass(frozen=True)
class Budget:
    n_ctx: int
    reply_tokens: int
    conversation_tokens: int

    @property
    def whole(self) -> int:
        return whole_budget(self.n_ctx or DEFAULT_CONTEXT, self.conversation_tokens, self.reply_tokens)

    @property
    def retrieval(self) -> int:
        return retrieval_budget(self.n_ctx or DEFAULT_CONTEXT, self.conversation_tokens, self.reply_tokens)


def conversation_tokens(texts: Sequence[str]) -> int:
    return sum(estimate(t).tokens for t in texts)


def decide_new_modes(new: Sequence[Attachment], budget: Budget) -> list[Attachment]:
    """``new`` with their modes set for the context left (see the module docstring)."""
    modes = plan_modes(new, budget.whole)
    return [replace(a, mode=m) for a, m in zip(new, modes, strict=True)]


@dataclass(frozen=True)
class PromptPlan:
    #: message id -> the text the model is sent for it (only messages that change).
    contents: Mapping[str, str] = field(default_factory=dict)
    #: The chunks the question was given, best first.
    sources: tuple[Source, ...] = ()
    #: Every attachment of the path, as used (mode set).
    attachments: tuple[Attachment, ...] = ()
    #: message id -> its images, each (MIME type, base64), for a model that can see.
    images: Mapping[str, tuple[tuple[str, str], ...]] = field(default_factory=dict)

    def apply(self, message_id: str, content: str) -> str:
        return self.contents.get(message_id, content)


def plan_prompt(
    path: Sequence[tuple[str, str]],
    attached: Mapping[str, Sequence[Attachment]],
    texts: Mapping[str, Extracted],
    question_id: str,
    retrieved: Sequence[Source],
    budget: Budget,
    image_data: Mapping[str, tuple[str, str]] | None = None,
) -> PromptPlan:
    """The plan for the question ``question_id`` (the last user message of ``path``).
    ``image_data``: sha256 -> (MIME type, base64) of the path's images."""
    image_data = image_data or {}
    images: dict[str, tuple[tuple[str, str], ...]] = {}
    contents: dict[str, str] = {}
    used: list[Attachment] = []
    sources: tuple[Source, ...] = ()
    for message_id, text in path:
        blocks = []
        for a in attached.get(message_id, ()):
            used.append(a)
            extracted = texts.get(a.sha256)
            if a.mode is AttachmentMode.WHOLE and extracted is not None:
                blocks.append(whole_block(a, extracted.text, extracted.page_starts))
            elif a.kind is AttachmentKind.IMAGE and a.ok and a.sha256 in image_data:
                images[message_id] = (*images.get(message_id, ()), image_data[a.sha256])
        if message_id == question_id:
            chosen = within_budget(retrieved, budget.retrieval)
            if chosen:
                blocks.append(excerpts_block(chosen))
            sources = tuple(chosen)
        if blocks:
            contents[message_id] = with_attachments(text, blocks)
    return PromptPlan(contents, sources, tuple(used), images)
