"""Chunks cover the text, stay on one page, keep paragraphs and their size (hypothesis)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from app.core.attachments.chunking import OVERLAP_TOKENS, TARGET_TOKENS, chunk
from app.core.attachments.record import Extracted

words = st.sampled_from(["river", "stone", "数据", "库", "ledger", "\u00e9t\u00e9", "x", "42", "。", "the"])
paragraph = st.lists(words, min_size=1, max_size=400).map(lambda ws: " ".join(ws))
cjk_run = st.text(alphabet="金库的密码是紫罗兰七三一", min_size=1, max_size=3000)
page = st.lists(st.one_of(paragraph, cjk_run), min_size=0, max_size=8).map("\n\n".join)


@settings(max_examples=60, deadline=None)
@given(st.lists(page, min_size=1, max_size=6), st.integers(min_value=32, max_value=600))
def test_chunks_cover_the_text_and_keep_pages(pages: list[str], target: int) -> None:
    ext = Extracted.from_pages(pages)
    chunks = chunk(ext, target=target, overlap=min(OVERLAP_TOKENS, target // 4))
    covered = [False] * len(ext.text)
    for c in chunks:
        assert c.text == ext.text[c.start:c.end] and c.text.strip()
        assert ext.page_at(c.start) == c.page == ext.page_at(c.end - 1)  # never across a page
        # a chunk exceeds the target only by the rounding of a hard cut
        assert c.tokens <= target + 8
        for i in range(c.start, c.end):
            covered[i] = True
    for i, ch in enumerate(ext.text):
        assert covered[i] or ch.isspace(), (i, ch)
    assert [c.index for c in chunks] == list(range(len(chunks)))
    assert [c.start for c in chunks] == sorted(c.start for c in chunks)


def test_paragraph_boundaries_and_overlap() -> None:
    paragraphs = [f"Paragraph {i}. " + "word " * 60 for i in range(30)]
    ext = Extracted("\n\n".join(paragraphs))
    chunks = chunk(ext)
    assert len(chunks) > 3
    for c in chunks:
        assert c.text.startswith("Paragraph ") and c.text.endswith("word")  # cut between paragraphs
        assert c.tokens <= TARGET_TOKENS
    # each chunk repeats the paragraph the previous one ended with
    for before, after in zip(chunks, chunks[1:], strict=False):
        assert after.start < before.end and before.text.endswith(after.text.split("\n\n")[0].strip())


def test_a_long_cjk_run_is_cut() -> None:
    ext = Extracted("金库的密码" * 1000)
    chunks = chunk(ext)
    assert len(chunks) >= 9 and "".join(c.text for c in chunks) == ext.text


def test_empty_text_has_no_chunks() -> None:
    assert chunk(Extracted("")) == [] and chunk(Extracted.from_pages(["", "  "])) == []
