"""Sending the prompt box's text: the checks before a message goes (a reply
still streaming: the message is queued, ``app.ui.window.queued``; a message
longer than the model's context), edit mode (a prompt put back in the box
to be sent as a new version) and Esc (cancels the edit, else stops the
reply).

Threading rule: GUI thread only.
"""

from __future__ import annotations

from PyQt6.QtCore import QCoreApplication, QObject
from PyQt6.QtWidgets import QStatusBar

from app.ui.conversation.controller import ChatController
from app.ui.conversation.prompt import PromptArea
from app.ui.services.activity import traced
from app.ui.window.queued import QueuedMessages


class SendController(QObject):
    """Sends ``prompt_area``'s text through ``chat``; its notices go to ``status_bar``."""

    def __init__(
        self, chat: ChatController, prompt_area: PromptArea, status_bar: QStatusBar, parent: QObject | None = None,
        queue: QueuedMessages | None = None,
    ) -> None:
        super().__init__(parent)
        self._chat = chat
        self._queue = queue
        self._prompt_area = prompt_area
        self._status_bar = status_bar
        self._editing: str | None = None  # a prompt being edited (its message id)
        self._connect_signals()

    def _connect_signals(self) -> None:
        self._prompt_area.submit_requested.connect(self.send)
        self._chat.edit_requested.connect(self._on_edit_requested)

    @property
    def editing(self) -> str | None:
        """The id of the prompt being edited (None when not editing)."""
        return self._editing

    def send(self) -> None:
        """Send the box's text (as a new version of the prompt being edited,
        if one is); it stays in the box when it cannot go. (A plain method,
        so that PyQt drops ``clicked``'s argument: the traced wrapper takes any.)"""
        self._send()

    @traced("send")
    def _send(self) -> None:
        area = self._prompt_area
        reply = self._chat.current_reply
        if reply is not None and self._queue is not None and self._editing is None and area.text().strip():
            if area.over_limit():
                self._status_bar.showMessage(self._too_long(), 8000)
                return
            self._queue.add(area.text())  # sent when the reply is over
            area.clear()
            return
        if reply is not None:
            title = getattr(reply.conversation, "title", "")
            if title:
                text = QCoreApplication.translate(
                    "MainWindow", "Not sent: Rill is still answering in “{title}”. Stop it (Esc) or wait; your text stays here."
                ).format(title=title)
            else:
                text = QCoreApplication.translate(
                    "MainWindow",
                    "Not sent: Rill is still answering in “a conversation”. Stop it (Esc) or wait; your text stays here."
                )
            self._status_bar.showMessage(text, 8000)
            return
        if area.over_limit():
            self._status_bar.showMessage(self._too_long(), 8000)
            return
        editing, self._editing = self._editing, None
        if editing is not None and self._chat.conversation.get(editing) is not None:
            if self._chat.send_edit(area.text(), editing):
                area.clear()
            return
        if self._chat.send(area.text()):
            area.clear()

    @staticmethod
    def _too_long() -> str:
        return QCoreApplication.translate(
            "MainWindow", "Not sent: the message is longer than the model's context. Remove the attachment or shorten it."
        )

    def escape(self) -> None:
        """Esc: cancel the edit if one is under way, else stop the reply."""
        if self._editing is not None:
            self._editing = None
            self._prompt_area.clear()
            self._status_bar.showMessage(QCoreApplication.translate("MainWindow", "Edit cancelled"), 2000)
            return
        self._chat.stop()

    def _on_edit_requested(self, message_id: str, text: str) -> None:
        """Edit a prompt: it goes back into the box; sending makes a new
        version (the old one and its replies stay, as "1/2")."""
        self._editing = message_id
        self._prompt_area.clear()
        editor = self._prompt_area.editor
        editor.setPlainText(text)
        editor.setFocus()
        self._status_bar.showMessage(
            QCoreApplication.translate("MainWindow", "Editing your message: Enter sends it as a new version, Esc cancels"), 8000
        )
