"""app.core.store.writes: the only retry queue (newest snapshot of each message)."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from app.core.conversation.model import Message, MessageStatus
from app.core.store import ConversationInfo, Store, StoreWriteError, writes
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


# -- the queue holds the newest snapshot; a lock is waited for in bounded slices ------------

def _locked(path: Path) -> sqlite3.Connection:
    """A second connection holding the write lock (as another program would)."""
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")
    return other


def _file_store(tmp_path: Path) -> Store:
    result = Store.open(tmp_path / "rill.db")
    assert result.store is not None
    result.store.create_conversation(ConversationInfo(id="c"))
    return result.store


def test_a_save_never_merges_across_a_delete(failing: list[bool]) -> None:
    s = Store.in_memory()
    s.create_conversation(ConversationInfo(id="c"))
    msg = Message("user", "v1")
    failing[0] = True
    with pytest.raises(StoreWriteError):
        s.add_message("c", msg)
    with pytest.raises(StoreWriteError):
        s.delete_message(msg.id)
    again = Message("user", "v2", id=msg.id)
    with pytest.raises(StoreWriteError):
        s.add_message("c", again)  # the undo of the delete
    again.content = "v3"
    with pytest.raises(StoreWriteError):
        s.save_message(again.snapshot())  # merges into the re-add, not into the first add
    assert s.pending_count == 3 and s.pending_conversations() == ["c"]
    failing[0] = False
    assert s.retry_pending()
    got = s.get_message(msg.id)
    assert got is not None and got.content == "v3"


def test_a_write_waits_for_a_lock_then_joins_the_queue_and_lands_after_it_goes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(writes, "BUSY_PATIENCE_S", 0.3)
    s = _file_store(tmp_path)
    msg = Message("assistant", "a", MessageStatus.STREAMING)
    other = _locked(tmp_path / "rill.db")
    try:
        with pytest.raises(StoreWriteError) as err:
            s.add_message("c", msg)
        assert err.value.reason == "locked" and "another program" in str(err.value)
        assert "read-only" not in str(err.value)
        attempts: list[str] = []
        real = Store._apply
        monkeypatch.setattr(Store, "_apply", lambda store, op: (attempts.append(op.kind), real(store, op))[1])
        for text in "bcd":
            msg.append(text)
            with pytest.raises(StoreWriteError):
                s.save_message(msg.snapshot(), "c")
        assert attempts == []  # right after giving up on the lock: queued without waiting again
        assert s.pending_count == 1 and s.pending_conversations() == ["c"]
    finally:
        other.execute("COMMIT")
        other.close()
    assert s.retry_pending()
    got = s.get_message(msg.id)
    assert got is not None and (got.content, got.status) == ("abcd", MessageStatus.STREAMING)
    s.close()


def test_hurry_cuts_a_wait_for_a_lock_short(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(writes, "BUSY_PATIENCE_S", 600.0)  # without hurry() the write would wait ten minutes
    s = _file_store(tmp_path)
    other = _locked(tmp_path / "rill.db")
    errors: list[StoreWriteError] = []

    def save() -> None:
        try:
            s.add_message("c", Message("user", "x"))
        except StoreWriteError as exc:
            errors.append(exc)

    worker = threading.Thread(target=save, name="test-hurried-write")
    try:
        worker.start()
        worker.join(0.3)
        assert worker.is_alive()  # waiting for the lock
        s.hurry()
        worker.join(30)
        assert not worker.is_alive() and [e.reason for e in errors] == ["locked"]
        assert s.pending_count == 1
    finally:
        other.execute("COMMIT")
        other.close()
    assert s.retry_pending() and s.count_conversations() == 1
    s.close()


def test_a_lone_surrogate_is_saved_as_a_replacement_character() -> None:
    s = Store.in_memory()
    s.create_conversation(ConversationInfo(id="c", title="bad \udc80 title"))
    msg = Message("assistant", "", MessageStatus.STREAMING)
    s.add_message("c", msg)
    msg.append("before \ud800 after")
    msg.status = MessageStatus.COMPLETE
    s.save_message(msg.snapshot())  # raised UnicodeEncodeError outside the fault protocol
    got = s.get_message(msg.id)
    assert got is not None and (got.content, got.status) == ("before \ufffd after", MessageStatus.COMPLETE)
    info = s.get_conversation("c")
    assert info is not None and info.title == "bad \ufffd title"
    assert s.pending_count == 0


def test_values_that_cannot_be_written_are_refused_in_plain_words_and_not_kept() -> None:
    s = Store.in_memory()
    s.create_conversation(ConversationInfo(id="c"))
    msg = Message("assistant", "x")
    s.add_message("c", msg)
    msg.meta.tokens = 2**80  # SQLite holds 64-bit integers
    with pytest.raises(StoreWriteError) as err:
        s.save_message(msg.snapshot())
    assert err.value.reason == "invalid" and "Error" not in str(err.value).split("(")[0]
    assert s.pending_count == 0  # a retry could never write it


@pytest.mark.parametrize(("title", "kept"), [
    ("\x1b]0;pwned\x07Title\x1b[2J", "]0;pwnedTitle[2J"),
    ("two\nlines\tand\x00nul", "two lines andnul"),
    ("c1 \x9b controls", "c1  controls"),
    ("plain 标题 😀", "plain 标题 😀"),
])
def test_titles_drop_control_characters(title: str, kept: str) -> None:
    s = Store.in_memory()
    s.create_conversation(ConversationInfo(id="c", title=title))
    info = s.get_conversation("c")
    assert info is not None and info.title == kept
    s.update_conversation("c", title=title + "!")
    info = s.get_conversation("c")
    assert info is not None and info.title == kept + "!"
