"""A DOCX's text (Qt-free): ``zipfile`` + expat from the standard library.

Not python-docx: it needs lxml and reads the whole part into a tree; the text
is all that is wanted. Bounded against hostile files:

* at most ``MAX_DOCX_MEMBERS`` archive entries (the central directory is read first);
* ``word/document.xml`` is inflated ``ATTACH_READ_PIECE_BYTES`` at a time and
  parsing stops after ``MAX_DOCX_XML_BYTES`` of *inflated* XML, whatever the
  archive claims (a ZIP bomb stops there, with a message);
* a DOCTYPE (entity expansion: "billion laughs") is refused;
* text stops at ``MAX_ATTACH_CHARS`` characters, with a notice.

Paragraphs (``w:p``) become lines, tabs and breaks are kept, table cells are
separated by tabs. Threading rule: any thread; ``cancel`` is polled per piece.
"""

from __future__ import annotations

import threading
import zipfile
import zlib
from typing import IO, BinaryIO
from xml.parsers import expat

from app.core.attachments.record import AttachmentError, Extracted
from app.core.attachments.textfile import clean_text
from app.core.base import limits
from app.core.base.i18n import translate

_W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_DOCUMENT = "word/document.xml"


class _Refused(Exception):
    pass


def _not_docx() -> AttachmentError:
    return AttachmentError(translate("Attachments", "This file is not a readable DOCX document."))


def read_docx(f: BinaryIO, cancel: threading.Event | None = None) -> Extracted:
    """The text of the DOCX in ``f`` (see the module docstring)."""
    try:
        archive = zipfile.ZipFile(f)
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as e:
        raise _not_docx() from e
    with archive:
        names = archive.infolist()
        if len(names) > limits.MAX_DOCX_MEMBERS:
            raise AttachmentError(translate(
                "Attachments", "This DOCX holds {count} parts (at most {limit} are read): it is not a normal document."
            ).format(count=limits.count_text(len(names)), limit=limits.count_text(limits.MAX_DOCX_MEMBERS)))
        try:
            member = archive.open(_DOCUMENT)
        except (KeyError, zipfile.BadZipFile, NotImplementedError, RuntimeError, OSError) as e:
            raise _not_docx() from e
        with member:
            return _parse(member, cancel)


def _parse(member: IO[bytes], cancel: threading.Event | None) -> Extracted:
    parts: list[str] = []
    state = {"chars": 0, "in_text": False}
    parser = expat.ParserCreate(namespace_separator=" ")

    def start(name: str, attrs: dict[str, str]) -> None:
        ns, _, local = name.rpartition(" ")
        if ns != _W:
            return
        if local == "t":
            state["in_text"] = True
        elif local == "tab":
            parts.append("\t")
        elif local in ("br", "cr"):
            parts.append("\n")

    def end(name: str) -> None:
        ns, _, local = name.rpartition(" ")
        if ns != _W:
            return
        if local == "t":
            state["in_text"] = False
        elif local == "p":
            parts.append("\n")
        elif local == "tc":
            parts.append("\t")

    def data(text: str) -> None:
        if state["in_text"]:
            parts.append(text)
            state["chars"] += len(text)

    def doctype(*_: object) -> None:
        raise _Refused()

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = data
    parser.StartDoctypeDeclHandler = doctype
    parser.buffer_text = True
    inflated = 0
    notice = ""
    try:
        while True:
            if cancel is not None and cancel.is_set():
                raise AttachmentError(translate("Attachments", "Reading was cancelled."))
            piece = member.read(limits.ATTACH_READ_PIECE_BYTES)
            if not piece:
                parser.Parse(b"", True)
                break
            inflated += len(piece)
            if inflated > limits.MAX_DOCX_XML_BYTES:
                raise AttachmentError(translate(
                    "Attachments", "This DOCX unpacks to more than {limit} of text markup: it is not read "
                    "(it may be a ZIP bomb)."
                ).format(limit=limits.size_text(limits.MAX_DOCX_XML_BYTES)))
            parser.Parse(piece, False)
            if state["chars"] >= limits.MAX_ATTACH_CHARS:
                notice = translate("Attachments", "Only the first {chars} characters were read.").format(
                    chars=limits.count_text(limits.MAX_ATTACH_CHARS))
                break
    except _Refused as e:
        raise AttachmentError(translate(
            "Attachments", "This DOCX declares its own XML entities, which Rill does not read.")) from e
    except (expat.ExpatError, zipfile.BadZipFile, zlib.error, OSError, EOFError, ValueError) as e:
        raise _not_docx() from e
    text = "".join(parts)[: limits.MAX_ATTACH_CHARS]
    lines = [line.rstrip("\t ") for line in text.split("\n")]
    # one blank line between paragraphs: chunking cuts there
    return Extracted(clean_text("\n\n".join(line for line in lines if line.strip())), (0,), notice)
