"""ConversationLibrary: open conversations in memory, saved through the store service."""

from __future__ import annotations

from typing import Any

from app.core.conversation.model import Message
from app.ui.services.library import ConversationLibrary
from app.ui.services.store import StoreService


def test_a_conversation_is_stored_with_its_first_message_and_loads_back(qtbot: Any, tmp_path: Any) -> None:
    store = StoreService(tmp_path / "h.db")
    try:
        library = ConversationLibrary(store)
        conv = library.new_conversation()
        conv.title = "Hello"
        msg = conv.add_user("first words")
        with qtbot.waitSignal(library.conversation_changed, timeout=5000) as changed:
            library.message_added(conv, msg)
        assert changed.args == [conv.id]
        library.open.clear()  # forget it: the next load must come from the store
        loaded: list[Any] = []
        library.load(conv.id, loaded.append)
        qtbot.waitUntil(lambda: bool(loaded), timeout=5000)
        got = loaded[0]
        assert got is not None and got.title == "Hello"
        assert [m.content for m in got.messages] == ["first words"]
        assert isinstance(got.messages[0], Message)
    finally:
        assert store.shutdown()


def test_an_open_conversation_loads_from_memory_at_once(tmp_path: Any) -> None:
    store = StoreService(enabled=False)
    try:
        library = ConversationLibrary(store)
        conv = library.new_conversation()
        got: list[Any] = []
        library.load(conv.id, got.append)
        assert got == [conv]
    finally:
        assert store.shutdown()
