"""The conversations the window knows: the open ones in memory, all of them
in the store.

``ConversationLibrary`` keeps every conversation opened this session in
memory (so one whose reply is still streaming keeps streaming and saving
while the user looks at another), creates conversations in the store with
their first message, saves messages, and answers the sidebar's page
requests. Every store call goes through ``StoreService`` (queued to the store
thread).

Threading rule: GUI thread only.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Callable
from typing import Any

from PyQt6.QtCore import QObject, pyqtSignal

from app.core.conversation.model import Conversation, Message
from app.core.store import Store, conversation_from_info, info_from_conversation
from app.ui.services.store import StoreService

log = logging.getLogger(__name__)

#: The stored title of a conversation that has none yet.
NEW_CHAT_TITLE = "New chat"
#: A streaming reply is saved at least this often (crash safety).
SAVE_INTERVAL_S = 1.0


class ConversationLibrary(QObject):
    """See the module docstring."""

    #: A conversation was created, renamed, touched or (un)pinned; arg: its id.
    conversation_changed = pyqtSignal(str)
    #: A conversation was deleted (from the list; from the store once the undo time is over); arg: id.
    conversation_removed = pyqtSignal(str)

    def __init__(self, store: StoreService, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.open: dict[str, Conversation] = {}
        self._stored: set[str] = set()     # ids known to be in the store
        self._last_save: dict[str, float] = {}

    # -- conversations -------------------------------------------------------------

    def new_conversation(self, system_prompt: str | None = None) -> Conversation:
        conv = Conversation() if system_prompt is None else Conversation(system_prompt=system_prompt)
        self.open[conv.id] = conv
        return conv

    def store_whole(self, conv: Conversation, done: Callable[[bool], None]) -> None:
        """Write ``conv`` and all its messages to the store (as an import
        does), then hold it as a stored open conversation; ``done(ok)`` on the
        GUI thread. The doctor's sample history goes in so: a reply to it is
        saved as a reply to an opened conversation is. With no store at all
        (``rill doctor``) it is only held."""
        if not self.store.enabled:
            self.open[conv.id] = conv
            self._stored.add(conv.id)  # writes are dropped: none may be refused for it
            done(True)
            return
        info = dataclasses.replace(info_from_conversation(conv), title=conv.title or NEW_CHAT_TITLE)
        messages = list(conv.messages)  # nobody changes them meanwhile: the conversation is not shown yet

        def written(result: Any) -> None:
            ok = result is not None
            if ok:
                self.open[conv.id] = conv
                self._stored.add(conv.id)
            done(ok)

        self.store.write(lambda store: store.create_conversation(info), conversation_id=conv.id)
        self.store.write(lambda store: store.add_messages(conv.id, messages) or True, written, conversation_id=conv.id)

    def load(self, conversation_id: str, callback: Callable[[Conversation | None], None]) -> None:
        """The conversation with its whole tree: from memory, else the store."""
        conv = self.open.get(conversation_id)
        if conv is not None:
            callback(conv)
            return

        def fetch(store: Store) -> Conversation | None:
            # On the store thread: reading and building the tree (pure
            # Python) cost O(messages); the GUI thread only gets the result.
            info = store.get_conversation(conversation_id)
            if info is None:
                return None
            return conversation_from_info(info, store.load_messages(conversation_id))

        def done(conv: Conversation | None) -> None:
            if conv is None:
                callback(None)
                return
            existing = self.open.get(conversation_id)  # opened meanwhile
            if existing is not None:
                callback(existing)
                return
            self.open[conv.id] = conv
            self._stored.add(conv.id)
            callback(conv)

        self.store.read(fetch, done)

    def page(self, offset: int, limit: int, callback: Callable[[list[Any]], None]) -> None:
        self.store.read(lambda store: store.list_conversations(offset, limit), lambda r: callback(r or []))

    def count(self, callback: Callable[[int], None]) -> None:
        self.store.read(lambda store: store.count_conversations(), lambda r: callback(int(r or 0)))

    def rename(self, conversation_id: str, title: str) -> None:
        conv = self.open.get(conversation_id)
        if conv is not None:
            conv.title = title
        self.store.write(lambda store: store.update_conversation(conversation_id, title=title),
                         conversation_id=conversation_id)
        self.conversation_changed.emit(conversation_id)

    def set_pinned(self, conversation_id: str, pinned: bool) -> None:
        conv = self.open.get(conversation_id)
        if conv is not None:
            conv.pinned = pinned
        self.store.write(lambda store: store.update_conversation(conversation_id, pinned=pinned),
                         conversation_id=conversation_id)
        self.conversation_changed.emit(conversation_id)

    def set_overrides(self, conv: Conversation, overrides: dict[str, Any]) -> None:
        """Replace ``conv``'s overrides of the Settings (Conversation
        Settings…): the next request in it uses them; saved with it (at
        once if it is stored, else with its first message)."""
        conv.overrides = dict(overrides)
        if conv.id in self._stored:
            info = info_from_conversation(conv)
            self.store.write(
                lambda store: store.update_conversation(conv.id, system_prompt=info.system_prompt, params=info.params),
                conversation_id=conv.id,
            )

    def delete(self, conversation_id: str) -> None:
        """Delete from the store (the caller offered its undo beforehand)."""
        self.open.pop(conversation_id, None)
        self._stored.discard(conversation_id)
        self.store.write(lambda store: store.delete_conversation(conversation_id), conversation_id=conversation_id)
        self.conversation_removed.emit(conversation_id)

    def set_current_leaf(self, conv: Conversation) -> None:
        if conv.id in self._stored:
            leaf = conv.current_leaf
            self.store.write(lambda store: store.update_conversation(conv.id, current_leaf=leaf), conversation_id=conv.id)

    # -- messages ------------------------------------------------------------------------

    def message_added(self, conv: Conversation, msg: Message) -> None:
        """A new message (a prompt, or a reply just started)."""
        self.open.setdefault(conv.id, conv)
        conv.updated_at = time.time()
        if conv.id not in self._stored:
            self._stored.add(conv.id)
            info = dataclasses.replace(info_from_conversation(conv), title=conv.title or NEW_CHAT_TITLE, current_leaf=None)
            self.store.write(lambda store: store.create_conversation(info), conversation_id=conv.id)
        snapshot = msg.snapshot()
        leaf, updated, title = conv.current_leaf, conv.updated_at, conv.title or NEW_CHAT_TITLE
        # two writes, not one job: a failed write is queued by the store, and
        # one job's second call would never run after its first one failed
        self.store.write(lambda store: store.add_message(conv.id, snapshot), conversation_id=conv.id)
        self.store.write(
            lambda store: store.update_conversation(conv.id, current_leaf=leaf, updated_at=updated, title=title),
            conversation_id=conv.id,
        )
        self._last_save[msg.id] = time.monotonic()
        self.conversation_changed.emit(conv.id)

    def message_changed(self, conv: Conversation, msg: Message, force: bool = False) -> None:
        """A streaming reply grew (saved at most once per SAVE_INTERVAL_S
        unless ``force``: stop, finish, error)."""
        now = time.monotonic()
        if not force and now - self._last_save.get(msg.id, 0.0) < SAVE_INTERVAL_S:
            return
        self._last_save[msg.id] = now
        if force:
            self._last_save.pop(msg.id, None)
        self.store.save_message(conv.id, msg)

    def messages_removed(self, conv: Conversation, removed: list[Message]) -> None:
        if removed:
            first = removed[0].id
            self.store.write(lambda store: store.delete_message(first), conversation_id=conv.id)
            self.set_current_leaf(conv)

    def messages_restored(self, conv: Conversation, restored: list[Message]) -> None:
        for msg in restored:
            snapshot = msg.snapshot()

            def add(store: Store, s: Message = snapshot) -> None:  # bound now: the loop moves on
                store.add_message(conv.id, s)

            self.store.write(add, conversation_id=conv.id)
        self.set_current_leaf(conv)

