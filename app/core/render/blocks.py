"""A message body as a list of small display units (Qt-free).

The chat view shows each message as a column of **units**, each laid out in its
own small ``QTextDocument`` on the GUI thread. PyQt holds the GIL during Qt text
calls, so every unit must stay small; all parsing and highlighting happens here,
on a worker thread, and the GUI only receives ready HTML (or plain text).

A unit is one top-level block of the rendered message: a paragraph, heading,
list, table, fenced code block, blockquote, rule... (see :func:`split_top_level`).

* ``"html"``  — ``body`` is an HTML fragment with exactly one top-level element.
* ``"code"``  — like html (one ``<pre style="background-color:…">``); ``copy`` is
  the code exactly as written between the fences (for a Copy button).
* ``"plain"`` — ``body`` is text to show with ``setPlainText``. Used for source
  blocks too long to render (:data:`RENDER_LIMIT`) and for long user messages;
  such text is cut into pieces of at most about :data:`PLAIN_PIECE` characters,
  one unit per piece: after a newline, or inside a longer line at a display
  break of ``app.core.text.textbreak.display_pieces``. Consecutive plain units always
  belong to one text and ``''.join(bodies)`` is that text exactly, so a piece
  cut at a line end keeps its ``'\\n'``: display ``body.removesuffix("\\n")``
  (the unit boundary already is that line break; ``setPlainText("a\\n")``
  shows an empty second line).

Rendering a message in runs: the source is cut into top-level blocks with the
same rule as :func:`app.core.render.markdown.find_cut`; maximal runs of blocks that are
not too long are rendered *one-shot* with :func:`render_markdown`, so
cross-block Markdown (loose lists, reference links) inside a run renders exactly
as a one-shot render of that run does. A reference defined on the other side of
an over-limit block does not resolve.

Qt and per-unit documents (checked in ``tests/ui/conversation/test_blocks_in_qt.py``): the
units' ``toPlainText()`` joined with ``'\\n'`` equal one ``setHtml`` of the whole
message, except at three kinds of joins:

* A document whose first element is a table starts with an empty block (Qt
  cannot put a table first); in a one-shot document that block exists only
  at the very start. Every table is also followed by an empty block, which a
  one-shot document keeps too.
* Qt's HTML importer reuses an empty block for the next element: an element
  that ends with an empty block (an empty heading or code block, ``<li></li>``,
  a blockquote ending in one, a table whose last cell is empty) gives its last
  line to what follows, so in one shot that empty line disappears (unless a
  table follows: a table never takes over a block).
* One-shot only: an empty ``<pre>`` followed by a ``<blockquote>`` shows an
  extra line holding a space (the newline after ``<blockquote>`` lands in the
  reused ``<pre>`` block). Per-unit documents do not have it.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable
from dataclasses import dataclass
from html.parser import HTMLParser
from types import SimpleNamespace

from markdown.extensions.fenced_code import FencedBlockPreprocessor
from markdown.preprocessors import NormalizeWhitespace

# The opening-fence rule of render.find_cut (one definition of a fence).
from app.core.render.markdown import (
    PRE_OPEN,
    block_cuts,
    render_markdown_math,
    render_user_text,
)
from app.core.render.mathmarkdown import IMAGE_SCHEME, keys_in
from app.core.render.mathsvg import Formula
from app.core.text.textbreak import display_pieces

__all__ = [
    "PLAIN_PIECE",
    "RENDER_LIMIT",
    "Unit",
    "render_plain_stream_units",
    "render_stream_units",
    "settled_plain_end",
    "render_units",
    "split_top_level",
    "units_plain_text",
    "user_units",
]

RENDER_LIMIT = 8000  # a top-level Markdown block longer than this (source chars) is shown plain
PLAIN_PIECE = 1000  # display piece length for plain text (passed to display_pieces)

_VOID = frozenset(
    ["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr"]
)
_NEWLINES = re.compile(r"\r\n|\r|\n")
_TAB_LENGTH = 4  # python-markdown's default, as used by render.py


@dataclass(frozen=True)
class Unit:
    kind: str  # "html" | "code" | "plain"
    body: str  # html/code: an HTML fragment with one top-level element; plain: the text
    copy: str = ""  # code: the code exactly as written in the fence (no trailing newline)
    cont: bool = False  # code: a later piece of the code block before it (no Copy button, no gap)
    math: tuple[Formula, ...] = ()  # html: the formulas its ``rill-math:`` images and codes name


#: A code block longer than this many lines is shown as several pieces, each
#: its own document: one Qt layout of a highlighted 150-line block costs ~10 ms,
#: a 20-line piece about 1 ms (issue #18: every Qt text call about 1 ms).
CODE_PIECE_LINES = 20

#: A table with more body rows than this is shown as several tables of this
#: many rows, each its own document, all with the same column widths (percent
#: of the width, from the columns' longest cells): one Qt layout of a 50-row
#: table costs ~11 ms, of 5 rows ~1.3 ms.
TABLE_PIECE_ROWS = 5
_CELL_OPEN = re.compile(r"<t[dh](?=[\s>])")
_CELL = re.compile(r"<t[dh](?:\s[^>]*)?>(.*?)</t[dh]>", re.DOTALL)
#: A column's share of the width counts its longest cell, at most this many
#: characters, and never less than its longest word; plus its padding and border.
_COLUMN_MAX_CHARS, _COLUMN_PAD_CHARS = 40, 3


# --------------------------------------------------------------- HTML helpers


class _Splitter(HTMLParser):
    """Records (start, end) offsets of the top-level elements of an HTML string."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.text = text
        self.line_starts = [0]
        find = text.find
        pos = find("\n")
        while pos >= 0:
            self.line_starts.append(pos + 1)
            pos = find("\n", pos + 1)
        self.depth = 0
        self.start: int | None = None  # start of the open top-level element
        self.text_start: int | None = None  # start of loose top-level text
        self.spans: list[tuple[int, int]] = []

    def _offset(self) -> int:
        line, col = self.getpos()
        return self.line_starts[line - 1] + col

    def _close_text(self, end: int) -> None:
        if self.text_start is not None:
            stripped_end = len(self.text[self.text_start : end].rstrip()) + self.text_start
            self.spans.append((self.text_start, stripped_end))
            self.text_start = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        pos = self._offset()
        if self.depth == 0:
            self._close_text(pos)
            if tag in _VOID:
                self.spans.append((pos, pos + len(self.get_starttag_text() or "")))
                return
            self.start = pos
        if tag not in _VOID:
            self.depth += 1

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        pos = self._offset()
        if self.depth == 0:
            self._close_text(pos)
            self.spans.append((pos, pos + len(self.get_starttag_text() or "")))

    def handle_endtag(self, tag: str) -> None:
        if tag in _VOID or self.depth == 0:
            return  # stray end tag: nothing to close
        self.depth -= 1
        if self.depth == 0 and self.start is not None:
            pos = self._offset()
            end = self.text.find(">", pos)
            end = len(self.text) if end < 0 else end + 1
            self.spans.append((self.start, end))
            self.start = None

    def handle_data(self, data: str) -> None:
        if self.depth == 0 and self.text_start is None and data.strip():
            # Position of the first non-space character of this top-level text.
            self.text_start = self._offset() + (len(data) - len(data.lstrip()))


def split_top_level(html_text: str) -> list[str]:
    """The top-level elements of an HTML fragment, each the exact substring.

    Whitespace between top-level elements is dropped; void elements (``<hr>``,
    ``<br>``, ``<img>``…) do not nest; stray top-level text becomes a fragment
    of its own; an element left open at the end runs to the end of the input.
    """
    parser = _Splitter(html_text)
    parser.feed(html_text)
    parser.close()
    if parser.depth > 0 and parser.start is not None:
        parser.spans.append((parser.start, len(html_text.rstrip())))
    parser._close_text(len(html_text))
    return [html_text[a:b] for a, b in parser.spans if b > a]


class _TextOf(HTMLParser):
    """Text content: tags stripped, entities unescaped, ``<br>`` as a newline."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.after_br = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "br":
            self.parts.append("\n")
            self.after_br = True
        elif tag == "img":  # a formula: its source (the only images rendering writes)
            found = dict(attrs)
            if (found.get("src") or "").startswith(IMAGE_SCHEME):
                self.parts.append(found.get("alt") or "")

    handle_startendtag = handle_starttag

    def handle_data(self, data: str) -> None:
        if self.after_br and data.startswith("\n"):
            data = data[1:]  # python-markdown writes "<br>\n": one line break
        self.after_br = False
        self.parts.append(data)


def _text_of(fragment: str) -> str:
    parser = _TextOf()
    parser.feed(fragment)
    parser.close()
    return "".join(parser.parts)


# ------------------------------------------------------------- source helpers


def _blocks(text: str) -> tuple[list[int], str | None]:
    """Block boundaries ``[0, cut…, len(text)]`` and the fence still open at the end.

    The cuts are exactly the positions :func:`render.find_cut` may return."""
    cuts, fence = block_cuts(text)
    bounds = [0, *cuts]
    if text:
        bounds.append(len(text))
    return bounds, fence


def _fenced_code(source: str) -> list[str]:
    """The code of each fenced block python-markdown finds in ``source``, as written.

    render.py's fenced-code preprocessor runs on python-markdown's normalized
    text (tabs expanded, ``\\r`` folded, space-only lines emptied) and Pygments
    drops leading/trailing blank lines, so the ``<pre>`` text is not the code
    as written. Normalization keeps lines one-to-one, so the fences are found
    on the normalized text and the code is taken from the original lines."""
    raw_lines = _NEWLINES.split(source)
    # A stand-in for the Markdown instance: only tab_length is read.
    normalizer = NormalizeWhitespace(SimpleNamespace(tab_length=_TAB_LENGTH))
    normalized = "\n".join(normalizer.run(source.split("\n")))
    codes: list[str] = []
    line, pos = 0, 0
    for m in FencedBlockPreprocessor.FENCED_BLOCK_RE.finditer(normalized):
        first = line + normalized.count("\n", pos, m.start("code"))
        last = first + normalized.count("\n", m.start("code"), m.end("code"))
        line, pos = last, m.end("code")
        codes.append("\n".join(raw_lines[first:last]))
    return codes


def _is_fenced(fragment: str) -> bool:
    """A fenced block's ``<pre>`` (an indented code block's has a ``<code>`` child)."""
    return fragment.startswith(PRE_OPEN) and not fragment.startswith("<code>", len(PRE_OPEN))


def _rendered_units(source: str, fence: str | None) -> list[Unit]:
    """Units of one run of renderable blocks, rendered one-shot."""
    rendered, formulas = render_markdown_math(source)
    fragments = split_top_level(rendered)
    codes = _fenced_code(source if fence is None else f"{source}\n{fence}")
    if sum(map(_is_fenced, fragments)) != len(codes):
        codes = []  # render fell back to plain text (or a surprise): use <pre> text
    codes.reverse()
    units: list[Unit] = []
    for fragment in fragments:
        if fragment.startswith("<pre"):
            copy = codes.pop() if codes and _is_fenced(fragment) else _text_of(fragment)
            units.append(Unit("code", fragment, copy))
        else:
            found = tuple(formulas[k] for k in dict.fromkeys(keys_in(fragment)) if k in formulas)
            units.append(Unit("html", fragment, math=found))
    return units


def _strip_blank_lines(text: str) -> str:
    """``text`` without leading and trailing whitespace-only lines."""
    start = 0
    while True:
        nl = text.find("\n", start)
        if nl < 0 or text[start:nl].strip(" \t"):
            break
        start = nl + 1
    end = len(text)
    while True:
        nl = text.rfind("\n", start, end)
        if nl < 0 or text[nl + 1 : end].strip(" \t"):
            break
        end = nl
    if not text[start:end].strip():
        return ""
    return text[start:end]


def _plain_pieces(text: str) -> list[str]:
    """``text`` cut into display pieces of about :data:`PLAIN_PIECE` characters.

    ``display_pieces`` bounds the length of each *line* (it breaks only inside
    lines longer than the limit), not of each piece: a text of short lines
    comes back as one piece. So pieces are cut after a newline, greedily, at
    most PLAIN_PIECE characters each, and only a line longer than that goes
    through ``display_pieces`` (a display break depends on its own line only:
    after a newline there is always a grapheme boundary and the line length
    restarts). The result has exactly the display breaks of
    ``display_pieces(text, PLAIN_PIECE)`` plus cuts right after a newline; a
    piece cut at a newline keeps the ``'\\n'`` at its end. O(len(text)): short
    lines never reach the grapheme segmenter."""
    limit, n = PLAIN_PIECE, len(text)
    pieces: list[str] = []
    pos = 0
    while pos < n:
        if n - pos <= limit:
            pieces.append(text[pos:])
            break
        cut = text.rfind("\n", pos, pos + limit)
        if cut >= 0:  # whole lines, at most `limit` characters with the newline
            pieces.append(text[pos : cut + 1])
            pos = cut + 1
            continue
        end = text.find("\n", pos + limit)  # the line at pos has >= limit characters
        if end < 0:
            end = n
        parts = display_pieces(text[pos:end], limit)
        if end < n:
            parts[-1] += "\n"
        pieces += parts
        pos = end + 1
    return pieces


def _normalize_newlines(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _plain_units(text: str) -> list[Unit]:
    """Display pieces of ``text`` (newlines already normalized), one plain unit each."""
    return [Unit("plain", piece) for piece in _plain_pieces(text)]


# ------------------------------------------------------------------ public API


def render_units(text: str) -> tuple[Unit, ...]:
    """Units of a finished assistant message (Markdown; see the module docstring).

    A block longer than :data:`RENDER_LIMIT` (ignoring surrounding whitespace) is
    shown plain; a run of such blocks becomes one plain text (blank lines kept,
    leading/trailing blank lines dropped, newlines normalized), cut into display
    pieces. Empty text gives ``()``."""
    if not text:
        return ()
    bounds, fence = _blocks(text)
    units: list[Unit] = []
    run_start, run_plain = 0, False
    for a, b in itertools.pairwise(bounds):
        plain = len(text[a:b].strip()) > RENDER_LIMIT
        if plain != run_plain and a > run_start:
            units += _run(text[run_start:a], run_plain, None)
            run_start = a
        run_plain = plain
    units += _run(text[run_start:], run_plain, fence)
    return tuple(_split_long_tables(_split_long_code(units)))


def _split_long_tables(units: list[Unit]) -> list[Unit]:
    """Cut tables of more than TABLE_PIECE_ROWS body rows into tables of that
    many rows (the first keeps the header; the others are ``cont``). Every
    piece is as wide as the view and gives its first row's cells the same
    percentage widths, so the columns line up from piece to piece."""
    out: list[Unit] = []
    for unit in units:
        pieces = _table_pieces(unit.body) if unit.kind == "html" and unit.body.startswith("<table") else None
        if pieces is None:
            out.append(unit)
            continue
        for k, body in enumerate(pieces):
            keys = set(keys_in(body)) if unit.math else set()
            out.append(Unit("html", body, cont=k > 0, math=tuple(f for f in unit.math if f.key in keys)))
    return out


def _table_pieces(body: str) -> list[str] | None:
    """The pieces of one rendered table (python-markdown's ``<table><thead>…
    </thead><tbody><tr>…</tr>…</tbody></table>``), or None to keep it whole."""
    open_end = body.find(">") + 1
    rows_start = body.find("<tbody>")
    if rows_start < 0:
        return None
    rows_start += len("<tbody>")
    rows: list[str] = []  # each "\n<tr>…</tr>", exactly as rendered
    pos = rows_start
    while (end := body.find("</tr>", pos)) >= 0:
        rows.append(body[pos : end + len("</tr>")])
        pos = end + len("</tr>")
    close = body[pos:]  # "\n</tbody>\n</table>"
    if len(rows) <= TABLE_PIECE_ROWS or close.strip() != "</tbody>\n</table>":
        return None
    widths = _column_widths(body[open_end:rows_start], rows)
    table = body[:open_end].replace("<table", '<table width="100%"', 1)
    pieces = [table + _with_widths(body[open_end:rows_start], widths) + "".join(rows[:TABLE_PIECE_ROWS]) + close]
    for k in range(TABLE_PIECE_ROWS, len(rows), TABLE_PIECE_ROWS):
        group = _with_widths(rows[k], widths) + "".join(rows[k + 1 : k + TABLE_PIECE_ROWS])
        pieces.append(table + "\n<tbody>" + group + close)
    return pieces


def _column_widths(head: str, rows: list[str]) -> list[int]:
    """Percent widths of a table's columns (summing to 100), in proportion to
    each column's longest cell (at most _COLUMN_MAX_CHARS, at least its
    longest word) plus _COLUMN_PAD_CHARS."""
    longest: list[int] = []
    for row in (head, *rows):
        for n, cell in enumerate(_CELL.findall(row)):
            text = _text_of(cell)
            word = max(map(len, text.split()), default=0)
            size = max(word, min(_COLUMN_MAX_CHARS, len(text))) + _COLUMN_PAD_CHARS
            if n < len(longest):
                longest[n] = max(longest[n], size)
            else:
                longest.append(size)
    total = sum(longest) or 1
    widths = [size * 100 // total for size in longest]
    if widths:
        widths[-1] += 100 - sum(widths)
    return widths


def _with_widths(fragment: str, widths: list[int]) -> str:
    """``fragment`` with its first cells given ``width="P%"`` (Qt takes a
    column's width from its cells)."""
    cells = iter(widths)

    def widen(match: re.Match[str]) -> str:
        width = next(cells, None)
        return match.group(0) if width is None else f'{match.group(0)} width="{width}%"'

    return _CELL_OPEN.sub(widen, fragment, count=len(widths))


def _split_long_code(units: list[Unit]) -> list[Unit]:
    """Cut code units of more than CODE_PIECE_LINES lines into pieces.

    Pygments' inline output closes every span at the end of its line, so the
    highlighted lines can be regrouped into several ``<pre>`` with the same
    style; the first piece keeps ``copy`` (the whole code), the others are
    ``cont``."""
    out: list[Unit] = []
    for unit in units:
        if unit.kind != "code" or unit.body.count("\n") < CODE_PIECE_LINES:
            out.append(unit)
            continue
        open_end = unit.body.index(">") + 1
        head, inner = unit.body[:open_end], unit.body[open_end : -len("</pre>")]
        lines = inner.split("\n")
        for k in range(0, len(lines), CODE_PIECE_LINES):
            body = head + "\n".join(lines[k : k + CODE_PIECE_LINES]) + "</pre>"
            out.append(Unit("code", body, unit.copy if k == 0 else "", cont=k > 0))
    return out


def _run(source: str, plain: bool, fence: str | None) -> list[Unit]:
    if plain:
        body = _strip_blank_lines(_normalize_newlines(source))
        return _plain_units(body) if body else []
    return _rendered_units(source, fence) if source.strip() else []


def render_stream_units(block_text: str) -> tuple[Unit, ...]:
    """Units of the completed blocks of a reply still streaming (text ends at a cut)."""
    return render_units(block_text)


def render_plain_stream_units(source: str) -> tuple[Unit, ...]:
    """Units of a piece of a reply's open block that is too long to render
    (it will be plain in the final render too): its plain pieces, ending
    with the newline of its last line (the next piece goes on from there),
    except at the end of the block, whose trailing blank lines go as in a
    whole render."""
    body = _normalize_newlines(source)
    content = body.rstrip(" \t\n")
    if body.count("\n", len(content)) >= 2:  # the blank line that ends the block
        body = _strip_blank_lines(body)
    return tuple(_plain_units(body)) if body else ()


def settled_plain_end(text: str, start: int, most: int = 1 << 62) -> int:
    """How far from ``start`` (a line start in a block too long to render)
    the greedy plain pieces of :func:`_plain_pieces` cannot change any more
    as ``text`` grows: the end of the last piece with a full
    :data:`PLAIN_PIECE` of text after it. A line longer than that is
    settled once it ends (until then it stays in the tail, with its display
    breaks). At most about ``most`` characters from ``start`` (whole pieces)."""
    limit, n = PLAIN_PIECE, len(text)
    pos = start
    while n - pos > limit and pos - start < most:
        cut = text.rfind("\n", pos, pos + limit)
        if cut < 0:  # a long line: its pieces are known when it is whole
            cut = text.find("\n", pos + limit)
            if cut < 0:
                break
        pos = cut + 1
    return pos


def user_units(text: str) -> tuple[Unit, ...]:
    """A user's message: no Markdown, line breaks and spaces kept.

    Up to :data:`RENDER_LIMIT` characters: one html unit
    (:func:`render.render_user_text`); longer: plain display pieces (O(n))."""
    text = _normalize_newlines(text)
    if len(text) <= RENDER_LIMIT:
        return (Unit("html", render_user_text(text)),)
    return tuple(_plain_units(text))


def _table_piece_text(unit: Unit, more: bool, after: bool) -> str:
    """A piece of a split table's text, such that the pieces joined give the
    whole table's: a later piece drops the text of what it repeats in front
    of its rows, one followed by more drops its close."""
    body = unit.body
    rows = body.find("\n<tr>") if unit.cont else 0
    close = body.rfind("</tr>") + len("</tr>") if more else len(body)
    text = _text_of(body[rows:close]) if unit.cont else _text_of(body[:close])
    return ("\n" if after and not unit.cont else "") + text


def units_plain_text(units: Iterable[Unit]) -> str:
    """Roughly the text a reader sees: plain → body, code → copy, html → text content.

    Units are joined with ``'\\n'``, except that consecutive plain units (pieces of
    one text) are joined with nothing."""
    parts: list[str] = []
    previous = ""
    units = list(units)
    for i, unit in enumerate(units):
        split = unit.kind == "code" and i + 1 < len(units) and units[i + 1].cont
        if unit.kind == "code" and unit.cont:
            parts.append("\n" + _text_of(unit.body))  # the same code block goes on
        elif unit.kind == "html" and (unit.cont or (i + 1 < len(units) and units[i + 1].cont)):
            parts.append(_table_piece_text(unit, i + 1 < len(units) and units[i + 1].cont, bool(parts)))
        else:
            if parts and not (unit.kind == "plain" and previous == "plain"):
                parts.append("\n")
            if unit.kind == "plain":
                parts.append(unit.body)
            elif unit.kind == "code" and not split:
                parts.append(unit.copy)
            else:
                parts.append(_text_of(unit.body))
        previous = unit.kind
    return "".join(parts)

