"""One entry point: a file in, an ``Attachment`` and its text out (Qt-free).

``extract(path)`` never raises for a bad file: the returned attachment's
``error`` says what is wrong (missing, too large, binary, encrypted...), and
the text is None. It reads the file once for its sha256 (in pieces) and once
for its text (in pieces, or through the PDF reader), so memory stays bounded
whatever the file's size. Images are only identified here (size, hash): the UI
decodes and scales them (``app.ui.attachments.images``).

Threading rule: a worker thread (it reads files); ``cancel`` is polled between pieces.
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from app.core.attachments.docx import read_docx
from app.core.attachments.html_text import html_to_text
from app.core.attachments.kinds import SNIFF_BYTES, kind_of
from app.core.attachments.pdf import PdfOpener, read_pdf
from app.core.attachments.record import Attachment, AttachmentError, AttachmentKind, Extracted
from app.core.attachments.textfile import read_text
from app.core.base import limits
from app.core.base.i18n import translate

log = logging.getLogger(__name__)

Progress = Callable[[float], None]


def file_sha256(path: str, cancel: threading.Event | None = None) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while piece := f.read(limits.ATTACH_READ_PIECE_BYTES):
            if cancel is not None and cancel.is_set():
                raise AttachmentError(translate("Attachments", "Reading was cancelled."))
            digest.update(piece)
    return digest.hexdigest()


def _missing(name: str) -> str:
    return translate("Attachments", "{name} is no longer there (it was moved or deleted).").format(name=name)


def extract(
    path: str | os.PathLike[str],
    *,
    pdf_opener: PdfOpener | None = None,
    cancel: threading.Event | None = None,
    progress: Progress | None = None,
    name: str | None = None,
) -> tuple[Attachment, Extracted | None]:
    """The attachment for the file at ``path`` and its text (None for an image
    or when it could not be read; then ``error`` says why)."""
    path = os.fspath(path)
    name = name or Path(path).name
    try:
        size = os.stat(path).st_size
    except FileNotFoundError:
        return Attachment(name, AttachmentKind.UNKNOWN, 0, path=path, error=_missing(name)), None
    except OSError as e:
        return Attachment(name, AttachmentKind.UNKNOWN, 0, path=path, error=_cannot_open(name, e)), None
    att = Attachment(name, AttachmentKind.UNKNOWN, size, path=path)
    if os.path.isdir(path):
        return att.failed(translate("Attachments", "{name} is a folder; attach the files in it instead.")
                          .format(name=name)), None
    if size > limits.MAX_ATTACH_FILE_BYTES:
        return att.failed(translate(
            "Attachments", "This file is {size}; files up to {limit} can be attached."
        ).format(size=limits.size_text(size), limit=limits.size_text(limits.MAX_ATTACH_FILE_BYTES))), None
    try:
        with open(path, "rb") as f:
            head = f.read(SNIFF_BYTES)
        kind = kind_of(name, head)
        att = replace(att, kind=kind)
        if kind is AttachmentKind.UNKNOWN:
            return att.failed(translate("Attachments", "Rill cannot read this kind of file.")), None
        att = replace(att, sha256=file_sha256(path, cancel))
        if kind is AttachmentKind.IMAGE:
            return att, None
        extracted = _text_of(kind, path, size, pdf_opener, cancel, progress)
    except AttachmentError as e:
        return att.failed(str(e)), None
    except FileNotFoundError:
        return att.failed(_missing(name)), None
    except OSError as e:
        return att.failed(_cannot_open(name, e)), None
    except Exception as e:  # a reader's bug must not lose the other attachments
        log.exception("reading %s failed", name)
        return att.failed(translate("Attachments", "This file could not be read ({error}).")
                          .format(error=type(e).__name__)), None
    if not extracted.text.strip():
        return att.with_text(extracted).failed(translate("Attachments", "This file holds no text.")), None
    return att.with_text(extracted), extracted


def _cannot_open(name: str, error: OSError) -> str:
    return translate("Attachments", "{name} cannot be opened: {reason}.").format(
        name=name, reason=error.strerror or type(error).__name__)


def _text_of(
    kind: AttachmentKind, path: str, size: int, pdf_opener: PdfOpener | None,
    cancel: threading.Event | None, progress: Progress | None,
) -> Extracted:
    if kind is AttachmentKind.PDF:
        if pdf_opener is None:
            raise AttachmentError(translate("Attachments", "PDF files cannot be read here."))
        return read_pdf(pdf_opener, path, cancel, progress)
    with open(path, "rb") as f:
        if kind is AttachmentKind.DOCX:
            return read_docx(f, cancel)
        extracted = read_text(f, size, cancel, progress)
    if kind is AttachmentKind.HTML:
        return replace(extracted, text=html_to_text(extracted.text))
    return extracted
