"""Whole or retrieval, and the text the model is sent (Qt-free).

LM Studio's rule: when the attachments fit the context left after the
conversation (and the reply's share), they go in whole; otherwise they are
chunked and indexed, and each question gets the chunks that match it best,
each marked with its source (file, page).

``plan_modes`` decides; ``whole_block`` and ``excerpts_block`` write the
text; ``with_attachments`` puts it before the question. ``Source`` is one
chunk a reply used; ``sources_line`` writes "Sources: report.pdf p. 217, p. 218".
``fuse`` joins rankings by reciprocal rank (keyword and vector retrieval).

Threading rule: pure functions, any thread.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from app.core.attachments.record import Attachment, AttachmentKind, AttachmentMode
from app.core.base.i18n import translate

#: Tokens kept free besides the reply: the template's markup and the estimate's error.
SAFETY_TOKENS = 256
#: At most this share of the context goes to retrieved chunks.
RETRIEVAL_SHARE = 0.5
#: Chunks retrieved per question at most.
MAX_RETRIEVED = 8
#: The constant of reciprocal-rank fusion (the usual 60).
RRF_K = 60

K = TypeVar("K", bound=Hashable)


def whole_budget(n_ctx: int, conversation_tokens: int, reply_tokens: int) -> int:
    """Tokens the attachments may take in whole."""
    return max(0, n_ctx - conversation_tokens - reply_tokens - SAFETY_TOKENS)


def plan_modes(attachments: Sequence[Attachment], budget: int) -> list[AttachmentMode]:
    """Each attachment's mode: all text attachments WHOLE if together they fit
    ``budget``, else all RETRIEVED; errors and images NONE (images are sent
    as images, not text)."""
    texts = [a for a in attachments if a.ok and a.kind is not AttachmentKind.IMAGE]
    whole = sum(a.tokens for a in texts) <= budget
    modes = []
    for a in attachments:
        if not a.ok or a.kind is AttachmentKind.IMAGE:
            modes.append(AttachmentMode.NONE)
        else:
            modes.append(AttachmentMode.WHOLE if whole else AttachmentMode.RETRIEVED)
    return modes


def retrieval_budget(n_ctx: int, conversation_tokens: int, reply_tokens: int) -> int:
    """Tokens the retrieved chunks of one question may take."""
    return max(0, min(int(n_ctx * RETRIEVAL_SHARE), whole_budget(n_ctx, conversation_tokens, reply_tokens)))


@dataclass(frozen=True)
class Source:
    """One chunk given to the model for a question."""

    file: str
    page: int
    score: float
    text: str
    attachment_id: str = ""
    chunk_index: int = 0
    tokens: int = 0

    def to_report(self) -> dict[str, object]:
        """The doctor's keys for a chosen chunk (public: add, never remove)."""
        return {"file": self.file, "page": self.page, "score": round(self.score, 4),
                "text": self.text[:80], "chunk": self.chunk_index}

    def to_dict(self) -> dict[str, object]:
        return {"file": self.file, "page": self.page, "score": self.score, "text": self.text,
                "attachment_id": self.attachment_id, "chunk_index": self.chunk_index, "tokens": self.tokens}

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Source:
        def num(key: str) -> float:
            value = data.get(key, 0)
            return float(value) if isinstance(value, (int, float)) else 0.0

        return cls(str(data.get("file", "")), int(num("page")), num("score"), str(data.get("text", "")),
                   str(data.get("attachment_id", "")), int(num("chunk_index")), int(num("tokens")))


def within_budget(ranked: Sequence[Source], budget: int, limit: int = MAX_RETRIEVED) -> list[Source]:
    """The best chunks, in rank order, while their tokens fit ``budget``."""
    chosen: list[Source] = []
    used = 0
    for source in ranked:
        if len(chosen) >= limit:
            break
        if used + source.tokens > budget:
            continue
        chosen.append(source)
        used += source.tokens
    return chosen


def whole_block(attachment: Attachment, text: str, page_starts: Sequence[int] = (0,)) -> str:
    """An attachment's whole text for the prompt, pages marked when it has several."""
    if len(page_starts) > 1:
        bounds = list(page_starts) + [len(text)]
        body = "\n\n".join(f"[page {i + 1}]\n{text[bounds[i]:bounds[i + 1]].strip()}" for i in range(len(page_starts)))
    else:
        body = text
    return f'<attachment name="{_attr(attachment.name)}">\n{body}\n</attachment>'


def excerpts_block(sources: Sequence[Source]) -> str:
    """Retrieved chunks for the prompt, each with its source."""
    if not sources:
        return ""
    parts = [f'<excerpt source="{_attr(label(s))}">\n{s.text.strip()}\n</excerpt>' for s in sources]
    return "Excerpts from the attached files (each marked with its source):\n\n" + "\n\n".join(parts)


def with_attachments(question: str, blocks: Sequence[str]) -> str:
    """The user message the model is sent: the attachments' text, then the question."""
    blocks = [b for b in blocks if b]
    if not blocks:
        return question
    return "\n\n".join(blocks) + "\n\n" + question


def label(source: Source) -> str:
    return f"{source.file} p. {source.page}"


def sources_line(sources: Sequence[Source]) -> str:
    """ "Sources: report.pdf p. 217, p. 218; notes.md p. 1" (one file's pages together, in order)."""
    by_file: dict[str, list[int]] = {}
    for s in sources:
        pages = by_file.setdefault(s.file, [])
        if s.page not in pages:
            pages.append(s.page)
    items = [f"{name} " + ", ".join(f"p. {p}" for p in sorted(pages)) for name, pages in by_file.items()]
    return translate("Attachments", "Sources: {list}").format(list="; ".join(items))


def fuse(rankings: Sequence[Sequence[K]], k: int = RRF_K) -> list[tuple[K, float]]:
    """Reciprocal-rank fusion: each key scores the sum of 1 / (k + rank) over the rankings it is in."""
    scores: dict[K, float] = {}
    for ranking in rankings:
        for rank, key in enumerate(ranking, start=1):
            scores[key] = scores.get(key, 0.0) + 1.0 / (k + rank)
    return sorted(scores.items(), key=lambda item: -item[1])


def _attr(text: str) -> str:
    return text.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;").replace("\n", " ")
