"""One TeX formula → an SVG image with ziamath (Qt-free, pure Python).

Why ziamath (measured for issue #20, see docs/notes/math.md): it is pure
Python (MIT, with latex2mathml and ziafont), bundles the STIX Two Math font,
and renders what models write — ``aligned``, ``align``, ``cases``,
``pmatrix``/``bmatrix``/``vmatrix``, ``array``, ``\\boxed``, ``\\mathbb``,
``\\operatorname`` — in 2–40 ms per formula; matplotlib's mathtext fails on
the environments and ``\\boxed``. Output is SVG 1.1 (``config.svg2 =
False``): QtSvg (SVG Tiny) draws nothing of SVG 2's ``<symbol>`` glyphs. It holds the GIL all that time, so it runs
where the Markdown does: in the render worker process
(``app.core.render.jobs``), never on the GUI process's threads.

:func:`render_formula` never raises. A formula it cannot typeset comes back
with ``svg == ""`` and an ``error`` (a message id of the "Math" context, to
translate where it is shown, with ``detail``): the view then shows the
source in code style with the reason as a tooltip. What counts as broken:
ziamath or latex2mathml raising, braces that do not balance, an unknown
command (latex2mathml keeps ``\\foo`` as an identifier), a character the math
font has no glyph for and no fallback font has either (CJK inside
``\\text{}`` comes from the system's CJK font: mathfallback.py), or a formula longer than
``MAX_FORMULA_CHARS``.

Geometry: the SVG is drawn for a font of ``BASE_PX`` pixels; ``width``,
``height`` and ``ascent`` (top to baseline) are in those pixels, so a view
scales it to its own font size (it is a vector image). Cached by
(tex, display, colour).
"""

from __future__ import annotations

import hashlib
import logging
import re
import threading
import time
import warnings
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from app.core.base.i18n import QT_TRANSLATE_NOOP, translate
from app.core.base.limits import MAX_FORMULA_CHARS
from app.core.render.mathfallback import math_font_with_fallback

__all__ = ["BASE_PX", "CACHE_SIZE", "Formula", "cached_formula", "formula_key", "remember", "render_formula"]

log = logging.getLogger(__name__)

#: The font size (px) formulas are drawn at; views scale from it.
BASE_PX = 16.0
_VIEWBOX = re.compile(r'viewBox="([-\d.e]+) ([-\d.e]+) ([-\d.e]+) ([-\d.e]+)"')
_UNKNOWN = re.compile(r">(\\[A-Za-z]+)<")
_lock = threading.Lock()  # ziamath keeps module-level state (fonts, config)
#: Typeset formulas kept, by (source, tex, display, colour).
CACHE_SIZE = 2048
_cache: OrderedDict[tuple[str, str, bool, str], Formula] = OrderedDict()
_cache_lock = threading.Lock()

E_SYNTAX = QT_TRANSLATE_NOOP("Math", "This formula could not be typeset ({detail}).")
E_ARGUMENT = QT_TRANSLATE_NOOP("Math", "A command is missing its argument or a brace is not closed.")
E_BRACES = QT_TRANSLATE_NOOP("Math", "The braces {{ }} do not balance.")
E_ENVIRONMENT = QT_TRANSLATE_NOOP("Math", "An environment is opened with \\begin but not closed with \\end.")
E_LEFT_RIGHT = QT_TRANSLATE_NOOP("Math", "A \\left has no matching \\right.")
E_UNKNOWN = QT_TRANSLATE_NOOP("Math", "Unknown command {detail}.")
E_GLYPH = QT_TRANSLATE_NOOP("Math", "The math font has no glyph for “{detail}”.")
E_TOO_LONG = QT_TRANSLATE_NOOP("Math", "The formula is longer than {detail} characters.")

_ERRORS = {
    "NoAvailableTokensError": E_ARGUMENT,
    "MissingSuperScriptOrSubscriptError": E_ARGUMENT,
    "MissingEndError": E_ENVIRONMENT,
    "ExtraLeftOrMissingRightError": E_LEFT_RIGHT,
}


@dataclass(frozen=True)
class Formula:
    """A typeset formula (or why not). ``source`` has its delimiters."""

    key: str
    source: str
    display: bool
    svg: str = ""
    width: float = 0.0
    height: float = 0.0
    ascent: float = 0.0
    error: str = ""
    detail: str = ""
    ms: float = 0.0  # time it took to typeset (the doctor's render_ms)

    @property
    def ok(self) -> bool:
        return bool(self.svg)

    def reason(self) -> str:
        """Why it fell back, in the user's language ("" when it did not)."""
        return translate("Math", self.error).format(detail=self.detail) if self.error else ""


def formula_key(source: str, display: bool) -> str:
    """A short stable name for a formula (its image's resource name)."""
    digest = hashlib.blake2b(f"{int(display)}{source}".encode("utf-8", "surrogatepass"), digest_size=8)
    return digest.hexdigest()


def _braces_balance(tex: str) -> bool:
    depth, i, n = 0, 0, len(tex)
    while i < n:
        c = tex[i]
        if c == "\\":
            i += 2
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth < 0:
                return False
        i += 1
    return depth == 0


def _typeset(tex: str, display: bool, color: str) -> tuple[str, str, str]:
    """(svg, error, detail) for ``tex``."""
    with warnings.catch_warnings():
        # ziamath 0.13 finds its font with a deprecated importlib API at import
        warnings.simplefilter("ignore", DeprecationWarning)
        import ziamath  # imported here: 0.2 s, only where formulas are typeset

    # SVG 1.1 (paths in <defs>, xlink:href): QtSvg draws no SVG 2 <symbol>.
    ziamath.config.svg2 = False  # type: ignore[attr-defined]  # ziamath's __init__ has no __all__
    _speed_up()
    if len(tex) > MAX_FORMULA_CHARS:
        return "", E_TOO_LONG, str(MAX_FORMULA_CHARS)
    if not _braces_balance(tex):
        return "", E_BRACES, ""
    try:
        with _lock:
            font_name = _math_font()
            math: Any = ziamath.Latex(  # type: ignore[attr-defined]
                tex, size=BASE_PX, color=color, inline=not display, font=font_name)
            svg: str = math.svg()
            mathml: str = math.mathmlstr()
            font: Any = math.font
    except Exception as exc:  # noqa: BLE001 - broken TeX never breaks a reply
        name = type(exc).__name__
        return "", _ERRORS.get(name, E_SYNTAX), "" if name in _ERRORS else name
    unknown = _UNKNOWN.search(mathml)
    if unknown:
        return "", E_UNKNOWN, unknown.group(1)
    for ch in dict.fromkeys(tex):
        if ord(ch) > 0x7F and not ch.isspace() and font.lacks(ch):
            return "", E_GLYPH, ch
    return svg, "", ""


def _shallow_asdict(obj: Any) -> dict[str, Any]:
    return dict(vars(obj))


def _speed_up() -> None:
    """ziamath's ``parse_style`` (run for every MathML node) reads its parent's
    style through ``dataclasses.asdict``, a recursive deep copy, only to look
    up five plain fields: 12 % of all typesetting. A shallow dict of the same
    fields gives the same values (tested: the same SVG, byte for byte)."""
    from ziamath import styles

    if getattr(styles, "asdict", None) is not _shallow_asdict:
        setattr(styles, "asdict", _shallow_asdict)  # noqa: B010 - the module's own import of asdict


_FONT_NAME = "rill-math"


def _math_font() -> str:
    """The name under which ziamath finds its math font with the fallback
    glyphs (CJK in ``\\text{}``, see mathfallback.py); registered once."""
    from ziamath import zmath

    if _FONT_NAME not in zmath.loadedfonts:
        default: Any = zmath.loadedfonts["default"]
        zmath.loadedfonts[_FONT_NAME] = math_font_with_fallback(default.fname, default.basesize)
    return _FONT_NAME


def cached_formula(source: str, tex: str, display: bool, color: str = "#000000") -> Formula | None:
    """The formula if it was typeset already (no typesetting here)."""
    with _cache_lock:
        found = _cache.get((source, tex, display, color))
        if found is not None:
            _cache.move_to_end((source, tex, display, color))
        return found


def remember(source: str, tex: str, display: bool, formula: Formula, color: str = "#000000") -> None:
    """Keep ``formula`` (typeset elsewhere: ``mathbatch``) as ``render_formula`` would."""
    with _cache_lock:
        _cache[(source, tex, display, color)] = formula
        _cache.move_to_end((source, tex, display, color))
        if len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)


def render_formula(source: str, tex: str, display: bool, color: str = "#000000") -> Formula:
    """``tex`` (written as ``source``) typeset in ``color``; never raises.
    Cached (the last ``CACHE_SIZE``): a streamed reply's final render finds
    its formulas typeset."""
    found = cached_formula(source, tex, display, color)
    if found is not None:
        return found
    formula = _render(source, tex, display, color)
    remember(source, tex, display, formula, color)
    return formula


def _render(source: str, tex: str, display: bool, color: str) -> Formula:
    start = time.perf_counter()
    key = formula_key(source, display)
    try:
        svg, error, detail = _typeset(tex, display, color)
    except Exception as exc:  # noqa: BLE001 - e.g. RecursionError on hostile nesting
        log.debug("math: %s", exc)
        svg, error, detail = "", E_SYNTAX, type(exc).__name__
    ms = (time.perf_counter() - start) * 1000
    if not svg:
        return Formula(key, source, display, error=error, detail=detail, ms=ms)
    box = _VIEWBOX.search(svg)
    if box is None:
        return Formula(key, source, display, error=E_SYNTAX, detail="svg", ms=ms)
    _x, y, w, h = (float(v) for v in box.groups())
    return Formula(key, source, display, svg, w, h, -y, ms=ms)
