"""Long text as UTF-8 in bounded pieces (utf8_parts)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from app.core.text import utf8
from app.core.text.utf8 import utf8_parts


@given(st.lists(st.text(max_size=40)), st.integers(min_value=1, max_value=7))
def test_the_parts_join_to_the_whole_texts_encoding(pieces: list[str], size: int) -> None:
    old = utf8.PIECE_CHARS
    utf8.PIECE_CHARS = size
    try:
        parts = list(utf8_parts(pieces))
    finally:
        utf8.PIECE_CHARS = old
    assert b"".join(parts) == "".join(pieces).encode("utf-8", "replace")
    assert all(parts), "no empty parts"
