"""Making the view's documents (``DocumentFactory``): one small
``QTextDocument`` per unit, with the view's font and the theme's code
colours, laid out at the view's text width. Documents never load a resource
(``items.UnitDocument``): a unit's formula images are added to its document
before its HTML is set (``math_images.MathImages``).

Threading rule: GUI thread only.
"""

from __future__ import annotations

from collections.abc import Iterator

from PyQt6.QtCore import QObject
from PyQt6.QtGui import QAbstractTextDocumentLayout, QColor, QGuiApplication, QTextCursor, QTextDocument
from PyQt6.QtWidgets import QWidget

from app.core.render import markdown as render
from app.core.render.blocks import Unit
from app.core.render.mathsvg import Formula
from app.ui.conversation.geometry import Metrics
from app.ui.conversation.items import UnitDocument, UnitSlot, collapse_leading_block
from app.ui.misc import theme
from app.ui.misc.math_images import MathImages

_WARM_SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1" viewBox="0 -1 1 1"><path d="M0 0L1 -1"/></svg>'


class DocumentFactory:
    """Documents parented to ``owner``, in ``metrics``' font and the theme's code colours."""

    def __init__(self, owner: QObject, metrics: Metrics) -> None:
        self._owner = owner
        self._metrics = metrics
        self.code_css = theme.current().code_css()
        self.math_color = theme.color("text")
        self.math = MathImages()

    def restyle(self) -> bool:
        """Take the current theme's code and text colours; True when they changed."""
        css, text = theme.current().code_css(), theme.color("text")
        if css == self.code_css and text == self.math_color:
            return False
        self.code_css, self.math_color = css, text
        return True

    def pixel_ratio(self) -> float:
        """The device pixel ratio formula images are drawn at."""
        if isinstance(self._owner, QWidget):
            return self._owner.devicePixelRatioF()
        screen = QGuiApplication.primaryScreen()
        return screen.devicePixelRatio() if screen is not None else 1.0

    def new_document(self) -> QTextDocument:
        doc = UnitDocument(self._owner)
        doc.setUndoRedoEnabled(False)
        doc.setDocumentMargin(0)
        doc.setDefaultFont(self._metrics.font)
        doc.setDefaultStyleSheet(self.code_css)  # colours of rendered code (the theme's)
        return doc

    def prepare(self, unit: Unit) -> Iterator[None]:
        """Rasterise ``unit``'s formula images one per step (a work job's
        steps: ~1 ms each), so that ``build_unit`` finds them cached and one
        slice never draws a paragraph's worth of formulas."""
        font, width, ratio = self._metrics.font, self._metrics.content_width(), self.pixel_ratio()
        for formula in unit.math:
            if formula.ok:
                self.math.image(formula, font, self.math_color, ratio, width)
                yield

    def selected_formulas(self, doc: QTextDocument, unit: Unit, start: int, stop: int,
                          color: QColor) -> list[QAbstractTextDocumentLayout.Selection]:
        """Selections that draw ``unit``'s formulas in [start, stop) in ``color`` (see ``MathImages.selected``)."""
        return self.math.selected(doc, start, stop, unit.math, self._metrics.font, color, self.pixel_ratio(),
                                  self._metrics.content_width())

    def build_unit(self, unit: Unit) -> UnitSlot:
        """A unit with its document, laid out and measured."""
        doc = self.new_document()
        if unit.kind == "plain":
            doc.setPlainText(unit.body.removesuffix("\n"))  # a piece cut after a newline
        else:
            if unit.math:
                self.math.add_to(doc, unit.math, self._metrics.font, self.math_color, self.pixel_ratio(),
                                 self._metrics.content_width())
            doc.setHtml(unit.body)
            if unit.body.startswith("<table"):
                collapse_leading_block(doc)
        width = self._metrics.content_width()
        doc.setTextWidth(width)
        return UnitSlot(unit, doc, doc.size().height(), width)

    def warm_up(self, sample_markdown: str) -> None:
        """Lay out a throw-away document with the view's fonts (font loading
        and glyph fallback are paid once, at start-up idle)."""
        doc = self.new_document()
        doc.setTextWidth(self._metrics.content_width())
        cur = QTextCursor(doc)
        cur.insertHtml(render.render_markdown(sample_markdown))
        cur.insertText(sample_markdown)
        doc.size()
        doc.deleteLater()
        self._warm_up_svg()

    def _warm_up_svg(self) -> None:
        """QtSvg's first paint loads and sets up the module (~100 ms, once):
        pay it at start-up idle rather than at the first formula."""
        formula = Formula("warm-up", "$x$", False, _WARM_SVG, 1.0, 1.0, 1.0)
        self.math.image(formula, self._metrics.font, self.math_color, 1.0, 0.0)
