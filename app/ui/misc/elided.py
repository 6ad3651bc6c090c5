"""A one-line label that shortens its text with "…" when it has less room
than the text needs (``ElidedLabel``), so that a long file name never makes
its row, or the window, wider. ``text()`` stays the whole text.

Threading rule: GUI thread only.
"""

from __future__ import annotations

from PyQt6.QtCore import QSize, Qt
from PyQt6.QtGui import QPainter, QPaintEvent
from PyQt6.QtWidgets import QLabel, QSizePolicy, QWidget

__all__ = ["ElidedLabel"]

#: The narrowest it gets, in average character widths.
MIN_CHARS = 8


class ElidedLabel(QLabel):
    """Plain text on one line, elided in the middle when narrow (see the module docstring)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)

    def minimumSizeHint(self) -> QSize:
        hint = super().minimumSizeHint()
        return QSize(min(hint.width(), self.fontMetrics().averageCharWidth() * MIN_CHARS), hint.height())

    def paintEvent(self, event: QPaintEvent | None) -> None:
        rect = self.contentsRect()
        shown = self.fontMetrics().elidedText(self.text(), Qt.TextElideMode.ElideMiddle, rect.width())
        painter = QPainter(self)
        painter.setPen(self.palette().color(self.foregroundRole()))
        painter.drawText(rect, int(self.alignment() | Qt.AlignmentFlag.AlignVCenter), shown)
        painter.end()
