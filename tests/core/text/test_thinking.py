"""Thinking blocks: offsets (thinking_spans) and the streaming splitter agree
with split_thinking, whatever the chunks."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from app.core.text.thinking import ThinkingSplitter, count_words, split_thinking, thinking_spans

# Texts built from pieces that make tags, near-tags and tag fragments likely
# (case changes, dotless i and the Kelvin sign match under IGNORECASE).
PIECES = st.sampled_from(
    [
        "<think>", "</think>", "<THINK>", "</Think>", "<thi", "nk>", "</th", "ink>", "<", "</", ">",
        "<thınk>", "</thin\u212a>", "<think", "</think", "<<", "< think>",
        " ", "\n", "\r\n", "\r", "\t", "\u00a0", "\u2029",
        "plan", "a b", "word ", " x", "Answer", "😀", "é", "你好",
    ]
)
TEXTS = st.lists(st.one_of(PIECES, st.text(max_size=6)), max_size=14).map("".join)


def run(text: str, cuts: list[int]) -> tuple[ThinkingSplitter, str, str, list[tuple[str, str]]]:
    splitter = ThinkingSplitter()
    bounds = [0, *sorted(c % (len(text) + 1) for c in cuts), len(text)]
    outputs = [splitter.feed(text[a:b]) for a, b in zip(bounds, bounds[1:], strict=False)]
    outputs.append(splitter.finish())
    return splitter, "".join(t for t, _ in outputs), "".join(a for _, a in outputs), outputs


@settings(max_examples=600, deadline=None)
@given(text=TEXTS, cuts=st.lists(st.integers(0, 10_000), max_size=12))
def test_every_chunking_gives_what_split_thinking_gives(text: str, cuts: list[int]) -> None:
    splitter, thoughts, answer, _ = run(text, cuts)
    whole = split_thinking(text)
    assert splitter.has_thinking == (whole.thoughts is not None)
    assert thoughts == (whole.thoughts or "")
    assert answer == whole.answer
    assert splitter.closed == whole.closed
    assert splitter.words == count_words(thoughts)
    if whole.thoughts is not None:
        assert splitter.thoughts_start is not None
        assert text[splitter.thoughts_start : splitter.thoughts_start + len(thoughts)] == thoughts
    if whole.closed and answer:
        assert splitter.answer_start is not None and text[splitter.answer_start :] == answer


@settings(max_examples=300, deadline=None)
@given(text=TEXTS, cuts=st.lists(st.integers(0, 10_000), max_size=12))
def test_nothing_given_out_is_taken_back(text: str, cuts: list[int]) -> None:
    """What the splitter has given out after each piece is a prefix of the
    final thoughts / answer (a streaming view never shows then hides)."""
    _, thoughts, answer, outputs = run(text, cuts)
    shown_t = shown_a = ""
    for t, a in outputs:
        shown_t += t
        shown_a += a
        assert thoughts.startswith(shown_t) and answer.startswith(shown_a)


@settings(max_examples=300, deadline=None)
@given(text=TEXTS)
def test_spans_are_split_thinking_as_offsets(text: str) -> None:
    whole = split_thinking(text)
    spans = thinking_spans(text)
    if whole.thoughts is None:
        assert spans is None
        return
    assert spans is not None
    assert text[spans.thoughts_start : spans.thoughts_end] == whole.thoughts
    assert text[spans.answer_start :] == whole.answer
    assert spans.closed == whole.closed


def test_tags_split_across_chunks() -> None:
    splitter = ThinkingSplitter()
    assert splitter.feed("\n <thi") == ("", "")          # nothing flashed as text
    assert splitter.has_thinking is None
    assert splitter.feed("nk>secret pl") == ("secret pl", "")
    assert splitter.feed("an</th") == ("an", "")         # a possible close tag is held
    assert splitter.feed("ink>\n\nThe ") == ("", "The ")
    assert splitter.feed("answer") == ("", "answer")
    assert splitter.closed and splitter.words == 2 and splitter.state == "answer"


def test_no_thinking_is_decided_on_the_first_character() -> None:
    splitter = ThinkingSplitter()
    assert splitter.feed("Hello <think>") == ("", "Hello <think>")
    assert splitter.has_thinking is False and splitter.state == "answer"
    splitter = ThinkingSplitter()
    assert splitter.feed("<thi") == ("", "")
    assert splitter.feed("s is not a tag") == ("", "<this is not a tag")


def test_a_stream_that_stops_inside_a_tag() -> None:
    splitter = ThinkingSplitter()
    assert splitter.feed("<thi") == ("", "")
    assert splitter.finish() == ("", "<thi")
    splitter = ThinkingSplitter()
    splitter.feed("<think>abc</th")
    assert splitter.finish() == ("</th", "")
    assert not splitter.closed
