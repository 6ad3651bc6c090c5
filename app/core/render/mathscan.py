"""Finding TeX math in Markdown source (Qt-free, pure Python, never raises).

Delimiters, as models write them (issue #20):

* ``$$…$$`` and ``\\[…\\]``: display math; ``\\(…\\)``: inline math — always;
* ``$…$``: inline math under Pandoc's ``tex_math_dollars`` rule: the opening
  ``$`` is not followed by whitespace, the closing one is not preceded by
  whitespace and not followed by a digit. So "$5 and $10" and "costs $3–$5"
  stay text.

Never inside code: fenced blocks (python-markdown's fence rule, the one
``app.core.render.markdown.block_cuts`` uses), indented code blocks (outside
lists) and code spans (a backtick run closed by the next run of the same
length) are skipped, and no formula reaches into one. A delimiter preceded by
an odd number of backslashes is text (``\\$`` is a dollar sign). Inside a
formula a backslash escapes the next character (``\\$`` and ``\\\\`` do not
close it). In a pipe table no formula crosses a ``|`` (its cells are parsed
apart; GFM asks for ``\\|`` inside a cell). A formula never crosses a blank line, so the block cuts of
``find_cut`` never split one, and its TeX is never empty.

Each span round-trips: ``text[span.start:span.end] == span.opener + span.tex +
span.closer``. Spans come sorted and never overlap.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

__all__ = ["MathSpan", "code_ranges", "find_math"]

#: The opening-fence line exactly as python-markdown's FENCED_BLOCK_RE accepts
#: it (``app.core.render.markdown.block_cuts`` uses it too).
FENCE_OPEN = re.compile(
    r"""(~{3,}|`{3,})[ ]*(?:\{[^\n]*\}|(?:\.?[\w#.+-]*[ ]*)?(?:hl_lines=("|').*?\2[ ]*)?)\Z"""
)
_TABLE_RULE = re.compile(r"[ \t]*\|?[ \t]*:?-+:?[ \t]*(\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*\r?\Z")
_CANDIDATE = re.compile(r"[$\\]")
_LIST_ITEM = re.compile(r"[ ]{0,3}(?:[*+-]|\d{1,9}[.)])[ \t]")
_BLANK = re.compile(r"[ \t\r]*\Z")


@dataclass(frozen=True)
class MathSpan:
    """One formula: ``text[start:end]`` is ``opener + tex + closer``."""

    start: int
    end: int
    tex: str
    display: bool
    opener: str
    closer: str

    @property
    def source(self) -> str:
        """The formula as written, delimiters included (what Copy gives)."""
        return f"{self.opener}{self.tex}{self.closer}"


def _indent(line: str) -> int:
    return len(line.expandtabs(4)) - len(line.expandtabs(4).lstrip(" "))


def _blocks(text: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """(prose blocks, code blocks) as (start, end) ranges, in order.

    A prose block is a run of lines between blank lines outside code; fenced
    blocks (fence at column 0, closed by the same fence) and indented code
    (≥ 4 columns after a blank line, not in a list) are code."""
    prose: list[tuple[int, int]] = []
    code: list[tuple[int, int]] = []
    pos, n = 0, len(text)
    block_start: int | None = None
    fence: str | None = None
    fence_start = 0
    after_blank, in_list, in_indented = True, False, False

    def close_block(end: int) -> None:
        nonlocal block_start
        if block_start is not None and end > block_start:
            prose.append((block_start, end))
        block_start = None

    while pos < n:
        end = text.find("\n", pos)
        if end < 0:
            end = n
        line = text[pos:end]
        if fence is not None:
            if line.startswith(fence) and not line[len(fence):].strip(" \t\r"):
                fence = None
                code.append((fence_start, end))
                after_blank = False
        elif _BLANK.match(line):
            close_block(pos)
            after_blank = True
        else:
            indent = _indent(line)
            m = FENCE_OPEN.match(line.rstrip("\r").expandtabs(4)) if line[:1] in "`~" else None
            if m:
                close_block(pos)
                fence, fence_start = m.group(1), pos
                in_indented = False
            elif indent >= 4 and not in_list and (after_blank or in_indented):
                close_block(pos)
                code.append((pos, end))
                in_indented = True
            else:
                if block_start is None:
                    block_start = pos
                in_indented = False
                if indent < 4:
                    in_list = bool(_LIST_ITEM.match(line)) or (in_list and not after_blank)
            after_blank = False
        pos = end + 1
    if fence is not None:
        code.append((fence_start, n))  # an open fence runs to the end
    close_block(n)
    return prose, code


def _escaped(text: str, i: int, lo: int) -> bool:
    """``text[i]`` is preceded by an odd number of backslashes (from ``lo`` on)."""
    k = i - 1
    while k >= lo and text[k] == "\\":
        k -= 1
    return (i - 1 - k) % 2 == 1


def _code_spans(text: str, lo: int, hi: int) -> list[tuple[int, int]]:
    """Code spans in ``text[lo:hi]``: a run of backticks not escaped, closed by
    the next run of exactly the same length. O(n): a run length found
    unclosed from some place on is never looked for again after it."""
    spans: list[tuple[int, int]] = []
    unclosed: dict[int, int] = {}  # run length -> from where no run of that length closes
    i = text.find("`", lo, hi)
    while 0 <= i < hi:
        j = i
        while j < hi and text[j] == "`":
            j += 1
        run = j - i
        if _escaped(text, i, lo):
            i = text.find("`", i + 1, hi)
            continue
        closed = -1
        if unclosed.get(run, hi + 1) > j:
            k = text.find("`", j, hi)
            while 0 <= k < hi:
                m = k
                while m < hi and text[m] == "`":
                    m += 1
                if m - k == run:
                    closed = m
                    break
                k = text.find("`", m, hi)
            if closed < 0:
                unclosed[run] = j
        if closed < 0:
            i = text.find("`", j, hi)
            continue
        spans.append((i, closed))
        i = text.find("`", closed, hi)
    return spans


def code_ranges(text: str) -> list[tuple[int, int]]:
    """Every code range of ``text`` (fences, indented code, code spans), sorted."""
    prose, code = _blocks(text)
    ranges = list(code)
    for lo, hi in prose:
        ranges += _code_spans(text, lo, hi)
    return sorted(ranges)


def _find_close(text: str, i: int, hi: int, closer: str, unclosed: dict[str, int]) -> int:
    """Index of ``closer`` in ``text[i:hi]`` not escaped by a backslash (so
    ``\\$`` and ``\\\\`` never close); -1 when absent. ``unclosed``: from where
    each closer is known to be absent (each is looked for to the end once)."""
    if unclosed.get(closer, hi + 1) <= i:
        return -1
    k = text.find(closer, i, hi)
    while 0 <= k <= hi - len(closer):
        if not _escaped(text, k, i):
            return k
        k = text.find(closer, k + 1, hi)
    unclosed[closer] = i
    return -1


def _single_closers(text: str, lo: int, hi: int) -> list[int]:
    """Where a ``$…$`` formula may close in ``text[lo:hi]``: a ``$`` not
    escaped, after a non-space, before neither a digit nor another ``$``."""
    found: list[int] = []
    k = text.find("$", lo, hi)
    while k >= 0:
        after = text[k + 1] if k + 1 < hi else ""
        if k > lo and not text[k - 1].isspace() and not after.isdigit() and after != "$" and not _escaped(text, k, lo):
            found.append(k)
        k = text.find("$", k + 1, hi)
    return found


def _math_in(text: str, lo: int, hi: int, out: list[MathSpan]) -> None:
    """Formulas in ``text[lo:hi]``, a stretch of prose with no code in it."""
    unclosed: dict[str, int] = {}
    closers: list[int] | None = None  # of $…$, found when first needed
    found = _CANDIDATE.search(text, lo, hi)
    while found is not None:
        i = found.start()
        nxt = i + 1
        if not _escaped(text, i, lo):
            nxt = _formula_at(text, i, lo, hi, unclosed, out)
            if nxt < 0:  # a single $: look for its closer among the possible ones
                if closers is None:
                    closers = _single_closers(text, lo, hi)
                nxt = _single_dollar(text, i, hi, closers, out)
        found = _CANDIDATE.search(text, nxt, hi)


def _formula_at(text: str, i: int, lo: int, hi: int, unclosed: dict[str, int], out: list[MathSpan]) -> int:
    """A formula opened by ``\\(``, ``\\[`` or ``$$`` at ``i`` (added to ``out``):
    where scanning goes on; -1 for a ``$`` that may open ``$…$``."""
    if text[i] == "\\":
        pair = text[i : i + 2]
        if pair in ("\\(", "\\["):
            closer = "\\)" if pair == "\\(" else "\\]"
            k = _find_close(text, i + 2, hi, closer, unclosed)
            if k > i + 2 and text[i + 2 : k].strip():
                out.append(MathSpan(i, k + 2, text[i + 2 : k], pair == "\\[", pair, closer))
                return k + 2
        return i + 2  # a TeX-less escape: skip the escaped character too
    if text.startswith("$$", i):
        k = _find_close(text, i + 2, hi, "$$", unclosed)
        if k > i + 2 and text[i + 2 : k].strip():
            out.append(MathSpan(i, k + 2, text[i + 2 : k], True, "$$", "$$"))
            return k + 2
        return i + 2
    return -1


def _single_dollar(text: str, i: int, hi: int, closers: list[int], out: list[MathSpan]) -> int:
    """A ``$…$`` formula opened at ``i`` (added to ``out``); where scanning goes on."""
    if i + 1 < hi and not text[i + 1].isspace():
        n = bisect.bisect_right(closers, i + 1)
        if n < len(closers):
            k = closers[n]
            out.append(MathSpan(i, k + 1, text[i + 1 : k], False, "$", "$"))
            return k + 1
    return i + 1


def find_math(text: str) -> list[MathSpan]:
    """Every formula in Markdown ``text`` (see the module docstring)."""
    spans: list[MathSpan] = []
    if "$" not in text and "\\" not in text:
        return spans
    prose, _code = _blocks(text)
    for lo, hi in prose:
        gap = lo
        cells = _is_table(text, lo, hi)
        for a, b in [*_code_spans(text, lo, hi), (hi, hi)]:
            if cells:  # a table's cells are parsed apart: no formula crosses a |
                for bar in _bars(text, gap, a):
                    _math_in(text, gap, bar, spans)
                    gap = bar + 1
            _math_in(text, gap, a, spans)
            gap = b
    return spans


def _is_table(text: str, lo: int, hi: int) -> bool:
    """The block is a pipe table (its second line is a delimiter row)."""
    first = text.find("\n", lo, hi)
    if first < 0 or "|" not in text[lo:first]:
        return False
    second = text.find("\n", first + 1, hi)
    return bool(_TABLE_RULE.match(text[first + 1 : hi if second < 0 else second]))


def _bars(text: str, lo: int, hi: int) -> list[int]:
    """Unescaped ``|`` in ``text[lo:hi]``."""
    bars: list[int] = []
    k = text.find("|", lo, hi)
    while k >= 0:
        if not _escaped(text, k, lo):
            bars.append(k)
        k = text.find("|", k + 1, hi)
    return bars
