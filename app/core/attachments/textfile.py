"""Text files read in bounded pieces (Qt-free): UTF-8 / UTF-16 with a BOM,
else UTF-8, else Windows-1252; a binary file named ``.txt`` is refused.

A file is read ``ATTACH_READ_PIECE_BYTES`` at a time and decoded
incrementally; reading stops at ``MAX_ATTACH_CHARS`` characters (the rest is
left out, with a notice). A piece with more than ``MAX_BINARY_SHARE`` of
non-text bytes (NUL and the C0 controls other than tab, newlines, form feed
and escape) makes the file binary.

Threading rule: any thread (pure functions); ``cancel`` is polled per piece.
"""

from __future__ import annotations

import codecs
import threading
import unicodedata
from collections.abc import Callable
from typing import BinaryIO

from app.core.attachments.record import AttachmentError, Extracted
from app.core.base import limits
from app.core.base.i18n import translate

#: Bytes that never occur in text (NUL and C0 controls but \t \n \v \f \r ESC).
_NON_TEXT = bytes(b for b in range(32) if b not in (9, 10, 11, 12, 13, 27)) + b"\x7f"
_DELETE_NON_TEXT = _NON_TEXT

Progress = Callable[[float], None]


def binary_share(piece: bytes) -> float:
    """The share of ``piece``'s bytes that never occur in text."""
    if not piece:
        return 0.0
    return (len(piece) - len(piece.translate(None, _DELETE_NON_TEXT))) / len(piece)


def _decoder(head: bytes) -> tuple[codecs.IncrementalDecoder, int]:
    if head.startswith(codecs.BOM_UTF8):
        return codecs.getincrementaldecoder("utf-8")("strict"), 3
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return codecs.getincrementaldecoder("utf-16")("replace"), 0
    return codecs.getincrementaldecoder("utf-8")("strict"), 0


def read_text(
    f: BinaryIO,
    size: int,
    cancel: threading.Event | None = None,
    progress: Progress | None = None,
) -> Extracted:
    """The text of an open binary file of ``size`` bytes (see the module docstring).
    Raises AttachmentError for a binary file."""
    piece_bytes = limits.ATTACH_READ_PIECE_BYTES
    head = f.read(piece_bytes)
    decoder, skip = _decoder(head)
    utf16 = skip == 0 and head[:2] in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)
    parts: list[str] = []
    chars = 0
    done = 0
    piece = head[skip:]
    fallback = False
    notice = ""
    while piece:
        if cancel is not None and cancel.is_set():
            raise AttachmentError(translate("Attachments", "Reading was cancelled."))
        if not utf16 and binary_share(piece) > limits.MAX_BINARY_SHARE:
            raise AttachmentError(translate(
                "Attachments", "This file is not text (it holds binary data), so it cannot be attached as text."))
        try:
            text = decoder.decode(piece)
        except UnicodeDecodeError:
            if fallback:
                raise
            # Not UTF-8: start again as Windows-1252 (every byte is a character).
            fallback = True
            f.seek(0)
            decoder = codecs.getincrementaldecoder("cp1252")("replace")
            parts.clear()
            chars = done = 0
            piece = f.read(piece_bytes)
            continue
        parts.append(text)
        chars += len(text)
        done += len(piece)
        if progress is not None and size > 0:
            progress(min(1.0, done / size))
        if chars >= limits.MAX_ATTACH_CHARS:
            notice = _cut_notice()
            break
        piece = f.read(piece_bytes)
    if not notice:
        try:
            parts.append(decoder.decode(b"", final=True))
        except UnicodeDecodeError:
            parts.append("\ufffd")
    text = "".join(parts)
    if len(text) > limits.MAX_ATTACH_CHARS:
        text = text[: limits.MAX_ATTACH_CHARS]
    return Extracted(clean_text(text), (0,), notice)


def _cut_notice() -> str:
    return translate("Attachments", "Only the first {chars} characters were read.").format(
        chars=limits.count_text(limits.MAX_ATTACH_CHARS))


def clean_text(text: str, compatibility: bool = False) -> str:
    """Text as the model and the index get it: newlines unified, NUL and lone
    surrogates gone, composed (NFC); with ``compatibility`` (a PDF's text, where
    fonts map CJK to compatibility ideographs and Kangxi radicals, and Latin to
    ligatures) those forms are normalised too (NFKC)."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if "\x00" in text:
        text = text.replace("\x00", "")
    if not text.isascii():
        text = text.encode("utf-8", "replace").decode("utf-8")  # lone surrogates out
        text = unicodedata.normalize("NFKC" if compatibility else "NFC", text)
    return text
