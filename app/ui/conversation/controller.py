"""The chat controller: connects the inference service, the conversation and
the view.

It owns the consumer side of the pipeline: a tick timer that drains the chunk
buffer within a time budget and hands the text to the streaming ``Reply``
(which owns that reply's lifecycle, see ``app.ui.conversation.reply``). Markdown is
rendered off the GUI thread by the view's render service. Widgets stay thin;
tests can drive this directly.

Threading rule: GUI thread only.
"""

from __future__ import annotations

import enum
import logging
import time

from PyQt6.QtCore import QObject, Qt, QTimer, pyqtSignal

from app.core.backends.base import ModelInfo, SamplingParams
from app.core.conversation.model import Conversation, Message, MessageStatus
from app.core.config.preferences import ReplySettings, conversation_settings, merge
from app.ui.conversation.view import ChatView
from app.ui.services.inference import BackendFactory, GenerationResult, InferenceService
from app.ui.services.library import ConversationLibrary
from app.ui.conversation.reply import Reply, ReplyPhase, ReplyStats

log = logging.getLogger(__name__)

__all__ = ["ChatController", "ChatState", "ReplyStats"]

TICK_MS = 25             # consumer tick (the brief asks for 20-40 ms)
TICK_BUDGET_S = 0.004    # time budget of one tick's drain
TICK_MAX_CHARS = 4096    # at most this much text per drain (and append) call

# Model output may contain control characters: keep tab and newline, drop the
# rest (a carriage return included, so "\r\n" split across chunks is one line break).
_CONTROL_CHARS = dict.fromkeys([*range(0, 9), *range(11, 32), 0x7F])


class ChatState(str, enum.Enum):
    NO_MODEL = "no_model"
    LOADING = "loading"
    IDLE = "idle"
    GENERATING = "generating"


class ChatController(QObject):
    """Drives one conversation (GUI thread only)."""

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
    #: After request_shutdown: the inference and render threads have both ended.
    shutdown_finished = pyqtSignal()
    #: Another conversation is shown (New Chat, the sidebar); arg: Conversation.
    conversation_shown = pyqtSignal(object)
    #: The user asked to edit one of their prompts; args: message id, its text.
    edit_requested = pyqtSignal(str, str)
    #: A message (and what followed it) was deleted; args: a description,
    #: a callable that undoes it.
    message_deleted = pyqtSignal(str, object)

    def __init__(self, view: ChatView, parent: QObject | None = None, library: ConversationLibrary | None = None) -> None:
        super().__init__(parent)
        self.view = view
        self.library = library
        self.conversation = library.new_conversation() if library is not None else Conversation()
        #: The sampling of every reply (Settings; the window sets it), under
        #: each conversation's overrides. Read when a request is sent: a
        #: change never touches a reply already streaming.
        self.params = SamplingParams()
        #: The default system prompt (Settings); None: each conversation's
        #: ``system_prompt``. A conversation's own one overrides it.
        self.default_system_prompt: str | None = None
        self._last_load: tuple[BackendFactory, str] | None = None  # for reload_model
        #: What the model is sent when a conversation outgrows its context
        #: (app.core.backends.prompt_window.OverflowPolicy value).
        self.overflow = "rolling"
        #: Per conversation id: how many messages the model was last told it
        #: no longer sees (a notice comes only when that number changes).
        self._dropped_told: dict[str, int] = {}
        self.service = InferenceService(self)
        self.model_info: ModelInfo | None = None
        self.state = ChatState.NO_MODEL
        self._current: Reply | None = None            # the reply text is arriving for
        self._replies: dict[int, Reply] = {}          # every reply not settled yet
        self.last_stats: ReplyStats | None = None     # the last reply that settled
        self.last_request_id = 0                      # the last reply sent
        self._shutting_down = False
        self._shut_down = False
        self._load_cancelled = False                  # cancel_load() was called for the load running
        self._tick = QTimer(self)
        self._tick.setInterval(TICK_MS)
        self._tick.setTimerType(Qt.TimerType.PreciseTimer)
        self._connect_signals()

    def _connect_signals(self) -> None:
        s = self.service
        s.model_load_started.connect(self._on_model_load_started)
        s.model_loaded.connect(self._on_model_loaded)
        s.model_load_failed.connect(self._on_model_load_failed)
        s.first_token_produced.connect(self._on_first_token_produced)
        s.chunks_ready.connect(self._on_chunks_ready)
        s.generation_finished.connect(self._on_generation_finished)
        self._tick.timeout.connect(self._on_tick)
        self.view.message_action_requested.connect(self.on_message_action)
        self.view.set_decorator(self.decoration)

    @property
    def current_stats(self) -> ReplyStats | None:
        """The streaming reply's stats (None when idle). Read-only use."""
        return self._current.stats if self._current is not None else None

    @property
    def current_reply(self) -> Reply | None:
        return self._current

    # -- notices ----------------------------------------------------------------

    def notify(self, text: str, kind: str = "info") -> None:
        """A line outside every message (its own item in the view)."""
        self.view.add_notice(text, kind)
        self.notice_shown.emit(text, kind)

    # -- model ------------------------------------------------------------------

    def load_model(self, factory: BackendFactory, description: str) -> None:
        if self.state == ChatState.GENERATING:
            self.stop()
        self._last_load = (factory, description)
        self.service.load(factory, description)

    @property
    def last_load_description(self) -> str | None:
        """What the last load asked for was (None: no load yet): what
        ``reload_model`` loads again."""
        return self._last_load[1] if self._last_load is not None else None

    def reload_model(self) -> str | None:
        """Load the last model asked for again (Settings › Reload model now:
        a local model then reads context length, threads and GPU layers
        afresh). Returns its description; None when no model was asked for."""
        if self._last_load is None:
            return None
        factory, description = self._last_load
        self.load_model(factory, description)
        return description

    def cancel_load(self) -> bool:
        """Cancel the model load in progress (the Cancel button beside its
        progress bar); the conversations are untouched. ``model_failed``
        follows ("Loading was cancelled."); no model is loaded then (the
        previous one was freed when the load started). False (nothing done)
        when no load is running."""
        if self.state != ChatState.LOADING:
            return False
        self._load_cancelled = True
        self.service.cancel_load()
        return True

    def _set_state(self, state: ChatState) -> None:
        if state != self.state:
            self.state = state
            self.state_changed.emit(state)

    def _on_model_load_started(self, description: str) -> None:
        self._load_cancelled = False
        self.model_info = None
        self._set_state(ChatState.LOADING)

    def _on_model_loaded(self, info: ModelInfo) -> None:
        self._load_cancelled = False  # Cancel came too late: the model is there
        self.model_info = info
        for warning in info.warnings:
            self.notify(f"⚠ {warning}", "warning")
        self._set_state(ChatState.IDLE)
        self.model_ready.emit(info)

    def _on_model_load_failed(self, message: str) -> None:
        if self._load_cancelled:  # the user's Cancel (cancel_load)
            self._load_cancelled = False
            self.notify(self.tr("Loading the model was cancelled. Choose a model in the Model menu."), "info")
            self._set_state(ChatState.NO_MODEL)
            self.model_failed.emit(message)
            return
        self.notify(
            self.tr(
                "Could not load the model. {message}\n"
                "Choose a model in the Model menu: a GGUF file, or a server (Model › Servers…)."
            ).format(message=message),
            "error",
        )
        self._set_state(ChatState.NO_MODEL)
        self.model_failed.emit(message)

    # -- sending and stopping -------------------------------------------------------

    def send(self, text: str) -> bool:
        """Send a prompt; False (and nothing changes) when not ready or empty.

        Never waits for an earlier reply's final render: that goes on in the
        background, in its own message."""
        if self.state != ChatState.IDLE or not text or text.isspace():
            return False
        if text[:1].isspace() or text[-1:].isspace():
            text = text.strip()
        conv = self.conversation
        user = conv.add_user(text)
        self.view.add_message(user)
        self._persist(conv, user)
        self._start_reply_for(conv)
        return True

    def _start_reply_for(
        self, conv: Conversation, parent_id: str | None = None, existing: Message | None = None
    ) -> Reply:
        """Start a reply to the end of ``conv``'s path, or under ``parent_id``
        (regenerating: a sibling of the earlier reply), or go on with
        ``existing`` (continuing a stopped reply)."""
        if existing is not None:
            reply_msg = existing
            continue_text = existing.content
            existing.status = MessageStatus.STREAMING
        else:
            reply_msg = conv.start_reply() if parent_id is None else conv.start_reply(parent_id=parent_id)
            continue_text = ""
        chosen = self.reply_settings(conv)  # as they are now: later changes are for later requests
        messages = conv.prompt_builder(upto=reply_msg, system_prompt=chosen.system_prompt)  # built on the inference thread
        if conv is self.conversation:
            if parent_id is None and existing is None:
                self.view.add_message(reply_msg)
                self.view.scroll_to_bottom()
            else:
                self._reshow()
        if existing is None:
            self._persist(conv, reply_msg)
        sent_at = time.monotonic()
        rid = self.service.submit(messages, chosen.params, continue_text, overflow=self.overflow)
        reply = Reply(rid, reply_msg, self.view, self.model_info.name if self.model_info else "", sent_at, self)
        reply.conversation = conv
        if self.library is not None:
            library = self.library
            reply.saver = lambda force, c=conv, m=reply_msg: library.message_changed(c, m, force)
        self._start_reply(reply)
        return reply

    def reply_settings(self, conv: Conversation) -> ReplySettings:
        """The sampling and system prompt a request in ``conv`` gets now:
        ``params`` and the default system prompt under its overrides."""
        default = self.default_system_prompt if self.default_system_prompt is not None else conv.system_prompt
        return merge(self.params, default, conversation_settings(conv))

    def _persist(self, conv: Conversation, msg: Message) -> None:
        if self.library is not None:
            self.library.message_added(conv, msg)

    def _start_reply(self, reply: Reply) -> None:
        rid = reply.request_id
        self.last_request_id = rid
        self._current = reply
        self._replies[rid] = reply
        reply.phase_changed.connect(lambda phase, rid=rid: self.reply_phase_changed.emit(rid, phase))
        reply.finished.connect(self.reply_finished)
        reply.settled.connect(self._on_reply_settled)
        reply.on_worker_started()
        self._tick.start()
        self._set_state(ChatState.GENERATING)
        self.reply_started.emit(rid)

    def stop(self) -> None:
        """Stop the streaming reply: the UI is idle when this returns."""
        reply = self._current
        if reply is None:
            return
        self.service.cancel(reply.request_id)
        self._tick.stop()
        self._current = None
        reply.stop()
        self._set_state(ChatState.IDLE)
        self.reply_stopped.emit(reply.request_id)

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
        """Show ``conv`` (its current path). A reply streaming in another
        conversation keeps streaming and saving there; coming back to it
        shows it live."""
        self.conversation = conv
        self.view.clear()
        for reply in list(self._replies.values()):
            reply.on_view_cleared()
        path = conv.messages
        # Only the last message of a path can still be streaming.
        streaming = bool(path) and path[-1].status == MessageStatus.STREAMING
        self.view.add_messages(path[:-1] if streaming else path)
        if streaming:
            self.view.add_message(path[-1])
        self.view.scroll_to_bottom()
        self._decorate()
        self.conversation_shown.emit(conv)

    def _reshow(self) -> None:
        """The current path changed (a branch): show it again."""
        self.show_conversation(self.conversation)
        if self.library is not None:
            self.library.set_current_leaf(self.conversation)

    def _decorate(self) -> None:
        """Branch switchers and footer actions are asked for by the view when
        it lays out a footer (``decoration``): nothing to do per message."""
        self.view.viewport().update()

    def decoration(self, message_id: str) -> tuple[tuple[int, int] | None, tuple[str, ...]]:
        """A message's branch position (k of n) and footer actions."""
        conv = self.conversation
        msg = conv.get(message_id)
        if msg is None:
            return None, ()
        siblings = conv.siblings(message_id)
        branch = (siblings.index(msg) + 1, len(siblings)) if len(siblings) > 1 else None
        if msg.role == "user":
            return branch, ("edit", "delete")
        last = conv.messages[-1] if conv.messages else None
        if msg.status in (MessageStatus.STOPPED, MessageStatus.TRUNCATED) and msg is last:
            return branch, ("regenerate", "continue", "delete")
        return branch, ("regenerate", "delete")

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
        reply = self._current
        if reply is None:
            return False
        title = getattr(reply.conversation, "title", "")
        if title:
            text = self.tr("Rill is still answering in “{title}”. Stop it (Esc) or wait, then try again.").format(title=title)
        else:
            text = self.tr("Rill is still answering in “another conversation”. Stop it (Esc) or wait, then try again.")
        self.notify(text, "info")
        return True

    def regenerate(self, reply_id: str | None = None) -> bool:
        """A new reply to the same prompt, kept beside the old one ("2/2")."""
        conv = self.conversation
        if reply_id is None:
            replies = [m for m in conv.messages if m.role == "assistant"]
            if not replies:
                return False
            reply_id = replies[-1].id
        msg = conv.get(reply_id)
        if msg is None or msg.role != "assistant" or self.state != ChatState.IDLE:
            self._busy_notice()
            return False
        self._start_reply_for(conv, parent_id=msg.parent_id if msg.parent_id else None)
        return True

    def send_edit(self, text: str, message_id: str) -> bool:
        """Send ``text`` as a new version of prompt ``message_id`` (a branch;
        the old prompt and its replies are kept)."""
        conv = self.conversation
        original = conv.get(message_id)
        text = text.strip()
        if original is None or not text or self.state != ChatState.IDLE:
            self._busy_notice()
            return False
        user = conv.add_user(text, parent_id=original.parent_id)
        self._persist(conv, user)
        self._reshow()
        self._start_reply_for(conv)
        return True

    def continue_reply(self, reply_id: str) -> bool:
        """Go on with a stopped or cut reply, in the same message."""
        conv = self.conversation
        msg = conv.get(reply_id)
        if msg is None or msg.status not in (MessageStatus.STOPPED, MessageStatus.TRUNCATED):
            return False
        if self.state != ChatState.IDLE:
            self._busy_notice()
            return False
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
            self._reshow()

    def delete_message(self, message_id: str) -> bool:
        """Delete a message and what followed it; ``message_deleted`` carries the undo."""
        conv = self.conversation
        msg = conv.get(message_id)
        if msg is None or msg.status == MessageStatus.STREAMING:
            return False
        removed = conv.remove(message_id)
        if self.library is not None:
            self.library.messages_removed(conv, removed)
        self._reshow()

        def undo() -> None:
            conv.restore(removed)
            if self.library is not None:
                self.library.messages_restored(conv, removed)
            if conv is self.conversation:
                self._reshow()

        what = self.tr("Message deleted") if len(removed) == 1 else self.tr("%n messages deleted", None, len(removed))
        self.message_deleted.emit(what, undo)
        return True

    # -- consumer side ----------------------------------------------------------------

    def _on_first_token_produced(self, rid: int, at: float) -> None:
        reply = self._replies.get(rid)
        if reply is not None and reply is self._current:
            reply.on_first_token(at)
            self.prompt_processed.emit(rid)

    def _on_chunks_ready(self, rid: int, seq: int) -> None:
        if self._current is not None and rid == self._current.request_id and not self._tick.isActive():
            self._tick.start()

    def _on_tick(self) -> None:
        reply = self._current
        if reply is None:
            self._tick.stop()
            return
        stats = reply.stats
        stats.ticks += 1
        deadline = time.perf_counter() + TICK_BUDGET_S
        buffer = self.service.buffer
        while True:
            # One bounded drain, shown at once, until the budget is spent:
            # a fast producer never makes one tick append megabytes.
            chunks = buffer.drain(TICK_MAX_CHARS)
            if not chunks:
                break
            parts: list[str] = []
            produced: list[float] = []
            for chunk in chunks:
                if chunk.request_id != stats.request_id:
                    continue  # a stale request's chunk: never shown
                if chunk.seq != reply.expected_seq:
                    stats.seq_errors += 1
                    log.error("chunk out of order: got %d, expected %d", chunk.seq, reply.expected_seq)
                reply.expected_seq = chunk.seq + 1
                parts.append(chunk.text)
                produced.extend(chunk.produced_at)
            if parts:
                reply.add_text("".join(parts).translate(_CONTROL_CHARS), produced)
            if time.perf_counter() >= deadline:
                break
        if reply.phase == ReplyPhase.DRAINING and len(buffer) == 0:
            self._tick.stop()
            self._current = None
            self._set_state(ChatState.IDLE)
            reply.on_drained()

    def _on_generation_finished(self, result: GenerationResult) -> None:
        reply = self._replies.get(result.request_id)
        if reply is None:
            return
        reply.on_producer_done(result.finish_reason, result.error, result.tokens, result.prompt_tokens, result.ended_at)
        self._tell_dropped(reply, result.dropped_ids)
        if reply is self._current:
            if not self._tick.isActive():
                self._tick.start()
            self._on_tick()  # finish now if everything is on screen already

    def _tell_dropped(self, reply: Reply, dropped_ids: tuple[str, ...]) -> None:
        """Say which earlier messages the model no longer sees (when that changed)."""
        conv = reply.conversation
        if conv is None:
            return
        told = self._dropped_told.get(conv.id, 0)
        self._dropped_told[conv.id] = len(dropped_ids)
        if len(dropped_ids) == told or conv is not self.conversation:
            return
        if not dropped_ids:
            return
        first, last = conv.get(dropped_ids[0]), conv.get(dropped_ids[-1])
        n = len(dropped_ids)
        if first is None or last is None:
            if n == 1:
                text = self.tr(
                    "The conversation is longer than the model's context: the model no longer sees "
                    "an earlier message. They stay here; Settings chooses what is dropped."
                )
            else:
                text = self.tr(
                    "The conversation is longer than the model's context: the model no longer sees "
                    "%n earlier messages. They stay here; Settings chooses what is dropped.",
                    None,
                    n,
                )
        elif first is last:  # one message
            text = self.tr(
                "The conversation is longer than the model's context: the model no longer sees "
                "an earlier message (“{excerpt}”). They stay here; Settings chooses what is dropped."
            ).format(excerpt=_excerpt(first.content))
        else:
            text = self.tr(
                "The conversation is longer than the model's context: the model no longer sees "
                "%n earlier messages (from “{first}” to “{last}”). They stay here; Settings chooses what is dropped.",
                None,
                n,
            ).format(first=_excerpt(first.content), last=_excerpt(last.content))
        self.notify(text, "info")

    def _on_reply_settled(self, stats: ReplyStats) -> None:
        reply = self._replies.pop(stats.request_id, None)
        if reply is not None and reply.conversation is self.conversation:
            self._decorate()
        self.last_stats = stats
        self.reply_settled.emit(stats)
        if reply is not None:
            reply.deleteLater()

    # -- the conversation as text ------------------------------------------------------

    def conversation_markdown(self) -> str:
        """The conversation's current path as Markdown, in File › Export's format (one exporter)."""
        from app.core.store.exchange import conversation_markdown

        return conversation_markdown(self.conversation, self.conversation.all_messages())

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

    def request_shutdown(self) -> None:
        """Stop everything without waiting (closing the window);
        ``shutdown_finished`` follows once both threads have ended."""
        self.stop()
        if self._shutting_down:
            return
        self._shutting_down = True
        self.view.render_service.thread_.finished.connect(self._on_thread_finished)
        self.service.shutdown_finished.connect(self._on_thread_finished)
        self.view.request_shutdown()
        self.service.request_shutdown()
        if self.library is not None:
            self.library.store.thread_.finished.connect(self._on_thread_finished)
            self.library.store.request_stop()  # the queued saves go first
        self._on_thread_finished()  # both may be over already

    def wait_threads(self, budget_ms: int) -> bool:
        """Wait at most ``budget_ms`` in all for the threads to end (closing)."""
        deadline = time.monotonic() + budget_ms / 1000
        threads = [self.service.thread, self.view.render_service.thread_]
        if self.library is not None:
            threads.append(self.library.store.thread_)
        for thread in threads:
            left = int((deadline - time.monotonic()) * 1000)
            if left <= 0:
                break
            thread.wait(left)
        return self.threads_finished()

    def threads_finished(self) -> bool:
        store_done = self.library is None or self.library.store.is_finished()
        return self.service.is_finished() and self.view.render_service.is_finished() and store_done

    def _on_thread_finished(self) -> None:
        if self._shutting_down and self.threads_finished() and not self._shut_down:
            self._shut_down = True
            self.shutdown_finished.emit()

    @property
    def is_generating(self) -> bool:
        return self.state == ChatState.GENERATING

    def replies_pending(self) -> int:
        return len(self._replies)


def _excerpt(text: str, n: int = 40) -> str:
    line = " ".join(text.split())
    return line if len(line) <= n else line[: n - 1] + "…"
