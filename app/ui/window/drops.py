"""Dropping model files on the window: a drag carrying ``.gguf`` files opens
the model instead of being pasted into the message box."""

from __future__ import annotations

from collections.abc import Callable

from PyQt6.QtCore import QEvent, QMimeData, QObject
from PyQt6.QtGui import QDropEvent

from app.core.models.paths import MODEL_SUFFIX


def gguf_paths_from_mime(mime: QMimeData | None) -> tuple[list[str], list[str]]:
    """(the local ``.gguf`` files, the other local files or URLs) a drag carries."""
    models: list[str] = []
    others: list[str] = []
    if mime is None or not mime.hasUrls():
        return models, others
    for url in mime.urls():
        if url.isLocalFile() and url.toLocalFile().lower().endswith(MODEL_SUFFIX):
            models.append(url.toLocalFile())
        else:
            others.append(url.toLocalFile() or url.toString())
    return models, others


class GgufDropFilter(QObject):
    """An event filter for a widget that takes drops itself (the message
    box): a drag carrying ``.gguf`` files goes to ``on_drop`` (the window
    opens the model) instead of being pasted as text. Other drags are left
    to the widget."""

    def __init__(self, on_drop: Callable[[QMimeData], bool], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.on_drop = on_drop

    def eventFilter(self, watched: QObject | None, event: QEvent | None) -> bool:  # noqa: N802 (Qt API)
        if event is None or event.type() not in (QEvent.Type.DragEnter, QEvent.Type.DragMove, QEvent.Type.Drop):
            return False
        drag: QDropEvent = event  # type: ignore[assignment]
        models, _others = gguf_paths_from_mime(drag.mimeData())
        if not models:
            return False
        if event.type() == QEvent.Type.Drop:
            if self.on_drop(drag.mimeData()):
                drag.acceptProposedAction()
            else:
                drag.ignore()
        else:
            drag.acceptProposedAction()
        return True
