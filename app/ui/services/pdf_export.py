"""Export: conversations as a PDF (``write_pdf``), with the math intact.

The page is the HTML export's (``app.core.store.exchange.export_html``), in
Qt's flavour: Qt's rich text has no SVG, so each formula stays a
``rill-math:`` image, rasterised at 4× (print quality) by
``app.ui.misc.math_images`` and added to the document as a resource; the
document is printed by ``QPdfWriter`` (A4, paginated by Qt). Always in the
light theme: paper is white.

Threading rule: Qt text work holds the GIL, so this runs where it cannot
stall a window: ``rill export --format pdf`` (the CLI, its own process — the
File menu runs it as a child process, ``app.ui.dialogs.export_process``).
File › Print… prints the same page (``app.ui.services.printing``).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path

from PyQt6.QtCore import QMarginsF, QSizeF
from PyQt6.QtGui import QColor, QFont, QPagedPaintDevice, QPageLayout, QPageSize, QPdfWriter, QTextDocument

from app.core.render.mathsvg import Formula
from app.core.store.exchange.export_html import LIGHT, html_page
from app.core.store.exchange.export_json import StoreReader
from app.ui.misc.math_images import MathImages

__all__ = ["MARGIN_MM", "PRINT_RATIO", "export_page", "print_page", "write_pdf"]

#: Formula images are drawn at this device pixel ratio (about 380 dpi on paper).
PRINT_RATIO = 4.0
_TEXT_PX = 14
MARGIN_MM = 15.0


def _document(page: str, formulas: Iterable[Formula], width_px: float) -> QTextDocument:
    doc = QTextDocument()
    doc.setUndoRedoEnabled(False)
    font = QFont()
    font.setPixelSize(_TEXT_PX)
    doc.setDefaultFont(font)
    MathImages().add_to(doc, formulas, font, QColor(LIGHT.text), PRINT_RATIO, width_px)
    doc.setHtml(page)
    return doc


def export_page(
    store: StoreReader,
    conversation_ids: Iterable[str] | None,
    progress: Callable[[float], None] | None = None,
) -> tuple[str, list[Formula], list[int]]:
    """The export's page in the light theme: (HTML, its formulas, messages
    shown per conversation); ``progress(fraction)`` as it is made."""
    formulas: dict[str, Formula] = {}
    shown: list[int] = []
    page = "".join(html_page(store, conversation_ids, LIGHT, progress, shown, formulas))
    return page, list(formulas.values()), shown


def print_page(page: str, formulas: Iterable[Formula], device: QPagedPaintDevice) -> None:
    """Lay ``page`` out on ``device``'s pages (its paper and margins) and print
    it there (a ``QPdfWriter`` or a ``QPrinter``: its copies and page range)."""
    rect = device.pageLayout().paintRect(QPageLayout.Unit.Millimeter)
    # The text area in the document's pixels (96 per inch).
    width_px, height_px = rect.width() / 25.4 * 96, rect.height() / 25.4 * 96
    doc = _document(page, formulas, width_px)
    doc.setPageSize(QSizeF(width_px, height_px))
    doc.print(device)


def write_pdf(
    store: StoreReader,
    conversation_ids: Iterable[str] | None,
    path: Path,
    progress: Callable[[float], None] | None = None,
) -> tuple[int, int]:
    """Write the PDF export to ``path`` (whole or not at all); returns
    (conversations, messages shown); ``progress(fraction)`` while the page is
    made (printing it is the last step). Raises OSError when it cannot be written."""
    page, formulas, shown = export_page(store, conversation_ids, progress)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=str(path.parent))
    os.close(fd)
    try:
        writer = QPdfWriter(tmp)
        writer.setTitle(path.stem)
        writer.setCreator("Rill")
        writer.setPageSize(QPageSize(QPageSize.PageSizeId.A4))
        writer.setPageMargins(QMarginsF(MARGIN_MM, MARGIN_MM, MARGIN_MM, MARGIN_MM), QPageLayout.Unit.Millimeter)
        print_page(page, formulas, writer)
        del writer  # finishes the file
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return len(shown), sum(shown)
