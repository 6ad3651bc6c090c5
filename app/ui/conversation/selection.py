"""Selection and clipboard helpers of the conversation view."""

from __future__ import annotations

from collections.abc import Callable

from PyQt6.QtCore import QMimeData


class LazyTextMime(QMimeData):
    """Plain text for the clipboard, made only when someone asks for it
    (a paste), at most once."""

    def __init__(self, make: Callable[[], str]) -> None:
        super().__init__()
        self._make: Callable[[], str] | None = make
        self._text = ""

    def formats(self) -> list[str]:
        return ["text/plain", "text/plain;charset=utf-8"]

    def hasFormat(self, mime_type: str | None) -> bool:
        return mime_type in self.formats()

    def retrieveData(self, mime_type: str | None, type_: object) -> object:
        if mime_type not in self.formats():
            return None
        if self._make is not None:
            self._text, self._make = self._make(), None
        return self._text
