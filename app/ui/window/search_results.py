"""Opening a match of Search All Conversations (``app.ui.dialogs.search``):
its conversation on the branch that holds the message, scrolled to it, with
the words searched for highlighted.

Threading rule: GUI thread only.
"""

from __future__ import annotations

from PyQt6.QtCore import QCoreApplication, QObject
from PyQt6.QtWidgets import QStatusBar

from app.core.conversation.model import Conversation
from app.ui.conversation.controller import ChatController
from app.ui.conversation.view import ChatView
from app.ui.dialogs.search import highlight_text
from app.ui.services.library import ConversationLibrary
from app.ui.window.undo import UndoBar


class SearchResultOpener(QObject):
    """Shows search matches in ``chat``/``view``, reading conversations
    through ``library``; a conversation deleted a moment ago is brought back
    through ``undo_bar``; notices go to ``status_bar``."""

    def __init__(
        self,
        chat: ChatController,
        view: ChatView,
        library: ConversationLibrary,
        undo_bar: UndoBar,
        status_bar: QStatusBar,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._chat = chat
        self._view = view
        self._library = library
        self._undo_bar = undo_bar
        self._status_bar = status_bar

    def open_message(self, conversation_id: str, message_id: str, query: str) -> None:
        """Open the conversation, switch to the branch holding the message,
        scroll to it and highlight ``query``'s words in it."""
        if conversation_id and self._undo_bar.pending_conversation == conversation_id:
            self._undo_bar.undo()  # found in a conversation just deleted: bring it back
        self._library.load(conversation_id, lambda conv: self._show(conv, message_id, query))

    def _show(self, conv: Conversation | None, message_id: str, query: str) -> None:
        if conv is None:
            self._status_bar.showMessage(
                QCoreApplication.translate("MainWindow", "That conversation is no longer in the history."), 5000
            )
            return
        msg = conv.get(message_id)
        on_path = any(m.id == message_id for m in conv.messages)
        if msg is not None and not on_path:
            conv.switch_to(message_id)
            self._library.set_current_leaf(conv)
        if conv is not self._chat.conversation or not on_path:
            self._chat.show_conversation(conv)
        text = highlight_text(query, msg.content if msg is not None else "")
        if self._view.has_item(message_id):
            self._reveal(conv, message_id, text)
        else:  # a long conversation: its earlier messages come a moment later

            def once() -> None:
                self._view.history_completed.disconnect(once)
                self._reveal(conv, message_id, text)

            self._view.history_completed.connect(once)

    def _reveal(self, conv: Conversation, message_id: str, text: str) -> None:
        if self._chat.conversation is conv:
            self._view.set_find(text, (message_id, 0))
