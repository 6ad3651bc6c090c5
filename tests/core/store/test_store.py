"""The conversation store: round trips, schema and migrations, faults, crash safety."""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import app.core.store.opening as store_opening
import app.core.store.rows as store_rows
import app.core.store.schema as store_schema
from app.core.base.settings import data_dir
from app.core.conversation.model import (
    Conversation,
    Message,
    MessageMeta,
    MessageStatus,
)
from app.core.store import (
    MIGRATIONS,
    SCHEMA_VERSION,
    ConversationInfo,
    OpenResult,
    Store,
    StoreWriteError,
    conversation_from_info,
)
from app.core.store.exchange import message_to_dict
from tests.helpers import privileges
from tests.helpers.privileges import as_unprivileged

ROOT = next(p for p in Path(__file__).resolve().parents if (p / "pyproject.toml").is_file())

#: The version-1 schema exactly as Rill shipped it. Never edit: databases made
#: with it exist; the upgrade test builds one from this text.
V1_SQL = """
CREATE TABLE conversations (
    id TEXT PRIMARY KEY,
    title TEXT,
    created_at REAL,
    updated_at REAL,
    model TEXT,
    system_prompt TEXT,
    current_leaf TEXT
);
CREATE TABLE messages (
    id TEXT PRIMARY KEY,
    conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    parent_id TEXT REFERENCES messages(id) ON DELETE CASCADE,
    role TEXT,
    content TEXT,
    status TEXT,
    error TEXT,
    model TEXT,
    finish_reason TEXT,
    tokens INTEGER,
    prompt_tokens INTEGER,
    tokens_per_s REAL,
    ttft_ms REAL,
    created_at REAL
);
CREATE INDEX messages_by_conversation ON messages(conversation_id, created_at);
CREATE INDEX messages_by_parent ON messages(parent_id);
CREATE INDEX conversations_by_updated ON conversations(updated_at);
"""


# -- helpers ----------------------------------------------------------------------------

def _load(store: Store, conversation_id: str) -> Conversation | None:
    """The conversation as the window loads it (``ConversationLibrary.load``)."""
    info = store.get_conversation(conversation_id)
    return None if info is None else conversation_from_info(info, store.load_messages(conversation_id))



def opened(path: Path, **kwargs: object) -> Store:
    result = Store.open(path, **kwargs)
    assert result.store is not None, result.notices
    assert result.notices == [], result.notices
    return result.store


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "rill.db"


@pytest.fixture
def store(db_path: Path) -> Iterator[Store]:
    s = opened(db_path)
    yield s
    s.close()


def conversation(store: Store, **fields: object) -> ConversationInfo:
    info = ConversationInfo(**fields)
    store.create_conversation(info)
    return info


def reply(parent: Message, text: str = "", status: MessageStatus = MessageStatus.COMPLETE, **kw: object) -> Message:
    return Message("assistant", text, status, parent_id=parent.id, **kw)


def same(a: Message, b: Message) -> None:
    assert message_to_dict(a) == message_to_dict(b)
    assert a.parent_id == b.parent_id


def file_state(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def plain(message: str) -> None:
    """A message for people: no traceback, no Python or SQLite jargon."""
    for bad in ("Traceback", "sqlite3.", "OperationalError", "Error:", "\n"):
        assert bad not in message


# -- opening ----------------------------------------------------------------------------


def test_default_path_is_in_the_data_dir_and_is_created() -> None:
    result = Store.open()
    assert result.store is not None and result.notices == []
    try:
        assert result.path == data_dir() / "rill.db"
        assert result.path.exists()
    finally:
        result.store.close()


def test_pragmas_wal_foreign_keys_synchronous_busy_timeout(store: Store) -> None:
    conn = store.conn
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert conn.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL
    # SQLite waits in short slices; the store waits up to BUSY_PATIENCE_S in all (test_writes)
    from app.core.store.writes import BUSY_SLICE_MS

    assert conn.execute("PRAGMA busy_timeout").fetchone()[0] == BUSY_SLICE_MS
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 6
    assert len(MIGRATIONS) == SCHEMA_VERSION
    assert store.integrity_ok()


def test_in_memory_store_works() -> None:
    with Store.in_memory() as s:
        info = conversation(s, title="memory")
        s.add_message(info.id, Message("user", "hello 界面"))
        assert [h.conversation_id for h in s.search("界面")] == [info.id]


# -- conversations ------------------------------------------------------------------------


def test_conversation_round_trip_and_update(store: Store) -> None:
    info = conversation(
        store,
        title="Über 界面 🎉",
        created_at=100.5,
        updated_at=200.25,
        pinned=True,
        model="smollm2.gguf",
        system_prompt="Be brief.",
        params={"temperature": 0.7, "top_k": 40, "stop": ["\n\n"]},
        current_leaf=None,
    )
    assert store.get_conversation(info.id) == info
    store.update_conversation(info.id, title="Renamed", pinned=False, params={"seed": 1}, current_leaf="abc")
    got = store.get_conversation(info.id)
    assert got is not None
    assert (got.title, got.pinned, got.params, got.current_leaf) == ("Renamed", False, {"seed": 1}, "abc")
    assert got.updated_at == 200.25  # renaming does not reorder the sidebar
    with pytest.raises(TypeError):
        store.update_conversation(info.id, colour="red")
    assert store.get_conversation("nope") is None


def test_delete_conversation_cascades_to_messages_and_search(store: Store) -> None:
    keep = conversation(store, title="keep")
    gone = conversation(store, title="gone")
    store.add_message(keep.id, Message("user", "keep this needle"))
    # a chain deeper than SQLite's cascade-trigger limit (1000)
    msgs: list[Message] = []
    parent = None
    for i in range(1200):
        msgs.append(Message("user" if i % 2 == 0 else "assistant", f"needle {i}", created_at=1000.0 + i,
                            parent_id=parent))
        parent = msgs[-1].id
    store.add_messages(gone.id, msgs)
    assert len(store.load_messages(gone.id)) == 1200
    store.delete_conversation(gone.id)
    assert store.get_conversation(gone.id) is None
    assert store.load_messages(gone.id) == []
    assert store.conn.execute("SELECT count(*) FROM messages WHERE conversation_id = ?", (gone.id,)).fetchone()[0] == 0
    assert [h.conversation_id for h in store.search("needle")] == [keep.id]
    assert store.integrity_ok()


def test_list_conversations_pinned_first_then_newest(store: Store) -> None:
    infos = [conversation(store, title=f"c{i}", updated_at=1000.0 + i) for i in range(10)]
    store.update_conversation(infos[2].id, pinned=True)
    store.update_conversation(infos[5].id, pinned=True)
    got = [c.title for c in store.list_conversations()]
    assert got == ["c5", "c2", "c9", "c8", "c7", "c6", "c4", "c3", "c1", "c0"]
    assert [c.title for c in store.list_conversations(offset=2, limit=3)] == ["c9", "c8", "c7"]
    assert store.count_conversations() == 10
    # a new message moves its conversation to the top of the unpinned ones
    store.add_message(infos[0].id, Message("user", "hi", created_at=5000.0))
    assert [c.title for c in store.list_conversations(limit=3)] == ["c5", "c2", "c0"]
    counted = store.list_conversations(limit=3, with_counts=True)
    assert [c.message_count for c in counted] == [0, 0, 1]
    assert store.list_conversations()[0].message_count is None


def test_list_conversations_walks_an_index(store: Store) -> None:
    """10,000 conversations cost a page: no sort of the whole table."""
    store.conn.execute("BEGIN")
    store.conn.executemany(
        "INSERT INTO conversations (id, title, created_at, updated_at, pinned) VALUES (?, ?, ?, ?, ?)",
        ((f"id{i:05d}", f"t{i}", i, float(i), 1 if i % 1000 == 0 else 0) for i in range(10_000)),
    )
    store.conn.execute("COMMIT")
    plan = " ".join(
        str(row[-1])
        for row in store.conn.execute(
            "EXPLAIN QUERY PLAN SELECT * FROM conversations ORDER BY pinned DESC, updated_at DESC LIMIT 50"
        )
    )
    assert "conversations_by_order" in plan and "TEMP B-TREE" not in plan
    page = store.list_conversations(0, 50)
    assert [c.id for c in page[:10]] == [f"id{i:05d}" for i in range(9000, -1, -1000)]
    assert page[10].id == "id09999"
    assert store.count_conversations() == 10_000


# -- messages ---------------------------------------------------------------------------


def test_message_tree_round_trip_with_branches(store: Store) -> None:
    info = conversation(store, title="tree")
    user = Message("user", "Question 界面?", created_at=10.0)
    first = reply(user, "Answer one", created_at=11.0,
                  meta=MessageMeta("m.gguf", "stop", 12, 30, 45.5, 120.0))
    second = reply(user, "Answer two", MessageStatus.STOPPED, created_at=12.0,
                   meta=MessageMeta("m.gguf", "cancelled", 3, 30, 20.0, None))
    failed = reply(user, "partial", MessageStatus.ERROR, error="The model crashed.", created_at=13.0)
    follow = Message("user", "And then?", parent_id=second.id, created_at=14.0)
    for msg in (user, first, second, failed, follow):
        store.add_message(info.id, msg)
    store.update_conversation(info.id, current_leaf=follow.id)

    loaded = store.load_messages(info.id)
    assert [m.id for m in loaded] == [user.id, first.id, second.id, failed.id, follow.id]
    for a, b in zip(loaded, (user, first, second, failed, follow), strict=False):
        same(a, b)
    assert [m.id for m in loaded if m.parent_id == user.id] == [first.id, second.id, failed.id]

    conv = _load(store, info.id)
    assert conv is not None
    assert [m.id for m in conv.messages] == [user.id, second.id, follow.id]
    assert len(conv.siblings(second.id)) == 3
    assert store.get_message(second.id) is not None and store.message_conversation(second.id) == info.id


def test_add_message_bumps_updated_at_and_rejects_unknown_links(store: Store) -> None:
    info = conversation(store, updated_at=1.0)
    store.add_message(info.id, Message("user", "hi", created_at=50.0))
    assert store.get_conversation(info.id).updated_at == 50.0
    with pytest.raises(KeyError):
        store.add_message("no-such-conversation", Message("user", "x"))
    with pytest.raises(KeyError):
        store.add_message(info.id, Message("user", "x", parent_id="no-such-parent"))
    assert store.pending_count == 0  # programming errors are not queued


def test_add_message_twice_updates_it(store: Store) -> None:
    info = conversation(store)
    msg = Message("user", "v1")
    store.add_message(info.id, msg)
    msg.content = "v2"
    store.add_message(info.id, msg)
    assert [m.content for m in store.load_messages(info.id)] == ["v2"]
    assert [h.message_id for h in store.search("v2")] == [msg.id] and store.search("v1") == []


def test_save_message_is_one_update_by_primary_key(store: Store) -> None:
    info = conversation(store)
    user = Message("user", "hello")
    live = reply(user, status=MessageStatus.STREAMING)
    store.add_message(info.id, user)
    store.add_message(info.id, live)
    statements: list[str] = []
    store.conn.set_trace_callback(statements.append)
    try:
        live.append("some streamed text")
        live.meta.tokens = 4
        store.save_message(live)
    finally:
        store.conn.set_trace_callback(None)
    # one statement (SQLite's trace repeats it at the start of the trigger, whose
    # WHEN is false while streaming: no index work; "--" lines are FTS5 bookkeeping)
    top = {s for s in statements if not s.startswith("--")}
    assert len(top) == 1 and next(iter(top)).startswith("UPDATE messages SET"), statements
    plan = " ".join(str(r[-1]) for r in store.conn.execute("EXPLAIN QUERY PLAN " + store_rows.SAVE_MESSAGE,
                                                            (*store_rows.message_values(live), live.id)))
    assert "USING INDEX sqlite_autoindex_messages_1 (id=?)" in plan
    assert store.get_message(live.id).content == "some streamed text"
    store.save_message(Message("user", "never added"))  # ignored, no error


def test_delete_message_takes_its_subtree(store: Store) -> None:
    info = conversation(store)
    root = Message("user", "root", created_at=1.0)
    a = reply(root, "a", created_at=2.0)
    b = reply(root, "b", created_at=3.0)
    a1 = Message("user", "a1", parent_id=a.id, created_at=4.0)
    a2 = reply(a1, "a2", created_at=5.0)
    store.add_messages(info.id, [a2, a1, b, a, root])  # any order inside one call
    assert store.delete_message(a.id) == 3
    assert [m.content for m in store.load_messages(info.id)] == ["root", "b"]
    assert store.delete_message("missing") == 0
    # a very long chain goes too
    chain: list[Message] = []
    parent = b.id
    for i in range(1500):
        chain.append(Message("user", str(i), parent_id=parent, created_at=10.0 + i))
        parent = chain[-1].id
    store.add_messages(info.id, chain)
    assert store.delete_message(chain[0].id) == 1500
    assert [m.content for m in store.load_messages(info.id)] == ["root", "b"]


message_trees = st.lists(
    st.tuples(
        st.integers(min_value=0, max_value=10_000),  # parent choice
        st.sampled_from(["user", "assistant"]),
        st.text(max_size=60),
        st.sampled_from(list(MessageStatus)),
        st.text(max_size=10),
        st.integers(min_value=0, max_value=10**9),
        st.floats(min_value=0, max_value=1e4, allow_nan=False),
        st.one_of(st.none(), st.floats(min_value=0, max_value=1e5, allow_nan=False)),
    ),
    min_size=1,
    max_size=25,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(message_trees)
def test_any_message_tree_round_trips(rows: list[tuple]) -> None:
    msgs: list[Message] = []
    for i, (pick, role, text, status, err, tokens, tps, ttft) in enumerate(rows):
        parent = None if not msgs or pick % 5 == 0 else msgs[pick % len(msgs)].id
        meta = MessageMeta("model", "stop", tokens, tokens // 2, tps, ttft) if role == "assistant" else MessageMeta()
        msgs.append(Message(role, text, status, err, created_at=1000.0 + i, meta=meta, parent_id=parent))
    with Store.in_memory() as s:
        info = conversation(s)
        for m in msgs:
            s.add_message(info.id, m)
        loaded = s.load_messages(info.id)
        assert len(loaded) == len(msgs)
        for a, b in zip(loaded, msgs, strict=False):
            same(a, b)
        conv = Conversation()
        conv.load([m.snapshot() for m in msgs], msgs[-1].id)
        stored = _load(s, info.id)
        assert stored is not None
        stored.load(loaded, msgs[-1].id)
        assert [m.id for m in stored.messages] == [m.id for m in conv.messages]


def test_recover_interrupted(db_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    s = opened(db_path)
    info = conversation(s)
    user = Message("user", "hi")
    live = reply(user, "half a rep", MessageStatus.STREAMING)
    s.add_messages(info.id, [user, live])
    s.close()

    # the CLI while no Rill runs: a crash left it streaming; it reads as interrupted, nothing is written
    peek = Store.open(db_path, recover=False)
    assert peek.store is not None and peek.recovered == 0 and not peek.store.streaming_is_live
    assert peek.store.get_message(live.id).status is MessageStatus.INTERRUPTED
    assert [m.status for m in peek.store.load_messages(info.id)][-1] is MessageStatus.INTERRUPTED
    assert [h.message_id for h in peek.store.search("half a rep")] == [live.id]
    peek.store.close()

    monkeypatch.setattr(store_opening, "rill_is_running", lambda folder: folder == db_path.parent)
    peek = Store.open(db_path, recover=False)  # the CLI beside a running app: it may still be streaming
    assert peek.store is not None and peek.recovered == 0 and peek.store.streaming_is_live
    assert peek.store.get_message(live.id).status is MessageStatus.STREAMING
    assert peek.store.search("half a rep") == []  # not indexed while it streams
    assert peek.store.recover_interrupted() == 1
    assert peek.store.recover_interrupted() == 0
    peek.store.close()

    live2 = reply(user, "another", MessageStatus.STREAMING)
    s = opened(db_path)
    s.add_message(info.id, live2)
    s.close()
    result = Store.open(db_path)
    assert result.store is not None and result.recovered == 1
    got = result.store.get_message(live2.id)
    assert got is not None and got.status is MessageStatus.INTERRUPTED and got.content == "another"
    result.store.close()


def test_vacuum_keeps_search_in_step(store: Store) -> None:
    info = conversation(store)
    msgs = [Message("user", f"<{i}> 界面{i}") for i in range(50)]
    store.add_messages(info.id, msgs)
    for m in msgs[::3]:
        store.delete_message(m.id)
    store.conn.execute("VACUUM")
    for i, m in enumerate(msgs):
        hits = store.search(f'"<{i}>"')
        assert [h.message_id for h in hits] == ([] if i % 3 == 0 else [m.id])
    store.rebuild_search_index()
    assert len(store.search("界面")) == len(msgs) - len(msgs[::3])


# -- schema migrations --------------------------------------------------------------------


def make_v1_database(path: Path) -> dict[str, str]:
    conn = sqlite3.connect(path)
    conn.executescript(V1_SQL)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("INSERT INTO conversations VALUES ('c1', 'Old chat', 1.0, 3.0, 'm.gguf', 'Be nice.', 'm3')")
    conn.execute("INSERT INTO conversations VALUES ('c2', 'Other', 1.0, 9.0, NULL, NULL, NULL)")
    rows = [
        ("m1", "c1", None, "user", "How do I design a user interface? 用户界面设计", "complete"),
        ("m2", "c1", "m1", "assistant", "Start with the layout 🎉 日本語の説明", "complete"),
        ("m3", "c1", "m1", "assistant", "A second answer about widgets", "complete"),
        ("m4", "c2", None, "user", "still streaming when the old Rill died", "streaming"),
    ]
    for i, (mid, cid, parent, role, text, status) in enumerate(rows):
        conn.execute(
            "INSERT INTO messages (id, conversation_id, parent_id, role, content, status, tokens, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (mid, cid, parent, role, text, status, 7, 10.0 + i),
        )
    conn.execute("PRAGMA user_version = 1")
    conn.commit()
    conn.close()
    return {"m1": rows[0][4], "m2": rows[1][4], "m3": rows[2][4]}


def test_v1_schema_in_the_tests_is_the_one_shipped() -> None:
    assert " ".join(V1_SQL.split()) == " ".join(store_schema.V1_SQL.split())


def test_upgrade_from_v1_keeps_data_and_search_works(db_path: Path) -> None:
    texts = make_v1_database(db_path)
    result = Store.open(db_path)
    assert result.store is not None and result.notices == [] and not result.read_only
    s = result.store
    assert s.conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert result.recovered == 1
    info = s.get_conversation("c1")
    assert info is not None
    assert (info.title, info.pinned, info.params, info.model, info.current_leaf) == (
        "Old chat", False, {}, "m.gguf", "m3")
    loaded = s.load_messages("c1")
    assert [(m.id, m.parent_id, m.content) for m in loaded] == [
        ("m1", None, texts["m1"]), ("m2", "m1", texts["m2"]), ("m3", "m1", texts["m3"])]
    assert loaded[0].meta.tokens == 7
    assert [c.id for c in s.list_conversations()] == ["c2", "c1"]
    assert [h.message_id for h in s.search("interface")] == ["m1"]
    assert [h.message_id for h in s.search("界面")] == ["m1"]
    assert [h.message_id for h in s.search("🎉")] == ["m2"]
    assert [h.message_id for h in s.search("日本語")] == ["m2"]
    assert [h.message_id for h in s.search("died")] == ["m4"]  # interrupted: now indexed
    s.update_conversation("c1", pinned=True)
    assert [c.id for c in s.list_conversations()] == ["c1", "c2"]
    s.add_message("c1", Message("user", "a new 界面 question", parent_id="m3"))
    assert len(s.search("界面")) == 2
    assert s.integrity_ok()
    s.close()


def test_upgrade_from_v5_gives_the_short_terms_function_bytes_and_keeps_the_index(db_path: Path) -> None:
    """v6's triggers hand ``rill_short_terms`` the text's UTF-8 bytes: terms
    a v5 trigger made from the str are removed exactly by a v6 delete."""
    from app.core.store import search

    s = opened(db_path)
    info = ConversationInfo(title="v5")
    s.create_conversation(info)
    s.close()
    conn = sqlite3.connect(db_path)
    search.register_functions(conn)
    v5 = search.TRIGGERS_SQL.replace("CAST(new.content AS BLOB)", "new.content").replace(
        "CAST(old.content AS BLOB)", "old.content")
    conn.executescript(search.DROP_TRIGGERS_SQL + v5 + "PRAGMA user_version = 5;")
    rows = [("v5-a", "an old 界面 note 😀 about Qt"), ("v5-b", "another 界面 page")]
    for k, (mid, text) in enumerate(rows):
        conn.execute(
            "INSERT INTO messages (id, conversation_id, parent_id, role, content, status, created_at) "
            "VALUES (?, ?, NULL, 'user', ?, 'complete', ?)", (mid, info.id, text, 1.0 + k))
    conn.commit()
    conn.close()
    s = opened(db_path)
    try:
        assert s.conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        triggers = [r[0] for r in s.conn.execute("SELECT sql FROM sqlite_master WHERE type = 'trigger' "
                                                 "AND name LIKE 'messages_search_%'")]
        assert len(triggers) == 3 and all("AS BLOB" in t for t in triggers)
        assert sorted(h.message_id for h in s.search("界面")) == ["v5-a", "v5-b"]
        assert s.delete_message("v5-a") == 1
        assert [h.message_id for h in s.search("界面")] == ["v5-b"], "the v5 terms were deleted exactly"
        assert s.search("Qt") == [] and s.search("😀") == []
        s.add_message(info.id, Message("user", "a new 界面 note", parent_id="v5-b"))
        assert len(s.search("界面")) == 2
        assert s.integrity_ok()
    finally:
        s.close()


def test_a_failed_migration_is_rolled_back(db_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    make_v1_database(db_path)

    def broken(conn: sqlite3.Connection) -> None:
        conn.execute("ALTER TABLE conversations ADD COLUMN pinned INTEGER")
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(store_schema, "MIGRATIONS", [MIGRATIONS[0], broken])
    result = Store.open(db_path)
    assert result.store is None
    assert "full" in result.notices[-1]
    plain(result.notices[-1])
    conn = sqlite3.connect(db_path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 1
    assert "pinned" not in [r[1] for r in conn.execute("PRAGMA table_info(conversations)")]
    conn.close()
    monkeypatch.undo()
    assert opened(db_path).get_conversation("c1") is not None


# -- damaged, foreign and newer files ------------------------------------------------------


def real_database(path: Path, conversations: int = 20) -> None:
    s = opened(path)
    for i in range(conversations):
        info = conversation(s, title=f"chat {i}")
        s.add_messages(info.id, [Message("user", f"hello {i} " + "text " * 300) for _ in range(3)])
    s.close()


def damage_random(path: Path) -> None:
    path.write_bytes(random.Random(1).randbytes(8192))


def damage_truncate(path: Path) -> None:
    real_database(path)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def damage_header(path: Path) -> None:
    real_database(path)
    data = bytearray(path.read_bytes())
    data[:100] = random.Random(2).randbytes(100)
    path.write_bytes(bytes(data))


def damage_page_size(path: Path) -> None:
    real_database(path)
    data = bytearray(path.read_bytes())
    data[16:18] = b"\x12\x34"
    path.write_bytes(bytes(data))


def damage_inner_page(path: Path) -> None:
    real_database(path)
    data = bytearray(path.read_bytes())
    page = 4096
    for offset in range(3 * page, len(data) - page, 7 * page):  # scribble over b-tree pages
        data[offset : offset + 64] = b"\xff" * 64
    path.write_bytes(bytes(data))


def damage_text(path: Path) -> None:
    path.write_text("this is not a database at all\n" * 10)


@pytest.mark.parametrize(
    "damage", [damage_random, damage_truncate, damage_header, damage_page_size, damage_inner_page, damage_text]
)
def test_a_damaged_file_is_moved_aside_and_a_fresh_one_started(db_path: Path, damage: Callable[[Path], None]) -> None:
    damage(db_path)
    original = db_path.read_bytes()
    Path(f"{db_path}-wal").write_bytes(b"junk wal")
    result = Store.open(db_path)
    assert result.store is not None and not result.read_only
    moved = result.moved_to
    assert moved is not None and moved.parent == db_path.parent
    assert moved.name.startswith("rill.db.corrupt-")
    assert time.strftime("%Y%m%d") in moved.name
    assert moved.read_bytes() == original  # nothing lost
    assert Path(f"{moved}-wal").read_bytes() == b"junk wal"
    assert len(result.notices) == 1
    notice = result.notices[0]
    assert str(moved) in notice and "damaged" in notice
    plain(notice)
    s = result.store
    assert s.count_conversations() == 0
    info = conversation(s, title="fresh")
    s.add_message(info.id, Message("user", "a fresh start 界面"))
    assert len(s.search("界面")) == 1 and s.integrity_ok()
    s.close()
    assert opened(db_path).count_conversations() == 1


def test_two_damaged_files_in_one_second_get_different_names(db_path: Path) -> None:
    damage_random(db_path)
    first = Store.open(db_path)
    assert first.store is not None
    first.store.close()
    db_path.write_bytes(b"garbage again" * 100)
    second = Store.open(db_path)
    assert second.store is not None and second.moved_to != first.moved_to
    assert first.moved_to is not None and first.moved_to.exists()
    assert second.moved_to is not None and second.moved_to.exists()
    second.store.close()


def test_a_foreign_sqlite_file_is_moved_aside(db_path: Path) -> None:
    conn = sqlite3.connect(db_path)
    conn.execute("CREATE TABLE recipes (name TEXT)")
    conn.commit()
    conn.close()
    result = Store.open(db_path)
    assert result.store is not None and result.moved_to is not None
    assert "not a Rill" in result.notices[0] and str(result.moved_to) in result.notices[0]
    conn = sqlite3.connect(result.moved_to)
    assert conn.execute("SELECT name FROM sqlite_schema").fetchall() == [("recipes",)]
    conn.close()
    result.store.close()


def test_a_newer_database_is_refused_untouched(db_path: Path) -> None:
    real_database(db_path, conversations=3)
    conn = sqlite3.connect(db_path)
    conn.execute("PRAGMA user_version = 99")
    conn.commit()
    conn.close()
    before = file_state(db_path.parent)
    mtime = db_path.stat().st_mtime_ns
    result = Store.open(db_path)
    assert result.store is None
    assert len(result.notices) == 1
    notice = result.notices[0]
    assert str(db_path) in notice and "newer version of Rill" in notice
    plain(notice)
    assert file_state(db_path.parent) == before  # bytes identical, no files added
    assert db_path.stat().st_mtime_ns == mtime


def test_an_unusable_data_folder_gives_no_store_and_a_notice(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    result = Store.open(blocker / "rill" / "rill.db")
    assert result.store is None and result.read_only
    assert str(blocker / "rill") in result.notices[0]
    plain(result.notices[0])


# -- read-only files and folders, full disks: StoreWriteError and retry ----------------------


@pytest.fixture
def world_dir() -> Iterator[Path]:
    """A folder the unprivileged user can reach (tests/helpers/privileges.py)."""
    with privileges.world_dir() as base:
        yield base


def read_only_checks(path: Path, make_writable) -> None:
    with as_unprivileged():
        result = Store.open(path)
    assert result.store is not None, result.notices
    s = result.store
    try:
        assert result.read_only and s.read_only
        assert len(result.notices) == 1 and "read-only" in result.notices[0] and str(path) in result.notices[0]
        plain(result.notices[0])
        # reading works
        assert [c.title for c in s.list_conversations()] == ["kept"]
        assert len(s.search("界面")) == 1
        info = s.list_conversations()[0]
        with as_unprivileged():
            with pytest.raises(StoreWriteError) as err:
                s.add_message(info.id, Message("user", "new text 界面", id="new1"))
            assert err.value.reason == "read_only"
            message = str(err.value)
            assert "read-only" in message and str(path) in message
            plain(message)
            assert s.pending_count == 1
            assert not s.retry_pending()
        make_writable()
        with as_unprivileged():
            assert s.retry_pending()
        assert s.pending_count == 0 and not s.read_only
        assert [m.content for m in s.load_messages(info.id)][-1] == "new text 界面"
        assert len(s.search("界面")) == 2
    finally:
        s.close()


def kept_database(path: Path) -> None:
    s = opened(path)
    info = conversation(s, title="kept")
    s.add_message(info.id, Message("user", "old 界面 text"))
    s.close()
    os.chmod(path, 0o666)


def test_a_read_only_file_opens_read_only_and_writes_raise(world_dir: Path) -> None:
    path = world_dir / "rill.db"
    kept_database(path)
    path.chmod(0o444)
    read_only_checks(path, lambda: path.chmod(0o666))


def test_a_read_only_folder_opens_read_only_and_writes_raise(world_dir: Path) -> None:
    folder = world_dir / "data"
    folder.mkdir()
    path = folder / "rill.db"
    kept_database(path)
    folder.chmod(0o555)
    read_only_checks(path, lambda: folder.chmod(0o777))


def test_a_new_database_in_a_read_only_folder(world_dir: Path) -> None:
    folder = world_dir / "data"
    folder.mkdir(mode=0o555)
    folder.chmod(0o555)
    with as_unprivileged():
        result = Store.open(folder / "rill.db")
    assert result.store is None and result.read_only
    assert str(folder / "rill.db") in result.notices[0] and "not be saved" in result.notices[0]
    plain(result.notices[0])


def fill_disk(s: Store) -> None:
    """Make the database 'full' at its current size (SQLITE_FULL, like a full disk)."""
    pages = s.conn.execute("PRAGMA page_count").fetchone()[0]
    s.conn.execute(f"PRAGMA max_page_count = {pages}")


def test_disk_full_queues_writes_in_order_and_retry_saves_them(store: Store) -> None:
    info = conversation(store, title="full")
    user = Message("user", "question")
    store.add_message(info.id, user)
    fill_disk(store)
    live = reply(user, "x" * 50_000, MessageStatus.STREAMING)
    with pytest.raises(StoreWriteError) as err:
        store.add_message(info.id, live)
    assert err.value.reason == "disk_full" and "full" in str(err.value)
    plain(str(err.value))
    # later saves of the same reply are queued behind it and merged
    for i in range(5):
        live.append(f" more {i}")
        with pytest.raises(StoreWriteError):
            store.save_message(live)
    live.status = MessageStatus.COMPLETE
    with pytest.raises(StoreWriteError):
        store.save_message(live)
    assert store.pending_count == 1
    with pytest.raises(StoreWriteError):
        store.update_conversation(info.id, title="renamed while full")
    assert store.pending_count == 2
    assert not store.retry_pending()
    store.conn.execute("PRAGMA max_page_count = 1073741823")
    assert store.retry_pending() and store.pending_count == 0
    got = store.get_message(live.id)
    assert got is not None and got.content == live.content and got.status is MessageStatus.COMPLETE
    assert store.get_conversation(info.id).title == "renamed while full"
    assert [h.message_id for h in store.search("more 4")] == [live.id]
    # and the next write goes straight through
    store.save_message(live)
    assert store.integrity_ok()


def test_a_write_after_a_failure_flushes_the_queue_first(store: Store) -> None:
    info = conversation(store)
    fill_disk(store)
    msg = Message("user", "y" * 30_000)
    with pytest.raises(StoreWriteError):
        store.add_message(info.id, msg)
    store.conn.execute("PRAGMA max_page_count = 1073741823")
    store.update_conversation(info.id, title="after")  # flushes the add, then itself
    assert store.pending_count == 0
    assert [m.id for m in store.load_messages(info.id)] == [msg.id]


def test_a_locked_database_is_a_write_error(db_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    s = opened(db_path)
    info = conversation(s)
    other = sqlite3.connect(db_path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    from app.core.store import writes

    monkeypatch.setattr(writes, "BUSY_PATIENCE_S", 0.05)
    try:
        with pytest.raises(StoreWriteError) as err:
            s.add_message(info.id, Message("user", "blocked"))
        assert err.value.reason == "locked"
        plain(str(err.value))
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert s.retry_pending()
    assert len(s.load_messages(info.id)) == 1
    s.close()


def test_batch_is_all_or_nothing(store: Store) -> None:
    info = ConversationInfo(title="imported")
    with pytest.raises(RuntimeError):
        with store.batch():
            store.create_conversation(info)
            store.add_messages(info.id, [Message("user", "one"), Message("user", "two")])
            raise RuntimeError("malformed line 3")
    assert store.count_conversations() == 0 and store.search("one") == []
    fill_disk(store)
    with pytest.raises(StoreWriteError):
        with store.batch():
            store.create_conversation(info)
            store.add_messages(info.id, [Message("user", "z" * 100_000)])
    assert store.pending_count == 0  # an import is not retried behind the user's back
    store.conn.execute("PRAGMA max_page_count = 1073741823")
    assert store.count_conversations() == 0
    with store.batch():
        store.create_conversation(info)
        store.add_messages(info.id, [Message("user", "one")])
    assert store.count_conversations() == 1


# -- crash safety: kill -9 while a reply streams --------------------------------------------

CHILD = r"""
import sys, time
from app.core.store import Store, ConversationInfo
from app.core.conversation.model import Message, MessageStatus
path, conv_id, reply_id = sys.argv[1:4]
s = Store.open(path, recover=False).store
s.create_conversation(ConversationInfo(id=conv_id, title="crash"))
user = Message("user", "tell me a long story", id=conv_id + "u")
s.add_message(conv_id, user)
live = Message("assistant", "", MessageStatus.STREAMING, id=reply_id, parent_id=user.id)
s.add_message(conv_id, live)
print("ready", flush=True)
i = 0
while True:
    live.append(f"<{i} 流式 text> ")
    i += 1
    live.meta.tokens = i
    s.save_message(live)
    print(f"saved {i}", flush=True)
    time.sleep(0.05)
"""


def expected_text(saves: int) -> str:
    return "".join(f"<{i} 流式 text> " for i in range(saves))


def test_kill_9_while_streaming_loses_at_most_one_save(db_path: Path) -> None:
    rng = random.Random(8)
    opened(db_path).close()
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    for round_ in range(20):
        conv_id, reply_id = f"conv{round_:02d}", f"reply{round_:02d}"
        proc = subprocess.Popen(
            [sys.executable, "-c", CHILD, str(db_path), conv_id, reply_id],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT,
        )
        assert proc.stdout is not None
        target = rng.randint(1, 8)
        acked = 0
        try:
            for line in proc.stdout:
                if line.startswith("saved "):
                    acked = int(line.split()[1])
                    if acked >= target:
                        break
            else:
                pytest.fail(f"the child ended early: {proc.stderr.read() if proc.stderr else ''}")
            time.sleep(rng.random() * 0.06)  # land anywhere in the save loop
            proc.send_signal(signal.SIGKILL)
        finally:
            proc.kill()
            proc.wait()
            proc.stdout.close()
            if proc.stderr:
                proc.stderr.close()
        assert proc.returncode == -signal.SIGKILL

        result = Store.open(db_path)
        assert result.store is not None and result.notices == []
        s = result.store
        try:
            assert s.integrity_ok()
            assert result.recovered == 1
            got = s.get_message(reply_id)
            assert got is not None
            assert got.status is MessageStatus.INTERRUPTED
            # the last acknowledged save, or one more that committed before the kill
            assert got.content in (expected_text(acked), expected_text(acked + 1)), (acked, got.content[-40:])
            assert got.meta.tokens in (acked, acked + 1)
            assert reply_id in [h.message_id for h in s.search(f'"<{acked - 1} 流式 text>"')]
        finally:
            s.close()
    final = Store.open(db_path)
    assert final.store is not None and final.store.count_conversations() == 20
    final.store.close()


def test_open_result_is_a_plain_dataclass() -> None:
    r = OpenResult(None, ["x"], True)
    assert (r.store, r.notices, r.read_only, r.moved_to, r.recovered) == (None, ["x"], True, None, 0)
