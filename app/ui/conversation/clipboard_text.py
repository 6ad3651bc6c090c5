"""Clipboard text too long to make in one go (``LazyTextMime``): gathered in
GUI time slices after Copy (the view's ``TimeSlicer``) and kept as UTF-8
bytes, so that a paste, in Rill or in another application, is served at
once whatever its length.

Why bytes: another application's paste reaches Qt as a request for
``text/plain;charset=utf-8`` bytes, and a ``QByteArray`` made once is
handed over without a copy (it is implicitly shared). A ``str`` would be
converted to a QString (~2 ms per MB) and encoded again at every paste.

Threading rule: GUI thread only.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from PyQt6.QtCore import QByteArray, QMimeData, pyqtSignal

from app.core.text.utf8 import utf8_parts
from app.ui.services.slicer import TimeSlicer

#: One work slice gathers and encodes text for at most about this long.
SLICE_S = 0.002
#: The formats the text is offered in (``QMimeData::text()`` asks for the first).
FORMATS = ("text/plain;charset=utf-8", "text/plain")


class LazyTextMime(QMimeData):
    """Plain text for the clipboard, made from ``pieces`` (an iterable of
    strings, joined as they are) in work slices of at most ``SLICE_S`` from
    the next turn of the event loop on. A paste that comes before it is
    ready finishes it first; every paste then gets the same bytes."""

    #: Every piece is gathered and encoded: a paste is served at once now.
    prepared = pyqtSignal()

    def __init__(self, pieces: Iterable[str]) -> None:
        super().__init__()
        self._data = QByteArray()
        self._steps: Iterator[None] | None = self._gathered(pieces)
        self._slicer = TimeSlicer(SLICE_S, self)
        steps = self._steps

        def first_slice() -> Iterator[None]:
            next(steps, None)  # the first part in the first slice, then the rest
            return steps

        self._slicer.queue("copy", first_slice)

    @property
    def ready(self) -> bool:
        """All of the text is gathered."""
        return self._steps is None

    def formats(self) -> list[str]:
        return list(FORMATS)

    def hasFormat(self, mime_type: str | None) -> bool:  # noqa: N802 (Qt API)
        return mime_type in FORMATS

    def retrieveData(self, mime_type: str | None, type_: object) -> object:  # noqa: N802 (Qt API)
        if mime_type not in FORMATS:
            return None
        steps = self._steps
        if steps is not None:  # asked for before it is ready: the rest now
            self._slicer.stop()
            for _ in steps:
                pass
        return self._data

    def _gathered(self, pieces: Iterable[str]) -> Iterator[None]:
        """Encode and keep ``pieces``, a step a part."""
        append = self._data.append
        for part in utf8_parts(pieces):
            append(part)
            yield
        self._steps = None
        self.prepared.emit()
