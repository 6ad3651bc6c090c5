"""Feeds the chat view from the message-list model's signals.

    modelReset           → view.clear(); add the rows; scroll to the bottom (another conversation)
    rowsAboutToBeRemoved → view.remove_messages(ids)   (what the reader sees stays put)
    rowsInserted         → view.add_messages(messages)  (one message, or a streaming one: add_message)
    dataChanged          → repaint (the footers ask the model's ``decoration`` again)

A ``sync`` of the model removes the old suffix of the path and inserts the new
one. The view only appends, and a removal of what is on screen would leave
it scrolled to its (shorter) end, which then follows the new rows down: so
the adapter holds the removal until the sync is over (``path_synced``) and
adds the new rows first, at the end, then removes the old ones. The reader's
place is kept; a reader at the bottom stays at the bottom. (When a message is
both removed and inserted, a reply continued in place, it is removed first.)

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
    #: (``object``, not ``list``: a ``list`` signal converts every id to a QVariant, which was
    #: 28 ms of New Chat's 42 on a 26,554-message conversation.)
    messages_dropped = pyqtSignal(object)

    def __init__(self, model: MessageListModel, view: ChatView, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.model = model
        self.view = view
        self._shown_before_reset: list[str] = []
        self._removing: list[str] = []   # rows removed by the sync under way, still in the view
        self._connect_signals()

    def _connect_signals(self) -> None:
        self.model.modelAboutToBeReset.connect(self._on_model_about_to_be_reset)
        self.model.modelReset.connect(self._on_model_reset)
        self.model.rowsAboutToBeRemoved.connect(self._on_rows_about_to_be_removed)
        self.model.rowsInserted.connect(self._on_rows_inserted)
        self.model.dataChanged.connect(self._on_data_changed)
        self.model.path_synced.connect(self._on_path_synced)
        self.view.set_decorator(self.model.decoration)

    def _on_model_about_to_be_reset(self) -> None:
        self._shown_before_reset = self.model.message_ids()
        self._removing = []

    def _on_model_reset(self) -> None:
        self.view.clear()
        dropped, self._shown_before_reset = self._shown_before_reset, []
        self.messages_dropped.emit(dropped)
        messages = self.model.messages()
        # Only the last message of a path can still be streaming.
        streaming = bool(messages) and messages[-1].status == MessageStatus.STREAMING
        self.view.add_messages(messages[:-1] if streaming else messages)
        if streaming:
            self.view.add_message(messages[-1])
        self.view.scroll_to_bottom()

    def _on_rows_about_to_be_removed(self, parent: QModelIndex, first: int, last: int) -> None:
        self._removing.extend(self.model.message_ids(first, last))

    def _on_rows_inserted(self, parent: QModelIndex, first: int, last: int) -> None:
        messages = self.model.messages(first, last)
        if self._removing and not set(self._removing).isdisjoint(m.id for m in messages):
            self._remove_pending()
        self._add(messages)
        self._remove_pending()

    def _on_path_synced(self, first: int) -> None:
        self._remove_pending()

    def _on_data_changed(self, top_left: QModelIndex, bottom_right: QModelIndex, roles: list[int]) -> None:
        viewport = self.view.viewport()
        if viewport is not None:
            viewport.update()

    def _remove_pending(self) -> None:
        ids, self._removing = self._removing, []
        if ids:
            self.view.remove_messages(ids)
            self.messages_dropped.emit(ids)

    def _add(self, messages: list[Message]) -> None:
        """Append rows: finished ones in one batch (a single one as typing
        shows it), a streaming one (only the last of a path can be) with a
        live tail."""
        streaming = bool(messages) and messages[-1].status == MessageStatus.STREAMING
        finished = messages[:-1] if streaming else messages
        if len(finished) == 1:
            self.view.add_message(finished[0])
        elif finished:
            self.view.add_messages(finished)
        if streaming:
            self.view.add_message(messages[-1])
