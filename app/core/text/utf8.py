"""Long text as UTF-8 in bounded pieces (Qt-free, any thread).

Encoding a 4 MB string is one C call that holds the GIL for several
milliseconds (~8 ms with an emoji in it, which makes the string 4 bytes a
character); in pieces of ``PIECE_CHARS`` the GIL can change hands between
them. A piece boundary is a code point boundary, so the pieces join to the
encoding of the whole.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

__all__ = ["PIECE_CHARS", "utf8_parts"]

#: Characters encoded at a time (well under a millisecond, whatever the script).
PIECE_CHARS = 256 * 1024


def utf8_parts(texts: Iterable[str], errors: str = "replace") -> Iterator[bytes]:
    """``texts`` as UTF-8, a long one in ``PIECE_CHARS`` parts; no empty
    parts. ``errors="replace"``: a lone surrogate (a server can send one in
    JSON) becomes ``?``."""
    for text in texts:
        if len(text) <= PIECE_CHARS:
            if text:
                yield text.encode("utf-8", errors)
            continue
        for start in range(0, len(text), PIECE_CHARS):
            yield text[start : start + PIECE_CHARS].encode("utf-8", errors)
