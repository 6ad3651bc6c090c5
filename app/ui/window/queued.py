"""Messages typed while a reply streams (``QueuedMessages``): sending then
queues the text as a chip above the message box (``QueuedChip``: its text,
Edit, Remove), and when the reply is over the first one is sent, then the
next after its own reply, each in the conversation it was typed in (one
that is not shown waits until it is, or until the user edits or removes it).

Edit puts a chip's text back in the box (and drops the chip): sending it
queues it again. Esc stops the reply as always; the queue stays.

Its strings keep the translation context "MainWindow".
Threading rule: GUI thread only.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field

from PyQt6.QtCore import QCoreApplication, QObject, QSize, Qt, QTimer, pyqtSignal
from PyQt6.QtWidgets import QFrame, QHBoxLayout, QLabel, QToolButton, QVBoxLayout, QWidget

from app.core.conversation.model import new_id
from app.core.text.display import without_controls
from app.ui.conversation.controller import ChatController, ChatState
from app.ui.misc import icons

__all__ = ["PREVIEW_CHARS", "QueuedChip", "QueuedMessages"]

PREVIEW_CHARS = 90  # of a queued message, on its chip (the tooltip has more)
TIP_CHARS = 600




@dataclass
class _Queued:
    text: str
    conversation_id: str
    id: str = field(default_factory=new_id)


class QueuedChip(QFrame):
    """One queued message: its first words, Edit and Remove.

    Signals: ``edit_requested(chip id)``, ``remove_requested(chip id)``."""

    #: Edit was clicked; arg: the queued message's id.
    edit_requested = pyqtSignal(str)
    #: Remove was clicked; arg: the queued message's id.
    remove_requested = pyqtSignal(str)

    def __init__(self, queued: _Queued, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("queuedChip")
        self.queued_id = queued.id
        # only the start is read: a queued 4 MB paste costs no more than a line
        one_line = " ".join(queued.text[: 4 * PREVIEW_CHARS + 64].split())
        more = len(one_line) > PREVIEW_CHARS or len(queued.text) > 4 * PREVIEW_CHARS + 64
        shown = without_controls(one_line[:PREVIEW_CHARS] + ("…" if more else ""))
        self.label = QLabel(QCoreApplication.translate("MainWindow", "Queued: {text}").format(text=shown))
        self.label.setObjectName("queuedText")
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        tip = html.escape(without_controls(queued.text[:TIP_CHARS], one_line=False)).replace("\n", "<br>")
        self.label.setToolTip(f"<qt>{tip}</qt>")  # (rich text, escaped: never the message's own markup)
        self.setAccessibleName(QCoreApplication.translate("MainWindow", "Queued message: {text}").format(text=shown))
        self.edit_button = self._button("edit", QCoreApplication.translate("MainWindow", "Edit the queued message"))
        self.remove_button = self._button("remove", QCoreApplication.translate("MainWindow", "Remove the queued message"))
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 2, 4, 2)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.edit_button)
        layout.addWidget(self.remove_button)
        self._connect_signals()

    def _button(self, icon: str, name: str) -> QToolButton:
        button = QToolButton()
        button.setIcon(icons.icon(icon, "muted", 14))
        button.setIconSize(QSize(14, 14))
        button.setAccessibleName(name)
        button.setToolTip(name)
        button.setAutoRaise(True)
        return button

    def _connect_signals(self) -> None:
        self.edit_button.clicked.connect(lambda: self.edit_requested.emit(self.queued_id))
        self.remove_button.clicked.connect(lambda: self.remove_requested.emit(self.queued_id))


class QueuedMessages(QObject):
    """The queue and its chips in ``tray`` (a widget of the composer's).

    Signals: ``queue_changed(count)``; ``text_returned(text)`` (Edit: the
    text for the box)."""

    #: The queue grew or shrank; arg: how many messages wait.
    queue_changed = pyqtSignal(int)
    #: A chip's Edit was clicked: its text goes back to the box; arg: the text.
    text_returned = pyqtSignal(str)

    def __init__(self, chat: ChatController, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._chat = chat
        self._queue: list[_Queued] = []
        self._chips: dict[str, QueuedChip] = {}
        self.tray = QWidget()
        self.tray.setObjectName("queuedTray")
        self._layout = QVBoxLayout(self.tray)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._layout.setSpacing(3)
        self.tray.hide()
        self._connect_signals()

    def _connect_signals(self) -> None:
        self._chat.reply_settled.connect(self._on_reply_settled)
        self._chat.conversation_shown.connect(self._on_conversation_shown)

    # ------------------------------------------------------------------ the queue

    def add(self, text: str) -> None:
        """Queue ``text`` for the conversation shown."""
        queued = _Queued(text, self._chat.conversation.id)
        self._queue.append(queued)
        chip = QueuedChip(queued)
        chip.edit_requested.connect(self._on_edit_requested)
        chip.remove_requested.connect(self._on_remove_requested)
        self._chips[queued.id] = chip
        self._layout.addWidget(chip)
        self.tray.show()
        self.queue_changed.emit(len(self._queue))

    def texts(self) -> list[str]:
        return [q.text for q in self._queue]

    def chips(self) -> list[QueuedChip]:
        return [self._chips[q.id] for q in self._queue]

    def remove(self, queued_id: str) -> str:
        """Drop one queued message; returns its text ("" when it was not there)."""
        found = next((q for q in self._queue if q.id == queued_id), None)
        if found is None:
            return ""
        self._queue.remove(found)
        chip = self._chips.pop(queued_id)
        self._layout.removeWidget(chip)
        chip.deleteLater()
        self.tray.setVisible(bool(self._queue))
        self.queue_changed.emit(len(self._queue))
        return found.text

    # ------------------------------------------------------------------ slots

    def _on_edit_requested(self, queued_id: str) -> None:
        text = self.remove(queued_id)
        if text:
            self.text_returned.emit(text)

    def _on_remove_requested(self, queued_id: str) -> None:
        self.remove(queued_id)

    def _on_reply_settled(self, _telemetry: object) -> None:
        QTimer.singleShot(0, self._send_next)  # (after the others hear of the reply's end)

    def _on_conversation_shown(self, _conversation: object) -> None:
        QTimer.singleShot(0, self._send_next)

    def _send_next(self) -> None:
        """Send the first message queued for the conversation shown, when idle."""
        if self._chat.state != ChatState.IDLE or self._chat.current_reply is not None:
            return
        conversation_id = self._chat.conversation.id
        queued = next((q for q in self._queue if q.conversation_id == conversation_id), None)
        if queued is not None and self._chat.send(queued.text):
            self.remove(queued.id)
