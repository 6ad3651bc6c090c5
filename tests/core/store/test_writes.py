"""app.core.store.writes: the only retry queue (newest snapshot of each message)."""

from __future__ import annotations

import sqlite3

import pytest

from app.core.conversation.model import Message, MessageStatus
from app.core.store import ConversationInfo, Store, StoreWriteError
from app.core.store.errors import plain_cause


@pytest.fixture
def failing(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """While ``failing[0]``: every write (but a batch) fails like a full disk."""
    state = [False]
    real = Store._apply

    def apply(store: Store, op: object) -> object:
        if state[0]:
            raise sqlite3.OperationalError("database or disk is full")
        return real(store, op)  # the op the store passed

    monkeypatch.setattr(Store, "_apply", apply)
    return state


def test_repeated_saves_of_one_message_keep_only_the_newest(failing: list[bool]) -> None:
    s = Store.in_memory()
    s.create_conversation(ConversationInfo(id="c"))
    failing[0] = True
    live = Message("assistant", "a", MessageStatus.STREAMING)
    with pytest.raises(StoreWriteError) as err:
        s.add_message("c", live)
    assert err.value.reason == "disk_full"
    for text in "bcd":
        live.append(text)
        with pytest.raises(StoreWriteError):
            s.save_message(live.snapshot())
    for leaf in ("x", "y"):
        with pytest.raises(StoreWriteError):
            s.update_conversation("c", current_leaf=leaf, title=leaf)
    assert s.pending_count == 2  # the message (its saves merged in) and the conversation's newest fields
    assert not s.retry_pending()
    failing[0] = False
    assert s.retry_pending() and s.pending_count == 0
    got = s.get_message(live.id)
    assert got is not None and got.content == "abcd"
    info = s.get_conversation("c")
    assert info is not None and (info.current_leaf, info.title) == ("y", "y")


def test_a_write_after_a_failure_waits_behind_it(failing: list[bool]) -> None:
    s = Store.in_memory()
    s.create_conversation(ConversationInfo(id="c"))
    first, second = Message("user", "1"), Message("user", "2")
    failing[0] = True
    with pytest.raises(StoreWriteError):
        s.add_message("c", first)
    failing[0] = False
    s.add_message("c", second)  # flushes the queue first, then writes
    assert [m.id for m in s.load_messages("c")] == [first.id, second.id]


def test_a_batch_is_all_or_nothing_and_not_queued() -> None:
    s = Store.in_memory()
    with pytest.raises(KeyError), s.batch():
        s.create_conversation(ConversationInfo(id="c"))
        s.add_message("nope", Message("user", "x"))
    assert s.count_conversations() == 0 and s.pending_count == 0


@pytest.mark.parametrize(("text", "reason"), [
    ("attempt to write a readonly database", "read_only"),
    ("database or disk is full", "disk_full"),
    ("database is locked", "locked"),
    ("disk I/O error", "io"),
    ("something else.\nmore", "other"),
])
def test_each_failure_has_a_reason_and_plain_words(text: str, reason: str) -> None:
    got, cause = plain_cause(sqlite3.OperationalError(text), "/x/rill.db")
    assert got == reason and "/x/rill.db" in cause and "\n" not in cause


def test_nested_batches_are_one_transaction() -> None:
    from app.core.store.writes import WritingStore

    s = Store.in_memory()
    assert isinstance(s, WritingStore)
    with s.batch():
        s.create_conversation(ConversationInfo(id="a"))
        with s.batch():
            s.create_conversation(ConversationInfo(id="b"))
        assert s.conn.in_transaction
    assert not s.conn.in_transaction and s.count_conversations() == 2
