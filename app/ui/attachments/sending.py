"""Sending with attachments: the pending files join the user message, the
store plans the prompt, then the reply starts with it.

``ConversationController`` hands every start of a reply here (send, edit,
regenerate, continue) with a ``starter``: a function that starts the reply
given an ``adapt`` for its messages. When the conversation has no
attachments (none pending, none stored) the reply starts at once, as
before. Otherwise ``AttachmentService.prepare`` runs one store job (save the
new attachments with their modes, read the whole texts, retrieve chunks for
the question) and the reply starts when its plan is back, a store hop later;
meanwhile ``preparing`` is True (the controller is not idle: no second send).

Signals:

* ``sources_attached(str, object)``: a reply started; args: its id, the tuple of Sources it was given (may be empty).

Threading rule: GUI thread. ``adapt`` runs on the inference thread (pure).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PyQt6.QtCore import QObject, pyqtSignal

from app.core.attachments.plan import PromptPlan
from app.core.backends.base import ChatMessage
from app.core.conversation.model import Conversation, Message, MessageStatus
from app.ui.attachments.service import AttachmentService

Adapt = Callable[[tuple[ChatMessage, ...]], tuple[ChatMessage, ...]]
#: Starts the reply with an ``adapt`` (or None: the messages as they are); returns the Reply.
Starter = Callable[[Adapt | None], Any]


class AttachmentSending(QObject):
    """See the module docstring."""

    sources_attached = pyqtSignal(str, object)

    def __init__(
        self,
        service: AttachmentService,
        context: Callable[[], int],
        reply_tokens: Callable[[Conversation], int],
        notify: Callable[[str, str], None],
        ready: Callable[[], bool],
        parent: QObject | None = None,
    ) -> None:
        """``context()``: the model's context in tokens (0: unknown);
        ``reply_tokens(conv)``: what a reply may take; ``notify(text, kind)``
        a line for the user; ``ready()``: a reply can start now."""
        super().__init__(parent)
        self.service = service
        self._context = context
        self._reply_tokens = reply_tokens
        self._notify = notify
        self._ready = ready
        self.preparing = False
        #: Whether the current model is sent images (the window sets it).
        self.can_see_images: Callable[[], bool] = lambda: False
        #: The messages the backend was given last (after the attachments joined
        #: them; set on the inference thread). ``rill doctor --print-prompt`` prints them.
        self.last_prompt: tuple[ChatMessage, ...] = ()

    def ready_to_send(self) -> bool:
        """False (and the user is told) while an attached file is still being read."""
        if self.service.reading:
            self._notify(self.tr("The attached files are still being read. Send again once they are ready."), "info")
            return False
        return True

    def start(self, conv: Conversation, question: Message | None, starter: Starter, *, new: bool = False) -> None:
        """Start the reply to ``question`` (the user message it answers) through ``starter``;
        ``new``: the user just sent it, and the pending attachments go with it."""
        items = self.service.take() if new else []
        if question is None or (not items and not self.service.has_attachments(conv.id)):
            self._started(conv, starter(self._recording(None)), PromptPlan())
            return
        path: list[tuple[str, str]] = []
        for m in conv.messages:
            if m.status not in (MessageStatus.ERROR, MessageStatus.STREAMING):
                path.append((m.id, m.content))
            if m.id == question.id:
                break
        self.preparing = True

        def planned(plan: PromptPlan) -> None:
            self.preparing = False
            if not self._ready():
                self._notify(self.tr("The model is not ready any more: the message was not answered."), "error")
                return
            self._started(conv, starter(self._recording(plan)), plan)

        self.service.prepare(conv.id, question.id, path, items, self._context(), self._reply_tokens(conv), planned)

    def _recording(self, plan: PromptPlan | None) -> Adapt:
        images = plan.images if plan is not None and self.can_see_images() else {}

        def adapt(messages: tuple[ChatMessage, ...]) -> tuple[ChatMessage, ...]:
            if plan is not None and (plan.contents or images):
                messages = tuple(
                    ChatMessage(m.role, plan.contents.get(m.id, m.content), m.id, images.get(m.id, ()))
                    if m.id in plan.contents or m.id in images else m
                    for m in messages)
            self.last_prompt = messages
            return messages

        return adapt

    def _started(self, conv: Conversation, reply: Any, plan: PromptPlan) -> None:
        message = getattr(reply, "message", None)
        if message is None:
            return
        if plan.sources:
            self.service.keep_sources(conv.id, message.id, plan.sources)
        self.sources_attached.emit(message.id, plan.sources)
