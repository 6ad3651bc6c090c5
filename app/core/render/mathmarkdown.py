"""TeX math inside python-markdown (Qt-free): formulas taken out of the
source before Markdown parses it, typeset, and put back as images.

``MathPreprocessor`` runs right after python-markdown normalizes the text
(tabs expanded, newlines folded) and before fenced code is found: it finds
the formulas (``app.core.render.mathscan``, which skips code itself), typesets
each one (``app.core.render.mathsvg``) and replaces it by a placeholder in
python-markdown's HTML stash, so no Markdown rule (``_`` emphasis, ``\\[``
escapes, line breaks) touches TeX. The stash gives back, per formula:

* rendered: ``<img src="rill-math:KEY" alt="SOURCE" style="vertical-align:middle">``
  — the view adds the image as a document resource named ``rill-math:KEY``
  (``Formula.key``), the HTML export swaps in the SVG itself (``inline_svg``);
  ``alt`` is the source with its delimiters (the text a reader copies);
* not typeset: ``<code title="rill-math:KEY">SOURCE</code>``: the source in
  code style; the view's tooltip tells why (``Formula.reason``).

A display formula on lines of its own becomes a paragraph of its own (a
blank line is put around it: models often write "so:\n$$…$$"), and a
paragraph holding only a display formula is centred (``MathPostprocessor``).

Threading rule: the instance is python-markdown's; ``formulas`` holds the
formulas of the current conversion (reset by ``begin``).
"""

from __future__ import annotations

import html
import re
import time
from typing import Any

from markdown.postprocessors import Postprocessor
from markdown.preprocessors import Preprocessor

from app.core.base.i18n import QT_TRANSLATE_NOOP
from app.core.base.limits import MAX_FORMULAS_PER_MESSAGE, MAX_MATH_RENDER_S
from app.core.render.mathscan import find_math
from app.core.render.mathsvg import Formula, cached_formula, formula_key, render_formula

__all__ = ["IMAGE_SCHEME", "MathPostprocessor", "MathPreprocessor", "formula_html", "keys_in"]

IMAGE_SCHEME = "rill-math:"
E_TOO_MANY = QT_TRANSLATE_NOOP("Math", "More than {detail} formulas in one message: this one is shown as written.")
E_TOO_SLOW = QT_TRANSLATE_NOOP(
    "Math", "Typesetting this message's formulas took more than {detail} s: this one is shown as written."
)
_KEYS = re.compile(r'(?:src|title)="rill-math:([0-9a-f]{16})"')
_DISPLAY_ALONE = re.compile(r'<p>(<img src="rill-math:[0-9a-f]{16}" class="display"[^>]*>)</p>')


def formula_html(formula: Formula) -> str:
    """What the stash gives back for ``formula`` (see the module docstring)."""
    source = html.escape(formula.source, quote=True)
    name = f"{IMAGE_SCHEME}{formula.key}"
    if formula.ok:
        kind = "display" if formula.display else "inline"
        return f'<img src="{name}" class="{kind}" alt="{source}" style="vertical-align:middle">'
    return f'<code title="{name}">{source}</code>'


def keys_in(fragment: str) -> list[str]:
    """The formula keys an HTML fragment refers to, in order."""
    return _KEYS.findall(fragment)


def _own_lines(text: str, start: int, end: int) -> tuple[str, str]:
    """Blank lines to put around a display formula written on lines of its
    own inside a paragraph ("so:\n$$…$$\nthen"), making it a paragraph of
    its own (centred), as TeX and KaTeX show it. Only at column 0: an
    indented one may belong to a list item, which a blank line would end."""
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end
    if line_start != start or text[end:line_end].strip():
        return "", ""
    before = "\n" if line_start > 0 and text[max(0, line_start - 2)] != "\n" else ""
    after = "\n" if line_end < len(text) and text[line_end + 1 : line_end + 2] not in ("\n", "") else ""
    return before, after


class MathPreprocessor(Preprocessor):  # type: ignore[misc]  # markdown ships no type information
    """Formulas → stash placeholders; ``formulas`` collects them by key."""

    def __init__(self, md: Any) -> None:
        super().__init__(md)
        self.formulas: dict[str, Formula] = {}

    def begin(self) -> None:
        self.formulas = {}

    def run(self, lines: list[str]) -> list[str]:
        text = "\n".join(lines)
        spans = find_math(text)
        if not spans:
            return lines
        out: list[str] = []
        pos = 0
        deadline = time.monotonic() + MAX_MATH_RENDER_S
        for n, span in enumerate(spans):
            formula = cached_formula(span.source, span.tex, span.display)
            if formula is not None:
                pass
            elif n >= MAX_FORMULAS_PER_MESSAGE:
                formula = Formula(formula_key(span.source, span.display), span.source, span.display,
                                  error=E_TOO_MANY, detail=str(MAX_FORMULAS_PER_MESSAGE))
            elif time.monotonic() > deadline:
                formula = Formula(formula_key(span.source, span.display), span.source, span.display,
                                  error=E_TOO_SLOW, detail=f"{MAX_MATH_RENDER_S:g}")
            else:
                formula = render_formula(span.source, span.tex, span.display)
            self.formulas[formula.key] = formula
            before, after = _own_lines(text, span.start, span.end) if span.display else ("", "")
            out += (text[pos : span.start], before, self.md.htmlStash.store(formula_html(formula)), after)
            pos = span.end
        out.append(text[pos:])
        return "".join(out).split("\n")


class MathPostprocessor(Postprocessor):  # type: ignore[misc]  # markdown ships no type information
    """Centres a paragraph that holds only a display formula."""

    def run(self, text: str) -> str:
        if IMAGE_SCHEME not in text:
            return text
        return _DISPLAY_ALONE.sub(r'<p align="center">\1</p>', text)
