"""Opening the conversation database: probe the file without writing, check
its header, move a damaged or foreign file aside, open read-only and newer
files without touching them, and say each of these in a notice (see the fault
protocol in ``app.core.store``)."""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
import time
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Generic, Protocol, TypeVar

from app.core.base.i18n import translate
from app.core.base.instance import rill_is_running
from app.core.base.settings import data_dir
from app.core.store import search as _search
from app.core.store.errors import StoreWriteError, errname, is_busy, plain_cause
from app.core.store.schema import OUR_TABLES, SCHEMA_VERSION, upgrade

log = logging.getLogger(__name__)

DB_FILE_NAME = "rill.db"
#: ``Store.open`` runs ``PRAGMA quick_check`` on a file up to this size (about
#: 150 ms for 200 MB here); on a bigger one it checks the header, the schema
#: and the conversations table only (a full check reads every page: seconds
#: for gigabytes). ``integrity_ok()`` checks everything.
QUICK_CHECK_MAX_BYTES = 256 * 1024 * 1024
BUSY_TIMEOUT_MS = 5000

_SQLITE_MAGIC = b"SQLite format 3\x00"
_CORRUPT_CODES = {"SQLITE_CORRUPT", "SQLITE_NOTADB"}


class OpenedStore(Protocol):
    """What opening needs of the store it makes (``app.core.store.store.Store``)."""

    streaming_is_live: bool

    def recover_interrupted(self) -> int: ...


StoreT = TypeVar("StoreT", bound=OpenedStore)


@dataclass
class OpenResult(Generic[StoreT]):
    """What ``Store.open`` found. ``notices`` are plain-language messages for
    the user (empty when all is well)."""

    store: StoreT | None
    notices: list[str] = field(default_factory=list)
    read_only: bool = False
    path: Path | None = None
    #: Where a damaged or foreign file was moved (None: nothing was moved).
    moved_to: Path | None = None
    #: Messages found still streaming and marked interrupted (``recover=True``).
    recovered: int = 0


#: Makes the store of an open connection: (connection, path, read-only).
StoreFactory = Callable[[sqlite3.Connection, Path, bool], StoreT]


def _no_store(path: Path, notices: list[str], notice: str) -> OpenResult[StoreT]:
    """No store: ``notice`` (after the earlier ``notices``) says why; nothing will be saved."""
    return OpenResult(None, [*notices, notice], read_only=True, path=path)


def _read_only_and_old(path: Path, notices: list[str]) -> OpenResult[StoreT]:
    """A read-only database in an older format: left untouched, no store."""
    return _no_store(path, notices, translate(
        "Store", "The conversation database {path} is read-only and is in an older format "
        "that Rill must upgrade before using it. It has been left untouched; "
        "conversations in this session will not be saved.").format(path=path))


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


def _is_corruption(exc: BaseException) -> bool:
    name = errname(exc)
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
        if tables and not OUR_TABLES <= tables:
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
    for side, new_side in zip(_side_files(path), _side_files(target), strict=False):
        if side.exists():
            os.replace(side, new_side)
    return target



def _read_only_notice(path: Path) -> str:
    return translate(
        "Store", "The conversation database {path} is read-only: your history is shown, but new "
        "conversations and changes are kept in memory only until it can be written."
    ).format(path=path)


def _cannot_write_notice(path: Path, cause: str) -> str:
    return translate(
        "Store", "Rill cannot write to the conversation database {path}: {cause}. Your history is shown, "
        "but new conversations and changes are kept in memory only until it can be written."
    ).format(path=path, cause=cause)


def _cannot_open(path: Path, cause: str) -> str:
    return translate(
        "Store", "Rill cannot use the conversation database {path}: {cause}. "
        "Conversations in this session are kept in memory only and will not be saved."
    ).format(path=path, cause=cause)



def _has_wal(path: Path) -> bool:
    return Path(f"{path}-wal").exists()


def _can_write(path: Path) -> bool:
    if os.access in os.supports_effective_ids:
        return os.access(path, os.W_OK, effective_ids=True)
    return os.access(path, os.W_OK)


def _writable(conn: sqlite3.Connection, version: int) -> sqlite3.Error | None:
    """Can this connection write? (Tries a header write and rolls it back.)
    None: yes; else the error that says why not (a busy one means another
    program holds the file now: it is not read-only)."""
    try:
        conn.execute("BEGIN IMMEDIATE")
        conn.execute(f"PRAGMA user_version = {int(version)}")
        conn.execute("ROLLBACK")
        return None
    except sqlite3.OperationalError as exc:
        if conn.in_transaction:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
        return exc


def open_store(
    factory: StoreFactory[StoreT], path: Path | str | None = None, *, recover: bool = True,
    quick_check_max: int = QUICK_CHECK_MAX_BYTES,
) -> OpenResult[StoreT]:
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
        return _no_store(path, [], translate("Store", "Rill cannot create its data folder {folder} ({reason}); "
                                                      "conversations will not be saved.").format(
            folder=path.parent, reason=reason))
    notices: list[str] = []
    moved_to = None
    probe = _probe(path, quick_check_max)
    if probe.kind == "newer":
        return _no_store(path, [], translate(
            "Store", "The conversation database {path} was written by a newer version of Rill "
            "(format {version}; this version knows format {known} and older). "
            "Rill has left it untouched. Conversations in this session are kept in memory only "
            "and will not be saved; update Rill to see and keep your history."
        ).format(path=path, version=probe.version, known=SCHEMA_VERSION))
    if probe.kind in ("corrupt", "foreign"):
        label = "corrupt" if probe.kind == "corrupt" else "foreign"
        try:
            moved_to = _move_aside(path, label)
        except OSError as exc:
            return _no_store(path, [], translate(
                "Store", "The conversation database {path} cannot be used ({detail}) and could not be "
                "moved aside ({error}). It has been left as it is; conversations in "
                "this session will not be saved."
            ).format(path=path, detail=probe.detail, error=exc.strerror or exc))
        if probe.kind == "corrupt":
            notice = translate("Store", "The conversation database {path} is damaged ({detail}). "
                                        "Rill kept it as {moved} and started a new, empty one.")
        else:
            notice = translate("Store", "The conversation database {path} is not a Rill conversation database "
                                        "({detail}). Rill kept it as {moved} and started a new, empty one.")
        notices.append(notice.format(path=path, detail=probe.detail, moved=moved_to))
        log.warning("moved %s aside to %s: %s", path, moved_to, probe.detail)
    result = _open_file(factory, path, notices)
    result.moved_to = moved_to
    if result.store is not None and recover and not result.read_only:
        try:
            result.recovered = result.store.recover_interrupted()
        except StoreWriteError as exc:
            result.notices.append(str(exc))
    elif result.store is not None and not recover:
        # recovery on read: what no live Rill streams into, a crash left so
        result.store.streaming_is_live = rill_is_running(path.parent)
    return result


def open_for_reading(
    factory: StoreFactory[StoreT], path: Path | str | None = None, *, quick_check_max: int = QUICK_CHECK_MAX_BYTES,
) -> OpenResult[StoreT]:
    """Open the database at ``path`` for reading only (``rill export``,
    ``rill search``): nothing in its folder is created, moved, upgraded or
    written. A missing, empty, damaged, foreign, older or newer file gives no
    store and a notice saying which; the file is left exactly as it is.

    Without a ``-wal`` file the database is read as immutable (SQLite opens
    nothing beside it); with one (a Rill is running, or one crashed) it is
    read through it, as any reader does (SQLite may update the ``-shm``
    index beside it; the database and the ``-wal`` are never written)."""
    path = Path(path) if path is not None else default_path()
    if not path.exists():
        return _no_store(path, [], translate(
            "Store", "There is no conversation database at {path} (nothing saved yet, or the path points "
            "elsewhere).").format(path=path))
    if path.is_dir():
        return _no_store(path, [], translate("Store", "{path} is a folder, not a conversation database.").format(
            path=path))
    probe = _probe(path, quick_check_max)
    untouched = translate("Store", "It has been left as it is.")
    if probe.kind == "newer":
        return _no_store(path, [], translate(
            "Store", "The conversation database {path} was written by a newer version of Rill "
            "(format {version}; this version knows format {known} and older). It has been left untouched: "
            "update Rill to use it.").format(path=path, version=probe.version, known=SCHEMA_VERSION))
    if probe.kind == "new":
        return _no_store(path, [], translate("Store", "The conversation database {path} is empty.").format(path=path))
    if probe.kind == "corrupt":
        return _no_store(path, [], translate("Store", "The conversation database {path} is damaged ({detail}).").format(
            path=path, detail=probe.detail) + " " + untouched)
    if probe.kind == "foreign":
        return _no_store(path, [], translate(
            "Store", "{path} is not a Rill conversation database ({detail}).").format(path=path, detail=probe.detail)
            + " " + untouched)
    if probe.kind == "unknown":
        return _no_store(path, [], _cannot_read(path, probe.detail) + " " + untouched)
    if probe.version < SCHEMA_VERSION:
        return _no_store(path, [], translate(
            "Store", "The conversation database {path} is in an older format (format {version}): open it in Rill "
            "once to upgrade it. It has been left untouched.").format(path=path, version=probe.version))
    try:
        conn = _connect(_ro_uri(path, immutable=not _has_wal(path)), uri=True)
        conn.execute("PRAGMA user_version").fetchone()
    except sqlite3.Error as exc:
        return _no_store(path, [], _cannot_read(path, str(exc)) + " " + untouched)
    store = factory(conn, path, True)
    # recovery on read: what no live Rill streams into, a crash left so
    store.streaming_is_live = rill_is_running(path.parent)
    return OpenResult(store, [], True, path)


def _cannot_read(path: Path, detail: str) -> str:
    return translate("Store", "Rill cannot read the conversation database {path} ({detail}).").format(
        path=path, detail=detail)


def _open_file(factory: StoreFactory[StoreT], path: Path, notices: list[str]) -> OpenResult[StoreT]:
    if path.exists() and not (_can_write(path) and _can_write(path.parent)):
        return _open_read_only(factory, path, notices)
    try:
        conn = _connect(str(path))
    except sqlite3.Error as exc:
        if not _can_write(path.parent):
            cause = translate("Store", "its folder {folder} is read-only").format(folder=path.parent)
        else:
            cause = plain_cause(exc, path)[1]
        return _no_store(path, notices, _cannot_open(path, cause))
    try:
        return _prepare(factory, conn, path, notices)
    except sqlite3.DatabaseError as first:
        conn.close()
        log.warning("cannot open %s: %s", path, first)
        cause = plain_cause(first, path)[1]
        if _is_corruption(first):
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
                    result = _prepare(factory, _connect(str(path)), path, notices)
                    result.moved_to = moved
                    return result
                except sqlite3.Error as again:
                    cause = plain_cause(again, path)[1]
        return _no_store(path, notices, _cannot_open(path, cause))


def _open_read_only(factory: StoreFactory[StoreT], path: Path, notices: list[str]) -> OpenResult[StoreT]:
    """A file or folder Rill may not write: read it without creating
    anything (no -wal/-shm files that would stay behind read-only)."""
    try:
        conn = _connect(_ro_uri(path, immutable=not _has_wal(path)), uri=True)
        version = conn.execute("PRAGMA user_version").fetchone()[0]
    except sqlite3.Error as exc:
        return _no_store(path, notices, _cannot_open(path, plain_cause(exc, path)[1]))
    if version != SCHEMA_VERSION:
        conn.close()
        return _read_only_and_old(path, notices)
    notices = notices + [_read_only_notice(path)]
    return OpenResult(factory(conn, path, True), notices, True, path)


def _prepare(factory: StoreFactory[StoreT], conn: sqlite3.Connection, path: Path, notices: list[str]) -> OpenResult[StoreT]:
    #: Why Rill cannot write the file: (reason, cause) as ``plain_cause`` says (None: it can).
    cannot_write: tuple[str, str] | None = None
    try:
        conn.execute("PRAGMA journal_mode=WAL").fetchone()
        conn.execute("PRAGMA synchronous=NORMAL")
        version = conn.execute("PRAGMA user_version").fetchone()[0]
    except sqlite3.OperationalError as exc:
        if _is_corruption(exc) or is_busy(exc):
            raise
        # cannot even read it the ordinary way: a WAL file in a folder Rill may
        # not write, or a full disk (no room for the -wal/-shm files)
        cannot_write = _write_problem(exc, path)
        conn.close()
        conn = _connect(_ro_uri(path, immutable=True), uri=True)
        try:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
        except BaseException:
            conn.close()
            raise
    if version > SCHEMA_VERSION:  # written meanwhile by a newer Rill
        conn.close()
        return _no_store(path, notices, translate(
            "Store", "The conversation database {path} was written by a newer version of "
            "Rill; Rill has left it untouched and will not save this session's "
            "conversations.").format(path=path))
    if cannot_write is None:
        problem = _writable(conn, version)
        if problem is not None and not is_busy(problem):  # busy: another program has it now; it is writable
            cannot_write = _write_problem(problem, path)
    if version < SCHEMA_VERSION:
        if cannot_write is not None:
            conn.close()
            if cannot_write[0] == "read_only":
                return _read_only_and_old(path, notices)
            return _no_store(path, notices, _cannot_open(path, cannot_write[1]))
        upgrade(conn, path, version)
    if cannot_write is not None:
        notices = notices + [_read_only_notice(path) if cannot_write[0] == "read_only"
                             else _cannot_write_notice(path, cannot_write[1])]
    read_only = cannot_write is not None
    return OpenResult(factory(conn, path, read_only), notices, read_only, path)


def _write_problem(exc: BaseException, path: Path) -> tuple[str, str]:
    """(reason, cause) of a failed write at open; a folder Rill may not write is read-only."""
    reason, cause = plain_cause(exc, path)
    if reason == "io" and not _can_write(path.parent):
        return "read_only", translate("Store", "its folder {folder} is read-only").format(folder=path.parent)
    return reason, cause


def open_in_memory(factory: StoreFactory[StoreT]) -> StoreT:
    """A private, empty database that lives only as long as the Store (tests)."""
    result = _prepare(factory, _connect(":memory:"), Path(":memory:"), [])
    assert result.store is not None
    return result.store
