"""A PDF's text, page by page, through a reader the caller supplies (Qt-free).

The core cannot import Qt, and the PDF library worth using here is QtPdf
(pdfium, shipped in the PyQt6 wheel: a 300-page PDF's text in ~0.8 s where
pure-Python ``pypdf`` took over a minute on the same file). So the reading is a
``PdfPages`` protocol, implemented in the UI layer
(``app.ui.attachments.pdf_reader``), and this module does everything else:
the page limit, normalisation (CJK fonts often map to compatibility
ideographs and Kangxi radicals: NFKC), the character limit, and the messages
for an empty or scanned PDF. An opener raises ``AttachmentError`` itself for
an encrypted or corrupt file (it knows the library's status codes).

Threading rule: any thread the reader allows (QtPdf: a worker thread);
``cancel`` is polled per page.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Protocol

from app.core.attachments.record import AttachmentError, Extracted
from app.core.attachments.textfile import clean_text
from app.core.base import limits
from app.core.base.i18n import translate

#: A PDF whose pages average fewer visible characters than this has no text layer to speak of.
MIN_CHARS_PER_PAGE = 4


class PdfPages(Protocol):
    """An open PDF (see the module docstring)."""

    def page_count(self) -> int: ...

    def page_text(self, index: int) -> str: ...

    def close(self) -> None: ...


#: Opens a PDF file; raises AttachmentError (encrypted, corrupt, unreadable).
PdfOpener = Callable[[str], PdfPages]


def encrypted_message() -> str:
    return translate("Attachments", "This PDF is protected by a password, so its text cannot be read.")


def corrupt_message() -> str:
    return translate("Attachments", "This PDF is damaged or not a PDF, so its text cannot be read.")


def read_pdf(
    opener: PdfOpener,
    path: str,
    cancel: threading.Event | None = None,
    progress: Callable[[float], None] | None = None,
) -> Extracted:
    """The text of the PDF at ``path``, one page after another (see the module docstring)."""
    doc = opener(path)
    try:
        count = doc.page_count()
        if count <= 0:
            raise AttachmentError(translate("Attachments", "This PDF has no pages."))
        wanted = min(count, limits.MAX_ATTACH_PAGES)
        pages: list[str] = []
        chars = 0
        notice = ""
        for i in range(wanted):
            if cancel is not None and cancel.is_set():
                raise AttachmentError(translate("Attachments", "Reading was cancelled."))
            text = clean_text(doc.page_text(i), compatibility=True).strip()
            pages.append(text)
            chars += len(text)
            if progress is not None:
                progress((i + 1) / wanted)
            if chars >= limits.MAX_ATTACH_CHARS:
                notice = translate("Attachments", "Only the first {pages} of {count} pages were read (the text "
                                   "limit was reached).").format(pages=limits.count_text(i + 1),
                                                                 count=limits.count_text(count))
                break
        if not notice and wanted < count:
            notice = translate("Attachments", "Only the first {pages} of {count} pages were read.").format(
                pages=limits.count_text(wanted), count=limits.count_text(count))
    finally:
        doc.close()
    visible = sum(len("".join(p.split())) for p in pages)
    if visible < MIN_CHARS_PER_PAGE * len(pages):
        raise AttachmentError(translate(
            "Attachments", "This PDF has no text layer (it may be scanned), so there is no text to read. "
            "Run text recognition (OCR) on it first."))
    return Extracted.from_pages(pages, notice)
