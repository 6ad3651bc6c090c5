"""Formula images for the view's documents (``MathImages``): a unit's SVG
formulas (typeset in the render process, ``app.core.render.mathsvg``)
rasterised with QtSvg at the text's size, the theme's text colour and the
screen's pixel ratio, and added to the unit's document as the
``rill-math:KEY`` image resources its HTML names.

Typesetting (5–40 ms a formula) never happens here; this is the cheap part:
one ``QSvgRenderer`` paint per formula and size (~0.3–1 ms), cached by
(key, scale, colour, ratio) so a final render, a relayout or a
document built again take the image from the cache.

Size: the text's pixel size, times the ratio of its font's x-height to
STIX's (at most ``MAX_MATCH``): a formula's letters look as tall as the
text's. Placement: inline images are ``vertical-align: middle``, which Qt places
with its centre ``xHeight / 4`` above the baseline (``resizeInlineObject``):
the image is padded above or below so that the formula's own baseline lands
on the text's. A formula wider than the column is scaled down to fit.

Threading rule: GUI thread only.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Iterable

from PyQt6.QtCore import QByteArray, QPointF, QRectF, Qt, QUrl
from PyQt6.QtGui import (
    QAbstractTextDocumentLayout,
    QColor,
    QFont,
    QFontMetricsF,
    QImage,
    QPainter,
    QTextCursor,
    QTextDocument,
    QTextImageFormat,
)
from PyQt6.QtSvg import QSvgRenderer

from app.core.render.mathmarkdown import IMAGE_SCHEME
from app.core.render.mathsvg import BASE_PX, Formula

__all__ = ["MathImages", "formula_at", "formula_tip", "text_with_formulas"]

#: STIX Two Math's x-height, in em (474 of 1000 units).
STIX_X_HEIGHT = 0.474
#: At most this much larger than the text's size, to match its x-height.
MAX_MATCH = 1.2
#: Rasterised formulas kept (about 40 KB each at 2× for a line-high formula).
CACHE_SIZE = 512
#: The resource name of a formula's image in the selected text's colour.
SELECTED_SCHEME = "rill-math-selected:"


class MathImages:
    """Rasterises formulas and puts them into documents (see the module docstring)."""

    def __init__(self) -> None:
        self._cache: OrderedDict[tuple[str, int, str, float], QImage] = OrderedDict()
        self.rasterised = 0  # images drawn (tests: the cache works)

    def add_to(self, doc: QTextDocument, formulas: Iterable[Formula], font: QFont, color: QColor,
               dpr: float, max_width: float) -> None:
        """Add each rendered formula's image to ``doc`` (before its HTML is set)."""
        for formula in formulas:
            if formula.ok:
                image = self.image(formula, font, color, dpr, max_width)
                doc.addResource(QTextDocument.ResourceType.ImageResource.value,
                                QUrl(IMAGE_SCHEME + formula.key), image)

    def selected(self, doc: QTextDocument, start: int, stop: int, formulas: Iterable[Formula], font: QFont,
                 color: QColor, dpr: float, max_width: float) -> list[QAbstractTextDocumentLayout.Selection]:
        """Selections that draw the formulas between ``start`` and ``stop`` in
        ``color`` (the selected text's): Qt draws a selected image as it is,
        dark on the highlight; the selection's format names a copy of the
        image in the highlighted colour instead (added to ``doc`` on first use)."""
        by_name = {IMAGE_SCHEME + f.key: f for f in formulas if f.ok}
        out: list[QAbstractTextDocumentLayout.Selection] = []
        if not by_name:
            return out
        block = doc.findBlock(start)
        while block.isValid() and block.position() < stop:
            it = block.begin()
            while not it.atEnd():
                fragment = it.fragment()
                fmt = fragment.charFormat()
                name = fmt.toImageFormat().name() if fmt.isImageFormat() else ""
                a = fragment.position()
                if name in by_name and a < stop and a + fragment.length() > start:
                    selected = SELECTED_SCHEME + by_name[name].key
                    url = QUrl(selected)
                    if doc.resource(QTextDocument.ResourceType.ImageResource.value, url) is None:
                        image = self.image(by_name[name], font, color, dpr, max_width)
                        doc.addResource(QTextDocument.ResourceType.ImageResource.value, url, image)
                    cursor = QTextCursor(doc)
                    cursor.setPosition(max(a, start))
                    cursor.setPosition(min(a + fragment.length(), stop), QTextCursor.MoveMode.KeepAnchor)
                    s = QAbstractTextDocumentLayout.Selection()
                    s.cursor = cursor
                    image_format = QTextImageFormat()
                    image_format.setName(selected)
                    s.format = image_format
                    out.append(s)
                it += 1
            block = block.next()
        return out

    @staticmethod
    def scale(formula: Formula, font: QFont, max_width: float) -> float:
        """How much ``formula`` is scaled: to the font's size, or down to ``max_width``."""
        px = font.pixelSize() if font.pixelSize() > 0 else QFontMetricsF(font).height() * 0.75
        # Matched to the text by x-height (sans-serif UI fonts run larger than STIX at one size).
        match = min(MAX_MATCH, max(1.0, QFontMetricsF(font).xHeight() / (px * STIX_X_HEIGHT)))
        scale = px / BASE_PX * match
        if formula.width * scale > max_width > 0:
            scale = max_width / formula.width  # wider than the column: fit it
        return scale

    def refit(self, formulas: Iterable[Formula], font: QFont, old_width: float, new_width: float) -> bool:
        """A width change from ``old_width`` to ``new_width`` changes some image."""
        return any(self.scale(f, font, old_width) != self.scale(f, font, new_width) for f in formulas if f.ok)

    def image(self, formula: Formula, font: QFont, color: QColor, dpr: float, max_width: float) -> QImage:
        scale = self.scale(formula, font, max_width)
        key = (formula.key, round(scale * 1000), color.name(QColor.NameFormat.HexArgb), dpr)
        image = self._cache.get(key)
        if image is not None:
            self._cache.move_to_end(key)
            return image
        image = self._rasterise(formula, scale, QFontMetricsF(font).xHeight(), color, dpr)
        self._cache[key] = image
        if len(self._cache) > CACHE_SIZE:
            self._cache.popitem(last=False)
        self.rasterised += 1
        return image

    @staticmethod
    def _rasterise(formula: Formula, scale: float, x_height: float, color: QColor, dpr: float) -> QImage:
        w, h, ascent = formula.width * scale, formula.height * scale, formula.ascent * scale
        # Qt puts a middle-aligned image's ascent - descent at xHeight / 2.
        diff = ascent - (h - ascent) - x_height / 2
        pad_top, pad_bottom = max(0.0, -diff), max(0.0, diff)
        total = h + pad_top + pad_bottom
        image = QImage(max(1, math.ceil(w * dpr)), max(1, math.ceil(total * dpr)),
                       QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(0)
        renderer = QSvgRenderer(QByteArray(formula.svg.encode("utf-8")))
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.scale(dpr, dpr)
        renderer.render(painter, QRectF(0, pad_top, w, h))
        # The SVG is drawn in black: the theme's colour goes where it drew.
        painter.setCompositionMode(QPainter.CompositionMode.CompositionMode_SourceIn)
        painter.fillRect(QRectF(0, 0, w, total), color)
        painter.end()
        image.setDevicePixelRatio(dpr)
        return image


def text_with_formulas(doc: QTextDocument, start: int, stop: int, formulas: Iterable[Formula]) -> str:
    """The plain text of ``doc`` between ``start`` and ``stop`` with each
    formula image given back as its TeX source, delimiters included (what
    Copy puts on the clipboard)."""
    sources = {IMAGE_SCHEME + f.key: f.source for f in formulas}
    parts: list[str] = []
    block = doc.findBlock(start)
    while block.isValid() and block.position() < stop:
        if parts:
            parts.append("\n")
        it = block.begin()
        while not it.atEnd():
            fragment = it.fragment()
            a, b = fragment.position(), fragment.position() + fragment.length()
            if b > start and a < stop:
                fmt = fragment.charFormat()
                name = fmt.toImageFormat().name() if fmt.isImageFormat() else ""
                if name in sources:
                    parts.append(sources[name] * fragment.length())
                else:
                    text = fragment.text()
                    parts.append(text[max(0, start - a) : min(len(text), stop - a)])
            it += 1
        block = block.next()
    return "".join(parts).replace("\u2028", "\n").replace("\u00a0", " ")


def formula_at(doc: QTextDocument, point: QPointF, formulas: Iterable[Formula]) -> Formula | None:
    """The formula drawn (or shown as its source) at ``point`` of ``doc``."""
    by_name = {IMAGE_SCHEME + f.key: f for f in formulas}
    layout = doc.documentLayout()
    if not by_name or layout is None:
        return None
    pos = layout.hitTest(point, Qt.HitTestAccuracy.FuzzyHit)
    block = doc.findBlock(max(0, pos))
    text_layout = block.layout()
    if pos < 0 or text_layout is None:
        return None
    origin = layout.blockBoundingRect(block).topLeft()
    x = point.x() - origin.x()
    cursor = QTextCursor(doc)
    for char in (pos - 1, pos, pos + 1):  # the character under the point is one of these
        rel = char - block.position()
        if not 0 <= rel < block.length() - 1:
            continue
        line = text_layout.lineForTextPosition(rel)
        if not line.isValid() or not line.cursorToX(rel)[0] <= x < line.cursorToX(rel + 1)[0]:
            continue
        cursor.setPosition(char + 1)
        fmt = cursor.charFormat()
        name = fmt.toImageFormat().name() if fmt.isImageFormat() else fmt.toolTip()
        if name in by_name:
            return by_name[name]
    return None


def formula_tip(formula: Formula) -> str:
    """A formula's tooltip: why it is shown as its source, or its source."""
    return formula.reason() or formula.source
