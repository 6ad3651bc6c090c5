"""The window's attachments: the service, the sending hook, and the window's
ways in (the attach button, drops, the chips above the message box).

``AttachmentWiring`` creates the ``AttachmentService`` (its store is the
window's ``StoreService``), hands the ``AttachmentSending`` hook to the
conversation controller, and asks the store about each conversation shown
(its attachments and its replies' sources).

Threading rule: GUI thread only.
"""

from __future__ import annotations

from collections.abc import Sequence

from PyQt6.QtCore import QObject

from app.core.conversation.model import Conversation
from app.ui.attachments.sending import AttachmentSending
from app.ui.attachments.service import AttachmentService
from app.ui.conversation.controller import ChatController
from app.ui.services.model_session import ModelState
from app.ui.services.store import StoreService


class AttachmentWiring(QObject):
    """See the module docstring."""

    def __init__(self, chat: ChatController, store: StoreService, parent: QObject | None = None) -> None:
        super().__init__(parent)
        convs = chat.conversations
        self.service = AttachmentService(store, self)

        def context() -> int:
            info = chat.model_info
            return info.n_ctx if info is not None else 0

        def ready() -> bool:
            return convs.session.state == ModelState.READY and convs.consumer.current is None

        self.sending = AttachmentSending(
            self.service, context, lambda conv: convs.reply_settings(conv).params.max_tokens, convs.notify, ready, self)
        convs.attachments = self.sending
        self._convs = convs
        self._connect_signals()

    def _connect_signals(self) -> None:
        self._convs.conversation_shown.connect(self._on_conversation_shown)

    def _on_conversation_shown(self, conv: Conversation) -> None:
        self.service.look_up(conv.id)

    def attach(self, paths: Sequence[str]) -> None:
        """Attach files to the message being written (button, drop, paste, doctor)."""
        self.service.add_files(list(paths))
