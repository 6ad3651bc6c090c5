"""The TeX delimiter scanner: the rules of issue #20 and peers' bug reports."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.core.render.mathscan import code_ranges, find_math


def sources(text: str) -> list[str]:
    return [s.source for s in find_math(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Currency stays text (Ollama PR #17090, TGW #7402, LM Studio reports).
        ("It costs $5 and $10.", []),
        ("costs $3–$5", []),
        ("between $3000 to $5000 a month", []),
        ("Prices: $5, $10, and $20 total.", []),
        ("$x$5", []),
        ("$ x$ and $x $", []),
        # The four delimiters.
        ("so $x^2$ grows", ["$x^2$"]),
        (r"so \(x^2\) grows", [r"\(x^2\)"]),
        ("$$\\frac{a}{b}$$", ["$$\\frac{a}{b}$$"]),
        ("\\[\n\\begin{aligned}a&=b\\\\c&=d\\end{aligned}\n\\]", ["\\[\n\\begin{aligned}a&=b\\\\c&=d\\end{aligned}\n\\]"]),
        ("$$\n\\begin{pmatrix}1&2\\\\3&4\\end{pmatrix}\n$$", ["$$\n\\begin{pmatrix}1&2\\\\3&4\\end{pmatrix}\n$$"]),
        # Escapes: \$ is a dollar sign, \\ before a delimiter is a backslash.
        (r"\$x$ is not math", []),
        (r"a $b \$ c$ d", [r"$b \$ c$"]),
        (r"\\(x\\) is a backslash and parentheses", []),
        (r"\\$x$", ["$x$"]),
        # Never inside code.
        ("`$x$` and $y$", ["$y$"]),
        ("``a $x$ ` b`` $y$", ["$y$"]),
        ("```latex\n$$x$$\n```\nthen $y$", ["$y$"]),
        ("~~~\n\\(x\\)\n~~~", []),
        ("text\n\n    $indented code$\n\n$p$", ["$p$"]),
        ("- item\n\n    $continued$", ["$continued$"]),
        ("```\nnever closed $x$", []),
        # A formula never crosses a blank line, never is empty.
        ("$a\n\nb$", []),
        ("$$  $$ and \\(\\)", []),
        ("$a\nb$", ["$a\nb$"]),
        # A price table is one block of many dollars (the scan stays linear: closers are indexed once).
        ("| item | price |\n|---|---|\n" + "| a | $5 and $10 |\n" * 50, []),
        ("| a | $x$ |\n|---|---|\n| $5 | $y_1$ |", ["$x$", "$y_1$"]),
    ],
)
def test_delimiter_rules(text: str, expected: list[str]) -> None:
    assert sources(text) == expected


def test_display_flag_and_tex() -> None:
    spans = find_math(r"$a$ \(b\) $$c$$ \[d\]")
    assert [(s.tex, s.display, s.opener, s.closer) for s in spans] == [
        ("a", False, "$", "$"), ("b", False, "\\(", "\\)"), ("c", True, "$$", "$$"), ("d", True, "\\[", "\\]"),
    ]


def test_code_ranges_cover_fences_and_spans() -> None:
    text = "a `b` c\n\n```\nx\n```\n"
    ranges = code_ranges(text)
    assert [text[a:b] for a, b in ranges] == ["`b`", "```\nx\n```"]


_ALPHABET = st.sampled_from(list("$$\\`()[]{} \n\tax1_*~-.") + ["```", "\n\n", "    ", "\\begin{cases}", "é", "你"])
_TEXTS = st.lists(_ALPHABET, max_size=60).map("".join)


@settings(max_examples=400, deadline=None)
@given(_TEXTS)
def test_spans_round_trip_and_never_meet_code(text: str) -> None:
    spans = find_math(text)
    code = code_ranges(text)
    last = 0
    for span in spans:
        assert last <= span.start < span.end <= len(text)
        assert text[span.start : span.end] == span.source
        assert span.tex.strip()
        assert "\n\n" not in span.source.replace(" ", "").replace("\t", "")
        for a, b in code:
            assert span.end <= a or span.start >= b, (span, (a, b))
        last = span.end


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_never_raises_on_any_text(text: str) -> None:
    for span in find_math(text):
        assert text[span.start : span.end] == span.source
