"""The chat facade: ``ChatController``, a thin composition of ``ModelSession``
(``app.ui.services.model_session``), ``StreamConsumer``
(``app.ui.conversation.consumer``) and ``ConversationController``
(``app.ui.conversation.conversation_controller``: the conversation shown and
what the user does to it), keeping the API the window, the doctor,
benchmarks and tests use. Its ``state`` is derived from them.

Markdown is rendered off the GUI thread by the view's render service.
Threading rule: GUI thread only.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator

from PyQt6.QtCore import QObject, pyqtSignal

from app.core.backends.base import ModelInfo, SamplingParams
from app.core.config.preferences import ReplySettings
from app.core.conversation.deletion import MessageDeletion
from app.core.conversation.model import Conversation, Message
from app.core.conversation.reply import ReplyTelemetry
from app.core.factory import BackendFactory
from app.ui.conversation.consumer import StreamConsumer
from app.ui.conversation.conversation_controller import ConversationController
from app.ui.conversation.model import Decoration
from app.ui.conversation.reply import Reply, ReplyStats
from app.ui.conversation.view import ChatView
from app.ui.services.inference import InferenceService
from app.ui.services.library import ConversationLibrary
from app.ui.services.model_session import ModelSession, ModelState

__all__ = ["ChatController", "ChatState", "ReplyStats"]


class ChatState(str, enum.Enum):
    NO_MODEL = "no_model"
    LOADING = "loading"
    IDLE = "idle"
    GENERATING = "generating"


class ChatController(QObject):
    """Drives the chat (GUI thread only): a composition of the model session,
    the stream consumer and the conversation controller, with the API the
    window, the doctor, benchmarks and tests use."""

    #: The controller's state changed; arg: ChatState.
    state_changed = pyqtSignal(object)
    #: A model finished loading; arg: ModelInfo.
    model_ready = pyqtSignal(object)
    #: A model failed to load; arg: the message shown to the user.
    model_failed = pyqtSignal(str)
    #: A reply started; arg: request id.
    reply_started = pyqtSignal(int)
    #: The model finished reading the prompt and produced its first token; arg: request id.
    prompt_processed = pyqtSignal(int)
    #: Part of the current reply's prompt was read; args: request id, tokens read, tokens in all.
    prompt_progressed = pyqtSignal(int, int, int)
    #: A reply's phase changed; args: request id, ReplyPhase.
    reply_phase_changed = pyqtSignal(int, object)
    #: Every token of a reply is on screen (or it was stopped); its final
    #: render is under way; arg: ReplyStats.
    reply_finished = pyqtSignal(object)
    #: A reply is completely over: final render on screen and, if it was
    #: stopped, its worker has exited too; arg: ReplyStats.
    reply_settled = pyqtSignal(object)
    #: Stop took effect in the UI (idle now); arg: request id.
    reply_stopped = pyqtSignal(int)
    #: A line for the user outside any message was shown; args: text, kind.
    notice_shown = pyqtSignal(str, str)
    #: Another conversation is shown (New Chat, the sidebar); arg: Conversation.
    conversation_shown = pyqtSignal(object)
    #: The shown conversation's current path changed (a version switch,
    #: regenerate, edit, continue, delete, undo); arg: Conversation.
    path_changed = pyqtSignal(object)
    #: The user asked to edit one of their prompts; args: message id, its text.
    edit_requested = pyqtSignal(str, str)
    #: A message (and what followed it) was deleted; args: a description,
    #: the MessageDeletion (``undo_delete`` undoes it).
    message_deleted = pyqtSignal(str, object)

    def __init__(
        self,
        view: ChatView,
        parent: QObject | None = None,
        library: ConversationLibrary | None = None,
        service: InferenceService | None = None,
    ) -> None:
        super().__init__(parent)
        self.view = view
        self.library = library
        self.service = service if service is not None else InferenceService(self)
        self.session = ModelSession(self.service, self)
        self.consumer = StreamConsumer(self.service, self)
        self.conversations = ConversationController(view, self.session, self.consumer, library, self)
        self.state = ChatState.NO_MODEL
        self._connect_signals()

    def _connect_signals(self) -> None:
        session, consumer, convs = self.session, self.consumer, self.conversations
        session.state_changed.connect(self._on_part_state_changed)
        session.model_ready.connect(self.model_ready)
        session.model_failed.connect(self.model_failed)
        consumer.streaming_changed.connect(self._on_part_state_changed)
        consumer.reply_started.connect(self.reply_started)
        consumer.prompt_processed.connect(self.prompt_processed)
        consumer.prompt_progressed.connect(self.prompt_progressed)
        consumer.reply_phase_changed.connect(self.reply_phase_changed)
        consumer.reply_finished.connect(self.reply_finished)
        consumer.reply_settled.connect(self.reply_settled)
        convs.notice_shown.connect(self.notice_shown)
        convs.conversation_shown.connect(self.conversation_shown)
        convs.path_changed.connect(self.path_changed)
        convs.edit_requested.connect(self.edit_requested)
        convs.message_deleted.connect(self.message_deleted)

    # -- state (derived) ------------------------------------------------------------------

    def _derived_state(self) -> ChatState:
        if self.consumer.current is not None:
            return ChatState.GENERATING
        return {
            ModelState.NO_MODEL: ChatState.NO_MODEL,
            ModelState.LOADING: ChatState.LOADING,
            ModelState.READY: ChatState.IDLE,
        }[self.session.state]

    def _on_part_state_changed(self, _state: object) -> None:
        state = self._derived_state()
        if state != self.state:
            self.state = state
            self.state_changed.emit(state)

    @property
    def is_generating(self) -> bool:
        return self.state == ChatState.GENERATING

    # -- the parts' state, as before ----------------------------------------------------

    @property
    def conversation(self) -> Conversation:
        return self.conversations.conversation

    @property
    def model_info(self) -> ModelInfo | None:
        return self.session.model_info

    @property
    def current_reply(self) -> Reply | None:
        return self.consumer.current

    @property
    def current_stats(self) -> ReplyTelemetry | None:
        """The streaming reply's stats (None when idle). Read-only use."""
        reply = self.consumer.current
        return reply.stats if reply is not None else None

    @property
    def last_stats(self) -> ReplyTelemetry | None:
        """The last reply that settled."""
        return self.consumer.last_stats

    @property
    def last_request_id(self) -> int:
        return self.consumer.last_request_id

    def replies_pending(self) -> int:
        return self.consumer.replies_pending()

    @property
    def params(self) -> SamplingParams:
        return self.conversations.params

    @params.setter
    def params(self, value: SamplingParams) -> None:
        self.conversations.params = value

    @property
    def default_system_prompt(self) -> str | None:
        return self.conversations.default_system_prompt

    @default_system_prompt.setter
    def default_system_prompt(self, value: str | None) -> None:
        self.conversations.default_system_prompt = value

    @property
    def overflow(self) -> str:
        return self.conversations.overflow

    @overflow.setter
    def overflow(self, value: str) -> None:
        self.conversations.overflow = value

    # -- model ------------------------------------------------------------------------------

    def load_model(self, factory: BackendFactory, description: str) -> None:
        if self.state == ChatState.GENERATING:
            self.stop()
        self.session.load(factory, description)

    @property
    def last_load_description(self) -> str | None:
        """What the last load asked for (None: no load yet): what ``reload_model`` loads again."""
        return self.session.last_load_description

    def reload_model(self) -> str | None:
        """Load the last model asked for again (Settings › Reload model now:
        a local model then reads context length, threads and GPU layers
        afresh). Returns its description; None when no model was asked for."""
        last = self.session.last_load
        if last is None:
            return None
        factory, description = last
        self.load_model(factory, description)
        return description

    def cancel_load(self) -> bool:
        """Cancel the model load in progress (the Cancel button beside its
        progress bar); the conversations are untouched. ``model_failed``
        follows ("Loading was cancelled."); no model is loaded then (the
        previous one was freed when the load started). False (nothing done)
        when no load is running."""
        return self.session.cancel()

    # -- the conversation -----------------------------------------------------------------

    def notify(self, text: str, kind: str = "info") -> None:
        """A line outside every message (its own item in the view)."""
        self.conversations.notify(text, kind)

    def send(self, text: str) -> bool:
        """Send a prompt; False (and nothing changes) when not ready or empty."""
        return self.conversations.send(text)

    def stop(self) -> None:
        """Stop the streaming reply: the UI is idle when this returns."""
        reply = self.consumer.stop()
        if reply is not None:
            self.reply_stopped.emit(reply.request_id)

    def new_chat(self) -> None:
        self.conversations.new_chat()

    def show_conversation(self, conv: Conversation) -> None:
        self.conversations.show_conversation(conv)

    def reply_settings(self, conv: Conversation) -> ReplySettings:
        return self.conversations.reply_settings(conv)

    def decoration(self, message_id: str) -> Decoration:
        return self.conversations.decoration(message_id)

    def on_message_action(self, action: str, message_id: str) -> None:
        self.conversations.on_message_action(action, message_id)

    def regenerate(self, reply_id: str | None = None) -> bool:
        return self.conversations.regenerate(reply_id)

    def send_edit(self, text: str, message_id: str) -> bool:
        return self.conversations.send_edit(text, message_id)

    def continue_reply(self, reply_id: str) -> bool:
        return self.conversations.continue_reply(reply_id)

    def switch_branch(self, message_id: str, step: int) -> None:
        self.conversations.switch_branch(message_id, step)

    def delete_message(self, message_id: str) -> bool:
        return self.conversations.delete_message(message_id)

    def undo_delete(self, deletion: MessageDeletion) -> None:
        """Undo a ``delete_message`` (the record ``message_deleted`` carried); once."""
        self.conversations.undo_delete(deletion)

    def conversation_markdown_parts(self) -> Iterator[str]:
        """The conversation's current path as Markdown, in File › Export's
        format (one exporter), the bodies as written, in pieces made as they
        are asked for (Edit › Copy Conversation as Markdown gathers them in
        work slices): this conversation, even if another is shown before
        the first piece."""
        from app.core.store.exchange import conversation_markdown_parts

        conversation = self.conversation

        def parts() -> Iterator[str]:
            yield from conversation_markdown_parts(
                conversation, conversation.all_messages(), inert=False, path=list(conversation.messages)
            )

        return parts()

    def message(self, message_id: str) -> Message | None:
        return self.conversation.get(message_id)

    # -- lifetime ------------------------------------------------------------------------

    def shutdown(self) -> bool:
        """Stop everything and join the threads (blocking: tests and doctor)."""
        self.stop()
        ok = self.service.shutdown()
        if self.library is not None:
            ok = self.library.store.shutdown() and ok
        return self.view.shutdown() and ok

