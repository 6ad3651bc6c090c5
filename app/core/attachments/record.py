"""What an attachment is once read (Qt-free): ``Attachment``, ``Extracted``,
``AttachmentError``.

Threading rule: immutable values; made on a worker, read anywhere.
"""

from __future__ import annotations

import bisect
import enum
import uuid
from dataclasses import dataclass, field, replace

from app.core.text.tokens_estimate import estimate


class AttachmentKind(str, enum.Enum):
    TEXT = "text"        # plain text, Markdown, source code
    CSV = "csv"
    JSON = "json"
    HTML = "html"
    DOCX = "docx"
    PDF = "pdf"
    IMAGE = "image"
    UNKNOWN = "unknown"  # refused: the chip says why


class AttachmentMode(str, enum.Enum):
    """How an attachment reaches the model (the chip and the doctor say which)."""

    WHOLE = "whole"          # its whole text is in the prompt
    RETRIEVED = "retrieved"  # the chunks that best match each question are
    NONE = "none"            # nothing (an error, or an image for a model that cannot see)


class AttachmentError(Exception):
    """A failure with a sentence meant for the user (shown on the chip)."""


@dataclass(frozen=True)
class Extracted:
    """An attachment's text. ``page_starts[i]`` is where page ``i + 1`` starts
    in ``text`` (a file without pages has one page starting at 0)."""

    text: str
    page_starts: tuple[int, ...] = (0,)
    #: A notice about what was left out ("only the first 2,000 pages were read").
    notice: str = ""

    @property
    def pages(self) -> int:
        return len(self.page_starts)

    def page_at(self, offset: int) -> int:
        """The page (1-based) that holds character ``offset``."""
        return max(1, bisect.bisect_right(self.page_starts, offset))

    @classmethod
    def from_pages(cls, pages: list[str], notice: str = "") -> Extracted:
        starts = []
        pos = 0
        parts = []
        for page in pages:
            starts.append(pos)
            parts.append(page)
            pos += len(page) + 2
        return cls("\n\n".join(parts), tuple(starts) or (0,), notice)


def new_attachment_id() -> str:
    return uuid.uuid4().hex


@dataclass(frozen=True)
class Attachment:
    """What the chip, the store and the doctor know about one attachment."""

    name: str
    kind: AttachmentKind
    size: int
    id: str = field(default_factory=new_attachment_id)
    #: The file it came from (empty once stored: the store keeps the bytes).
    path: str = ""
    pages: int = 0
    chars: int = 0
    #: Estimated tokens (``app.core.text.tokens_estimate``); an image: what it costs the model.
    tokens: int = 0
    #: A sentence for the user when it could not be read ("" when it could).
    error: str = ""
    #: Something left out, said on the chip ("" when nothing was).
    notice: str = ""
    #: sha256 of the file's bytes (the store's blob key).
    sha256: str = ""
    mode: AttachmentMode = AttachmentMode.NONE

    @property
    def ok(self) -> bool:
        return not self.error

    def with_text(self, extracted: Extracted) -> Attachment:
        cost = estimate(extracted.text)
        return replace(self, pages=extracted.pages, chars=cost.chars, tokens=cost.tokens, notice=extracted.notice)

    def failed(self, message: str) -> Attachment:
        return replace(self, error=message, mode=AttachmentMode.NONE)

    def to_report(self) -> dict[str, object]:
        """The doctor's per-attachment keys (a public interface: add, never remove)."""
        return {"name": self.name, "kind": self.kind.value, "size": self.size, "pages": self.pages,
                "chars": self.chars, "tokens": self.tokens, "mode": self.mode.value, "error": self.error,
                "notice": self.notice}
