"""Tests for app.core.render.markdown: Markdown safety, Qt-oriented HTML, and find_cut."""

from __future__ import annotations

import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from app.core.render import markdown as render
from app.core.render.markdown import PRE_OPEN, find_cut, render_markdown, render_user_text, warm_up

ROOT = next(p for p in Path(__file__).resolve().parents if (p / "pyproject.toml").is_file())

#: A typical reply (also rendered by shots/render_sample.py for a visual check).
SAMPLE = """# Rill rendering sample

A paragraph with **bold**, *italic*, `inline code` and a [safe link](https://example.com).
Hostile bits: <script>alert(1)</script>, ![tracking pixel](file:///etc/passwd),
[bad link](javascript:alert(1)), <!-- hidden comment -->.

## Code

```python
def greet(name: str) -> str:
    \"\"\"Say hello.\"\"\"

    return f"Hello, {name}!"  # 你好 😀
```

```
plain fence, no language <b>not bold</b>
```

## Table

| Name | Score | Note |
|------|------:|:----:|
| 张三 | 95 | 😀 |
| Bob | 7 | ok |

## Lists

3. third
4. fourth

- apple
- banana
    - nested

> A quote with 中文 and a very long line that has to wrap inside the quote block.

    indented code block

---
Last paragraph 🎉, 中文也可以。
"""


INLINE_TAGS = {"a", "em", "strong", "code", "span"}


class _Visible(HTMLParser):
    """Collects text content and every (tag, attributes) pair of an HTML fragment."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.data: list[str] = []
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag not in INLINE_TAGS:
            self.data.append(" ")  # block boundaries separate words

    def handle_endtag(self, tag: str) -> None:
        if tag not in INLINE_TAGS:
            self.data.append(" ")

    def handle_data(self, data: str) -> None:
        self.data.append(data)


def parse(html: str) -> _Visible:
    parser = _Visible()
    parser.feed(html)
    parser.close()
    return parser


def visible(html: str) -> list[str]:
    """The words a reader sees (whitespace-normalised)."""
    return "".join(parse(html).data).split()


def anchors(html: str) -> list[str | None]:
    return [attrs.get("href") for tag, attrs in parse(html).tags if tag == "a"]


# ------------------------------------------------------------------ raw HTML


@pytest.mark.parametrize(
    "source, literal",
    [
        ("<script>alert(1)</script>", "<script>alert(1)</script>"),
        ("text <script>alert(1)</script> inline", "<script>alert(1)</script>"),
        ("<style>body { display: none }</style>", "<style>body { display: none }</style>"),
        ("<iframe src='file:///etc/passwd'></iframe>", "<iframe src='file:///etc/passwd'></iframe>"),
        ('<img src="file:///etc/passwd" onerror="alert(1)">', '<img src="file:///etc/passwd"'),
        ("before <!-- secret --> after", "<!-- secret -->"),
        ("<div onclick=\"x()\">\n*block*\n</div>", '<div onclick="x()">'),
        ("<a href='javascript:alert(1)'>click</a>", "<a href='javascript:alert(1)'>"),
    ],
)
def test_raw_html_is_escaped_and_shown_literally(source: str, literal: str) -> None:
    html = render_markdown(source)
    assert {tag for tag, _ in parse(html).tags} <= {"p", "em"}  # no tag from the input
    assert literal in "".join(parse(html).data)
    assert "&lt;" in html


def test_entities_only_ever_make_text() -> None:
    html = render_markdown("&lt;script&gt;alert(1)&lt;/script&gt; &#60;b&#62;x AT&T")
    assert [tag for tag, _ in parse(html).tags] == ["p"]
    assert visible(html) == ["<script>alert(1)</script>", "<b>x", "AT&T"]


HOSTILE_CORPUS = [
    "<script>alert(1)</script>",
    '<img src=x onerror="alert(1)">',
    "![a](file:///etc/passwd) ![b][r]\n\n[r]: http://x/y.png",
    '[x](http://a.com/"onmouseover="alert(1)) [y](http://a.com/ "t\\"onclick=\\"z")',
    "[a](javascript:alert(1)) <http://ok.com> <a@b.com>",
    "| a |\n|---|\n| <b onclick=x>1</b> |",
    "```html\n<script>alert(1)</script>\n```",
    "```{.python onclick=x}\nx\n```",
    "    <script>indented</script>",
    "3. a\n4. b\n\n> quote <q>",
]

ALLOWED_ATTRIBUTES = {
    "a": {"href", "title"},
    "table": {"border", "cellspacing", "cellpadding"},
    "pre": {"style", "class"},   # class: Pygments' token classes, coloured by the theme's style sheet
    "span": {"style", "class"},
    "th": {"style"},
    "td": {"style"},
    "ol": {"start"},
}
ALLOWED_TAGS = set(ALLOWED_ATTRIBUTES) | {
    "p", "em", "strong", "code", "h1", "h2", "h3", "ul", "li", "blockquote",
    "hr", "br", "thead", "tbody", "tr",
}  # fmt: skip


@pytest.mark.parametrize("source", HOSTILE_CORPUS)
def test_output_uses_only_allow_listed_tags_and_attributes(source: str) -> None:
    for tag, attrs in parse(render_markdown(source)).tags:
        assert tag in ALLOWED_TAGS, (tag, attrs)
        assert set(attrs) <= ALLOWED_ATTRIBUTES.get(tag, set()), (tag, attrs)
        if tag == "a":
            assert (attrs["href"] or "").startswith(("http://", "https://"))


# -------------------------------------------------------------------- images


@pytest.mark.parametrize(
    "source, alt",
    [
        ("![a cat](http://example.com/cat.png)", "a cat"),
        ("![local](file:///etc/passwd)", "local"),
        ("see ![ref image][img] here\n\n[img]: https://example.com/x.png", "ref image"),
        ("![](http://example.com/x.png)", ""),
    ],
)
def test_images_become_their_alt_text(source: str, alt: str) -> None:
    html = render_markdown(source)
    assert "<img" not in html
    assert "src=" not in html
    assert alt in "".join(parse(html).data)


def test_image_inside_a_link_keeps_link_and_alt() -> None:
    html = render_markdown("[![logo](http://x/logo.png)](https://example.com) tail")
    assert "<img" not in html
    assert anchors(html) == ["https://example.com"]
    assert visible(html) == ["logo", "tail"]


# --------------------------------------------------------------------- links


@pytest.mark.parametrize(
    "source",
    [
        "[click](javascript:alert(1))",
        "[click](JaVaScRiPt:alert(1))",
        "[click]( javascript:alert(1))",
        "[click](<javascript:alert(1)>)",
        "[click](java&#x09;script:alert(1))",
        "[click](&#x6A;avascript:alert(1))",
        "[click](javascript&colon;alert(1))",
        "[click](vbscript:msgbox(1))",
        "[click](file:///etc/passwd)",
        "[click](data:text/html;base64,PHNjcmlwdD4=)",
        "[click](/relative/path)",
        "[click](relative.html)",
        "[click](//evil.example.com/x)",
        "[click](mailto:someone@example.com)",
        "[click](ftp://example.com/file)",
        "[click][ref]\n\n[ref]: javascript:alert(2)",
        "[click][]\n\n[click]: file:///etc/passwd",
        "[click](http:/missing-slash)",
        "[click](http://)",
    ],
)
def test_non_http_links_render_as_plain_text(source: str) -> None:
    html = render_markdown(source)
    assert "<a" not in html
    assert "href" not in html
    assert visible(html) == ["click"]


@pytest.mark.parametrize(
    "source",
    ["<someone@example.com>", "<ftp://example.com/file>", "<file:///etc/passwd>"],
)
def test_non_http_autolinks_have_no_anchor(source: str) -> None:
    html = render_markdown(source)
    assert "<a" not in html


@pytest.mark.parametrize(
    "source, href",
    [
        ("[docs](https://example.com/a?b=1&c=2)", "https://example.com/a?b=1&c=2"),
        ("[docs](http://example.com)", "http://example.com"),
        ("[docs](HTTPS://EXAMPLE.COM/X)", "HTTPS://EXAMPLE.COM/X"),
        ("[docs]( https://example.com/x )", "https://example.com/x"),
        ("[docs][ref]\n\n[ref]: https://example.com/ref", "https://example.com/ref"),
        ("<https://example.com/auto>", "https://example.com/auto"),
        ("[docs](&#104;ttps://example.com/e)", "https://example.com/e"),  # entity-decoded
    ],
)
def test_http_links_are_kept(source: str, href: str) -> None:
    assert anchors(render_markdown(source)) == [href]


def test_link_href_cannot_break_out_of_its_attribute() -> None:
    html = render_markdown('[x](http://a.com/"onmouseover="alert(1))')
    ((tag, attrs),) = [t for t in parse(html).tags if t[0] == "a"]
    assert set(attrs) <= {"href", "title"}


# ---------------------------------------------------------------------- code


def test_fenced_code_with_language_is_highlighted_in_one_styled_pre() -> None:
    html = render_markdown("```python\ndef f(x):\n    return '<b>'\n```")
    assert html.startswith(PRE_OPEN) and html.endswith("</pre>")
    assert html.count("<pre") == 1
    assert '<span class="k">def</span>' in html  # Pygments token classes (the theme colours them)
    assert "<div" not in html and "line-height" not in html  # no codehilite wrapper, no Pygments page CSS
    assert "&lt;b&gt;" in html and "<b>" not in html
    assert visible(html) == ["def", "f(x):", "return", "'<b>'"]


@pytest.mark.parametrize(
    "source",
    [
        "```\nimport os\nprint(os.getcwd())\n```",  # looks like Python: must not be guessed
        "```no-such-language\nimport os\nprint(os.getcwd())\n```",
        "~~~\nimport os\nprint(os.getcwd())\n~~~",
    ],
)
def test_unlabelled_or_unknown_fence_is_plain_escaped_code(source: str) -> None:
    html = render_markdown(source)
    assert html.startswith(PRE_OPEN) and html.endswith("</pre>")
    assert "<span" not in html
    assert "import os\nprint(os.getcwd())" in html


@pytest.mark.parametrize("source", ["~~~python\nx = 1\n~~~", "```{.python}\nx = 1\n```"])
def test_other_fence_syntaxes_are_highlighted(source: str) -> None:
    html = render_markdown(source)
    assert html.startswith(PRE_OPEN) and "<span" in html


def test_fenced_code_keeps_blank_lines_and_markdown_syntax() -> None:
    html = render_markdown("```text\n# not a heading\n\n* not a list\n```")
    assert "<h1" not in html and "<li" not in html
    assert "# not a heading\n\n* not a list" in html


def test_unclosed_fence_at_the_end_renders_as_code() -> None:
    html = render_markdown("Intro\n\n```python\nx = 1\n# comment, not a heading")
    assert "<h1" not in html
    assert html.count(PRE_OPEN) == 1
    assert "# comment, not a heading" in "".join(parse(html).data)


def test_lexers_are_cached_by_name() -> None:
    render_markdown("```python\nx\n```")
    hits = render._lexer.cache_info().hits
    render_markdown("```Python\ny\n```")
    assert render._lexer.cache_info().hits == hits + 1


def test_indented_code_gets_the_same_pre_style_without_trailing_newline() -> None:
    html = render_markdown("Para\n\n    code <x>\n")
    assert PRE_OPEN in html
    assert "code &lt;x&gt;</code></pre>" in html


# ------------------------------------------------------------- other blocks


def test_tables_get_border_attributes_for_qt() -> None:
    html = render_markdown("| a | b |\n|---|--:|\n| 1 | 2 |")
    (table,) = [attrs for tag, attrs in parse(html).tags if tag == "table"]
    assert table == {"border": "1", "cellspacing": "0", "cellpadding": "4"}
    assert visible(html) == ["a", "b", "1", "2"]


def test_sane_lists_keep_the_start_number() -> None:
    html = render_markdown("3. third\n4. fourth")
    assert '<ol start="3">' in html


def test_single_newlines_are_not_hard_breaks() -> None:
    assert "<br" not in render_markdown("one\ntwo")


def test_chinese_and_emoji_survive() -> None:
    html = render_markdown("# 标题 🎉\n\n中文段落 **加粗** 😀👍🏽\n\n| 列 |\n|---|\n| 值 🙂 |")
    for text in ("标题 🎉", "中文段落", "加粗", "😀👍🏽", "值 🙂"):
        assert text in html


def test_empty_input() -> None:
    assert render_markdown("") == ""


def test_pathological_nesting_falls_back_to_plain_text() -> None:
    source = "- " * 1000 + "x <b>"
    html = render_markdown(source)  # python-markdown itself hits the recursion limit here
    assert "x &lt;b&gt;" in html
    assert render_markdown("**ok**") == "<p><strong>ok</strong></p>"  # instance still sane


# ------------------------------------------------------------ user messages


def test_user_text_is_escaped_without_markdown_and_keeps_lines() -> None:
    html = render_user_text("**not bold** <script>x</script>\r\n  two\n\nend & done")
    assert "<strong" not in html and "<script" not in html
    assert "**not bold** &lt;script&gt;x&lt;/script&gt;<br>  two<br><br>end &amp; done" in html
    assert "white-space:pre-wrap" in html


# ------------------------------------------------------------------ set-up


def test_warm_up_builds_the_instance_and_a_lexer() -> None:
    warm_up()
    assert render._md is not None
    assert render._lexer("python") is not None


def test_module_never_imports_qt() -> None:
    code = (
        "import sys, app.core.render.markdown as r; r.warm_up(); r.render_markdown('# x');"
        "bad = [m for m in sys.modules if m.startswith(('PyQt', 'PySide'))];"
        "assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)


# ------------------------------------------------------------------ find_cut


@pytest.mark.parametrize(
    "text, expected",
    [
        ("", 0),
        ("no blank line\nat all", 0),
        ("para\n\nnext", len("para\n\n")),
        ("para\n\n\n \t\n\nnext", len("para\n\n\n \t\n\n")),  # whitespace-only lines
        ("para\r\n\r\nnext", len("para\r\n\r\n")),
        ("a\n\nb\n\nc\n\nd", len("a\n\nb\n\nc\n\n")),  # the LAST cut
        ("para\n\n", 0),  # next block not begun
        ("para\n\n  \n", 0),
        ("para\n\n   ", 0),
        ("- item\n\n    continued", 0),  # list continuation
        ("para\n\n    code", 0),  # indented code
        ("para\n\n\tcode", 0),
        ("- a\n- b\n\nPara", len("- a\n- b\n\n")),
        ("```\ncode\n\nmore", 0),  # blank inside an open fence
        ("intro\n\n```py\ncode\n\nmore", len("intro\n\n")),
        ("```py\ncode\n\nmore\n```\n\nafter", len("```py\ncode\n\nmore\n```\n\n")),
        ("```\ncode\n```\nno blank line", 0),
        ("~~~\n```\n\nx\n~~~\n\ny", len("~~~\n```\n\nx\n~~~\n\n")),  # only ~~~ closes ~~~
        ("````\n```\n\nx", 0),  # a shorter fence does not close
        ("```\n````\n\nx", 0),  # nor does a longer one (python-markdown)
        ("```python extra words\n\nnext", len("```python extra words\n\n")),  # not a fence
        ("  ```\n\nnext", len("  ```\n\n")),  # indented: not a fence
        ("```\ncode\n```   \n\nnext", len("```\ncode\n```   \n\n")),
    ],
)
def test_find_cut(text: str, expected: int) -> None:
    assert find_cut(text) == expected


def test_find_cut_from_a_later_start() -> None:
    text = "a\n\nb\n\nc\n\nd"
    start = len("a\n\n")
    assert find_cut(text, start) == len("a\n\nb\n\nc\n\n")
    assert find_cut(text, len(text) - 1) == len(text) - 1  # nothing new: start
    assert find_cut("done\n\n```\nopen\n\nstill code", len("done\n\n")) == len("done\n\n")


def test_find_cut_scans_only_from_start() -> None:
    # The committed part holds an unbalanced fence line; scanning from 0 would think
    # everything after it is code. From `start` it must not matter.
    committed = "```\n\n"
    text = committed + "a\n\nb"
    assert find_cut(text) == 0
    assert find_cut(text, len(committed)) == len(committed + "a\n\n")


def _render_streamed(text: str, step: int) -> tuple[str, list[int]]:
    """Simulates the transcript: commit complete blocks as text grows, then finish."""
    committed = 0
    pieces: list[str] = []
    cuts: list[int] = []
    for end in range(step, len(text) + step, step):
        cut = find_cut(text[:end], committed)
        assert committed <= cut <= min(end, len(text))
        if cut > committed:
            assert text[cut - 1] == "\n" and not text[cut].isspace()
            pieces.append(render_markdown(text[committed:cut]))
            cuts.append(cut)
            committed = cut
    pieces.append(render_markdown(text[committed:]))
    return "".join(pieces), cuts


@pytest.mark.parametrize("step", [1, 7, 64])
def test_streamed_blocks_show_the_same_text_as_one_render(step: int) -> None:
    streamed, cuts = _render_streamed(SAMPLE, step)
    assert len(cuts) >= 5  # not vacuous: the sample really is cut into several blocks
    code_start, code_end = SAMPLE.index("```python"), SAMPLE.index("```\n\n```")
    assert not any(code_start < cut <= code_end for cut in cuts)  # never inside the fence
    assert visible(streamed) == visible(render_markdown(SAMPLE))


def test_every_cut_splits_the_sample_into_equivalent_halves() -> None:
    whole = visible(render_markdown(SAMPLE))
    # Every position find_cut ever returns: the last cut of each prefix.
    cuts = sorted({find_cut(SAMPLE[:end]) for end in range(len(SAMPLE) + 1)} - {0})
    assert len(cuts) >= 10
    for cut in cuts:
        halves = render_markdown(SAMPLE[:cut]) + render_markdown(SAMPLE[cut:])
        assert visible(halves) == whole, SAMPLE[:cut][-40:]


def test_sample_renders_every_feature() -> None:
    html = render_markdown(SAMPLE)
    tags = {tag for tag, _ in parse(html).tags}
    assert {"h1", "h2", "p", "pre", "span", "table", "ol", "ul", "blockquote", "a"} <= tags
    assert anchors(html) == ["https://example.com"]
    assert "<img" not in html and "<script" not in html
