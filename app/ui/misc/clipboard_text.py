"""Clipboard text too long to make in one go (``LazyTextMime``): gathered in
GUI time slices after Copy and kept as UTF-8 bytes, so that a paste, in
Rill or in another application, is served at once whatever its length.

Why bytes: another application's paste reaches Qt as a request for
``text/plain;charset=utf-8`` bytes, and a ``QByteArray`` made once is
handed over without a copy (it is implicitly shared). A ``str`` would be
converted to a QString (~2 ms per MB) and encoded again at every paste.

Threading rule: GUI thread only.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator

from PyQt6.QtCore import QByteArray, QMimeData, QTimer, pyqtSignal

#: One work slice gathers and encodes text for at most about this long.
SLICE_S = 0.002
#: A longer piece is encoded in parts of this many characters (one part of
#: CJK text encodes in well under a millisecond).
ENCODE_CHARS = 256 * 1024
#: The formats the text is offered in (``QMimeData::text()`` asks for the first).
FORMATS = ("text/plain;charset=utf-8", "text/plain")


def encoded_parts(pieces: Iterable[str]) -> Iterator[bytes]:
    """``pieces`` as UTF-8, a long piece in ``ENCODE_CHARS`` parts (a part
    boundary is a code point boundary, so the parts join to the encoding of
    the whole). A lone surrogate (a server can send one in JSON) becomes
    ``?``."""
    for piece in pieces:
        if len(piece) <= ENCODE_CHARS:
            if piece:
                yield piece.encode("utf-8", "replace")
            continue
        for start in range(0, len(piece), ENCODE_CHARS):
            yield piece[start : start + ENCODE_CHARS].encode("utf-8", "replace")


class LazyTextMime(QMimeData):
    """Plain text for the clipboard, made from ``pieces`` (an iterable of
    strings, joined as they are) in work slices of at most ``SLICE_S`` from
    the next turn of the event loop on. A paste that comes before it is
    ready finishes it first; every paste then gets the same bytes."""

    #: Every piece is gathered and encoded: a paste is served at once now.
    prepared = pyqtSignal()

    def __init__(self, pieces: Iterable[str]) -> None:
        super().__init__()
        self._parts: Iterator[bytes] | None = encoded_parts(pieces)
        self._data = QByteArray()
        self._timer = QTimer(self)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self._on_timeout)
        self._timer.start()

    @property
    def ready(self) -> bool:
        """All of the text is gathered."""
        return self._parts is None

    def formats(self) -> list[str]:
        return list(FORMATS)

    def hasFormat(self, mime_type: str | None) -> bool:  # noqa: N802 (Qt API)
        return mime_type in FORMATS

    def retrieveData(self, mime_type: str | None, type_: object) -> object:  # noqa: N802 (Qt API)
        if mime_type not in FORMATS:
            return None
        self._gather(None)
        return self._data

    def _on_timeout(self) -> None:
        self._gather(time.perf_counter() + SLICE_S)

    def _gather(self, deadline: float | None) -> None:
        """Gather and encode until ``deadline`` (None: to the end)."""
        parts = self._parts
        if parts is None:
            return
        append = self._data.append
        for part in parts:
            append(part)
            if deadline is not None and time.perf_counter() >= deadline:
                return
        self._parts = None
        self._timer.stop()
        self.prepared.emit()
