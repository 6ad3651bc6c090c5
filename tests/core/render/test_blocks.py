"""Tests for app.core.render.blocks: a message body as small display units (no Qt)."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from itertools import accumulate

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.core.backends.scripted import SAMPLE_MARKDOWN
from app.core.render import blocks
from app.core.render.blocks import (
    PLAIN_PIECE,
    RENDER_LIMIT,
    Unit,
    render_stream_units,
    render_units,
    split_top_level,
    units_plain_text,
    user_units,
)
from app.core.render.markdown import PRE_OPEN, BlockScanner, block_cuts, find_cut, render_markdown, render_user_text
from app.core.text.textbreak import display_pieces

HOSTILE = """# Title

Text <script>alert(1)</script> and <img src="file:///etc/passwd"> and <!-- c -->.

![pixel](http://tracker.example/p.png) ![local](file:///etc/passwd)

[ok](https://example.com/a) [js](javascript:alert(1)) [file](file:///etc/passwd)
[data](data:text/html,x) [rel](/x) <http://example.org/b> <me@example.com>
[ref][r]

[r]: JaVaScRiPt:alert(2)

<script>
alert("block")
</script>

<div onclick="x()">raw block</div>

```python
print("hello from code")
```

| a | b |
|---|---|
| 1 | 2 |
"""

# Code with everything that HTML escaping, python-markdown's normalization
# (tabs, \r, space-only lines) or Pygments (leading/trailing blank lines) alters.
TRICKY_CODE = (
    "\n"
    "\tif a < b && c > d:  # tab-indented\n"
    "\t\ts = \"q\" + 'x' + `y` & z;\n"
    "   \n"
    "\n"
    "    你好，世界 😀 👩\u200d💻 🇫🇷\n"
    "<script>alert(1)</script> &amp; &lt;\n"
    "trailing spaces   \n"
    "\n"
)


# ------------------------------------------------------------------ helpers


class _Text(HTMLParser):
    """Reference text extraction: every data node, tags dropped, <br> as newline."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.after_br = False

    def handle_starttag(self, tag: str, attrs: object) -> None:
        if tag == "br":
            self.parts.append("\n")
            self.after_br = True

    def handle_data(self, data: str) -> None:
        if self.after_br and data.startswith("\n"):
            data = data[1:]
        self.after_br = False
        self.parts.append(data)


def html_text(html: str) -> str:
    parser = _Text()
    parser.feed(html)
    parser.close()
    return "".join(parser.parts)


def all_cuts(text: str) -> list[int]:
    """Every block cut, found with render.find_cut alone (quadratic; small texts)."""
    cuts, cut = [], find_cut(text)
    while cut > 0:
        cuts.append(cut)
        cut = find_cut(text[:cut])
    return cuts[::-1]


def fenced_units(units: tuple[Unit, ...]) -> list[Unit]:
    return [u for u in units if u.kind == "code" and not u.body.startswith(PRE_OPEN + "<code>")]


# ------------------------------------------------------- Markdown-ish documents

WORD = st.sampled_from(
    [
        "alpha", "beta", "x<y", "a&b", '"q"', "'s'", "你好", "世界", "😀", "👩\u200d💻",
        "**bold**", "*em*", "`co<de>`", "_u_", "[link](https://example.com/a)",
        "[bad](javascript:alert(1))", "<script>alert(1)</script>", "<img src=x>",
        "&amp;", "&lt;", "1.", "#", "-", "|", "\\*", "<b>",
    ]
)  # fmt: skip
WORDS = st.lists(WORD, min_size=1, max_size=6).map(" ".join)
CLEAN_CODE_LINE = st.sampled_from(
    ["x = 1", 'if a < b and c & d:', '  print("hi")', "s = 'q'", "// 你好 😀",
     '<div class="x">&amp;</div>', "return x", "{", "}", "trailing  "]
)  # fmt: skip
MESSY_CODE_LINE = st.one_of(CLEAN_CODE_LINE, st.sampled_from(["a\tb", "\tindented", "", "   ", " \t "]))
LABEL = st.sampled_from(["", "python", "js", "bash", "nosuchlang", "html", "{.python}", ".c", "text"])


@st.composite
def fenced(draw: st.DrawFn, messy: bool) -> tuple[str, str]:
    """(fenced block source, the code in it)."""
    fence = draw(st.sampled_from(["```", "~~~", "````"]))
    lines = draw(st.lists(MESSY_CODE_LINE if messy else CLEAN_CODE_LINE, max_size=5))
    code = "\n".join(lines)
    body = code + "\n" if lines else ""
    return f"{fence}{draw(LABEL)}\n{body}{fence}", code


@st.composite
def table(draw: st.DrawFn) -> str:
    cols = draw(st.integers(1, 3))
    head = draw(st.lists(WORDS, min_size=cols, max_size=cols))
    rows = draw(st.lists(st.lists(WORDS, min_size=cols, max_size=cols), max_size=12))  # over TABLE_PIECE_ROWS: shown in pieces
    return "\n".join(["| " + " | ".join(head) + " |", "|" + "---|" * cols] + ["| " + " | ".join(r) + " |" for r in rows])


@st.composite
def md_list(draw: st.DrawFn) -> str:
    ordered = draw(st.booleans())
    out = []
    for i, words in enumerate(draw(st.lists(WORDS, min_size=1, max_size=4))):
        out.append(f"{i + 1}. {words}" if ordered else f"- {words}")
        extra = draw(st.integers(0, 6))
        if extra == 0:
            out.append(f"    - {draw(WORDS)}")
        elif extra == 1:
            out.append("\n" + "\n".join("    " + line for line in draw(table()).split("\n")))
        elif extra == 2:
            out.append("\n        code <&>\n")
        elif extra == 3:
            out.append(f"\n    {draw(WORDS)}")
    return ("\n\n" if draw(st.booleans()) else "\n").join(out)


QUOTE_LINE = st.one_of(
    WORDS, WORDS.map(lambda w: "- " + w), WORDS.map(lambda w: "## " + w),
    st.just(""), st.just("---"), st.just("> nested"),
)  # fmt: skip


@st.composite
def documents(draw: st.DrawFn, messy: bool = False, max_blocks: int = 7) -> tuple[str, list[str]]:
    """(Markdown-ish text, the code of its fenced blocks in order)."""
    parts: list[str] = []
    codes: list[str] = []
    for _ in range(draw(st.integers(0, max_blocks))):
        kind = draw(st.sampled_from(["p", "h", "code", "list", "table", "quote", "hr", "indented"]))
        if kind == "p":
            block = "\n".join(draw(st.lists(WORDS, min_size=1, max_size=3)))
        elif kind == "h":
            block = "#" * draw(st.integers(1, 6)) + " " + draw(WORDS)
        elif kind == "code":
            block, code = draw(fenced(messy))
            codes.append(code)
        elif kind == "list":
            block = draw(md_list())
        elif kind == "table":
            block = draw(table())
        elif kind == "quote":
            block = "\n".join(("> " + line).rstrip() for line in draw(st.lists(QUOTE_LINE, min_size=1, max_size=4)))
        elif kind == "hr":
            block = draw(st.sampled_from(["---", "***", "* * *"]))
        else:
            lines = draw(st.lists(st.sampled_from(["x = 1", "<&>", "y"]), min_size=1, max_size=3))
            block = "\n".join("    " + line for line in lines)
        parts.append(block)
        parts.append(draw(st.sampled_from(["\n\n", "\n\n", "\n\n\n", "\n  \n", "\n"])))
    return "".join(parts), codes


DOC_SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# --------------------------------------------------------------- split_top_level


def test_split_sample_gives_each_top_level_element_exactly() -> None:
    html = render_markdown(SAMPLE_MARKDOWN)
    fragments = split_top_level(html)
    assert "\n".join(fragments) == html.strip()
    assert all(html.count(f) >= 1 for f in fragments)
    tags = [re.match(r"<(\w+)", f).group(1) for f in fragments]
    assert tags == [
        "h1", "p", "h2", "table", "h2", "pre", "h2", "ol", "ul", "h2", "p", "h2",
        "pre", "pre", "h2", "p", "blockquote", "p",
    ]  # fmt: skip


def test_split_hostile_input_yields_only_escaped_text() -> None:
    html = render_markdown(HOSTILE)
    fragments = split_top_level(html)
    assert "\n".join(fragments) == html.strip()
    joined = "".join(fragments)
    for bad in ("<script", "<img", "<div", "<!--", 'href="javascript', 'href="file', 'href="data'):
        assert bad not in joined.lower()
    assert "&lt;script&gt;" in joined and "&lt;img" in joined and "&lt;div" in joined
    for fragment in fragments:  # exactly one top-level element each
        assert split_top_level(fragment) == [fragment]


def test_split_drops_whitespace_between_elements_and_handles_void_elements() -> None:
    html = '  <p>a<br>b</p>\n\n  <hr>\n<hr/>\t<p>c <img src="x"> d</p>  \n'
    assert split_top_level(html) == ["<p>a<br>b</p>", "<hr>", "<hr/>", '<p>c <img src="x"> d</p>']
    assert split_top_level("") == []
    assert split_top_level("  \n ") == []


def test_split_keeps_stray_text_and_unclosed_elements() -> None:
    assert split_top_level("loose &amp; text\n<p>x</p>\ntail ") == ["loose &amp; text", "<p>x</p>", "tail"]
    assert split_top_level("<p>ok</p>\n<div><p>never closed") == ["<p>ok</p>", "<div><p>never closed"]
    assert split_top_level("<p>a</p></div><p>b</p>") == ["<p>a</p>", "<p>b</p>"]


def test_nested_structures_are_one_fragment_each() -> None:
    text = (
        "- a\n    - b\n        - c\n    - d\n- e\n\n"
        "| h | i |\n|---|---|\n| `x|y` | <b> |\n\n"
        "> quote\n>\n> > nested quote\n> > - with a list\n>\n> back\n\n"
        "1. one\n\n    para in item\n\n        code in item\n\n2. two\n"
    )
    html = render_markdown(text)
    fragments = split_top_level(html)
    assert [f[:4] for f in fragments] == ["<ul>", "<tab", "<blo", "<ol>"]
    assert "\n".join(fragments) == html.strip()
    assert fragments[0].count("<ul>") == 3 and fragments[2].count("<blockquote>") == 2


@DOC_SETTINGS
@given(documents())
def test_split_concatenation_is_the_html(doc: tuple[str, list[str]]) -> None:
    html = render_markdown(doc[0])
    fragments = split_top_level(html)
    assert "\n".join(fragments) == html.strip()
    for fragment in fragments:
        assert split_top_level(fragment) == [fragment]


# ------------------------------------------------------------------ render_units


def test_empty_and_blank_text_have_no_units() -> None:
    assert render_units("") == ()
    assert render_units(" \n\n\t\n") == ()
    assert render_stream_units("") == ()


def test_sample_units() -> None:
    units = render_units(SAMPLE_MARKDOWN)
    assert [u.kind for u in units].count("code") == 3
    assert all(u.kind in ("html", "code") for u in units)
    assert [u.body for u in units] == split_top_level(render_markdown(SAMPLE_MARKDOWN))
    code = units[5]
    assert code.kind == "code" and code.body.startswith(PRE_OPEN)
    assert code.copy.startswith("def fibonacci(n: int) -> list[int]:\n")
    assert code.copy.endswith("    return out[:n]")
    assert all(u.copy == "" for u in units if u.kind == "html")
    assert render_stream_units(SAMPLE_MARKDOWN) == units


def test_units_are_frozen() -> None:
    unit = Unit("html", "<p>x</p>")
    with pytest.raises(AttributeError):
        unit.body = "<p>y</p>"


@pytest.mark.parametrize("label", ["", "python", "js", "nosuchlang", "{.python}"])
@pytest.mark.parametrize("fence", ["```", "~~~", "````"])
def test_code_copy_is_the_code_exactly(label: str, fence: str) -> None:
    text = f"Before.\n\n{fence}{label}\n{TRICKY_CODE}{fence}\n\nAfter.\n"
    units = render_units(text)
    assert [u.kind for u in units] == ["html", "code", "html"]
    assert units[1].copy == TRICKY_CODE[:-1]  # everything between the fences, minus the final newline
    assert "<script" not in units[1].body  # escaped (and maybe highlighted) text only
    assert "<script>alert(1)</script> &amp; &lt;" in html_text(units[1].body)


def test_code_copy_with_crlf_and_an_unclosed_fence() -> None:
    text = "Intro\r\n\r\n```python\r\nx = '<&>'\r\n\r\n\ty = 2\r\n```\r\n\r\nmid\r\n\r\n```\nopen <\n\tstill open"
    codes = [u.copy for u in render_units(text) if u.kind == "code"]
    assert codes == ["x = '<&>'\n\n\ty = 2", "open <\n\tstill open"]


def test_fences_right_after_a_paragraph_and_back_to_back() -> None:
    text = "para\n```\na\n```\n~~~js\nb <\n~~~\n```\n```\n\n    indented <code>\n"
    units = render_units(text)
    assert [u.kind for u in units] == ["html", "code", "code", "code", "code"]
    assert [u.copy for u in units[1:]] == ["a", "b <", "", "indented <code>"]


@DOC_SETTINGS
@given(documents(messy=True))
def test_fenced_code_copy_property(doc: tuple[str, list[str]]) -> None:
    text, codes = doc
    assert [u.copy for u in fenced_units(render_units(text))] == codes


@DOC_SETTINGS
@given(documents())
def test_units_show_the_text_of_one_render(doc: tuple[str, list[str]]) -> None:
    text = doc[0]
    units = render_units(text)
    assert units_plain_text(units) == html_text(render_markdown(text))
    assert all(u.kind in ("html", "code") for u in units)
    assert render_stream_units(text) == units


@DOC_SETTINGS
@given(documents(max_blocks=10))
def test_block_cuts_are_find_cut_cuts(doc: tuple[str, list[str]]) -> None:
    text = doc[0]
    bounds, _ = blocks._blocks(text)
    assert bounds[1:-1] == all_cuts(text)
    if text:
        assert bounds[0] == 0 and bounds[-1] == len(text)


@DOC_SETTINGS
@given(documents(max_blocks=10), st.lists(st.integers(min_value=1, max_value=40), max_size=30))
def test_a_scanner_fed_as_text_arrives_finds_the_cuts_of_one_scan(doc: tuple[str, list[str]], steps: list[int]) -> None:
    text = doc[0]
    scanner = BlockScanner()
    at = 0
    for step in steps:  # the text arrives in pieces; each feed sees what came so far
        at = min(len(text), at + step)
        scanner.feed(text[:at])
        expected = block_cuts(text[:at])[0]
        assert scanner.cuts_after(text[:at], -1) == expected, "the cuts so far, the unfinished line's included"
    scanner.feed(text, final=True)
    assert (scanner.cuts, scanner.fence) == block_cuts(text)


def test_a_scanner_forgets_committed_cuts() -> None:
    text = "a\n\nb\n\nc\n\nd"
    scanner = BlockScanner()
    scanner.feed(text)
    assert scanner.cuts_after(text, 0) == [3, 6, 9]
    scanner.forget_before(6)
    assert scanner.cuts == [9] or scanner.cuts_after(text, 6) == [9]


def test_settled_plain_pieces_are_the_pieces_of_the_whole_block() -> None:
    block = _long_paragraph(40_000)
    whole_ends = set(accumulate(map(len, blocks._plain_pieces(block))))
    start = 0
    for arrived in range(3_000, 40_000, 2_500):  # the block grows; what settles, settles for good
        end = blocks.settled_plain_end(block[:arrived], start)
        assert start <= end <= arrived
        if end > start:
            assert end in whole_ends, "a settled end is where a piece of the whole block ends"
            units = blocks.render_plain_stream_units(block[start:end])
            assert [u.body for u in units] == blocks._plain_pieces(block[start:end])
            start = end
    assert start > 30_000
    assert blocks.settled_plain_end("x" * 5000, 0) == 0, "a line still growing stays in the tail"
    assert blocks.settled_plain_end("x" * 5000 + "\n" + "y" * 10, 0) == 5001, "once whole, it settles"


def _long_paragraph(n: int) -> str:
    """One Markdown paragraph (no blank line) of at least n characters: short lines,
    long lines with spaces, and long lines without any (x-runs, CJK, emoji)."""
    lines = [
        "lorem ipsum a<b&c 😀",
        "word " * 300,
        "x" * 1500,
        "你好世界" * 400,
        "👩\u200d💻🇫🇷" * 250,
        "short",
    ]
    out: list[str] = []
    while sum(map(len, out)) < n:
        out.append(lines[len(out) % len(lines)].strip())
    return "\n".join(out)


def test_an_over_limit_block_is_plain() -> None:
    block = _long_paragraph(20_000)
    assert "\n\n" not in block and len(block) >= 20_000
    units = render_units(block + "\n\n")
    assert {u.kind for u in units} == {"plain"}
    assert "".join(u.body for u in units) == block
    assert all(len(u.body) <= PLAIN_PIECE + 8 for u in units)
    assert len(units) >= 20
    assert units_plain_text(units) == block


def test_plain_pieces_are_display_pieces_plus_newline_cuts() -> None:
    text = _long_paragraph(30_000)
    pieces = blocks._plain_pieces(text)
    assert "".join(pieces) == text
    ours = set(accumulate(map(len, pieces[:-1])))
    theirs = set(accumulate(map(len, display_pieces(text, PLAIN_PIECE)[:-1])))
    assert theirs and ours - theirs
    assert theirs <= ours  # every display break is kept...
    assert all(text[cut - 1] == "\n" for cut in ours - theirs)  # ...the rest follow a newline


def test_over_limit_blocks_split_the_message_into_rendered_runs() -> None:
    big = "x" * (RENDER_LIMIT + 1)
    huge_code = "```python\n" + "print('<&>')\n" * 1000 + "```"
    before = "# Head\n\n- a\n\n- b\n\n"
    after = "After *this*.\n\n```js\nlet a = 1 < 2;\n```\n"
    text = before + big + "\n\n" + huge_code + "\n\n" + after
    units = render_units(text)
    kinds = [u.kind for u in units]
    n_before = len(render_units(before))
    assert units[:n_before] == render_units(before)  # the loose list is one-shot: <p> in <li>
    assert "<li>\n<p>a</p>" in units[1].body
    assert units[-len(render_units(after)) :] == render_units(after)
    plain = [u for u in units if u.kind == "plain"]
    # Two consecutive over-limit blocks form one plain text, blank line kept.
    assert "".join(u.body for u in plain) == big + "\n\n" + huge_code
    assert kinds == ["html"] * n_before + ["plain"] * len(plain) + ["html", "code"]
    assert units[-1].copy == "let a = 1 < 2;"


def test_exactly_at_the_limit_is_rendered() -> None:
    block = "y" * RENDER_LIMIT
    assert [u.kind for u in render_units(block + "\n\n\n")] == ["html"]
    assert {u.kind for u in render_units(block + "z")} == {"plain"}


def test_unclosed_fence_at_the_end_is_code_or_plain() -> None:
    short = "Text\n\n```python\nx = 1\n\ny = 2"
    units = render_units(short)
    assert [u.kind for u in units] == ["html", "code"] and units[1].copy == "x = 1\n\ny = 2"
    long_code = "```\n" + "z = 1\n\n" * 2000
    units = render_units("Text\n\n" + long_code)
    assert units[0] == Unit("html", "<p>Text</p>")
    assert "".join(u.body for u in units[1:]) == long_code.rstrip("\n")


def test_plain_run_drops_surrounding_blank_lines_and_normalizes_newlines() -> None:
    block = "w " * 5000
    units = render_units("\n \n" + block.replace(" w", "\r\nw", 3) + "\n  \n\t\n")
    text = "".join(u.body for u in units)
    assert "\r" not in text
    assert text == block.replace(" w", "\nw", 3)


# -------------------------------------------------------------------- user_units


def test_short_user_text_is_one_html_unit() -> None:
    assert user_units("a <b>\r\nc &\rd") == (Unit("html", render_user_text("a <b>\nc &\nd")),)
    assert units_plain_text(user_units("a <b>\r\n\r\n  c &")) == "a <b>\n\n  c &"
    assert len(user_units("q" * RENDER_LIMIT)) == 1


def test_a_4mb_paste_is_plain_units_that_join_back() -> None:
    line = "Some pasted log line with <tags> & 你好 😀 and\ttabs  \r\n"
    text = line * (4_000_000 // len(line)) + "z" * 5_000 + "\rend"
    units = user_units(text)
    expected = text.replace("\r\n", "\n").replace("\r", "\n")
    assert all(u.kind == "plain" for u in units)
    assert "".join(u.body for u in units) == expected
    assert units_plain_text(units) == expected
    assert all(len(u.body) <= PLAIN_PIECE + 8 for u in units)
    assert len(units) <= len(expected) // (PLAIN_PIECE // 2)
    assert units[-2].body.endswith("zzz\n") and units[-1].body == "end"  # a piece cut at a newline keeps it


def test_a_long_single_line_user_text() -> None:
    text = "abc😀" * 3000
    units = user_units(text)
    assert [u.body for u in units] == display_pieces(text, PLAIN_PIECE)


# -------------------------------------------------------------- units_plain_text


def test_units_plain_text_joins_units_and_pieces() -> None:
    units = (
        Unit("html", "<h1>T &amp; t</h1>"),
        Unit("plain", "abc"),
        Unit("plain", "def\n"),
        Unit("plain", "ghi"),
        Unit("code", PRE_OPEN + "x &lt; y</pre>", "x < y"),
        Unit("html", "<p>a<br>\nb</p>"),
    )
    assert units_plain_text(units) == "T & t\nabcdef\nghi\nx < y\na\nb"
    assert units_plain_text(()) == ""


@pytest.mark.parametrize("lang", ["python", ""])
def test_a_long_code_block_is_shown_in_pieces_of_at_most_twenty_lines(lang: str) -> None:
    code = "\n".join(f"x{k} = '<{k}>' & {k}" for k in range(95))
    units = render_units(f"Intro\n\n```{lang}\n{code}\n```\n\nAfter.\n")
    pieces = [u for u in units if u.kind == "code"]
    assert len(pieces) == 5  # 95 lines: 20 + 20 + 20 + 20 + 15
    assert [html_text(u.body).count("\n") + 1 for u in pieces] == [20, 20, 20, 20, 15]
    assert [u.cont for u in pieces] == [False, True, True, True, True]
    assert pieces[0].copy == code and all(u.copy == "" for u in pieces[1:])  # the Copy button copies it all
    assert "\n".join(html_text(u.body) for u in pieces) == code
    assert units_plain_text(units) == html_text(render_markdown(f"Intro\n\n```{lang}\n{code}\n```\n\nAfter.\n"))


def test_a_long_table_is_shown_in_pieces_of_rows_with_the_same_column_widths() -> None:
    rows = "\n".join(f"| r{k} | {'word ' * (k % 7)} | {k} |" for k in range(13))
    text = f"Intro\n\n| Name | Notes | n:|\n|---|---|--:|\n{rows}\n\nAfter.\n"
    units = render_units(text)
    tables = [u for u in units if u.body.startswith("<table")]
    assert [u.cont for u in tables] == [False, True, True]
    assert [u.body.count("<tr>") for u in tables] == [1 + 5, 5, 3]  # the header stays in the first piece
    assert "<th" not in tables[1].body + tables[2].body
    widths = [re.findall(r'<t[dh] width="(\d+)%"', u.body) for u in tables]
    assert widths[0] == widths[1] == widths[2] and sum(map(int, widths[0])) == 100
    assert int(widths[0][1]) > int(widths[0][0]), "the column of long cells is the widest"
    assert all('<table width="100%"' in u.body for u in tables)
    assert units_plain_text(units) == html_text(render_markdown(text))
    short = render_units("| a |\n|---|\n" + "\n".join(f"| {k} |" for k in range(5)) + "\n")
    assert len(short) == 1 and "width=" not in short[0].body, "a table of up to 5 rows stays as written"
