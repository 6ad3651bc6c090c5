"""An attachment's text as chunks of about ``TARGET_TOKENS`` tokens (Qt-free).

Chunks are cut at paragraph boundaries (a blank line) and never span a page,
so each one's page is exact ("report.pdf p. 217"). A paragraph longer than a
chunk is cut at the last line break, sentence end or space before the limit
(a hard cut only when there is none: a run of CJK without punctuation). The
next chunk repeats the previous chunk's last paragraph piece when it is at
most ``OVERLAP_TOKENS`` (a fact stated across the cut is found from either
side). Each chunk is a slice of the text: ``text[start:end]``.

Cost: linear in the text (each piece is estimated once). Threading rule: any thread.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from app.core.attachments.record import Extracted
from app.core.text.tokens_estimate import estimate

TARGET_TOKENS = 512
OVERLAP_TOKENS = 96

_PARAGRAPH_GAP = re.compile(r"\n[ \t]*\n\s*")
_SOFT_CUT = re.compile(r"[\n.!?。！？;；]\s*|\s+")


@dataclass(frozen=True)
class Chunk:
    index: int
    start: int
    end: int
    #: The page it is on (1-based; 1 for a file without pages).
    page: int
    text: str
    tokens: int
    #: Its short-index terms (``app.core.store.search.short_terms``), made
    #: where it was read (a child process: not the window's GIL); "" : the
    #: store makes them when it indexes the chunk.
    terms: str = ""


@dataclass(frozen=True)
class _Piece:
    start: int
    end: int
    tokens: int


def _paragraphs(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    """The paragraphs between ``start`` and ``end``, surrounding whitespace left out."""
    pos = start
    for m in _PARAGRAPH_GAP.finditer(text, start, end):
        yield from _trimmed(text, pos, m.start())
        pos = m.end()
    yield from _trimmed(text, pos, end)


def _trimmed(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if end > start:
        yield start, end


def _split_long(text: str, start: int, end: int, tokens: int, target: int) -> Iterator[_Piece]:
    """Cut a paragraph of ``tokens`` > target into pieces of at most about ``target``."""
    per_char = tokens / max(1, end - start)
    max_chars = max(16, int(target / per_char))
    pos = start
    while pos < end:
        limit = min(end, pos + max_chars)
        cut = limit
        if limit < end:
            floor = pos + max_chars * 3 // 4
            best = -1
            for m in _SOFT_CUT.finditer(text, floor, limit):
                best = m.end()
            if best > pos:
                cut = best
        yield _Piece(pos, cut, estimate(text[pos:cut]).tokens)
        pos = cut


def _pieces(text: str, start: int, end: int, target: int) -> Iterator[_Piece]:
    for p_start, p_end in _paragraphs(text, start, end):
        cost = estimate(text[p_start:p_end]).tokens
        if cost <= target:
            yield _Piece(p_start, p_end, cost)
        else:
            yield from _split_long(text, p_start, p_end, cost, target)


def chunk(extracted: Extracted, target: int = TARGET_TOKENS, overlap: int = OVERLAP_TOKENS) -> list[Chunk]:
    """The chunks of ``extracted`` (see the module docstring)."""
    text = extracted.text
    starts = list(extracted.page_starts) + [len(text)]
    out: list[Chunk] = []
    for page_index in range(len(starts) - 1):
        page_start, page_end = starts[page_index], max(starts[page_index], min(starts[page_index + 1], len(text)))
        group: list[_Piece] = []
        used = 0
        for piece in _pieces(text, page_start, page_end, target):
            if group and used + piece.tokens > target:
                out.append(_make(text, len(out), page_index + 1, group))
                last = group[-1]
                group, used = ([last], last.tokens) if last.tokens <= overlap and last.tokens + piece.tokens <= target \
                    else ([], 0)
            group.append(piece)
            used += piece.tokens
        if group:
            out.append(_make(text, len(out), page_index + 1, group))
    return out


def _make(text: str, index: int, page: int, group: list[_Piece]) -> Chunk:
    start, end = group[0].start, group[-1].end
    body = text[start:end]
    return Chunk(index, start, end, page, body, estimate(body).tokens)
