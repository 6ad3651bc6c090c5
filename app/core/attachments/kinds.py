"""The kind of an attached file, from its name and its first bytes (Qt-free).

The name says what the user meant; the first bytes (``sniff``) catch a
misnamed file: a PDF named ``.txt`` is read as a PDF, a PNG named ``.md`` as
an image. Anything else goes by its extension; an unknown extension is tried as
text (source code comes in hundreds of extensions) and refused if it is binary.
"""

from __future__ import annotations

from pathlib import PurePath

from app.core.attachments.record import AttachmentKind

_BY_SUFFIX = {
    ".pdf": AttachmentKind.PDF,
    ".docx": AttachmentKind.DOCX,
    ".csv": AttachmentKind.CSV, ".tsv": AttachmentKind.CSV,
    ".json": AttachmentKind.JSON, ".jsonl": AttachmentKind.JSON, ".ndjson": AttachmentKind.JSON,
    ".html": AttachmentKind.HTML, ".htm": AttachmentKind.HTML, ".xhtml": AttachmentKind.HTML,
    ".png": AttachmentKind.IMAGE, ".jpg": AttachmentKind.IMAGE, ".jpeg": AttachmentKind.IMAGE,
    ".webp": AttachmentKind.IMAGE, ".gif": AttachmentKind.IMAGE,
}
#: Formats Rill cannot read, named so the chip can say so (rather than "binary").
_REFUSED = {".doc", ".xls", ".xlsx", ".ppt", ".pptx", ".odt", ".rtf", ".zip", ".gz", ".exe", ".dll", ".so",
            ".gguf", ".bin", ".mp3", ".mp4", ".mov", ".avi", ".bmp", ".tif", ".tiff", ".heic", ".svg"}

_MAGIC: tuple[tuple[bytes, AttachmentKind], ...] = (
    (b"%PDF-", AttachmentKind.PDF),
    (b"\x89PNG\r\n\x1a\n", AttachmentKind.IMAGE),
    (b"\xff\xd8\xff", AttachmentKind.IMAGE),
    (b"GIF87a", AttachmentKind.IMAGE),
    (b"GIF89a", AttachmentKind.IMAGE),
)

#: Bytes ``sniff`` looks at.
SNIFF_BYTES = 16


def kind_of_name(name: str) -> AttachmentKind:
    """The kind a file's name promises (``TEXT`` for an unknown extension)."""
    suffix = PurePath(name).suffix.lower()
    if suffix in _REFUSED:
        return AttachmentKind.UNKNOWN
    return _BY_SUFFIX.get(suffix, AttachmentKind.TEXT)


def sniff(head: bytes) -> AttachmentKind | None:
    """The kind the first bytes prove (None: they prove nothing)."""
    for magic, kind in _MAGIC:
        if head.startswith(magic):
            return kind
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return AttachmentKind.IMAGE
    return None


def kind_of(name: str, head: bytes) -> AttachmentKind:
    """The kind to read a file as: what its bytes prove, else what its name says.
    A ZIP named ``.docx`` stays a DOCX (the reader checks its parts)."""
    proved = sniff(head)
    if proved is not None:
        return proved
    named = kind_of_name(name)
    if named in (AttachmentKind.PDF, AttachmentKind.IMAGE):
        return named  # its reader says what is wrong with it
    return named
