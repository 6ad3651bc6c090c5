"""Conversations that last: one SQLite file (Qt-free, stdlib ``sqlite3``).

The file is ``$XDG_DATA_HOME/rill/rill.db`` (``~/.local/share/rill/rill.db``);
``Store.open`` creates the folder. WAL journal, ``synchronous=NORMAL`` (every
committed transaction survives the app being killed; only a power cut can lose
the last few), foreign keys on, ``busy_timeout`` 5 s.

Threading rule
--------------
A ``Store`` is not thread-safe: it is used from ONE thread at a time (the app
opens and uses it on its store thread, the CLI on the main thread; handing it
from one thread to another needs a happens-before, e.g. a queued signal).
Nothing here touches the network, and every public method is one short
transaction, so a caller that must not block (the GUI thread) only ever waits
for a queue hop, never for another caller's long job.

Faults: nothing is lost, and each is said in plain words
---------------------------------------------------------
``Store.open`` never raises for a bad file; it returns an ``OpenResult`` whose
``notices`` are messages for the user:

* a damaged file (not a database, a garbage header, a truncated file,
  ``PRAGMA quick_check`` not ok) is moved aside, with its ``-wal``/``-shm``,
  to ``rill.db.corrupt-YYYYmmdd-HHMMSS``, the notice says where, and a fresh
  database is started; an SQLite file that is not Rill's goes to
  ``rill.db.foreign-…`` the same way;
* a database written by a newer Rill (``user_version`` > ``SCHEMA_VERSION``)
  is not touched at all: ``store`` is None and the notice names the file (the
  app then keeps conversations in memory);
* a database Rill cannot write (read-only file or folder) opens read-only:
  ``read_only`` is True and reads work;
* no file and none can be created: ``store`` is None.

Writes that fail for a reason outside the program (read-only file or folder,
disk full, database locked by another program, I/O error: any
``sqlite3.OperationalError``) raise ``StoreWriteError``, whose message is
plain words, never a traceback. The retry protocol:

1. the failed write is kept in the store's pending queue (repeated saves of
   one message are merged, so the queue stays as small as the unsaved data);
2. while anything is pending, every later write is queued behind it (after
   one attempt to flush the queue), so the order of writes is kept; each of
   these raises ``StoreWriteError`` too;
3. the caller keeps its data in memory (it does anyway), tells the user the
   conversation is not saved, and calls ``retry_pending()`` now and then
   (say every 10 s); it returns True once everything is written
   (``pending_count`` is then 0). A read-only store reopens its file for
   writing there, in case the user fixed the permissions.

Writes inside ``with store.batch():`` (an import) are all or nothing and are
not queued: the ``StoreWriteError`` reaches the caller with nothing written.

Programming errors are not faults: adding a message to an unknown
conversation or under an unknown parent raises ``KeyError``.

Schema
------
``PRAGMA user_version`` is the schema version; ``MIGRATIONS[v]`` upgrades
version v to v+1, each in one transaction (an empty file is version 0).

* v1: ``conversations`` and ``messages`` (``V1_SQL``, kept verbatim in the tests).
* v2: ``conversations.pinned`` and ``conversations.params``; the search
  indexes and their triggers (see ``app.core.store.search``); an index for the
  sidebar order (pinned first, then newest) and a partial index of streaming
  messages (``recover_interrupted`` at start-up costs nothing).
* v3: per-conversation overrides of the Settings
  (``app.core.config.preferences.ConversationSettings``). ``system_prompt`` NULL now
  means "the default system prompt of Settings" (v2 read NULL as no system
  prompt: those rows become ''); a row holding Rill's built-in default
  (``DEFAULT_SYSTEM_PROMPT``, which every conversation got when it was made)
  becomes NULL, so it follows the default the user sets. ``params`` holds the
  sampling overrides (only the keys overridden; a random seed is
  ``"seed": null``). No new column: the version bump keeps a v2 Rill, which
  would read NULL as "no system prompt", from opening the file.

Message rows have no cascade chains: ``delete_message`` and
``delete_conversation`` unlink parents before deleting, because SQLite runs
``ON DELETE CASCADE`` as nested triggers and stops at a depth of 1000 (a long
conversation is a deeper chain than that).

The search index uses the messages' rowids; ``VACUUM`` keeps them (tested).
``rebuild_search_index()`` rebuilds both indexes from the messages if needed.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import sqlite3
import time
import urllib.parse
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.core.store import search as _search
from app.core.conversation.model import DEFAULT_SYSTEM_PROMPT, Conversation, Message, MessageMeta, MessageStatus, new_id
from app.core.base.i18n import translate
from app.core.store.search import SearchHit
from app.core.base.settings import data_dir

log = logging.getLogger(__name__)

SCHEMA_VERSION = 3
DB_FILE_NAME = "rill.db"
#: ``Store.open`` runs ``PRAGMA quick_check`` on a file up to this size (about
#: 150 ms for 200 MB here); on a bigger one it checks the header, the schema
#: and the conversations table only (a full check reads every page: seconds
#: for gigabytes). ``integrity_ok()`` checks everything.
QUICK_CHECK_MAX_BYTES = 256 * 1024 * 1024
BUSY_TIMEOUT_MS = 5000

_SQLITE_MAGIC = b"SQLite format 3\x00"
_CORRUPT_CODES = {"SQLITE_CORRUPT", "SQLITE_NOTADB"}


# -- errors and results ---------------------------------------------------------------



def _read_only_and_old(path: Path, notices: list[str]) -> "OpenResult":
    """A read-only database in an older format: left untouched, no store."""
    return OpenResult(
        None,
        notices + [translate("Store", "The conversation database {path} is read-only and is in an older format "
                                      "that Rill must upgrade before using it. It has been left untouched; "
                                      "conversations in this session will not be saved.").format(path=path)],
        True,
        path,
    )

class StoreError(Exception):
    """Base class of the store's own errors."""


class StoreWriteError(StoreError):
    """A write failed for a reason outside the program. ``str(err)`` is a
    plain sentence for the user; ``reason`` is one of ``read_only``,
    ``disk_full``, ``locked``, ``io``, ``other``."""

    def __init__(self, message: str, reason: str = "other") -> None:
        super().__init__(message)
        self.reason = reason


@dataclass
class OpenResult:
    """What ``Store.open`` found. ``notices`` are plain-language messages for
    the user (empty when all is well)."""

    store: Store | None
    notices: list[str] = field(default_factory=list)
    read_only: bool = False
    path: Path | None = None
    #: Where a damaged or foreign file was moved (None: nothing was moved).
    moved_to: Path | None = None
    #: Messages found still streaming and marked interrupted (``recover=True``).
    recovered: int = 0


@dataclass
class ConversationInfo:
    """A conversation's row (no messages). ``system_prompt`` is the
    conversation's own system prompt (None: the default one of Settings);
    ``params`` holds the sampling overrides (JSON in the database); together
    they are its ``ConversationSettings``. ``current_leaf`` is the id of the
    message at the end of the path the user last viewed; ``message_count`` is
    filled in only when asked for (``list_conversations(with_counts=True)``)."""

    id: str = field(default_factory=new_id)
    title: str = ""
    created_at: float = field(default_factory=time.time)
    updated_at: float = field(default_factory=time.time)
    pinned: bool = False
    model: str = ""
    system_prompt: str | None = None
    params: dict[str, Any] = field(default_factory=dict)
    current_leaf: str | None = None
    message_count: int | None = None

    @classmethod
    def from_conversation(cls, conv: Conversation, params: dict[str, Any] | None = None) -> ConversationInfo:
        """The row of ``conv``: its overrides (``Conversation.overrides``)
        give ``system_prompt`` and, unless given, ``params``."""
        own = conv.overrides.get("system_prompt")
        if params is None:
            params = {k: v for k, v in conv.overrides.items() if k != "system_prompt"}
        return cls(
            id=conv.id,
            title=conv.title,
            created_at=conv.created_at,
            updated_at=conv.updated_at,
            pinned=conv.pinned,
            model=conv.model,
            system_prompt=own if isinstance(own, str) else None,
            params=dict(params or {}),
            current_leaf=conv.current_leaf,
        )


# -- schema -----------------------------------------------------------------------------

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

_OUR_TABLES = {"conversations", "messages"}


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


#: ``MIGRATIONS[v]`` turns a version-v database into version v+1.
MIGRATIONS: list[Callable[[sqlite3.Connection], None]] = [_migrate_0_to_1, _migrate_1_to_2, _migrate_2_to_3]
assert len(MIGRATIONS) == SCHEMA_VERSION


# -- opening ----------------------------------------------------------------------------


def default_path() -> Path:
    return data_dir() / DB_FILE_NAME


def _connect(target: str, *, uri: bool = False) -> sqlite3.Connection:
    conn = sqlite3.connect(
        target, uri=uri, isolation_level=None, check_same_thread=False, timeout=BUSY_TIMEOUT_MS / 1000
    )
    try:
        conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        conn.execute("PRAGMA foreign_keys=ON")
        _search.register_functions(conn)
    except BaseException:
        conn.close()
        raise
    return conn


def _ro_uri(path: Path, *, immutable: bool = False) -> str:
    quoted = urllib.parse.quote(str(path.absolute()))
    return f"file:{quoted}?mode=ro" + ("&immutable=1" if immutable else "")


def _side_files(path: Path) -> list[Path]:
    return [Path(f"{path}{suffix}") for suffix in ("-wal", "-shm", "-journal")]


def _errname(exc: BaseException) -> str:
    return str(getattr(exc, "sqlite_errorname", "") or "")


def _is_corruption(exc: BaseException) -> bool:
    name = _errname(exc)
    if any(name.startswith(code) for code in _CORRUPT_CODES):
        return True
    text = str(exc).lower()
    return "malformed" in text or "not a database" in text


@dataclass
class _Probe:
    kind: str  # "new" | "ok" | "corrupt" | "foreign" | "newer" | "unknown"
    detail: str = ""
    version: int = 0


def _check_header(path: Path) -> str:
    """Why the file is not an SQLite database ('' when its header is fine;
    a clause in the user's language)."""
    with open(path, "rb") as f:
        header = f.read(100)
    damaged = translate("Store", "its header is damaged")
    if not header.startswith(_SQLITE_MAGIC[:6]) and len(header) >= 16:
        return translate("Store", "it is not a database file")
    if len(header) < 100 or not header.startswith(_SQLITE_MAGIC):
        return damaged
    page_size = int.from_bytes(header[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    if page_size < 512 or page_size > 65536 or page_size & (page_size - 1):
        return damaged
    if header[21:24] != b"\x40\x20\x20" or header[18] not in (1, 2) or header[19] not in (1, 2):
        return damaged
    pages = int.from_bytes(header[28:32], "big")
    header_size_valid = header[92:96] == header[24:28] and pages > 0
    wal = Path(f"{path}-wal")
    has_wal = wal.exists() and wal.stat().st_size > 0
    if header_size_valid and not has_wal and path.stat().st_size < pages * page_size:
        return translate("Store", "it is shorter than it should be: it was cut off")
    return ""


def _probe(path: Path, quick_check_max: int) -> _Probe:
    """Look at the file without writing anything (read-only connection)."""
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return _Probe("new")
    except OSError as exc:
        return _Probe("unknown", exc.strerror or str(exc))
    if size == 0 and not any(p.exists() and p.stat().st_size for p in _side_files(path)):
        return _Probe("new")
    journal = Path(f"{path}-journal")
    if journal.exists() and journal.stat().st_size:
        # a rollback-journal file that a crash left mid-transaction looks damaged
        # until a writer rolls it back: let the ordinary open do that
        return _Probe("unknown", "hot journal")
    try:
        bad_header = _check_header(path) if size else ""
    except OSError as exc:
        return _Probe("unknown", exc.strerror or str(exc))
    if bad_header:
        return _Probe("corrupt", bad_header)
    if size >= 100:
        # a newer Rill's file is refused without opening it (opening creates -wal/-shm files)
        with open(path, "rb") as f:
            version = int.from_bytes(f.read(100)[60:64], "big")
        if version > SCHEMA_VERSION:
            return _Probe("newer", version=version)
    conn = None
    try:
        # without a -wal file no WAL connection is open (the last one to close
        # removes it): read the file as immutable, which creates no -wal/-shm
        conn = _connect(_ro_uri(path, immutable=not _has_wal(path)), uri=True)
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            return _Probe("newer", version=version)
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_schema WHERE type = 'table'")}
        if tables and not _OUR_TABLES <= tables:
            return _Probe("foreign", translate("Store", "it holds tables that are not Rill's"), version)
        if version == 0 and tables:
            return _Probe("foreign", translate("Store", "it has no Rill schema version"), version)
        if size <= quick_check_max:
            result = conn.execute("PRAGMA quick_check").fetchall()
        else:
            result = conn.execute("PRAGMA quick_check(conversations)").fetchall()
        if [r[0] for r in result] != ["ok"]:
            return _Probe("corrupt", translate("Store", "its contents are damaged"), version)
        return _Probe("ok", version=version)
    except sqlite3.DatabaseError as exc:
        if _is_corruption(exc):
            return _Probe("corrupt", translate("Store", "its contents are damaged"))
        return _Probe("unknown", str(exc))
    finally:
        if conn is not None:
            conn.close()


def _move_aside(path: Path, label: str) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    target = path.with_name(f"{path.name}.{label}-{stamp}")
    n = 2
    while target.exists() or any(p.exists() for p in _side_files(target)):
        target = path.with_name(f"{path.name}.{label}-{stamp}-{n}")
        n += 1
    os.replace(path, target)
    for side, new_side in zip(_side_files(path), _side_files(target)):
        if side.exists():
            os.replace(side, new_side)
    return target


def _plain(exc: BaseException, path: Path | str) -> tuple[str, str]:
    """(reason, cause) for a failed write: the cause is a plain clause (in
    the user's language) such as "the disk holding … is full"; the reason
    (``read_only``, ``disk_full``...) is a key and stays as it is."""
    text = str(exc).lower()
    name = _errname(exc)
    if name.startswith("SQLITE_READONLY") or "readonly" in text or "read-only" in text:
        return "read_only", translate("Store", "the conversation database {path} (or its folder) is read-only").format(
            path=path)
    if name.startswith("SQLITE_FULL") or "disk is full" in text or "database or disk is full" in text:
        return "disk_full", translate("Store", "the disk holding {path} is full").format(path=path)
    if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")) or "locked" in text:
        return "locked", translate("Store", "another program is using the conversation database {path}").format(
            path=path)
    if name.startswith(("SQLITE_IOERR", "SQLITE_CANTOPEN")) or "i/o" in text or "unable to open" in text:
        return "io", translate("Store", "writing to {path} failed (a disk or permission problem)").format(path=path)
    first = str(exc).splitlines()[0].rstrip(".") if str(exc) else type(exc).__name__
    return "other", translate("Store", "SQLite said \"{message}\" about {path}").format(message=first, path=path)


def _read_only_notice(path: Path) -> str:
    return translate(
        "Store", "The conversation database {path} is read-only: your history is shown, but new "
        "conversations and changes are kept in memory only until it can be written."
    ).format(path=path)


def _cannot_open(path: Path, cause: str) -> str:
    return translate(
        "Store", "Rill cannot use the conversation database {path}: {cause}. "
        "Conversations in this session are kept in memory only and will not be saved."
    ).format(path=path, cause=cause)


# -- the store --------------------------------------------------------------------------

_CONV_COLUMNS = "id, title, created_at, updated_at, pinned, model, system_prompt, params, current_leaf"
_MSG_COLUMNS = (
    "id, conversation_id, parent_id, role, content, status, error, model, finish_reason, "
    "tokens, prompt_tokens, tokens_per_s, ttft_ms, created_at"
)
_UPDATABLE = {"title", "created_at", "updated_at", "pinned", "model", "system_prompt", "params", "current_leaf"}


def _conv_row(info: ConversationInfo) -> tuple[Any, ...]:
    return (
        info.id,
        info.title,
        info.created_at,
        info.updated_at,
        1 if info.pinned else 0,
        info.model,
        info.system_prompt,
        json.dumps(info.params or {}, ensure_ascii=False),
        info.current_leaf,
    )


def _info(row: tuple[Any, ...], count: int | None = None) -> ConversationInfo:
    params: dict[str, Any] = {}
    if row[7]:
        try:
            loaded = json.loads(row[7])
            params = loaded if isinstance(loaded, dict) else {}
        except ValueError:
            log.warning("conversation %s: ignoring unreadable params %r", row[0], row[7][:80])
    return ConversationInfo(
        id=row[0],
        title=row[1] or "",
        created_at=row[2] or 0.0,
        updated_at=row[3] or 0.0,
        pinned=bool(row[4]),
        model=row[5] or "",
        system_prompt=row[6],
        params=params,
        current_leaf=row[8],
        message_count=count,
    )


def _msg_values(msg: Message) -> tuple[Any, ...]:
    """content, status, error, model, finish_reason, tokens, prompt_tokens, tokens_per_s, ttft_ms."""
    meta = msg.meta
    return (
        msg.content,
        msg.status.value if isinstance(msg.status, MessageStatus) else str(msg.status),
        msg.error or None,
        meta.model or None,
        meta.finish_reason or None,
        meta.tokens,
        meta.prompt_tokens,
        meta.tokens_per_s,
        meta.ttft_ms,
    )


def _msg_row(conversation_id: str, msg: Message) -> tuple[Any, ...]:
    return (msg.id, conversation_id, msg.parent_id, msg.role, *_msg_values(msg), msg.created_at)


def _message(row: tuple[Any, ...]) -> Message:
    try:
        status = MessageStatus(row[5])
    except ValueError:
        status = MessageStatus.COMPLETE
    return Message(
        row[3] or "user",
        row[4] or "",
        status,
        row[6] or "",
        id=row[0],
        created_at=row[13] if row[13] is not None else 0.0,
        meta=MessageMeta(
            model=row[7] or "",
            finish_reason=row[8] or "",
            tokens=row[9] or 0,
            prompt_tokens=row[10] or 0,
            tokens_per_s=row[11] or 0.0,
            ttft_ms=row[12],
        ),
        parent_id=row[2],
    )


_INSERT_MESSAGE = (
    f"INSERT INTO messages ({_MSG_COLUMNS}) VALUES ({', '.join('?' * 14)}) "
    "ON CONFLICT(id) DO UPDATE SET content = excluded.content, status = excluded.status, "
    "error = excluded.error, model = excluded.model, finish_reason = excluded.finish_reason, "
    "tokens = excluded.tokens, prompt_tokens = excluded.prompt_tokens, "
    "tokens_per_s = excluded.tokens_per_s, ttft_ms = excluded.ttft_ms"
)
_SAVE_MESSAGE = (
    "UPDATE messages SET content = ?, status = ?, error = ?, model = ?, finish_reason = ?, "
    "tokens = ?, prompt_tokens = ?, tokens_per_s = ?, ttft_ms = ? WHERE id = ?"
)


@dataclass
class _Op:
    """A write kept for ``retry_pending``: ``kind`` names a ``_do_<kind>`` method."""

    kind: str
    key: str
    payload: Any


class Store:
    """The conversation database. Make one with ``Store.open`` (or
    ``Store.in_memory`` in tests); see the module doc for the threading rule
    and the fault protocol."""

    def __init__(self, conn: sqlite3.Connection, path: Path | None, *, read_only: bool = False) -> None:
        self._conn: sqlite3.Connection | None = conn
        self.path = path
        self.read_only = read_only
        self._pending: list[_Op] = []
        self._pending_message = ""
        self._pending_reason = "other"
        self._batch_depth = 0

    # -- opening and closing -------------------------------------------------------------

    @classmethod
    def open(
        cls, path: Path | str | None = None, *, recover: bool = True, quick_check_max: int = QUICK_CHECK_MAX_BYTES
    ) -> OpenResult:
        """Open (creating or upgrading) the database at ``path`` (default
        ``$XDG_DATA_HOME/rill/rill.db``). Never raises for a bad file: see
        ``OpenResult`` and the module doc. With ``recover`` (the app; not a CLI
        command that may run beside it) messages left ``streaming`` by a crash
        are marked interrupted."""
        path = Path(path) if path is not None else default_path()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            reason = exc.strerror or str(exc)
            return OpenResult(
                None,
                [translate("Store", "Rill cannot create its data folder {folder} ({reason}); "
                                    "conversations will not be saved.").format(folder=path.parent, reason=reason)],
                read_only=True,
                path=path,
            )
        notices: list[str] = []
        moved_to = None
        probe = _probe(path, quick_check_max)
        if probe.kind == "newer":
            return OpenResult(
                None,
                [
                    translate(
                        "Store", "The conversation database {path} was written by a newer version of Rill "
                        "(format {version}; this version knows format {known} and older). "
                        "Rill has left it untouched. Conversations in this session are kept in memory only "
                        "and will not be saved; update Rill to see and keep your history."
                    ).format(path=path, version=probe.version, known=SCHEMA_VERSION)
                ],
                read_only=True,
                path=path,
            )
        if probe.kind in ("corrupt", "foreign"):
            label = "corrupt" if probe.kind == "corrupt" else "foreign"
            try:
                moved_to = _move_aside(path, label)
            except OSError as exc:
                return OpenResult(
                    None,
                    [
                        translate(
                            "Store", "The conversation database {path} cannot be used ({detail}) and could not be "
                            "moved aside ({error}). It has been left as it is; conversations in "
                            "this session will not be saved."
                        ).format(path=path, detail=probe.detail, error=exc.strerror or exc)
                    ],
                    read_only=True,
                    path=path,
                )
            if probe.kind == "corrupt":
                notice = translate("Store", "The conversation database {path} is damaged ({detail}). "
                                            "Rill kept it as {moved} and started a new, empty one.")
            else:
                notice = translate("Store", "The conversation database {path} is not a Rill conversation database "
                                            "({detail}). Rill kept it as {moved} and started a new, empty one.")
            notices.append(notice.format(path=path, detail=probe.detail, moved=moved_to))
            log.warning("moved %s aside to %s: %s", path, moved_to, probe.detail)
        result = cls._open_file(path, notices)
        result.moved_to = moved_to
        if result.store is not None and recover and not result.read_only:
            try:
                result.recovered = result.store.recover_interrupted()
            except StoreWriteError as exc:
                result.notices.append(str(exc))
        return result

    @classmethod
    def _open_file(cls, path: Path, notices: list[str]) -> OpenResult:
        if path.exists() and not (_can_write(path) and _can_write(path.parent)):
            return cls._open_read_only(path, notices)
        try:
            conn = _connect(str(path))
        except sqlite3.Error as exc:
            if not _can_write(path.parent):
                cause = translate("Store", "its folder {folder} is read-only").format(folder=path.parent)
            else:
                cause = _plain(exc, path)[1]
            return OpenResult(None, notices + [_cannot_open(path, cause)], True, path)
        try:
            return cls._prepare(conn, path, notices)
        except sqlite3.DatabaseError as exc:
            conn.close()
            log.warning("cannot open %s: %s", path, exc)
            if _is_corruption(exc):
                # damaged in a way the probe did not see: keep it and start again
                try:
                    moved = _move_aside(path, "corrupt")
                except OSError:
                    moved = None
                if moved is not None:
                    notices = notices + [
                        translate("Store", "The conversation database {path} is damaged. Rill kept it as {moved} "
                                           "and started a new, empty one.").format(path=path, moved=moved)
                    ]
                    try:
                        result = cls._prepare(_connect(str(path)), path, notices)
                        result.moved_to = moved
                        return result
                    except sqlite3.Error as exc2:
                        exc = exc2
            return OpenResult(None, notices + [_cannot_open(path, _plain(exc, path)[1])], True, path)

    @classmethod
    def _open_read_only(cls, path: Path, notices: list[str]) -> OpenResult:
        """A file or folder Rill may not write: read it without creating
        anything (no -wal/-shm files that would stay behind read-only)."""
        try:
            conn = _connect(_ro_uri(path, immutable=not _has_wal(path)), uri=True)
            version = conn.execute("PRAGMA user_version").fetchone()[0]
        except sqlite3.Error as exc:
            return OpenResult(None, notices + [_cannot_open(path, _plain(exc, path)[1])], True, path)
        if version != SCHEMA_VERSION:
            conn.close()
            return _read_only_and_old(path, notices)
        notices = notices + [_read_only_notice(path)]
        return OpenResult(cls(conn, path, read_only=True), notices, True, path)

    @classmethod
    def _prepare(cls, conn: sqlite3.Connection, path: Path, notices: list[str]) -> OpenResult:
        read_only = False
        try:
            conn.execute("PRAGMA journal_mode=WAL").fetchone()
            conn.execute("PRAGMA synchronous=NORMAL")
            version = conn.execute("PRAGMA user_version").fetchone()[0]
        except sqlite3.OperationalError as exc:
            if _is_corruption(exc):
                raise
            # cannot even read it the ordinary way (a WAL file in a folder Rill may not write)
            conn.close()
            conn = _connect(_ro_uri(path, immutable=True), uri=True)
            try:
                version = conn.execute("PRAGMA user_version").fetchone()[0]
            except BaseException:
                conn.close()
                raise
            read_only = True
        if version > SCHEMA_VERSION:  # written meanwhile by a newer Rill
            conn.close()
            return OpenResult(
                None,
                notices + [translate("Store", "The conversation database {path} was written by a newer version of "
                                              "Rill; Rill has left it untouched and will not save this session's "
                                              "conversations.").format(path=path)],
                True,
                path,
            )
        if not read_only:
            read_only = not _writable(conn, version)
        if version < SCHEMA_VERSION:
            if read_only:
                conn.close()
                return _read_only_and_old(path, notices)
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
        if read_only:
            notices = notices + [_read_only_notice(path)]
        return OpenResult(cls(conn, path, read_only=read_only), notices, read_only, path)

    @classmethod
    def in_memory(cls) -> Store:
        """A private, empty database that lives only as long as the Store (tests)."""
        conn = _connect(":memory:")
        result = cls._prepare(conn, Path(":memory:"), [])
        assert result.store is not None
        return result.store

    def close(self) -> None:
        """Close the file (pending writes that could not be saved are dropped)."""
        if self._conn is not None:
            with contextlib.suppress(sqlite3.Error):
                self._conn.execute("PRAGMA optimize")
            self._conn.close()
            self._conn = None

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def conn(self) -> sqlite3.Connection:
        """The connection (for tests and benchmarks; use the methods otherwise)."""
        if self._conn is None:
            raise StoreError("the store is closed")
        return self._conn

    # -- the write machinery -------------------------------------------------------------

    @contextlib.contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        conn = self.conn
        if self._batch_depth:
            yield conn
            return
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("ROLLBACK")
            raise

    @contextlib.contextmanager
    def batch(self) -> Iterator[None]:
        """Make the writes inside one transaction: all or nothing (not queued
        on failure: ``StoreWriteError`` reaches the caller, nothing is written)."""
        if self._batch_depth:
            self._batch_depth += 1
            try:
                yield
            finally:
                self._batch_depth -= 1
            return
        conn = self.conn
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            raise self._write_error(exc) from exc
        self._batch_depth = 1
        try:
            yield
            conn.execute("COMMIT")
        except sqlite3.OperationalError as exc:
            self._rollback()
            raise self._write_error(exc) from exc
        except BaseException:
            self._rollback()
            raise
        finally:
            self._batch_depth = 0

    def _rollback(self) -> None:
        conn = self._conn
        if conn is not None and conn.in_transaction:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")

    def _write_error(self, exc: BaseException) -> StoreWriteError:
        reason, cause = _plain(exc, self.path or translate("Store", "the database"))
        return StoreWriteError(
            translate("Store", "Rill cannot save: {cause}. Your conversations are kept in memory and will be saved "
                               "when that is fixed.").format(cause=cause),
            reason,
        )

    def _write(self, op: _Op) -> Any:
        """Run ``op`` now (or queue it behind earlier failed writes)."""
        if self._batch_depth:
            return self._apply(op)
        if self._pending and not self.retry_pending():
            self._enqueue(op)
            raise StoreWriteError(self._pending_message, self._pending_reason)
        try:
            return self._apply(op)
        except sqlite3.DatabaseError as exc:
            error = self._write_error(exc)
            log.warning("store write %s failed: %s", op.kind, exc)
            self._pending_message, self._pending_reason = str(error), error.reason
            self._enqueue(op)
            raise error from exc

    def _apply(self, op: _Op) -> Any:
        method: Callable[[Any], Any] = getattr(self, f"_do_{op.kind}")
        try:
            return method(op.payload)
        except sqlite3.IntegrityError as exc:
            raise KeyError(f"{op.kind} {op.key}: {exc}") from exc

    def _enqueue(self, op: _Op) -> None:
        if op.kind == "save_message":
            for queued in self._pending:
                if queued.key == op.key and queued.kind in ("save_message", "add_message"):
                    if queued.kind == "add_message":
                        conversation_id, row = queued.payload
                        queued.payload = (conversation_id, row[:4] + op.payload[:9] + row[13:])
                    else:
                        queued.payload = op.payload
                    return
        self._pending.append(op)

    @property
    def pending_count(self) -> int:
        """Writes that failed and wait for ``retry_pending``."""
        return len(self._pending)

    def retry_pending(self) -> bool:
        """Write what earlier failures left pending, in order. True when
        nothing is pending any more (a write that now fails as a programming
        error, e.g. its conversation was deleted meanwhile, is logged and dropped)."""
        if not self._pending:
            return True
        if self.read_only and not self._reopen_for_writing():
            return False
        while self._pending:
            op = self._pending[0]
            try:
                self._apply(op)
            except KeyError as exc:
                log.warning("dropping a pending write that no longer applies: %s", exc)
            except sqlite3.DatabaseError as exc:
                error = self._write_error(exc)
                self._pending_message, self._pending_reason = str(error), error.reason
                return False
            self._pending.pop(0)
        return True

    def _reopen_for_writing(self) -> bool:
        if self.path is None or str(self.path) == ":memory:":
            return False
        if not (_can_write(self.path) and _can_write(self.path.parent)):
            return False  # trying anyway would leave read-only -wal/-shm files behind
        try:
            conn = _connect(str(self.path))
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version != SCHEMA_VERSION or not _writable(conn, version):
                conn.close()
                return False
        except sqlite3.Error:
            return False
        if self._conn is not None:
            self._conn.close()
        self._conn = conn
        self.read_only = False
        return True

    # -- conversations -------------------------------------------------------------------

    def create_conversation(self, info: ConversationInfo) -> None:
        """Store a new conversation (an existing one with the same id is updated)."""
        self._write(_Op("create_conversation", info.id, _conv_row(info)))

    def _do_create_conversation(self, row: tuple[Any, ...]) -> None:
        with self._tx() as conn:
            conn.execute(
                f"INSERT INTO conversations ({_CONV_COLUMNS}) VALUES ({', '.join('?' * 9)}) "
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
        pinning does not reorder the sidebar)."""
        unknown = set(fields) - _UPDATABLE
        if unknown:
            raise TypeError(f"update_conversation: unknown field(s) {', '.join(sorted(unknown))}")
        if not fields:
            return
        values = dict(fields)
        if "pinned" in values:
            values["pinned"] = 1 if values["pinned"] else 0
        if "params" in values:
            values["params"] = json.dumps(values["params"] or {}, ensure_ascii=False)
        self._write(_Op("update_conversation", conversation_id, (conversation_id, values)))

    def _do_update_conversation(self, payload: tuple[str, dict[str, Any]]) -> None:
        conversation_id, values = payload
        sets = ", ".join(f"{name} = ?" for name in values)
        with self._tx() as conn:
            conn.execute(f"UPDATE conversations SET {sets} WHERE id = ?", (*values.values(), conversation_id))

    def delete_conversation(self, conversation_id: str) -> None:
        """Delete a conversation and all its messages."""
        self._write(_Op("delete_conversation", conversation_id, conversation_id))

    def _do_delete_conversation(self, conversation_id: str) -> None:
        with self._tx() as conn:
            conn.execute("UPDATE messages SET parent_id = NULL WHERE conversation_id = ?", (conversation_id,))
            conn.execute("DELETE FROM messages WHERE conversation_id = ?", (conversation_id,))
            conn.execute("DELETE FROM conversations WHERE id = ?", (conversation_id,))

    def get_conversation(self, conversation_id: str) -> ConversationInfo | None:
        sql = f"SELECT {_CONV_COLUMNS} FROM conversations WHERE id = ?"
        row = self.conn.execute(sql, (conversation_id,)).fetchone()
        return None if row is None else _info(row)

    def list_conversations(
        self, offset: int = 0, limit: int = 100, *, with_counts: bool = False
    ) -> list[ConversationInfo]:
        """A page of conversations: pinned first, then the most recently
        updated (an index walk: the cost is the page, not the total)."""
        rows = self.conn.execute(
            f"SELECT {_CONV_COLUMNS} FROM conversations ORDER BY pinned DESC, updated_at DESC LIMIT ? OFFSET ?",
            (max(0, limit), max(0, offset)),
        ).fetchall()
        if not with_counts:
            return [_info(row) for row in rows]
        cursor = self.conn.cursor()
        count = "SELECT count(*) FROM messages WHERE conversation_id = ?"
        return [_info(row, cursor.execute(count, (row[0],)).fetchone()[0]) for row in rows]

    def count_conversations(self) -> int:
        return int(self.conn.execute("SELECT count(*) FROM conversations").fetchone()[0])

    # -- messages ------------------------------------------------------------------------

    def add_message(self, conversation_id: str, msg: Message) -> None:
        """Store ``msg`` under ``msg.parent_id`` (which must be stored already)
        and bump the conversation's ``updated_at`` to the message's time.
        Adding a message again updates it (so retries are harmless)."""
        self._write(_Op("add_message", msg.id, (conversation_id, _msg_row(conversation_id, msg))))

    def _do_add_message(self, payload: tuple[str, tuple[Any, ...]]) -> None:
        conversation_id, row = payload
        with self._tx() as conn:
            conn.execute(_INSERT_MESSAGE, row)
            conn.execute(
                "UPDATE conversations SET updated_at = max(coalesce(updated_at, 0), ?) WHERE id = ?",
                (row[13], conversation_id),
            )

    def add_messages(self, conversation_id: str, msgs: Iterable[Message]) -> None:
        """Store many messages in one transaction (an import, an undo), in
        any order of parents and children; ``updated_at`` is not changed."""
        rows = [_msg_row(conversation_id, m) for m in msgs]
        if rows:
            self._write(_Op("add_messages", conversation_id, rows))

    def _do_add_messages(self, rows: list[tuple[Any, ...]]) -> None:
        with self._tx() as conn:
            conn.execute("PRAGMA defer_foreign_keys = ON")
            conn.executemany(_INSERT_MESSAGE, rows)

    def save_message(self, msg: Message) -> None:
        """Write a stored message's content, status, error and stats: one
        UPDATE by primary key (a streaming reply calls this every second). A
        message that is not stored is ignored."""
        self._write(_Op("save_message", msg.id, (*_msg_values(msg), msg.id)))

    def _do_save_message(self, values: tuple[Any, ...]) -> None:
        self.conn.execute(_SAVE_MESSAGE, values)

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
        row = self.conn.execute(f"SELECT {_MSG_COLUMNS} FROM messages WHERE id = ?", (message_id,)).fetchone()
        return None if row is None else _message(row)

    def message_conversation(self, message_id: str) -> str | None:
        """The id of the conversation holding a message (None: not stored)."""
        row = self.conn.execute("SELECT conversation_id FROM messages WHERE id = ?", (message_id,)).fetchone()
        return None if row is None else row[0]

    def load_messages(self, conversation_id: str) -> list[Message]:
        """Every message of a conversation (the whole tree, every branch),
        oldest first, with ``parent_id`` set: ready for ``Conversation.load``."""
        rows = self.conn.execute(
            f"SELECT {_MSG_COLUMNS} FROM messages WHERE conversation_id = ? ORDER BY created_at, rowid",
            (conversation_id,),
        ).fetchall()
        return [_message(row) for row in rows]

    def load_conversation(self, conversation_id: str) -> Conversation | None:
        """A ``Conversation`` with its tree, on the path the user last viewed."""
        info = self.get_conversation(conversation_id)
        if info is None:
            return None
        overrides = dict(info.params)
        overrides.pop("system_prompt", None)
        if info.system_prompt is not None:
            overrides["system_prompt"] = info.system_prompt
        conv = Conversation(
            system_prompt=info.system_prompt if info.system_prompt is not None else DEFAULT_SYSTEM_PROMPT,
            id=info.id,
            title=info.title,
            created_at=info.created_at,
            updated_at=info.updated_at,
            pinned=info.pinned,
            model=info.model,
            overrides=overrides,
        )
        conv.load(self.load_messages(conversation_id), info.current_leaf)
        conv.updated_at = info.updated_at
        return conv

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
        return _search.search(self.conn, query, limit)

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


def _has_wal(path: Path) -> bool:
    return Path(f"{path}-wal").exists()


def _can_write(path: Path) -> bool:
    if os.access in os.supports_effective_ids:
        return os.access(path, os.W_OK, effective_ids=True)
    return os.access(path, os.W_OK)


def _writable(conn: sqlite3.Connection, version: int) -> bool:
    """Can this connection write? (Tries a header write and rolls it back.)"""
    try:
        conn.execute("BEGIN IMMEDIATE")
        conn.execute(f"PRAGMA user_version = {int(version)}")
        conn.execute("ROLLBACK")
        return True
    except sqlite3.OperationalError:
        if conn.in_transaction:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
        return False
