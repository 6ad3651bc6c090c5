"""QtPdf (pdfium, in the PyQt6 wheel) as the core's ``PdfPages`` reader.

``open_pdf(path)`` loads the file and turns QtPdf's status into the core's
messages (password-protected, damaged); ``page_text(i)`` is one page's text.
Chosen over pure-Python ``pypdf``: a 300-page PDF's text took ~0.8 s here
against over a minute (``app.core.attachments.pdf``).

Threading rule: a worker thread (a background call); one document per
thread, never shared. Each call holds the GIL only for one page.
"""

from __future__ import annotations

from PyQt6.QtPdf import QPdfDocument

from app.core.attachments.pdf import corrupt_message, encrypted_message
from app.core.attachments.record import AttachmentError

_E = QPdfDocument.Error


class QtPdfPages:
    """An open PDF (``app.core.attachments.pdf.PdfPages``)."""

    def __init__(self, doc: QPdfDocument) -> None:
        self._doc = doc

    def page_count(self) -> int:
        return self._doc.pageCount()

    def page_text(self, index: int) -> str:
        return self._doc.getAllText(index).text()

    def close(self) -> None:
        self._doc.close()


def open_pdf(path: str) -> QtPdfPages:
    """Open ``path`` with QtPdf; AttachmentError when it cannot be read."""
    doc = QPdfDocument(None)
    error = doc.load(path)
    if error == _E.None_:
        return QtPdfPages(doc)
    doc.close()
    if error in (_E.IncorrectPassword, _E.UnsupportedSecurityScheme):
        raise AttachmentError(encrypted_message())
    if error == _E.FileNotFound:
        raise FileNotFoundError(path)
    raise AttachmentError(corrupt_message())
