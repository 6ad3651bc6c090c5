"""The conversation database: conversations and messages, their reads,
writes and search (see ``app.core.store`` for the threading rule, the fault
protocol and the schema history)."""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from app.core.conversation.model import Message, MessageStatus
from app.core.store import search as _search
from app.core.store.attachments import AttachmentRecords
from app.core.store.clean import clean_title
from app.core.store.opening import (
    QUICK_CHECK_MAX_BYTES,
    OpenResult,
    open_for_reading,
    open_in_memory,
    open_store,
)
from app.core.store.rows import (
    CONV_COLUMNS,
    INSERT_MESSAGE,
    MSG_COLUMNS,
    SAVE_MESSAGE,
    UPDATABLE,
    ConversationInfo,
    conv_row,
    info_from_row,
    message_from_row,
    message_row,
    message_values,
    utf8_content,
)
from app.core.store.search import SearchHit
from app.core.store.writes import WritingStore, _Op
from app.core.util.gil import handing_over

log = logging.getLogger(__name__)


class Store(AttachmentRecords, WritingStore):
    """The conversation database. Make one with ``Store.open`` (or
    ``Store.in_memory`` in tests); see ``app.core.store`` for the threading
    rule and the fault protocol."""

    def __init__(self, conn: sqlite3.Connection, path: Path | None, *, read_only: bool = False) -> None:
        super().__init__(conn, path, read_only=read_only)
        #: True: a Rill may be streaming into the rows still ``streaming``, so
        #: they read as they are. False (a read-only command while no Rill
        #: holds the data dir): they were left by a crash and read as
        #: ``interrupted``, without writing anything.
        self.streaming_is_live = True

    @classmethod
    def _make(cls, conn: sqlite3.Connection, path: Path, read_only: bool) -> Store:
        return cls(conn, path, read_only=read_only)

    @classmethod
    def open(
        cls, path: Path | str | None = None, *, recover: bool = True, quick_check_max: int = QUICK_CHECK_MAX_BYTES
    ) -> OpenResult[Store]:
        """Open (creating or upgrading) the database at ``path`` (default
        ``$XDG_DATA_HOME/rill/rill.db``). Never raises for a bad file: see
        ``OpenResult`` and ``app.core.store``. With ``recover`` (the app; not
        a CLI command that may run beside it) messages left ``streaming`` by a
        crash are marked interrupted; without it they read as interrupted
        unless a Rill holds the database's folder (``rill_is_running``)."""
        return open_store(cls._make, path, recover=recover, quick_check_max=quick_check_max)

    @classmethod
    def open_read_only(cls, path: Path | str | None = None, *,
                       quick_check_max: int = QUICK_CHECK_MAX_BYTES) -> OpenResult[Store]:
        """Open the database for reading only (``rill export``, ``rill
        search``): nothing in its folder is created, moved or written; a file
        that cannot be read as it is gives no store and a notice (see
        ``app.core.store.opening.open_for_reading``)."""
        return open_for_reading(cls._make, path, quick_check_max=quick_check_max)

    @classmethod
    def in_memory(cls) -> Store:
        """A private, empty database that lives only as long as the Store (tests)."""
        return open_in_memory(cls._make)

    def __enter__(self) -> Store:  # noqa: PYI034 - typing.Self is Python 3.11+
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def _streaming_as(self) -> MessageStatus:
        return MessageStatus.STREAMING if self.streaming_is_live else MessageStatus.INTERRUPTED

    # -- conversations -------------------------------------------------------------------

    def create_conversation(self, info: ConversationInfo) -> None:
        """Store a new conversation (an existing one with the same id is
        updated). The title is kept as one plain line (``clean_title``)."""
        self._write(_Op("create_conversation", info.id, conv_row(info), info.id))

    def _do_create_conversation(self, row: tuple[Any, ...]) -> None:
        with self._tx() as conn:
            conn.execute(
                f"INSERT INTO conversations ({CONV_COLUMNS}) VALUES ({', '.join('?' * 9)}) "
                "ON CONFLICT(id) DO UPDATE SET title = excluded.title, created_at = excluded.created_at, "
                "updated_at = excluded.updated_at, pinned = excluded.pinned, model = excluded.model, "
                "system_prompt = excluded.system_prompt, params = excluded.params, "
                "current_leaf = excluded.current_leaf",
                row,
            )

    def update_conversation(self, conversation_id: str, **fields: Any) -> None:
        """Change some of: title, created_at, updated_at, pinned, model,
        system_prompt (None: the default of Settings), params (a dict),
        current_leaf. ``updated_at`` is not bumped implicitly (renaming or
        pinning does not reorder the sidebar). A title is kept as one plain
        line (``clean_title``: no control characters)."""
        unknown = set(fields) - UPDATABLE
        if unknown:
            raise TypeError(f"update_conversation: unknown field(s) {', '.join(sorted(unknown))}")
        if not fields:
            return
        values = dict(fields)
        if "title" in values:
            values["title"] = clean_title(str(values["title"] or ""))
        if "pinned" in values:
            values["pinned"] = 1 if values["pinned"] else 0
        if "params" in values:
            values["params"] = json.dumps(values["params"] or {}, ensure_ascii=False)
        self._write(_Op("update_conversation", conversation_id, (conversation_id, values), conversation_id))

    def _do_update_conversation(self, payload: tuple[str, dict[str, Any]]) -> None:
        conversation_id, values = payload
        sets = ", ".join(f"{name} = ?" for name in values)
        with self._tx() as conn:
            conn.execute(f"UPDATE conversations SET {sets} WHERE id = ?", (*values.values(), conversation_id))

    def delete_conversation(self, conversation_id: str) -> None:
        """Delete a conversation and all its messages."""
        self._write(_Op("delete_conversation", conversation_id, conversation_id, conversation_id))

    def _do_delete_conversation(self, conversation_id: str) -> None:
        with self._tx() as conn:
            conn.execute("UPDATE messages SET parent_id = NULL WHERE conversation_id = ?", (conversation_id,))
            conn.execute("DELETE FROM messages WHERE conversation_id = ?", (conversation_id,))
            conn.execute("DELETE FROM conversations WHERE id = ?", (conversation_id,))

    def get_conversation(self, conversation_id: str) -> ConversationInfo | None:
        sql = f"SELECT {CONV_COLUMNS} FROM conversations WHERE id = ?"
        row = self.conn.execute(sql, (conversation_id,)).fetchone()
        return None if row is None else info_from_row(row)

    def list_conversations(
        self, offset: int = 0, limit: int = 100, *, with_counts: bool = False
    ) -> list[ConversationInfo]:
        """A page of conversations: pinned first, then the most recently
        updated (an index walk: the cost is the page, not the total)."""
        rows = self.conn.execute(
            f"SELECT {CONV_COLUMNS} FROM conversations ORDER BY pinned DESC, updated_at DESC LIMIT ? OFFSET ?",
            (max(0, limit), max(0, offset)),
        ).fetchall()
        if not with_counts:
            return [info_from_row(row) for row in rows]
        cursor = self.conn.cursor()
        count = "SELECT count(*) FROM messages WHERE conversation_id = ?"
        return [info_from_row(row, cursor.execute(count, (row[0],)).fetchone()[0]) for row in rows]

    def count_conversations(self) -> int:
        return int(self.conn.execute("SELECT count(*) FROM conversations").fetchone()[0])

    # -- messages ------------------------------------------------------------------------

    def add_message(self, conversation_id: str, msg: Message) -> None:
        """Store ``msg`` under ``msg.parent_id`` (which must be stored already)
        and bump the conversation's ``updated_at`` to the message's time.
        Adding a message again updates it (so retries are harmless)."""
        self._write(_Op("add_message", msg.id, (conversation_id, message_row(conversation_id, msg)), conversation_id))

    def _do_add_message(self, payload: tuple[str, tuple[Any, ...]]) -> None:
        conversation_id, row = payload
        with self._tx() as conn:
            conn.execute(INSERT_MESSAGE, utf8_content(row, 4))
            conn.execute(
                "UPDATE conversations SET updated_at = max(coalesce(updated_at, 0), ?) WHERE id = ?",
                (row[13], conversation_id),
            )

    def add_messages(self, conversation_id: str, msgs: Iterable[Message]) -> None:
        """Store many messages in one transaction (an import, an undo), in
        any order of parents and children; ``updated_at`` is not changed."""
        rows = [message_row(conversation_id, m) for m in msgs]
        if rows:
            self._write(_Op("add_messages", conversation_id, rows, conversation_id))

    def _do_add_messages(self, rows: list[tuple[Any, ...]]) -> None:
        with self._tx() as conn:
            conn.execute("PRAGMA defer_foreign_keys = ON")
            conn.executemany(INSERT_MESSAGE, (utf8_content(row, 4) for row in rows))

    def save_message(self, msg: Message, conversation_id: str = "") -> None:
        """Write a stored message's content, status, error and stats: one
        UPDATE by primary key (a streaming reply calls this every second). A
        message that is not stored is ignored. ``conversation_id`` (when the
        caller knows it) only names what is unsaved if the write is queued."""
        self._write(_Op("save_message", msg.id, (*message_values(msg), msg.id), conversation_id))

    def _do_save_message(self, values: tuple[Any, ...]) -> None:
        self.conn.execute(SAVE_MESSAGE, utf8_content(values, 0))

    def delete_message(self, message_id: str) -> int:
        """Delete a message and every message below it in the tree; returns
        how many went (0 when it was not stored, or when the delete was queued)."""
        result = self._write(_Op("delete_message", message_id, message_id))
        return int(result or 0)

    def _do_delete_message(self, message_id: str) -> int:
        with self._tx() as conn:
            ids = [
                (row[0],)
                for row in conn.execute(
                    "WITH RECURSIVE sub(id) AS (SELECT id FROM messages WHERE id = ? "
                    "UNION SELECT m.id FROM messages AS m JOIN sub ON m.parent_id = sub.id) SELECT id FROM sub",
                    (message_id,),
                )
            ]
            conn.executemany("UPDATE messages SET parent_id = NULL WHERE id = ?", ids)
            conn.executemany("DELETE FROM messages WHERE id = ?", ids)
        return len(ids)

    def get_message(self, message_id: str) -> Message | None:
        row = self.conn.execute(f"SELECT {MSG_COLUMNS} FROM messages WHERE id = ?", (message_id,)).fetchone()
        return None if row is None else message_from_row(row, self._streaming_as)

    def message_conversation(self, message_id: str) -> str | None:
        """The id of the conversation holding a message (None: not stored)."""
        row = self.conn.execute("SELECT conversation_id FROM messages WHERE id = ?", (message_id,)).fetchone()
        return None if row is None else row[0]

    def load_messages(self, conversation_id: str) -> list[Message]:
        """Every message of a conversation (the whole tree, every branch),
        oldest first, with ``parent_id`` set: ready for ``Conversation.load``."""
        rows = self.conn.execute(
            f"SELECT {MSG_COLUMNS} FROM messages WHERE conversation_id = ? ORDER BY created_at, rowid",
            (conversation_id,),
        ).fetchall()
        # (on the store thread, while the GUI thread may be waiting for the GIL: app.core.util.gil)
        return [message_from_row(row, self._streaming_as) for row in handing_over(rows)]

    def recover_interrupted(self) -> int:
        """Mark every message still ``streaming`` (the app died mid-reply) as
        ``interrupted``; returns how many. Only the app, at start-up, should
        call this (``Store.open(recover=True)`` does)."""
        return int(self._write(_Op("recover_interrupted", "", None)) or 0)

    def _do_recover_interrupted(self, _: None) -> int:
        with self._tx() as conn:
            cursor = conn.execute(
                "UPDATE messages SET status = ? WHERE status = ?",
                (MessageStatus.INTERRUPTED.value, MessageStatus.STREAMING.value),
            )
        return cursor.rowcount

    # -- search and health ---------------------------------------------------------------

    def search(self, query: str, limit: int = 50) -> list[SearchHit]:
        """Messages matching ``query``, newest first (see ``app.core.store.search``).
        Never raises for what the user typed."""
        return _search.search(self.conn, query, limit, include_streaming=not self.streaming_is_live)

    def rebuild_search_index(self) -> None:
        """Index every stored message again (a repair; seconds for a big history)."""
        self._write(_Op("rebuild_search_index", "", None))

    def _do_rebuild_search_index(self, _: None) -> None:
        with self._tx() as conn:
            _search.rebuild(conn)

    def integrity_ok(self) -> bool:
        """``PRAGMA integrity_check`` is ok (reads the whole file: slow on a big one)."""
        try:
            rows = self.conn.execute("PRAGMA integrity_check").fetchall()
        except sqlite3.DatabaseError:
            return False
        return [r[0] for r in rows] == ["ok"]

