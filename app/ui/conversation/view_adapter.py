"""Feeds the chat view from the message-list model's signals.

    modelReset          → view.clear(); add the rows; scroll to the bottom (another conversation)
    rowsAboutToBeRemoved → view.remove_messages(ids)   (what the reader sees stays put)
    rowsInserted        → view.add_messages(messages)  (a streaming message: add_message)
    dataChanged         → repaint (the footers ask the model's ``decoration`` again)

The view keeps its own items (documents, heights, selection); the adapter
only tells it which messages came and went. Threading rule: GUI thread only.
"""

from __future__ import annotations

from PyQt6.QtCore import QModelIndex, QObject, pyqtSignal

from app.core.conversation.model import Message, MessageStatus
from app.ui.conversation.model import MessageListModel
from app.ui.conversation.view import ChatView

__all__ = ["MessageViewAdapter"]


class MessageViewAdapter(QObject):
    """Keeps a ``ChatView`` showing the rows of a ``MessageListModel``."""

    #: Messages left the view (rows removed, or the view was reset); arg: list of message ids.
    messages_dropped = pyqtSignal(list)

    def __init__(self, model: MessageListModel, view: ChatView, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.model = model
        self.view = view
        self._shown_before_reset: list[str] = []
        self._connect_signals()

    def _connect_signals(self) -> None:
        self.model.modelAboutToBeReset.connect(self._on_model_about_to_be_reset)
        self.model.modelReset.connect(self._on_model_reset)
        self.model.rowsAboutToBeRemoved.connect(self._on_rows_about_to_be_removed)
        self.model.rowsInserted.connect(self._on_rows_inserted)
        self.model.dataChanged.connect(self._on_data_changed)
        self.view.set_decorator(self.model.decoration)

    def _on_model_about_to_be_reset(self) -> None:
        self._shown_before_reset = self.model.message_ids()

    def _on_model_reset(self) -> None:
        self.view.clear()
        dropped, self._shown_before_reset = self._shown_before_reset, []
        self.messages_dropped.emit(dropped)
        self._add(self.model.messages())
        self.view.scroll_to_bottom()

    def _on_rows_about_to_be_removed(self, parent: QModelIndex, first: int, last: int) -> None:
        ids = self.model.message_ids(first, last)
        self.view.remove_messages(ids)
        self.messages_dropped.emit(ids)

    def _on_rows_inserted(self, parent: QModelIndex, first: int, last: int) -> None:
        self._add(self.model.messages(first, last))

    def _on_data_changed(self, top_left: QModelIndex, bottom_right: QModelIndex, roles: list[int]) -> None:
        viewport = self.view.viewport()
        if viewport is not None:
            viewport.update()

    def _add(self, messages: list[Message]) -> None:
        """Finished messages in one batch; only the last message of a path can
        still be streaming: that one gets a live tail (``add_message``). One
        finished message (typed, or a new version) is shown as typing shows it."""
        streaming = bool(messages) and messages[-1].status == MessageStatus.STREAMING
        finished = messages[:-1] if streaming else messages
        if len(finished) == 1 and not streaming:
            self.view.add_message(finished[0])
        elif finished:
            self.view.add_messages(finished)
        if streaming:
            self.view.add_message(messages[-1])
