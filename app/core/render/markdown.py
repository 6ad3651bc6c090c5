"""Markdown → HTML for Qt's rich-text engine (QTextDocument), safe for model output.

Safety model
------------
Model output is hostile text: it may contain anything a web page could. The HTML
produced here goes into a QTextBrowser, which would load images (``loadResource``
reads ``file://``), follow links and interpret markup. So:

1. **No raw HTML.** The ``html_block`` preprocessor and the ``html`` inline pattern
   are removed, so ``<script>``, ``<img>``, ``<style>``, ``<iframe>`` and comments
   are escaped by the serializer and display literally. Character entities such as
   ``&lt;`` still work, but they can only ever produce text.
2. **No images.** Every ``<img>`` is replaced by its alt text.
3. **Only http(s) links.** An ``<a>`` survives only when its href, after HTML entity
   decoding and trimming, starts with ``http://`` or ``https://`` (any case) and has
   no whitespace or control characters; otherwise the anchor is unwrapped and its
   text stays. This covers inline, reference and auto links, ``javascript:``,
   ``file:``, ``data:``, ``mailto:``, relative URLs and entity/case/space tricks.
4. **Code is escaped** by Pygments or :func:`html.escape`; fenced code is the only
   HTML this module writes itself.

Rules 2 and 3 run as the *last* tree processor — after every inline pattern and
after backslash-unescaping — on the element tree itself, so no Markdown construct
can create an element behind their back.

Qt's HTML subset: fenced code is Pygments ``nowrap`` output (token classes) in
one ``<pre class="code">`` (codehilite's wrapper gives striped backgrounds);
its colours and the block's background come from :func:`code_css`, which the
view sets as each document's default style sheet, so a theme change restyles
code without rendering again;
tables get ``border``/``cellspacing``/``cellpadding`` attributes (Qt ignores CSS
borders).

Incremental rendering: see :func:`find_cut`. Rendering uses one shared
``markdown.Markdown`` instance guarded by a lock; building one costs ~80 ms, so
call :func:`warm_up` at start-up idle.
"""

from __future__ import annotations

import bisect
import html
import logging
import re
import threading
import xml.etree.ElementTree as etree  # noqa: N813 - python-markdown's own name for it
from functools import lru_cache

import markdown
from markdown.extensions import Extension
from markdown.extensions.fenced_code import FencedBlockPreprocessor
from markdown.treeprocessors import Treeprocessor
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexer import Lexer
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound

from app.core.render.mathmarkdown import MathPostprocessor, MathPreprocessor
from app.core.render.mathscan import FENCE_OPEN as _FENCE_OPEN
from app.core.render.mathsvg import Formula

__all__ = [
    "BlockScanner",
    "block_cuts",
    "code_css",
    "find_cut",
    "render_markdown",
    "render_markdown_math",
    "render_user_text",
    "warm_up",
]

PRE_CLASS = "code"
PRE_STYLE = "white-space:pre-wrap"
PRE_OPEN = f'<pre class="{PRE_CLASS}" style="{PRE_STYLE}">'
_FORMATTER = HtmlFormatter(nowrap=True)
_SAFE_HREF = re.compile(r"https?://[^\s\x00-\x1f\x7f]+", re.IGNORECASE)
_ATTR_LANG = re.compile(r"(?:^|\s)\.([\w#.+-]+)")

_log = logging.getLogger(__name__)
_lock = threading.Lock()
_md: markdown.Markdown | None = None


# ---------------------------------------------------------------- code blocks


@lru_cache(maxsize=64)
def _lexer(name: str) -> Lexer | None:
    """Pygments lexer for a fence label (cached, bounded); None when unknown."""
    try:
        return get_lexer_by_name(name)
    except ClassNotFound:
        return None


def _code_html(code: str, lang: str) -> str:
    """A code block as one ``<pre>``; highlighted only for a known language label."""
    lexer = _lexer(lang.lower()) if lang else None
    body = highlight(code, lexer, _FORMATTER) if lexer else html.escape(code, quote=False)
    return f"{PRE_OPEN}{body.rstrip(chr(10))}</pre>"


class _FencedCode(FencedBlockPreprocessor):  # type: ignore[misc]  # markdown ships no type information
    """Fenced code with our own output (no codehilite, never guesses the language)."""

    def run(self, lines: list[str]) -> list[str]:
        def replace(m: re.Match[str]) -> str:
            lang = m.group("lang") or ""
            if m.group("attrs"):
                found = _ATTR_LANG.search(m.group("attrs"))
                lang = found.group(1) if found else ""
            stashed = self.md.htmlStash.store(_code_html(m.group("code"), lang))
            return f"\n{stashed}\n"

        text: str = self.FENCED_BLOCK_RE.sub(replace, "\n".join(lines))
        return text.split("\n")


@lru_cache(maxsize=8)
def code_css(style: str, background: str) -> str:
    """The style sheet that colours rendered code: Pygments ``style``'s token
    colours (class selectors) and ``background`` behind every code block.
    Qt applies a document's default style sheet when HTML is set, so the view
    sets this before ``setHtml``."""
    formatter = HtmlFormatter(style=style)
    tokens = "\n".join(formatter.get_token_style_defs(""))
    return f"pre.{PRE_CLASS} {{ background-color: {background}; }}\n{tokens}\n"


# ------------------------------------------------------------------- sanitizer


def _safe_href(href: str | None) -> str | None:
    """The decoded href when it is an http(s) URL, else None."""
    if href is None:
        return None
    clean = html.unescape(href).strip()
    return clean if _SAFE_HREF.fullmatch(clean) else None


def _add_text(parent: etree.Element, index: int, text: str) -> None:
    """Append text after child ``index`` of parent (or to parent.text if index < 0)."""
    if not text:
        return
    if index < 0:
        parent.text = (parent.text or "") + text
    else:
        parent[index].tail = (parent[index].tail or "") + text


def _splice(parent: etree.Element, el: etree.Element, text: str, kids: list[etree.Element]) -> None:
    """Replace ``el`` in ``parent`` by ``text`` followed by ``kids``, keeping its tail."""
    index = list(parent).index(el)
    tail = el.tail or ""
    parent.remove(el)
    parent[index:index] = kids
    _add_text(parent, index - 1, text)
    _add_text(parent, index - 1 + len(kids), tail)


class _Sanitize(Treeprocessor):  # type: ignore[misc]  # markdown ships no type information
    """Drops images and non-http(s) anchors; adds the attributes Qt needs."""

    def run(self, root: etree.Element) -> None:
        parent_of = {child: parent for parent in root.iter() for child in parent}
        # Reverse document order: descendants are handled before their ancestors.
        for el in reversed(list(root.iter())):
            if el.tag == "img":
                _splice(parent_of[el], el, el.get("alt") or "", [])
            elif el.tag == "a":
                href = _safe_href(el.get("href"))
                if href is None:
                    _splice(parent_of[el], el, el.text or "", list(el))
                else:
                    el.set("href", href)
            elif el.tag == "table":
                el.set("border", "1")
                el.set("cellspacing", "0")
                el.set("cellpadding", "4")
            elif el.tag == "pre":  # indented code blocks; fenced ones are stashed HTML
                el.set("class", PRE_CLASS)
                el.set("style", PRE_STYLE)
                for code in el.iter("code"):  # a trailing newline shows as an empty line
                    code.text = (code.text or "").rstrip("\n")


class _RillExtension(Extension):  # type: ignore[misc]  # markdown ships no type information
    def extendMarkdown(self, md: markdown.Markdown) -> None:  # noqa: N802 - python-markdown's API
        md.preprocessors.deregister("html_block")
        md.inlinePatterns.deregister("html")
        md.preprocessors.register(_FencedCode(md, {}), "fenced_code_block", 25)
        # After 'normalize_whitespace' (30), before fenced code: TeX never meets Markdown.
        md.preprocessors.register(MathPreprocessor(md), "rill_math", 27)
        md.postprocessors.register(MathPostprocessor(md), "rill_math", 5)
        # After 'inline' (20) and 'unescape' (0): sees final elements and hrefs.
        md.treeprocessors.register(_Sanitize(md), "rill_sanitize", -10)


def _markdown() -> markdown.Markdown:
    global _md
    if _md is None:
        _md = markdown.Markdown(
            extensions=["tables", "sane_lists", _RillExtension()], output_format="html"
        )
    return _md


def _drop_markdown() -> None:
    global _md
    _md = None


# ------------------------------------------------------------------ public API


class BlockScanner:
    """:func:`block_cuts` that can go on as text arrives: each ``feed``
    scans only the complete lines not scanned yet, so following a growing
    reply costs O(new text) however long its open block is.

    ``cuts`` are the block cuts found in complete lines, in order;
    :meth:`cuts_after` adds the cut at the start of a last, unfinished line
    (its first character is enough to know a block began)."""

    __slots__ = ("after_blank", "cuts", "fence", "pos", "start")

    def __init__(self, start: int = 0) -> None:
        self.start = start
        self.pos = start          # the first character not scanned yet (a line start)
        self.fence: str | None = None
        self.after_blank = False
        self.cuts: list[int] = []

    def feed(self, text: str, final: bool = False) -> None:
        """Scan ``text``'s lines from ``pos`` (``text`` only ever grew):
        the complete ones, or with ``final`` the last one too."""
        cuts = self.cuts
        fence, after_blank = self.fence, self.after_blank
        pos, n = self.pos, len(text)
        while pos < n:
            end = text.find("\n", pos)
            if end < 0:
                if not final:
                    break
                end = n
            if fence is not None:
                if text.startswith(fence, pos) and not text[pos + len(fence) : end].strip(" \t\r"):
                    fence = None
            elif not text[pos:end].strip(" \t\r"):
                after_blank = True
            else:
                if after_blank and not text[pos].isspace():
                    cuts.append(pos)
                after_blank = False
                if text[pos] in "`~":
                    m = _FENCE_OPEN.match(text[pos:end].rstrip("\r").expandtabs(4))
                    if m:
                        fence = m.group(1)
            pos = end + 1
        self.pos, self.fence, self.after_blank = pos, fence, after_blank

    def cuts_after(self, text: str, at: int) -> list[int]:
        """The cuts after ``at`` in ``text`` as fed so far (see the class docstring)."""
        found = self.cuts[bisect.bisect_right(self.cuts, at):]
        pos = self.pos
        if self.fence is None and self.after_blank and at < pos < len(text) and not text[pos].isspace():
            found.append(pos)
        return found

    def forget_before(self, at: int) -> None:
        """Cuts before ``at`` are not needed any more (committed)."""
        del self.cuts[: bisect.bisect_right(self.cuts, at)]


def block_cuts(text: str, start: int = 0) -> tuple[list[int], str | None]:
    """Line scan from ``start``: every top-level block cut (in order) and the
    fence still open at the end (or None). See :func:`find_cut` for what a
    cut is; ``app.core.render.blocks`` splits whole messages with it."""
    scanner = BlockScanner(start)
    scanner.feed(text, final=True)
    return scanner.cuts, scanner.fence


def _scan(text: str, start: int) -> tuple[int, str | None]:
    """(last block cut from ``start``, fence still open at the end or None)."""
    cuts, fence = block_cuts(text, start)
    return (cuts[-1] if cuts else start), fence


def find_cut(text: str, start: int = 0) -> int:
    """End of the complete top-level Markdown blocks in ``text[start:]``.

    Returns the largest ``cut`` (``start <= cut <= len(text)``) that sits right after
    a blank line (whitespace-only lines count) outside any backtick or tilde fence and
    where ``text[cut]`` exists and is a non-indented, non-whitespace character — the
    next block has begun, so no list item or indented code can still extend the
    previous one. Returns ``start`` when there is no such position.

    ``start`` must itself be a block boundary outside a fence: the caller keeps
    ``start`` = the length already committed (rendered), so each call scans only
    the uncommitted part, in O(len(text) - start). Fences follow python-markdown's
    rules (column 0; the closing line repeats the opening fence exactly).

    Rendering ``text[:cut]`` and ``text[cut:]`` separately shows the same text as
    rendering the whole; cross-block details (loose lists, reference links defined
    later) may differ, so render the whole message once when the reply ends.
    """
    return _scan(text, start)[0]


def render_markdown(text: str) -> str:
    """Markdown → safe HTML fragment for QTextDocument (see the module docstring).

    A fence still open at the end (a reply that was stopped or truncated) is closed,
    so its content renders as code rather than as Markdown. Input that breaks the
    parser (e.g. lists nested 1,000 deep exhaust the recursion limit) falls back to
    escaped plain text instead of raising into a Qt slot. TeX math becomes
    ``rill-math:`` images (``app.core.render.mathmarkdown``); the formulas
    themselves come with :func:`render_markdown_math`.
    """
    return render_markdown_math(text)[0]


def render_markdown_math(text: str) -> tuple[str, dict[str, Formula]]:
    """:func:`render_markdown`, and the formulas its images name, by key."""
    fence = _scan(text, 0)[1]
    source = text if fence is None else f"{text}\n{fence}"
    with _lock:
        md = _markdown()
        md.reset()
        math: MathPreprocessor = md.preprocessors["rill_math"]
        math.begin()
        try:
            converted: str = md.convert(source)
            return converted, math.formulas
        except Exception:  # noqa: BLE001 - hostile input must never crash the UI
            _log.warning("Markdown rendering failed; showing plain text", exc_info=True)
            _drop_markdown()  # its parser state is left inconsistent: rebuild next time
            return render_user_text(text), {}


def render_user_text(text: str) -> str:
    """A typed user message as escaped HTML, keeping line breaks and spaces."""
    body = html.escape(text.replace("\r\n", "\n").replace("\r", "\n"), quote=False)
    return f'<p style="white-space:pre-wrap">{body.replace(chr(10), "<br>")}</p>'


def warm_up() -> None:
    """Build the Markdown instance and load a Pygments lexer (call at start-up idle)."""
    render_markdown("```python\npass\n```\n")
