"""DocumentFactory: unit documents in the view's font, laid out at its width."""

from __future__ import annotations

from PyQt6.QtCore import QObject
from PyQt6.QtGui import QFont

from app.core.render.blocks import Unit
from app.ui.conversation.documents import DocumentFactory
from app.ui.conversation.geometry import Metrics


def test_a_built_unit_is_measured_at_the_text_width(qapp) -> None:
    owner = QObject()
    metrics = Metrics(QFont(), lambda: 500)
    factory = DocumentFactory(owner, metrics)
    slot = factory.build_unit(Unit("plain", "hello\n"))
    assert slot.doc is not None and slot.doc.toPlainText() == "hello"
    assert slot.measured_width == metrics.content_width() == slot.doc.textWidth()
    assert slot.height > 0
    assert slot.doc.defaultFont().pixelSize() == metrics.font.pixelSize()
    assert factory.restyle() is False  # the theme did not change
