"""The store's write machinery: transactions, batches, and the only retry
queue (see the fault protocol in ``app.core.store``). A failed write is kept
as an ``_Op`` naming a ``_do_<kind>`` method of the store; repeated writes of
one message or one conversation's fields are merged, so the queue holds the
newest snapshot of each and stays as small as the unsaved data."""

from __future__ import annotations

import contextlib
import logging
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.core.base.i18n import translate
from app.core.store.errors import StoreError, StoreWriteError, plain_cause
from app.core.store.opening import _can_write, _connect, _writable
from app.core.store.schema import SCHEMA_VERSION

log = logging.getLogger(__name__)


@dataclass
class _Op:
    """A write kept for ``retry_pending``: ``kind`` names a ``_do_<kind>`` method."""

    kind: str
    key: str
    payload: Any



class WritingStore:
    """The connection and the write machinery of ``Store`` (which adds the
    ``_do_<kind>`` methods the queued writes name)."""

    def __init__(self, conn: sqlite3.Connection, path: Path | None, *, read_only: bool = False) -> None:
        self._conn: sqlite3.Connection | None = conn
        self.path = path
        self.read_only = read_only
        self._pending: list[_Op] = []
        self._pending_message = ""
        self._pending_reason = "other"
        self._batch_depth = 0

    def close(self) -> None:
        """Close the file (pending writes that could not be saved are dropped)."""
        if self._conn is not None:
            with contextlib.suppress(sqlite3.Error):
                self._conn.execute("PRAGMA optimize")
            self._conn.close()
            self._conn = None

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
        reason, cause = plain_cause(exc, self.path or translate("Store", "the database"))
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
        """Queue ``op``, merged into the queued write of the same message (a
        newer snapshot replaces the older one's values) or of the same
        conversation's fields (the newer values win)."""
        if op.kind == "save_message":
            for queued in self._pending:
                if queued.key == op.key and queued.kind in ("save_message", "add_message"):
                    if queued.kind == "add_message":
                        conversation_id, row = queued.payload
                        queued.payload = (conversation_id, row[:4] + op.payload[:9] + row[13:])
                    else:
                        queued.payload = op.payload
                    return
        elif op.kind == "update_conversation" and self._pending:
            last = self._pending[-1]
            if last.kind == "update_conversation" and last.key == op.key:
                last.payload = (op.key, {**last.payload[1], **op.payload[1]})
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
