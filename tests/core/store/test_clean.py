"""app.core.store.clean: what the store writes is valid UTF-8, titles are one plain line."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from app.core.store.clean import REPLACEMENT, clean_text, clean_title, clean_values


@given(st.text(alphabet=st.characters(codec=None)))
def test_cleaned_text_always_encodes_and_keeps_its_length(text: str) -> None:
    cleaned = clean_text(text)
    cleaned.encode("utf-8")  # never raises
    assert len(cleaned) == len(text)
    assert all(a == b or (0xD800 <= ord(a) <= 0xDFFF and b == REPLACEMENT) for a, b in zip(text, cleaned, strict=True))


@given(st.text(alphabet=st.characters(codec=None)))
def test_a_cleaned_title_has_no_control_character(title: str) -> None:
    cleaned = clean_title(title)
    cleaned.encode("utf-8")
    assert not any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F for c in cleaned)
    assert "\u2028" not in cleaned and "\u2029" not in cleaned


def test_text_without_a_surrogate_is_returned_as_it_is() -> None:
    text = "plain ünïcode 😀" * 1000
    assert clean_text(text) is text
    values = ("a", 1, None, 2.5)
    assert clean_values(values) is values


def test_values_are_cleaned_inside_tuples_lists_and_dicts() -> None:
    assert clean_values(("x\ud800", [("\udfff",)], {"k\ud800": "v\udc00"}, 3)) == (
        "x\ufffd", [("\ufffd",)], {"k\ufffd": "v\ufffd"}, 3)
