"""Token estimate and the size labels of pasted attachments (Qt-free)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.core.text import tokens_estimate as te
from app.core.text.tokens_estimate import estimate, format_byte_size, format_token_count


def test_empty_text_costs_nothing() -> None:
    assert estimate("") == te.TextEstimate(0, 0, 0)


def test_ascii_is_priced_by_length() -> None:
    assert estimate("a" * 35) == te.TextEstimate(chars=35, utf8_bytes=35, tokens=10)
    assert estimate("a").tokens == 1  # never zero for non-empty text


def test_a_cjk_character_is_one_token() -> None:
    e = estimate("中文" * 50)
    assert (e.chars, e.utf8_bytes, e.tokens) == (100, 300, 100)
    assert estimate("かなカナ한국어").tokens == 7


def test_other_non_ascii_text_is_priced_by_its_utf8_size() -> None:
    assert estimate("é" * 7) == te.TextEstimate(chars=7, utf8_bytes=14, tokens=4)
    # "abc" costs 3/3.5 tokens, "中" one: rounded up.
    assert estimate("abc中").tokens == 2
    assert estimate("😀").utf8_bytes == 4


def test_long_non_ascii_text_is_sampled_close_to_an_exact_scan() -> None:
    unit = "Le modèle répond en français. 中文文本，日本語のテキスト。😀\n"
    text = unit * (te.EXACT_SCAN_CHARS // len(unit) * 3)
    e = estimate(text)
    assert e.sampled and e.chars == len(text)
    cjk, other_bytes = te._scan(text)
    exact_tokens = te._tokens(cjk, other_bytes)
    assert e.tokens == pytest.approx(exact_tokens, rel=0.01)
    assert e.utf8_bytes == pytest.approx(len(text.encode()), rel=0.01)
    assert estimate(text) == e, "the same text gets the same estimate"


def test_byte_sizes_read_like_a_file_manager() -> None:
    assert format_byte_size(0) == "0 B"
    assert format_byte_size(999) == "999 B"
    assert format_byte_size(1000) == "1.0 KB"
    assert format_byte_size(1400) == "1.4 KB"
    assert format_byte_size(9_960) == "10 KB"
    assert format_byte_size(20_000) == "20 KB"
    assert format_byte_size(999_600) == "1.0 MB"
    assert format_byte_size(4 * 1024 * 1024) == "4.2 MB"
    assert format_byte_size(5 * 10**12) == "5.0 TB"


def test_token_counts_are_compact() -> None:
    assert format_token_count(850) == "850"
    assert format_token_count(4096) == "4.1 K"
    assert format_token_count(12_345) == "12 K"
    assert format_token_count(999_999) == "1.0 M"
    assert format_token_count(1_198_373) == "1.2 M"


_pieces = st.lists(st.text(alphabet=st.sampled_from("ab \n漢字é😀"), max_size=30), max_size=4)


@given(st.lists(_pieces, max_size=40), st.integers(min_value=0, max_value=8))
def test_a_conversation_within_the_budget_costs_the_sum_of_its_messages(texts: list[list[str]], per_text: int) -> None:
    exact = sum(estimate("".join(p)).tokens + per_text for p in texts if "".join(p))
    assert te.estimate_total(texts, per_text) == exact


def test_a_long_non_ascii_conversation_is_priced_from_a_bounded_selection(monkeypatch: pytest.MonkeyPatch) -> None:
    english = "The model reads this sentence, and counts it. " * 40
    chinese = "模型读这句话并把它算进去。" * 60
    texts = [[english + "é"] if i % 2 else [chinese] for i in range(2000)]
    exact = sum(estimate("".join(p)).tokens + 4 for p in texts)
    priced: list[int] = []
    real = te.estimate

    def counting(text: str) -> te.TextEstimate:
        priced.append(len(text))
        return real(text)

    monkeypatch.setattr(te, "estimate", counting)
    total = te.estimate_total(texts, 4, budget=50_000)
    assert sum(priced) < 50_000 + len(english) + 1  # the budget, plus the text that crossed it
    assert {n for n in priced} == {len(english) + 1, len(chinese)}  # both kinds were priced
    assert abs(total - exact) / exact < 0.02


def test_a_long_text_priced_again_as_the_same_object_is_not_sampled_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """A pasted attachment is priced at the paste and again as the message
    sent (the same str): the second costs nothing, and an equal text that is
    another object is priced as usual."""
    calls: list[int] = []
    real = te._sampled
    monkeypatch.setattr(te, "_sampled", lambda text: calls.append(len(text)) or real(text))
    monkeypatch.setattr(te, "_KEPT", ())
    text = "数据 and words " * (te.EXACT_SCAN_CHARS // 10)
    first = estimate(text)
    assert estimate(text) == first and len(calls) == 1
    other = "".join([text[:10], text[10:]])
    assert other is not text and estimate(other) == first and len(calls) == 2
    for k in range(te.KEPT_ESTIMATES):
        estimate(text + str(k))
    assert estimate(text) == first and len(calls) == 3 + te.KEPT_ESTIMATES, "only the last few are kept"
