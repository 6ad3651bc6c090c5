"""Glyphs the math font lacks, borrowed from a system font (CJK in ``\\text{}``).

ziamath typesets every character, ``\\text{…}`` included, with its math font
(STIX Two Math), which has no CJK; and ziafont, which reads fonts for it,
cannot read the fonts that have CJK on a Linux desktop (Noto CJK is a
TrueType collection of CID-keyed CFF fonts). So the outlines of the missing
characters come from fontTools (a maintained library that reads every font
format), scaled to the math font's units, and ziamath draws them as glyphs of
its own font: :class:`FallbackMathFont` is a ziamath ``MathFont`` whose
``findglyph`` lends a borrowed glyph for a character it has no glyph for.

The font is the one fontconfig picks for Chinese (``fc-match``; a serif face
first, as ``\\text`` is set upright like body text), else the first of a few
known paths; none found means no fallback (the formula then shows its source,
as before). Loaded once per process, the first time a formula needs it (about
0.3 s for the cmap of a CJK font); each glyph is drawn once (about 1 ms).

Qt-free; runs where formulas are typeset (the render worker process, the
export process).
"""

from __future__ import annotations

import logging
import shutil
import subprocess
import threading
from pathlib import Path
from typing import Any

__all__ = ["FallbackGlyphs", "fallback_glyphs", "find_fallback_font", "math_font_with_fallback"]

log = logging.getLogger(__name__)

#: Borrowed glyphs get ids from here up, so they never meet the math font's.
BORROWED_BASE = 1 << 24
#: Fonts tried when fontconfig has no answer: (path, index in a collection).
KNOWN_FONTS: tuple[tuple[str, int], ...] = (
    ("/usr/share/fonts/opentype/noto/NotoSerifCJK-Regular.ttc", 2),
    ("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc", 2),
    ("/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf", 0),
    ("/usr/share/fonts/truetype/wqy/wqy-microhei.ttc", 0),
    ("/System/Library/Fonts/PingFang.ttc", 0),
    ("C:/Windows/Fonts/msyh.ttc", 0),
)
_FC_PATTERNS = ("serif:lang=zh-cn", "sans-serif:lang=zh-cn")
_PROBE = "中"


def find_fallback_font() -> tuple[str, int] | None:
    """(path, face index) of a font with CJK glyphs, or None."""
    fc_match = shutil.which("fc-match")
    if fc_match:
        for pattern in _FC_PATTERNS:
            try:
                found = subprocess.run(
                    [fc_match, "-f", "%{file}|%{index}", pattern],
                    capture_output=True, text=True, timeout=5, check=False).stdout
            except (OSError, subprocess.SubprocessError):
                break
            path, _, face = found.partition("|")
            if path and Path(path).is_file() and _covers(path, int(face or 0)):
                return path, int(face or 0)
    for path, index in KNOWN_FONTS:
        if Path(path).is_file() and _covers(path, index):
            return path, index
    return None


def _covers(path: str, index: int) -> bool:
    try:
        from fontTools.ttLib import TTFont

        font = TTFont(path, fontNumber=index, lazy=True)
        cmap = font.getBestCmap() or {}
        return ord(_PROBE) in cmap and "hmtx" in font
    except Exception as exc:  # noqa: BLE001 - a font we cannot read is no fallback
        log.debug("math fallback font %s: %s", path, exc)
        return False


class FallbackGlyphs:
    """Outlines of one font, in ziafont's terms, scaled to ``units_per_em``."""

    def __init__(self, path: str, index: int, units_per_em: int) -> None:
        from fontTools.ttLib import TTFont

        self._font: Any = TTFont(path, fontNumber=index, lazy=True)
        self._cmap: dict[int, str] = self._font.getBestCmap() or {}
        self._glyph_set: Any = self._font.getGlyphSet()
        self._metrics: Any = self._font["hmtx"].metrics
        self._scale = units_per_em / float(self._font["head"].unitsPerEm)
        self._ids: dict[str, int] = {}
        self.path = path

    def has(self, char: str) -> bool:
        return ord(char) in self._cmap

    def outline(self, char: str) -> tuple[list[Any], tuple[float, float, float, float], float] | None:
        """(ziafont path operators, bbox (xmin, xmax, ymin, ymax), advance), scaled."""
        name = self._cmap.get(ord(char))
        if name is None:
            return None
        from ziafont.svgpath import Cubic, Lineto, Moveto, Point, Quad

        k = self._scale
        ops: list[Any] = []
        xs: list[float] = []
        ys: list[float] = []

        def point(p: tuple[float, float]) -> Any:
            xs.append(p[0] * k)
            ys.append(p[1] * k)
            return Point(p[0] * k, p[1] * k)  # type: ignore[no-untyped-call]  # ziafont's Point is untyped

        from fontTools.pens.basePen import BasePen

        class _Pen(BasePen):  # type: ignore[misc]  # fontTools has no type hints
            def _moveTo(self, p: tuple[float, float]) -> None:
                ops.append(Moveto(point(p)))

            def _lineTo(self, p: tuple[float, float]) -> None:
                ops.append(Lineto(point(p)))

            def _curveToOne(self, p1: tuple[float, float], p2: tuple[float, float],
                            p3: tuple[float, float]) -> None:
                ops.append(Cubic(point(p1), point(p2), point(p3)))

            def _qCurveToOne(self, p1: tuple[float, float], p2: tuple[float, float]) -> None:
                ops.append(Quad(point(p1), point(p2)))

        self._glyph_set[name].draw(_Pen(self._glyph_set))
        advance = self._metrics[name][0] * k
        box = (min(xs), max(xs), min(ys), max(ys)) if xs else (0.0, advance, 0.0, 0.0)
        return ops, box, advance

    def glyph_id(self, char: str) -> int:
        return self._ids.setdefault(char, BORROWED_BASE + len(self._ids))


_lock = threading.Lock()
_loaded: list[FallbackGlyphs | None] = []


def fallback_glyphs(units_per_em: int) -> FallbackGlyphs | None:
    """The process's fallback font (found and opened once), or None."""
    with _lock:
        if not _loaded:
            found = find_fallback_font()
            glyphs = None
            if found is not None:
                try:
                    glyphs = FallbackGlyphs(found[0], found[1], units_per_em)
                except Exception as exc:  # noqa: BLE001 - no fallback then, never a crash
                    log.info("math fallback font %s: %s", found[0], exc)
            _loaded.append(glyphs)
        return _loaded[0]


def math_font_with_fallback(fname: str | Path, basesize: float) -> Any:
    """ziamath's math font ``fname`` lending borrowed glyphs for what it lacks."""
    from ziafont.fonttypes import BBox
    from ziafont.glyph import SimpleGlyph
    from ziamath.mathfont import MathFont

    class FallbackMathFont(MathFont):
        """STIX Two Math plus the fallback font's glyphs (see the module)."""

        def __init__(self, name: str | Path, size: float) -> None:
            super().__init__(name, size)
            self._borrowed: dict[int, Any] = {}
            self._advances: dict[int, float] = {}
            self._fallback = fallback_glyphs(int(self.info.layout.unitsperem))

        def lacks(self, char: str) -> bool:
            """True when neither this font nor the fallback has ``char``."""
            if self.glyphindex(char) != 0:
                return False
            return self._fallback is None or not self._fallback.has(char)

        def findglyph(self, char: str, variant: Any) -> Any:
            if self._fallback is None or self.glyphindex(char) != 0 or not self._fallback.has(char):
                return super().findglyph(char, variant)
            gid = self._fallback.glyph_id(char)
            glyph = self._borrowed.get(gid)
            if glyph is None:
                outline = self._fallback.outline(char)
                if outline is None:
                    return super().findglyph(char, variant)
                ops, box, advance = outline
                glyph = SimpleGlyph(gid, ops, BBox(*box), self)
                self._borrowed[gid] = glyph
                self._advances[gid] = advance
            return glyph

        def glyph_fromid(self, glyphid: int) -> Any:
            borrowed = self._borrowed.get(glyphid)
            return borrowed if borrowed is not None else super().glyph_fromid(glyphid)

        def advance(self, glyph: int, glyph2: int | None) -> Any:
            if glyph in self._advances:
                return self._advances[glyph]
            if glyph2 in self._advances:
                glyph2 = None  # no kerning into a borrowed glyph
            return super().advance(glyph, glyph2)

    return FallbackMathFont(fname, basesize)
