"""The conversation shown and what the user does to it: send, stop a reply's
conversation work, new and shown conversation, branch operations
(regenerate, edit, continue, switch version, delete, undo).

The path shown is a ``MessageListModel``; the view follows it through a
``MessageViewAdapter``, so a branch operation removes and inserts only the
rows from where the old and new path part (the reader's place is kept), and
showing another conversation is a reset. ``ChatController``
(``app.ui.conversation.controller``) is the facade joining it to the model
session and the stream consumer.

Threading rule: GUI thread only.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from PyQt6.QtCore import QCoreApplication, QObject, pyqtSignal

from app.core.backends.base import ChatMessage, SamplingParams
from app.core.config.preferences import ReplySettings, conversation_settings, merge
from app.core.conversation.deletion import MessageDeletion
from app.core.conversation.model import Conversation, Message, MessageStatus, Role
from app.core.conversation.reply import ReplyTelemetry
from app.ui.conversation.consumer import StreamConsumer
from app.ui.conversation.context import DroppedNotices
from app.ui.conversation.model import Decoration, MessageListModel
from app.ui.conversation.reply import Reply
from app.ui.conversation.view import ChatView
from app.ui.conversation.view_adapter import MessageViewAdapter
from app.ui.services.library import ConversationLibrary
from app.ui.services.model_session import ModelSession, ModelState

if TYPE_CHECKING:
    from app.ui.attachments.sending import AttachmentSending

__all__ = ["ConversationController"]


def _adapted(
    build: Callable[[], tuple[ChatMessage, ...]], adapt: Callable[[tuple[ChatMessage, ...]], tuple[ChatMessage, ...]]
) -> Callable[[], tuple[ChatMessage, ...]]:
    return lambda: adapt(build())


class ConversationController(QObject):
    """The conversation shown and what the user does to it (GUI thread only).

    Its strings keep the translation context "ChatController"."""

    #: Another conversation is shown (New Chat, the sidebar); arg: Conversation.
    conversation_shown = pyqtSignal(object)
    #: The shown conversation's current path changed (a version switch,
    #: regenerate, edit, continue, delete, undo); arg: Conversation.
    path_changed = pyqtSignal(object)
    #: The user asked to edit one of their prompts; args: message id, its text.
    edit_requested = pyqtSignal(str, str)
    #: A message (and what followed it) was deleted; args: a description,
    #: the MessageDeletion (``ChatController.undo_delete`` undoes it).
    message_deleted = pyqtSignal(str, object)
    #: A line for the user outside any message was shown; args: text, kind.
    notice_shown = pyqtSignal(str, str)

    def __init__(
        self,
        view: ChatView,
        session: ModelSession,
        consumer: StreamConsumer,
        library: ConversationLibrary | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.view = view
        self.session = session
        self.consumer = consumer
        self.service = session.service
        self.library = library
        self.conversation = library.new_conversation() if library is not None else Conversation()
        #: The rows of the path shown, and the adapter that keeps the view on them.
        self.rows = MessageListModel(self)
        self.adapter = MessageViewAdapter(self.rows, view, self)
        self.rows.show(self.conversation)
        #: The sampling of every reply (Settings; the window sets it), under
        #: each conversation's overrides. Read when a request is sent: a
        #: change never touches a reply already streaming.
        self.params = SamplingParams()
        #: The default system prompt (Settings); None: each conversation's
        #: ``system_prompt``. A conversation's own one overrides it.
        self.default_system_prompt: str | None = None
        #: What the model is sent when a conversation outgrows its context
        #: (app.core.backends.prompt_window.OverflowPolicy value).
        self.overflow = "rolling"
        self._dropped = DroppedNotices()
        #: The attachments of the message being written and each question's
        #: plan (``app.ui.attachments.sending``; the window sets it).
        self.attachments: AttachmentSending | None = None
        self._connect_signals()

    def _connect_signals(self) -> None:
        self.view.message_action_requested.connect(self.on_message_action)
        self.adapter.messages_dropped.connect(self._on_messages_dropped)
        self.consumer.reply_settled.connect(self._on_reply_settled)
        self.consumer.messages_dropped_reported.connect(self._on_messages_dropped_reported)
        self.consumer.notice_reported.connect(self._on_notice_reported)
        self.session.notice_requested.connect(self.notify)

    @property
    def idle(self) -> bool:
        """A model is ready and no reply is streaming."""
        return (self.session.state == ModelState.READY and self.consumer.current is None
                and not (self.attachments is not None and self.attachments.preparing))

    # -- notices ----------------------------------------------------------------

    def notify(self, text: str, kind: str = "info") -> None:
        """A line outside every message (its own item in the view)."""
        self.view.add_notice(text, kind)
        self.notice_shown.emit(text, kind)

    # -- sending -----------------------------------------------------------------

    def send(self, text: str) -> bool:
        """Send a prompt; False (and nothing changes) when not ready or empty.

        Never waits for an earlier reply's final render: that goes on in the
        background, in its own message."""
        if not self.idle or not text or text.isspace():
            return False
        if self.attachments is not None and not self.attachments.ready_to_send():
            return False
        if text[:1].isspace() or text[-1:].isspace():
            text = text.strip()
        conv = self.conversation
        user = conv.add_user(text)
        self.rows.sync()
        self._persist(conv, user)
        if self.attachments is not None:
            self.attachments.start(conv, user, lambda adapt: self._start_reply_for(conv, adapt=adapt), new=True)
        else:
            self._start_reply_for(conv)
        return True

    def _start_reply_for(
        self, conv: Conversation, parent_id: str | None = None, existing: Message | None = None,
        adapt: Callable[[tuple[ChatMessage, ...]], tuple[ChatMessage, ...]] | None = None,
    ) -> Reply:
        """Start a reply to the end of ``conv``'s path, or under ``parent_id``
        (regenerating: a sibling of the earlier reply), or go on with
        ``existing`` (continuing a stopped reply). ``adapt`` (attachments)
        changes the messages the model is sent, on the inference thread."""
        if existing is not None:
            reply_msg = existing
            continue_text = existing.content
            existing.status = MessageStatus.STREAMING
        else:
            reply_msg = conv.start_reply() if parent_id is None else conv.start_reply(parent_id=parent_id)
            continue_text = ""
        chosen = self.reply_settings(conv)  # as they are now: later changes are for later requests
        messages = conv.prompt_builder(upto=reply_msg, system_prompt=chosen.system_prompt)  # built on the inference thread
        if adapt is not None:
            messages = _adapted(messages, adapt)
        if conv is self.conversation:
            if parent_id is None and existing is None:
                self.rows.sync()
                self.view.glide_to_bottom()
            else:
                self._on_path_switched(redo_from=existing.id if existing is not None else None)
        if existing is None:
            self._persist(conv, reply_msg)
        sent_at = time.monotonic()
        rid = self.service.submit(messages, chosen.params, continue_text, overflow=self.overflow)
        info = self.session.model_info
        reply = Reply(rid, reply_msg, self.view, info.name if info else "", sent_at, self)
        reply.conversation = conv
        if self.library is not None:
            library = self.library
            reply.saver = lambda force, c=conv, m=reply_msg: library.message_changed(c, m, force)
        self.consumer.start(reply)
        return reply

    def reply_settings(self, conv: Conversation) -> ReplySettings:
        """The sampling and system prompt a request in ``conv`` gets now:
        ``params`` and the default system prompt under its overrides."""
        default = self.default_system_prompt if self.default_system_prompt is not None else conv.system_prompt
        return merge(self.params, default, conversation_settings(conv))

    def _persist(self, conv: Conversation, msg: Message) -> None:
        if self.library is not None:
            self.library.message_added(conv, msg)

    # -- the conversation shown ---------------------------------------------------

    def new_chat(self) -> None:
        """Start a new conversation: O(1) for the user whatever the size of
        the one shown. A reply still streaming goes on in its own conversation."""
        system_prompt = self.conversation.system_prompt
        if self.library is not None:
            conv = self.library.new_conversation(system_prompt)
        else:
            conv = Conversation(system_prompt=system_prompt)
        self.show_conversation(conv)

    def show_conversation(self, conv: Conversation) -> None:
        """Show ``conv`` (its current path): another conversation is a reset
        (the view starts again at the bottom; ``conversation_shown``); the one
        shown already is a path change (``path_changed``: its path may have
        been switched, e.g. to a search result). A reply streaming in another
        conversation keeps streaming and saving there; coming back to it
        shows it live."""
        if conv is self.conversation and self.rows.conversation is conv:
            self._on_path_switched(only_if_changed=True)
            return
        self.conversation = conv
        self.rows.show(conv)
        self._repaint_footers()
        self.conversation_shown.emit(conv)

    def _on_path_switched(self, redo_from: str | None = None, only_if_changed: bool = False) -> None:
        """The current path changed (a branch): update the rows from where it changed."""
        if self.rows.sync(redo_from) < 0 and only_if_changed:
            return
        if self.library is not None:
            self.library.set_current_leaf(self.conversation)
        self.path_changed.emit(self.conversation)

    def _repaint_footers(self) -> None:
        """Repaint: the view asks ``decoration`` for the footers it lays out,
        so nothing is set per message."""
        viewport = self.view.viewport()
        if viewport is not None:
            viewport.update()

    def decoration(self, message_id: str) -> Decoration:
        """A message's branch position (k of n) and footer actions."""
        return self.rows.decoration(message_id)

    # -- message actions ----------------------------------------------------------------

    def on_message_action(self, action: str, message_id: str) -> None:
        """A footer action of the view (``ChatView.message_action_requested``)."""
        if action == "regenerate":
            self.regenerate(message_id)
        elif action == "continue":
            self.continue_reply(message_id)
        elif action == "delete":
            self.delete_message(message_id)
        elif action in ("previous", "next"):
            self.switch_branch(message_id, -1 if action == "previous" else 1)
        elif action == "edit":
            msg = self.conversation.get(message_id)
            if msg is not None:
                self.edit_requested.emit(message_id, msg.content)

    def _busy_notice(self) -> bool:
        """True (and the user is told) when a reply is streaming: one local
        generation at a time."""
        reply = self.consumer.current
        if reply is None:
            return False
        title = reply.conversation.title if reply.conversation is not None else ""
        if title:
            text = QCoreApplication.translate(
                "ChatController", "Rill is still answering in “{title}”. Stop it (Esc) or wait, then try again."
            ).format(title=title)
        else:
            text = QCoreApplication.translate(
                "ChatController",
                "Rill is still answering in “another conversation”. Stop it (Esc) or wait, then try again.",
            )
        self.notify(text, "info")
        return True

    def regenerate(self, reply_id: str | None = None) -> bool:
        """A new reply to the same prompt, kept beside the old one ("2/2")."""
        conv = self.conversation
        if reply_id is None:
            replies = [m for m in conv.messages if m.role == Role.ASSISTANT.value]
            if not replies:
                return False
            reply_id = replies[-1].id
        msg = conv.get(reply_id)
        if msg is None or msg.role != Role.ASSISTANT.value or not self.idle:
            self._busy_notice()
            return False
        parent_id = msg.parent_id if msg.parent_id else None
        if self.attachments is not None:
            self.attachments.start(conv, conv.get(parent_id) if parent_id else None,
                                   lambda adapt: self._start_reply_for(conv, parent_id=parent_id, adapt=adapt))
        else:
            self._start_reply_for(conv, parent_id=parent_id)
        return True

    def send_edit(self, text: str, message_id: str) -> bool:
        """Send ``text`` as a new version of prompt ``message_id`` (a branch;
        the old prompt and its replies are kept)."""
        conv = self.conversation
        original = conv.get(message_id)
        text = text.strip()
        if original is None or not text or not self.idle:
            self._busy_notice()
            return False
        user = conv.add_user(text, parent_id=original.parent_id)
        self._persist(conv, user)
        self._on_path_switched()
        if self.attachments is not None:
            self.attachments.start(conv, user, lambda adapt: self._start_reply_for(conv, adapt=adapt), new=True)
        else:
            self._start_reply_for(conv)
        return True

    def continue_reply(self, reply_id: str) -> bool:
        """Go on with a stopped or cut reply, in the same message."""
        conv = self.conversation
        msg = conv.get(reply_id)
        if msg is None or msg.status not in (MessageStatus.STOPPED, MessageStatus.TRUNCATED):
            return False
        if not self.idle:
            self._busy_notice()
            return False
        if self.attachments is not None:
            self.attachments.start(conv, conv.get(msg.parent_id) if msg.parent_id else None,
                                   lambda adapt: self._start_reply_for(conv, existing=msg, adapt=adapt))
        else:
            self._start_reply_for(conv, existing=msg)
        return True

    def switch_branch(self, message_id: str, step: int) -> None:
        conv = self.conversation
        siblings = conv.siblings(message_id)
        ids = [m.id for m in siblings]
        if message_id not in ids:
            return
        k = ids.index(message_id) + step
        if 0 <= k < len(ids):
            conv.switch_to(ids[k])
            self._on_path_switched()

    def delete_message(self, message_id: str) -> bool:
        """Delete a message and what followed it; ``message_deleted`` carries
        the record that ``undo_delete`` takes."""
        conv = self.conversation
        deletion = MessageDeletion.apply(conv, message_id)
        if deletion is None:
            return False
        removed = list(deletion.removed)
        if self.library is not None:
            self.library.messages_removed(conv, removed)
        self._on_path_switched()
        if deletion.count == 1:
            what = QCoreApplication.translate("ChatController", "Message deleted")
        else:
            what = QCoreApplication.translate("ChatController", "%n messages deleted", None, deletion.count)  # type: ignore[arg-type]  # PyQt6 stubs: disambiguation may be None
        self.message_deleted.emit(what, deletion)
        return True

    def undo_delete(self, deletion: MessageDeletion) -> bool:
        """Undo a ``delete_message`` (its ``message_deleted`` record); False when undone already."""
        if not deletion.undo():
            return False
        conv = deletion.conversation
        if self.library is not None:
            self.library.messages_restored(conv, list(deletion.removed))
        if conv is self.conversation:
            self._on_path_switched()
        return True

    # -- replies ------------------------------------------------------------------------

    def _on_messages_dropped(self, message_ids: list[str]) -> None:
        """Messages left the view: a reply awaiting its final render there
        will get none."""
        gone = set(message_ids)
        for reply in self.consumer.replies():
            if reply.message.id in gone or not self.view.has_item(reply.message.id):
                reply.on_item_dropped()

    def _on_reply_settled(self, stats: ReplyTelemetry) -> None:
        self.rows.refresh_decorations()
        self._repaint_footers()

    def _on_notice_reported(self, text: str) -> None:
        self.notify(text, "warning")

    def _on_messages_dropped_reported(self, reply: Reply, dropped_ids: tuple[str, ...]) -> None:
        """Say which earlier messages the model no longer sees (when that changed)."""
        conv = reply.conversation
        if conv is None:
            return
        text = self._dropped.notice(conv, dropped_ids, shown=conv is self.conversation)
        if text:
            self.notify(text, "info")
