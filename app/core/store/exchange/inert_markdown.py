"""A message body made inert for the Markdown export (Qt-free).

The export puts every message under a ``## You`` / ``## Rill`` heading; a
body is Markdown written by a model (or pasted by anyone), so without care it
could pose as another message (its own ``## Rill``, a setext underline), swallow
the messages after it (an unclosed code fence, an open HTML comment) or carry
live HTML and ``javascript:`` links into whatever renders the file (issue
#17). ``inert_body`` keeps the Markdown readable and changes only that:

* headings at the top level go two levels down (``#`` → ``###``, at most
  ``######``; setext headings become ATX ones), so only Rill's own headings
  are at levels 1 and 2;
* ``<`` outside code is written ``&lt;``: no raw HTML, no autolink;
* a link or reference definition to a ``javascript:``, ``vbscript:``,
  ``data:`` or ``file:`` address (entities and blanks decoded first) loses its
  link syntax and stays text;
* a code fence left open is closed at the end of the body.

The structure comes from markdown-it-py's CommonMark parser (block tokens
with their source lines); only code spans inside a line are found here, with
CommonMark's rule (a run of N backticks closes at the next run of exactly N).
"""

from __future__ import annotations

import bisect
import html
import re

from markdown_it import MarkdownIt

__all__ = ["inert_body", "inert_line"]

_PARSER = MarkdownIt("commonmark")
_DANGEROUS_SCHEMES = ("javascript:", "vbscript:", "data:", "file:")
_BACKTICKS = re.compile(r"`+")
_INLINE_LINK = re.compile(r"\]\(")
_REFERENCE = re.compile(r"^( {0,3})\[((?:[^\]\\]|\\.)+)\]:[ \t]*<?(.*)$")
_ATX = re.compile(r"^( {0,3})(#{1,6})(?=[ \t]|$)")
_BLANKS = re.compile(r"[\s\x00-\x1f]+")


def _dangerous(target: str) -> bool:
    """Does a link target (raw Markdown text after ``(``) name a script scheme?"""
    decoded = _BLANKS.sub("", html.unescape(target[:64])).lower().lstrip("<")
    return decoded.startswith(_DANGEROUS_SCHEMES)


def _code_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each inline code span of ``text`` (backticks included).
    The closing run of each length is found by bisection in that length's
    runs, so a line of many unmatched runs costs O(n log n), not O(n²)."""
    runs = list(_BACKTICKS.finditer(text))
    by_length: dict[int, list[int]] = {}
    for n, run in enumerate(runs):
        by_length.setdefault(len(run.group()), []).append(n)
    spans: list[tuple[int, int]] = []
    i = 0
    while i < len(runs):
        opening = runs[i]
        if opening.start() > 0 and text[opening.start() - 1] == "\\":
            i += 1
            continue
        same = by_length[len(opening.group())]
        k = bisect.bisect_right(same, i)
        if k < len(same):
            j = same[k]
            spans.append((opening.start(), runs[j].end()))
            i = j
        i += 1
    return spans


def _inert_text(text: str) -> str:
    """Text that is not code: ``<`` escaped, script links broken."""
    text = text.replace("<", "&lt;")
    out: list[str] = []
    last = 0
    for link in _INLINE_LINK.finditer(text):
        if _dangerous(text[link.end():]):
            out.append(text[last:link.start()] + "]\\(")
            last = link.end()
    out.append(text[last:])
    return "".join(out)


def inert_line(text: str) -> str:
    """One line of text (a title, an error) outside any structure, made inert."""
    return _inert_outside_code(text)


def _inert_outside_code(text: str) -> str:
    out: list[str] = []
    last = 0
    for start, end in _code_spans(text):
        out.append(_inert_text(text[last:start]))
        out.append(text[start:end])
        last = end
    out.append(_inert_text(text[last:]))
    return "".join(out)


def _closes(line: str, marker: str) -> bool:
    stripped = line.lstrip(" ")
    return len(line) - len(stripped) <= 3 and stripped.rstrip() != "" and \
        set(stripped.rstrip()) == {marker[0]} and len(stripped.rstrip()) >= len(marker)


def inert_body(body: str) -> str:
    """``body`` (Markdown) as it is safe to put under an export's heading."""
    text = body.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "\ufffd")
    lines = text.split("\n")
    code = [False] * len(lines)     # fenced or indented code: left exactly as it is
    demote: dict[int, int] = {}     # line -> heading level (top-level ATX)
    setext: dict[int, int] = {}     # first text line -> level; the underline is dropped
    drop: set[int] = set()
    open_fence = ""
    for token in _PARSER.parse(text):
        if token.map is None:
            continue
        first, end = token.map
        if token.type in ("fence", "code_block"):
            for n in range(first, min(end, len(lines))):
                code[n] = True
            # A fence that does not end with a closing line runs to the end of the body.
            if token.type == "fence" and not (end - 1 > first and _closes(lines[end - 1], token.markup)):
                open_fence = token.markup
        elif token.type == "heading_open" and token.level == 0:
            level = int(token.tag[1])
            if token.markup.startswith("#"):
                demote[first] = level
            else:
                setext[first] = level
                drop.add(end - 1)
    out: list[str] = []
    n = 0
    while n < len(lines):
        line = lines[n]
        if code[n]:
            out.append(line)
            n += 1
            continue
        if n in drop:
            n += 1
            continue
        reference = _REFERENCE.match(line)
        if reference and _dangerous(reference.group(3)):
            line = reference.group(1) + "\\" + line[len(reference.group(1)):]
        if n in demote:
            atx = _ATX.match(line)
            if atx:
                hashes = "#" * min(6, demote[n] + 2)
                line = atx.group(1) + hashes + line[atx.end():]
        elif n in setext:
            line = "#" * min(6, setext[n] + 2) + " " + line.strip()
        out.append(_inert_outside_code(line))
        n += 1
    result = "\n".join(out)
    if open_fence:
        result += ("" if result.endswith("\n") else "\n") + open_fence
    return result
