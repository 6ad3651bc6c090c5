"""Dropping files on the window: a drag carrying ``.gguf`` files opens the
model instead of being pasted into the message box; other local files are
attached to the message being written (``attach``: app.ui.window.attachments).

``GgufDrops`` is what the window's drag-and-drop handlers do: ``.gguf``
files join Rill's list of models and the first one is opened; anything else
is refused with a status message. ``GgufDropFilter`` routes the message
box's drops to it.

Threading rule: GUI thread only.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PyQt6.QtCore import QCoreApplication, QEvent, QMimeData, QObject
from PyQt6.QtGui import QDragEnterEvent, QDragMoveEvent, QDropEvent
from PyQt6.QtWidgets import QStatusBar

from app.core.base import settings
from app.core.models.paths import MODEL_SUFFIX

#: How long a drop's status message stays.
MESSAGE_MS = 6000


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


def local_files(mime: QMimeData | None) -> list[str]:
    """The local files (not models) a drag carries: they are attached."""
    _models, others = gguf_paths_from_mime(mime)
    if mime is None or not mime.hasUrls():
        return []
    local = {url.toLocalFile() for url in mime.urls() if url.isLocalFile()}
    return [p for p in others if p in local]


class GgufDropFilter(QObject):
    """An event filter for a widget that takes drops itself (the message
    box): a drag carrying ``.gguf`` files goes to ``on_drop`` (the window
    opens the model) instead of being pasted as text. Other drags are left
    to the widget (which attaches files: ``PromptEdit.file_paste``)."""

    def __init__(self, on_drop: Callable[[QMimeData | None], bool], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.on_drop = on_drop

    def eventFilter(self, watched: QObject | None, event: QEvent | None) -> bool:
        if event is None or event.type() not in (QEvent.Type.DragEnter, QEvent.Type.DragMove, QEvent.Type.Drop):
            return False
        drag: QDropEvent = event  # type: ignore[assignment]  # the three event types above are QDropEvents
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


class GgufDrops(QObject):
    """Drops of model files on a window (see the module docstring):
    ``open_model(path)`` opens one; messages go to ``status_bar``. With
    ``attach``, other local files are attached to the message being written."""

    def __init__(self, status_bar: QStatusBar, open_model: Callable[[str], None], parent: QObject | None = None,
                 attach: Callable[[list[str]], None] | None = None) -> None:
        super().__init__(parent)
        self._status_bar = status_bar
        self._open_model = open_model
        self.attach = attach

    def _not_a_model(self, others: list[str]) -> str:
        if others:
            return QCoreApplication.translate(
                "MainWindow", "{name} is not a model: Rill opens .gguf model files."
            ).format(name=Path(others[0]).name)
        return QCoreApplication.translate("MainWindow", "That is not a model: Rill opens .gguf model files.")

    def open_dropped(self, mime: QMimeData | None) -> bool:
        """Dropped files: ``.gguf`` ones join the list and the first one is
        opened; anything else is refused with a status message. True when a
        model was opened."""
        found, others = gguf_paths_from_mime(mime)
        if not found:
            files = local_files(mime)
            if self.attach is not None and files:
                self.attach(files)
                return False
            self._status_bar.showMessage(self._not_a_model(others), MESSAGE_MS)
            return False
        for path in found:
            settings.add_known_model(path)
        self._open_model(found[0])
        name = Path(found[0]).name
        if len(found) > 1:
            text = QCoreApplication.translate(
                "MainWindow", "Opening {name}… (%n more added to Model › Manage Models…)", "", len(found) - 1
            ).format(name=name)
        else:
            text = QCoreApplication.translate("MainWindow", "Opening {name}…").format(name=name)
        self._status_bar.showMessage(text, MESSAGE_MS)
        return True

    def drag_entered(self, event: QDragEnterEvent) -> None:
        found, others = gguf_paths_from_mime(event.mimeData())
        if found or (self.attach is not None and local_files(event.mimeData())):
            event.acceptProposedAction()
            return
        if others:
            self._status_bar.showMessage(self._not_a_model(others), MESSAGE_MS)
        event.ignore()

    def drag_moved(self, event: QDragMoveEvent) -> None:
        if gguf_paths_from_mime(event.mimeData())[0] or (self.attach is not None and local_files(event.mimeData())):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dropped(self, event: QDropEvent) -> None:
        if self.open_dropped(event.mimeData()) or (self.attach is not None and local_files(event.mimeData())):
            event.acceptProposedAction()
        else:
            event.ignore()
