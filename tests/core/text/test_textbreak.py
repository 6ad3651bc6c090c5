"""Tests for app.core.text.textbreak: display-only line breaks at grapheme boundaries."""

from __future__ import annotations

import random
from itertools import accumulate

import pytest
import regex
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from app.core.text import textbreak
from app.core.text.textbreak import (
    CONTEXT,
    DEFAULT_LIMIT,
    DisplayBreaker,
    display_pieces,
    is_boundary,
)

# --- helpers -----------------------------------------------------------------


def clusters(text: str) -> list[str]:
    return regex.findall(r"\X", text)


def true_boundaries(text: str) -> set[int]:
    """Every grapheme cluster boundary of the FULL text (0 and len included)."""
    out, pos = {0}, 0
    for c in clusters(text):
        pos += len(c)
        out.add(pos)
    return out


def longest_cluster(text: str) -> int:
    return max((len(c) for c in clusters(text)), default=1)


def feed_split(text: str, cuts: list[int], limit: int, prefer_window: int = 80) -> list[int]:
    """Feed ``text`` cut at ``cuts``; return the breaks as offsets in ``text``."""
    br = DisplayBreaker(limit, prefer_window)
    bounds = [0, *sorted(cuts), len(text)]
    out: list[int] = []
    for a, b in zip(bounds, bounds[1:], strict=False):
        piece = text[a:b]
        offs = br.feed(piece)
        assert offs == sorted(set(offs))
        assert all(0 <= o < len(piece) for o in offs)
        out.extend(a + o for o in offs)
    return out


def display_lines(text: str, breaks: list[int]) -> list[str]:
    bounds = [0, *breaks, len(text)]
    return [ln for a, b in zip(bounds, bounds[1:], strict=False) for ln in text[a:b].split("\n")]


_CHAIN_RI = regex.compile(r"\p{Regional_Indicator}+")
_CHAIN_EXT = regex.compile(r"\p{Grapheme_Cluster_Break=Extend}*")
_CHAIN_INCB = regex.compile(r"[\p{InCB=Extend}\p{InCB=Linker}]*")


def window_is_ambiguous(text: str, i: int) -> bool:
    """The documented cases where a CONTEXT window cannot decide (written
    independently of the module's own pattern)."""
    s = i - CONTEXT
    if s <= 0 or i >= len(text):
        return False
    ch = text[i]
    if regex.match(r"\p{Regional_Indicator}", ch) and _CHAIN_RI.fullmatch(text, s, i):
        return True
    if (
        regex.match(r"\p{Extended_Pictographic}", ch)
        and text[i - 1] == "\u200d"
        and _CHAIN_EXT.fullmatch(text, s, i - 1)
    ):
        return True
    return bool(regex.match(r"\p{InCB=Consonant}", ch) and _CHAIN_INCB.fullmatch(text, s, i))


def has_ambiguous_position(text: str) -> bool:
    return any(window_is_ambiguous(text, i) for i in range(CONTEXT + 1, len(text)))


# --- strategies ----------------------------------------------------------------

ATOMS = [
    "a", "b", "Z", "0", "{", '"', " ", " ", "\t", "\n", "\r\n", "\u3000",
    "中", "文", "字", "，", "。", "、", "；", "：", "！", "？",
    "\u0301", "\u0300", "\u036f", "e\u0301", "a\u0308\u0323",
    "👩", "👧", "\u200d", "👩\u200d👩\u200d👧", "👍\U0001F3FD", "\U0001F3FB",
    "❤\ufe0f", "🏳\ufe0f\u200d🌈",
    "🇨🇳", "\U0001F1E6", "\U0001F1FA",
    "\u1100", "\u1161", "\u11a8", "가", "각",
    "क", "\u094d", "ष", "\u0915\u094d\u0937", "\u093f",
]
combining = st.characters(min_codepoint=0x300, max_codepoint=0x36F)
random_chars = st.characters(exclude_characters="\ufffd", exclude_categories=("Cs",))
runs = st.tuples(
    st.sampled_from(
        ["A", "中", "\u0301", "🇨🇳", "\U0001F1E6", "\u1100", "👩\u200d", "e\u0301\u0302", "ab"]
    ),
    st.integers(1, 90),
).map(lambda t: t[0] * t[1])
texts = st.lists(
    st.one_of(st.sampled_from(ATOMS), combining, random_chars, runs), max_size=60
).map("".join)

# Pathological chains longer than CONTEXT, where is_boundary must stay safe.
long_chains = st.lists(
    st.one_of(
        st.sampled_from(ATOMS),
        st.integers(CONTEXT - 4, CONTEXT + 40).map(lambda n: "\U0001F1E8" * n),
        st.integers(CONTEXT - 4, CONTEXT + 10).map(lambda n: "👩" + "\U0001F3FB" * n + "\u200d👩"),
        st.integers(CONTEXT - 4, CONTEXT + 10).map(lambda n: "x" + "\u0301" * n + "\u200d👩"),
        st.integers(CONTEXT - 4, CONTEXT + 10).map(lambda n: "क" + "\u094d\u0301" * (n // 2) + "ष"),
        st.integers(CONTEXT - 4, CONTEXT + 10).map(lambda n: "\u0301" * n + "क"),
    ),
    max_size=8,
).map("".join)


@st.composite
def text_and_cuts(draw, text_strategy=texts):
    text = draw(text_strategy)
    cuts = draw(st.lists(st.integers(0, len(text)), max_size=25))  # may repeat: empty pieces
    return text, cuts


# --- is_boundary ---------------------------------------------------------------


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(texts, long_chains))
def test_is_boundary_is_exact_except_documented_unknowns_and_never_invents(text):
    truth = true_boundaries(text)
    for i in range(len(text) + 1):
        got = is_boundary(text, i)
        if got:
            assert i in truth, (text, i)
        elif i in truth:
            assert window_is_ambiguous(text, i), (text, i)


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(texts, texts, texts)
def test_is_boundary_reads_only_its_window(text, before, after):
    """Text before the window and after text[i] cannot change the answer."""
    before = "Q" + before
    for i in range(CONTEXT + 1, len(text)):
        window = text[i - CONTEXT : i + 1]
        assert is_boundary(before + window + after, len(before) + CONTEXT) == is_boundary(text, i)


def test_is_boundary_edges_and_errors():
    assert is_boundary("", 0)
    assert is_boundary("ab", 0) and is_boundary("ab", 2) and is_boundary("ab", 1)
    assert not is_boundary("e\u0301", 1)
    assert not is_boundary("🇨🇳", 1)
    assert not is_boundary("👩\u200d👧", 2)
    assert not is_boundary("\r\n", 1)
    with pytest.raises(IndexError):
        is_boundary("ab", 3)
    with pytest.raises(IndexError):
        is_boundary("ab", -1)


def test_is_boundary_long_flag_run_is_conservative():
    text = "🇨🇳" * 100
    for i in range(len(text) + 1):
        if is_boundary(text, i):
            assert i % 2 == 0
    assert is_boundary(text, 2) and is_boundary(text, CONTEXT)
    assert not is_boundary(text, CONTEXT + 2)  # parity unknown from the window


# --- property 1: breaks only at grapheme boundaries, any split --------------------


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(text_and_cuts(st.one_of(texts, long_chains)), st.integers(1, 50), st.integers(0, 100))
def test_any_split_breaks_only_at_grapheme_boundaries(tc, limit, window):
    text, cuts = tc
    breaks = feed_split(text, cuts, limit, window)
    assert breaks == sorted(set(breaks))
    # Removing the breaks gives back the text (breaks are positions, not edits).
    bounds = [0, *breaks, len(text)]
    assert "".join(text[a:b] for a, b in zip(bounds, bounds[1:], strict=False)) == text
    truth = true_boundaries(text)
    for p in breaks:
        assert 0 < p < len(text)
        assert p in truth, (text, p)
        assert is_boundary(text, p)
        assert text[p] != "\n"       # never right before a newline
        assert text[p - 1] != "\n"   # never an empty line at a line start


# --- property 2: line length bound ---------------------------------------------


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(text_and_cuts(), st.integers(1, 50), st.integers(0, 100))
def test_display_lines_are_at_most_limit_plus_longest_cluster_minus_one(tc, limit, window):
    text, cuts = tc
    assume(not has_ambiguous_position(text))
    bound = limit + longest_cluster(text) - 1
    for line in display_lines(text, feed_split(text, cuts, limit, window)):
        assert len(line) <= bound, (text, line)


@given(st.lists(st.sampled_from(["A", "中", "，", " ", "\n", "x"]), max_size=300).map("".join),
       st.integers(1, 20))
def test_single_code_point_clusters_give_lines_within_limit(text, limit):
    for line in display_lines(text, feed_split(text, [], limit)):
        assert len(line) <= limit


def test_long_flag_run_only_lengthens_a_line_by_the_run():
    text = "🇨🇳" * 100
    breaks = DisplayBreaker(10).feed(text)
    assert all(p % 2 == 0 for p in breaks)
    assert max(map(len, display_lines(text, breaks))) <= 10 + len(text)


# --- property 3: display_pieces ------------------------------------------------


@settings(max_examples=150)
@given(st.one_of(texts, long_chains), st.integers(1, 50), st.integers(0, 100))
def test_display_pieces_joins_back_and_matches_one_piece_breaker(text, limit, window):
    pieces = display_pieces(text, limit, window)
    assert "".join(pieces) == text
    expected = DisplayBreaker(limit, window).feed(text)
    starts = [0, *accumulate(map(len, pieces))][:-1]
    assert starts == [0, *expected]
    default_window = textbreak.DEFAULT_PREFER_WINDOW
    assert display_pieces(text, limit) == display_pieces(text, limit, default_window)


def test_display_pieces_empty_and_short():
    assert display_pieces("") == [""]
    assert display_pieces("hello") == ["hello"]


# --- property 4: concrete cases ------------------------------------------------


def test_twenty_thousand_as_make_twenty_lines():
    pieces = display_pieces("A" * 20_000, 1000)
    assert len(pieces) == 20
    assert {len(p) for p in pieces} == {1000}


def test_hundred_thousand_cjk_paragraph():
    rng = random.Random(7)
    han = [chr(c) for c in range(0x4E00, 0x4E00 + 500)]
    text = "".join(rng.choice(han) if rng.random() > 0.02 else "，" for _ in range(100_000))
    breaks = DisplayBreaker(DEFAULT_LIMIT).feed(text)
    lines = display_lines(text, breaks)
    assert "".join(lines) == text
    assert max(map(len, lines)) <= DEFAULT_LIMIT
    assert len(lines) >= 100
    # Most breaks land right after the CJK comma when one is near the limit.
    assert sum(text[p - 1] == "，" for p in breaks) > len(breaks) // 2


def test_space_near_limit_is_preferred():
    text = "x" * 950 + " " + "y" * 200
    assert DisplayBreaker(1000).feed(text) == [951]
    # ... but not when it lies outside the preference window.
    assert DisplayBreaker(1000, prefer_window=40).feed(text) == [1000]
    # The latest preferred opportunity wins.
    text = "ab " * 10 + "c" * 20
    assert DisplayBreaker(25).feed(text) == [24, 30]


def test_prefer_window_edge():
    # The space must be among the last `prefer_window` characters before the limit point.
    assert DisplayBreaker(1000, 80).feed("x" * 920 + " " + "y" * 200) == [921]
    assert DisplayBreaker(1000, 80).feed("x" * 919 + " " + "y" * 200) == [1000]
    assert DisplayBreaker(10, 0).feed("x" * 9 + " " + "y" * 5) == [10]


def test_plain_boundary_still_used_after_a_preferred_break():
    # Break after the space first; the boundary before "d" is still the last
    # one at or before the next limit point, so the combining run moves down.
    text = "a bcd" + "\u0301" * 10 + "x"
    assert DisplayBreaker(5).feed(text) == [2, 4, 15]


def test_cjk_punctuation_near_limit_is_preferred():
    text = "中" * 40 + "。" + "文" * 30
    assert DisplayBreaker(50).feed(text) == [41]


def test_combining_run_straddling_limit_is_never_split():
    cluster = "e" + "\u0301" * 50
    text = "A" * 990 + cluster + "B" * 100
    # In one piece: the cluster moves to the next line.
    assert DisplayBreaker(1000).feed(text) == [990]
    # Cluster start already on screen: break right after the cluster.
    assert feed_split(text, [995], 1000) == [1041]
    assert feed_split(text, list(range(len(text))), 1000) == [1041]
    for cuts in ([990], [991], [1000], [1040]):
        for p in feed_split(text, cuts, 1000):
            assert p in true_boundaries(text)


def test_flag_straddling_limit_is_not_split():
    text = "A" * 999 + "🇨🇳" + "B" * 10
    assert DisplayBreaker(1000).feed(text) == [999]
    # Only the second half of the flag is movable: break after the flag.
    assert feed_split(text, [1000], 1000) == [1001]


def test_newline_resets_and_is_never_preceded_by_a_break():
    br = DisplayBreaker(5)
    assert br.feed("abcde\nfghij\n") == []
    assert br.feed("abcdef") == [5]
    assert br.feed("\n") == []
    assert br.feed("xyz") == []


def test_break_at_piece_start_uses_stored_context():
    br = DisplayBreaker(3)
    assert br.feed("abc") == []
    assert br.feed("\u0301d") == [1]   # cannot break before the combining mark
    br = DisplayBreaker(3)
    assert br.feed("abc") == []
    assert br.feed("d") == [0]


def test_reset_forgets_the_stream():
    br = DisplayBreaker(3)
    br.feed("abc")
    br.reset()
    assert br.feed("de") == []            # the line starts afresh
    br.reset()
    assert br.feed("\u0301\u0301ab") == [3]  # a new text: no stale left context


def test_invalid_arguments():
    with pytest.raises(ValueError):
        DisplayBreaker(0)
    with pytest.raises(ValueError):
        DisplayBreaker(5, -1)
    assert DisplayBreaker().feed("") == []


_ONE_CP = st.lists(
    st.sampled_from(["A", "b", "中", "文", "{", "0", "\n", "가"]) | st.characters(
        min_codepoint=0x21, max_codepoint=0x7E
    ).filter(lambda c: c != " "),
    max_size=400,
).map("".join)


@settings(max_examples=150)
@given(text_and_cuts(_ONE_CP), st.integers(1, 50), st.integers(0, 100))
def test_split_invariance_when_clusters_are_code_points_and_nothing_is_preferred(tc, limit, window):
    """Piece boundaries do not matter when every code point is its own cluster
    and no preferred break (after a space / CJK punctuation) exists."""
    text, cuts = tc
    assert all(len(c) == 1 for c in clusters(text))
    one_piece = DisplayBreaker(limit, window).feed(text)
    assert feed_split(text, cuts, limit, window) == one_piece
    assert feed_split(text, list(range(len(text))), limit, window) == one_piece


@settings(max_examples=100)
@given(text_and_cuts(st.one_of(texts, _ONE_CP)), st.integers(1, 50))
def test_split_invariance_with_prefer_window_zero_and_code_point_clusters(tc, limit):
    text, cuts = tc
    assume(all(len(c) == 1 for c in clusters(text)))
    assert feed_split(text, cuts, limit, 0) == DisplayBreaker(limit, 0).feed(text)


def test_one_character_at_a_time_differs_in_general():
    # A preferred space is already on screen when the limit is reached.
    text = "x" * 8 + " " + "y" * 5
    assert DisplayBreaker(10).feed(text) == [9]
    assert feed_split(text, list(range(len(text))), 10) == [10]
    # A cluster straddling the limit cannot be moved back.
    text = "x" * 9 + "e\u0301" + "y" * 5
    assert DisplayBreaker(10).feed(text) == [9]
    assert feed_split(text, list(range(len(text))), 10) == [11]


# --- property 5: bounded state, linear work --------------------------------------


def test_million_characters_streamed_keep_state_small_and_work_linear(monkeypatch):
    scanned = 0
    real = textbreak._boundary_flags

    def counting(buf, lo, at_start):
        nonlocal scanned
        scanned += len(buf)
        return real(buf, lo, at_start)

    monkeypatch.setattr(textbreak, "_boundary_flags", counting)
    rng = random.Random(3)
    parts = [
        "A" * 40, "中文字，" * 5, "👩\u200d👩\u200d👧", "e\u0301\u0302", "🇨🇳🇺🇸", '{"k":1}', " ",
    ]
    total, feeds, breaks = 0, 0, 0
    br = DisplayBreaker(DEFAULT_LIMIT)
    buffer = ""
    while total < 1_000_000:
        if len(buffer) < 64:
            buffer += "".join(rng.choice(parts) for _ in range(20))
        k = rng.randint(1, 16)
        piece, buffer = buffer[:k], buffer[k:]
        breaks += len(br.feed(piece))
        total += len(piece)
        feeds += 1
        assert len(br._ctx) <= CONTEXT
    assert total >= 1_000_000
    assert breaks >= total // DEFAULT_LIMIT
    # Each feed scans its piece plus at most CONTEXT stored characters.
    assert scanned <= total + feeds * CONTEXT


@given(text_and_cuts(st.one_of(texts, long_chains)), st.integers(1, 50), st.integers(0, 100))
def test_pieces_of_short_lines_skip_segmenting_and_break_the_same(tc, limit, window):
    """The fast path (no line of the piece reaches past the limit) gives the
    breaks, and leaves the state, that segmenting the piece would."""
    text, cuts = tc
    fast, slow = DisplayBreaker(limit, window), DisplayBreaker(limit, window)
    slow._fits = lambda piece: False  # always segment
    for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True):
        assert fast.feed(text[a:b]) == slow.feed(text[a:b])
        assert (fast._line, fast._ctx, fast._at_start) == (slow._line, slow._ctx, slow._at_start)


# --- the sparse path (a long line segmented only near its breaks) ---------------


@settings(max_examples=300)
@given(text_and_cuts(st.one_of(texts, long_chains)), st.integers(1, 60), st.integers(0, 100))
def test_the_sparse_path_breaks_exactly_where_the_rule_does(tc, limit, window):
    """``feed`` looks only near each break; ``_feed_exact`` reads every
    character: both give the same breaks and the same state, piece by piece."""
    text, cuts = tc
    fast, exact = DisplayBreaker(limit, window), DisplayBreaker(limit, window)
    bounds = [0, *cuts, len(text)]
    for a, b in zip(bounds, bounds[1:], strict=False):
        piece = text[a:b]
        expected = [] if not piece or exact._fits(piece) else exact._feed_exact(piece)
        assert fast.feed(piece) == expected
        assert (fast._line, fast._ctx, fast._at_start) == (exact._line, exact._ctx, exact._at_start)


def test_a_long_line_is_not_segmented_character_by_character(monkeypatch):
    """A 4 KB line without a newline: only the windows around its 4 breaks
    are segmented (the tick's cost for a long unbroken line)."""
    seen: list[int] = []
    flags = textbreak._boundary_flags

    def counted(buf, lo, at_start):
        seen.append(len(buf) - lo)
        return flags(buf, lo, at_start)

    monkeypatch.setattr(textbreak, "_boundary_flags", counted)
    breaks = DisplayBreaker(1000).feed("Short reply. " * 320)
    assert len(breaks) == 4 and sum(seen) < 500, seen
