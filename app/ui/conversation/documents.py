"""Making the view's documents (``DocumentFactory``): one small
``QTextDocument`` per unit, with the view's font and the theme's code
colours, laid out at the view's text width. Documents never load a resource
(``items.UnitDocument``).

Threading rule: GUI thread only.
"""

from __future__ import annotations

from PyQt6.QtCore import QObject
from PyQt6.QtGui import QTextCursor, QTextDocument

from app.core.render import markdown as render
from app.core.render.blocks import Unit
from app.ui.conversation.geometry import Metrics
from app.ui.conversation.items import UnitDocument, UnitSlot, collapse_leading_block
from app.ui.misc import theme


class DocumentFactory:
    """Documents parented to ``owner``, in ``metrics``' font and the theme's code colours."""

    def __init__(self, owner: QObject, metrics: Metrics) -> None:
        self._owner = owner
        self._metrics = metrics
        self.code_css = theme.current().code_css()

    def restyle(self) -> bool:
        """Take the current theme's code colours; True when they changed."""
        css = theme.current().code_css()
        if css == self.code_css:
            return False
        self.code_css = css
        return True

    def new_document(self) -> QTextDocument:
        doc = UnitDocument(self._owner)
        doc.setUndoRedoEnabled(False)
        doc.setDocumentMargin(0)
        doc.setDefaultFont(self._metrics.font)
        doc.setDefaultStyleSheet(self.code_css)  # colours of rendered code (the theme's)
        return doc

    def build_unit(self, unit: Unit) -> UnitSlot:
        """A unit with its document, laid out and measured."""
        doc = self.new_document()
        if unit.kind == "plain":
            doc.setPlainText(unit.body.removesuffix("\n"))  # a piece cut after a newline
        else:
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
