"""The schema of the conversation database and its migrations (see the
schema history in ``app.core.store``)."""

from __future__ import annotations

import contextlib
import logging
import sqlite3
from collections.abc import Callable
from pathlib import Path

from app.core.conversation.model import DEFAULT_SYSTEM_PROMPT
from app.core.store import chunks as _chunks
from app.core.store import search as _search

log = logging.getLogger(__name__)

SCHEMA_VERSION = 6

#: The first schema, verbatim (a test builds a v1 database from it and upgrades it).
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

V2_SQL = """
ALTER TABLE conversations ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0;
ALTER TABLE conversations ADD COLUMN params TEXT;
DROP INDEX conversations_by_updated;
CREATE INDEX conversations_by_order ON conversations(pinned DESC, updated_at DESC);
CREATE INDEX messages_streaming ON messages(status) WHERE status = 'streaming';
"""

OUR_TABLES = {"conversations", "messages"}


def _run_script(conn: sqlite3.Connection, sql: str) -> None:
    """Run several statements inside the current transaction
    (``executescript`` would commit first)."""
    buf = ""
    for piece in sql.split(";"):
        buf += piece + ";"
        if sqlite3.complete_statement(buf):
            if buf.strip(" \n\t;"):
                conn.execute(buf)
            buf = ""
    if buf.strip(" \n\t;"):
        conn.execute(buf)


def _migrate_0_to_1(conn: sqlite3.Connection) -> None:
    _run_script(conn, V1_SQL)


def _migrate_1_to_2(conn: sqlite3.Connection) -> None:
    _run_script(conn, V2_SQL)
    _run_script(conn, _search.SCHEMA_SQL)
    for sql in _search.FILL_SQL:
        conn.execute(sql)


def _migrate_2_to_3(conn: sqlite3.Connection) -> None:
    # v2 showed NULL as "no system prompt"; from v3 on NULL means "the default"
    conn.execute("UPDATE conversations SET system_prompt = '' WHERE system_prompt IS NULL")
    conn.execute("UPDATE conversations SET system_prompt = NULL WHERE system_prompt = ?", (DEFAULT_SYSTEM_PROMPT,))


def _migrate_3_to_4(conn: sqlite3.Connection) -> None:
    # attachments: blobs, attachment rows, chunks and their indexes, reply sources
    _run_script(conn, _chunks.SCHEMA_SQL)


def _migrate_4_to_5(conn: sqlite3.Connection) -> None:
    # chunk vectors: one matrix per blob and model instead of one row per chunk
    # and the chunks' own short-index terms (made where a file is read).
    # (a v3 file upgraded through ``_migrate_3_to_4`` already has both)
    if "terms" not in {row[1] for row in conn.execute("PRAGMA table_info(chunks)")}:
        conn.execute("ALTER TABLE chunks ADD COLUMN terms TEXT")  # NULL: the triggers make them
    _run_script(conn, _chunks.VECTORS_SQL)
    if conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'chunk_vectors'").fetchone():
        rows = conn.execute(
            "SELECT c.sha256, v.model, c.ord, v.vector FROM chunk_vectors AS v JOIN chunks AS c "
            "ON c.rowid = v.chunk_rowid ORDER BY c.sha256, v.model, c.ord").fetchall()
        groups: dict[tuple[str, str], list[bytes]] = {}
        for sha, model, ord_, vector in rows:
            kept = groups.setdefault((sha, model), [])
            if ord_ == len(kept):  # rows 0..n-1 only: a gap ends the matrix
                kept.append(bytes(vector))
        for (sha, model), packed in groups.items():
            _chunks.save_vectors(conn, sha, model, packed)
        conn.execute("DROP TABLE chunk_vectors")


def _migrate_5_to_6(conn: sqlite3.Connection) -> None:
    # the messages' index triggers hand the short-terms function the text's
    # bytes (the terms, and so the index, do not change)
    _run_script(conn, _search.DROP_TRIGGERS_SQL)
    _run_script(conn, _search.TRIGGERS_SQL)


#: ``MIGRATIONS[v]`` turns a version-v database into version v+1.
MIGRATIONS: list[Callable[[sqlite3.Connection], None]] = [
    _migrate_0_to_1, _migrate_1_to_2, _migrate_2_to_3, _migrate_3_to_4, _migrate_4_to_5, _migrate_5_to_6,
]
assert len(MIGRATIONS) == SCHEMA_VERSION



def upgrade(conn: sqlite3.Connection, path: Path, version: int) -> None:
    """Run every migration from ``version`` to ``SCHEMA_VERSION``, each in its
    own transaction."""
    for v in range(version, SCHEMA_VERSION):
        conn.execute("BEGIN IMMEDIATE")
        try:
            MIGRATIONS[v](conn)
            conn.execute(f"PRAGMA user_version = {v + 1}")
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("ROLLBACK")
            raise
        if v > 0:
            log.info("upgraded %s from schema %d to %d", path, v, v + 1)
