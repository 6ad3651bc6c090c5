"""The store's write machinery: transactions, batches, and the only retry
queue (see the fault protocol in ``app.core.store``).

A failed write is kept as an ``_Op`` naming a ``_do_<kind>`` method of the
store. The queue holds the NEWEST snapshot of each message: a later save of a
message replaces the values of the queued write of it (its ``add_message`` or
``save_message``), in that write's place, unless a delete or a bulk add
queued after it may have changed what it means (then it waits behind them).
Repeated field updates of one conversation merge the same way. So the queue
stays as small as the unsaved data, and nothing older is ever written after
something newer of the same message.

Waiting for a lock: SQLite's own busy wait is kept short (``BUSY_SLICE_MS``)
and a write tries again until ``BUSY_PATIENCE_S`` has passed, so that
``hurry()`` (any thread: the app is closing) can cut the wait to
``HURRIED_PATIENCE_S``. After a write gave up on a lock, the writes that come
within ``RETRY_GAP_S`` join the queue without waiting again (a backlog of
saves never costs a full wait each); once hurried, only ``retry_pending``
tries again. Text is cleaned first (``app.core.store.clean``): no write fails
for a lone surrogate; one whose values cannot be written at all raises
``StoreWriteError`` with reason ``invalid`` and is not kept (a retry could
never succeed)."""

from __future__ import annotations

import contextlib
import functools
import logging
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.core.base.i18n import translate
from app.core.store import search
from app.core.store.clean import clean_values
from app.core.store.errors import StoreError, StoreWriteError, is_busy, is_data_error, plain_cause
from app.core.store.opening import _can_write, _connect, _writable
from app.core.store.schema import SCHEMA_VERSION
from app.core.store.terms_process import TermsProcess

log = logging.getLogger(__name__)

#: One SQLite busy wait (``PRAGMA busy_timeout``) of the store's connection.
BUSY_SLICE_MS = 100
#: How long a write waits for another program's lock before it is queued.
BUSY_PATIENCE_S = 5.0
#: The same once ``hurry()`` was called (closing: the final flush is bounded).
HURRIED_PATIENCE_S = 0.25
#: After a write gave up on a lock, later writes within this time are queued without waiting.
RETRY_GAP_S = 1.0

#: Writes of one message: a later one of these replaces an earlier one's values.
_MESSAGE_WRITES = ("add_message", "save_message")
#: Writes that may delete or re-add messages: a save never merges across them.
_BARRIERS = ("delete_message", "delete_conversation", "add_messages")


@dataclass
class _Op:
    """A write kept for ``retry_pending``: ``kind`` names a ``_do_<kind>``
    method; ``conversation`` is the id of the conversation it changes ('' when
    unknown or none: it says what is unsaved)."""

    kind: str
    key: str
    payload: Any
    conversation: str = ""


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
        self._hurry = threading.Event()
        #: When a write last gave up waiting for a lock (monotonic; None: not since the last success).
        self._gave_up_at: float | None = None
        #: Makes a long text's search terms outside this process's GIL (started at the first).
        self.terms = TermsProcess()
        search.register_functions(conn, self.terms.terms)
        self._set_busy_slice(conn)

    @staticmethod
    def _set_busy_slice(conn: sqlite3.Connection) -> None:
        with contextlib.suppress(sqlite3.Error):
            conn.execute(f"PRAGMA busy_timeout={BUSY_SLICE_MS}")

    def close(self) -> None:
        """Close the file (pending writes that could not be saved are dropped: logged)."""
        if self._pending:
            log.warning("closing the store with %d unsaved write(s) (%s)", len(self._pending), self._pending_reason)
        if self._conn is not None:
            with contextlib.suppress(sqlite3.Error):
                self._conn.execute("PRAGMA optimize")
            self._conn.close()
            self._conn = None
        self.terms.close()

    @property
    def conn(self) -> sqlite3.Connection:
        """The connection (for tests and benchmarks; use the methods otherwise)."""
        if self._conn is None:
            raise StoreError("the store is closed")
        return self._conn

    def hurry(self, on: bool = True) -> None:
        """From any thread: the app is closing. A write waiting for a lock
        gives up within ``HURRIED_PATIENCE_S``, and writes after a failure are
        queued without trying (``retry_pending`` still tries). ``hurry(False)``:
        wait as usual again (the user stayed)."""
        if on:
            self._hurry.set()
        else:
            self._hurry.clear()

    @property
    def hurried(self) -> bool:
        return self._hurry.is_set()

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
            self._waiting(lambda: conn.execute("BEGIN IMMEDIATE"))
        except sqlite3.OperationalError as exc:
            raise self._write_error(exc) from exc
        self._batch_depth = 1
        try:
            yield
            conn.execute("COMMIT")
        except (sqlite3.Error, UnicodeError, OverflowError) as exc:
            self._rollback()
            if isinstance(exc, sqlite3.IntegrityError):
                raise
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
        if reason == "invalid":
            return StoreWriteError(
                translate("Store", "Rill cannot save a change: {cause}. It is shown, but it will not be in the "
                                   "history.").format(cause=cause),
                reason,
            )
        return StoreWriteError(
            translate("Store", "Rill cannot save: {cause}. Your conversations are kept in memory and will be saved "
                               "when that is fixed.").format(cause=cause),
            reason,
        )

    def _waiting(self, attempt: Callable[[], Any]) -> Any:
        """``attempt()``, tried again while another connection holds the lock,
        for up to ``BUSY_PATIENCE_S`` (``HURRIED_PATIENCE_S`` once hurried)."""
        start = time.monotonic()
        while True:
            try:
                return attempt()
            except sqlite3.OperationalError as exc:
                if not is_busy(exc) or self._batch_depth:
                    raise
                waited = time.monotonic() - start
                if waited >= (HURRIED_PATIENCE_S if self._hurry.is_set() else BUSY_PATIENCE_S):
                    self._gave_up_at = time.monotonic()
                    raise

    def _write(self, op: _Op) -> Any:
        """Run ``op`` now (or queue it behind earlier failed writes)."""
        op.payload = clean_values(op.payload)
        if self._batch_depth:
            return self._apply(op)
        if self._pending and not (self._may_retry_now() and self.retry_pending()):
            self._enqueue(op)
            raise StoreWriteError(self._pending_message, self._pending_reason)
        try:
            result = self._waiting(functools.partial(self._apply, op))
        except (sqlite3.DatabaseError, UnicodeError, OverflowError, sqlite3.InterfaceError) as exc:
            error = self._write_error(exc)
            log.warning("store write %s failed: %s", op.kind, exc)
            if error.reason == "invalid":
                raise error from exc  # a retry could never write it
            self._pending_message, self._pending_reason = str(error), error.reason
            self._enqueue(op)
            raise error from exc
        self._gave_up_at = None
        return result

    def _may_retry_now(self) -> bool:
        """Flush the queue before this write? Not right after giving up on a
        lock (``RETRY_GAP_S``), nor once hurried (``retry_pending`` does)."""
        if self._hurry.is_set():
            return False
        return self._gave_up_at is None or time.monotonic() - self._gave_up_at >= RETRY_GAP_S

    def _apply(self, op: _Op) -> Any:
        method: Callable[[Any], Any] = getattr(self, f"_do_{op.kind}")
        try:
            return method(op.payload)
        except sqlite3.IntegrityError as exc:
            raise KeyError(f"{op.kind} {op.key}: {exc}") from exc

    def _enqueue(self, op: _Op) -> None:
        """Queue ``op``: a message's newer values replace those of its queued
        write (in that write's place) unless a delete or a bulk add came after
        it; a conversation's newer fields merge into its queued update when
        that is the last write queued."""
        if not op.conversation:
            op.conversation = self._conversation_of(op)
        if op.kind == "save_message":
            for queued in reversed(self._pending):
                if queued.kind in _BARRIERS:
                    break
                if queued.key == op.key and queued.kind in _MESSAGE_WRITES:
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

    def _conversation_of(self, op: _Op) -> str:
        """The conversation a queued write changes ('' when none or unknown)."""
        if op.kind in ("save_message", "delete_message"):
            with contextlib.suppress(sqlite3.Error, StoreError):
                row = self.conn.execute("SELECT conversation_id FROM messages WHERE id = ?", (op.key,)).fetchone()
                if row is not None:
                    return str(row[0])
            for queued in self._pending:  # added, and not saved yet
                if queued.key == op.key and queued.conversation:
                    return queued.conversation
        return ""

    @property
    def pending_count(self) -> int:
        """Writes that failed and wait for ``retry_pending``."""
        return len(self._pending)

    def pending_conversations(self) -> list[str]:
        """The ids of the conversations the pending writes change (each once,
        in the order of the queue): what is not saved."""
        return list(dict.fromkeys(op.conversation for op in self._pending if op.conversation))

    @property
    def pending_message(self) -> str:
        """Why the pending writes are not written (a sentence for the user; '' when none)."""
        return self._pending_message if self._pending else ""

    def retry_pending(self) -> bool:
        """Write what earlier failures left pending, in order. True when
        nothing is pending any more (a write that now fails as a programming
        error, e.g. its conversation was deleted meanwhile, is logged and
        dropped; so is one whose values cannot be written at all)."""
        if not self._pending:
            return True
        if self.read_only and not self._reopen_for_writing():
            return False
        while self._pending:
            op = self._pending[0]
            try:
                self._waiting(functools.partial(self._apply, op))
            except KeyError as exc:
                log.warning("dropping a pending write that no longer applies: %s", exc)
            except (sqlite3.DatabaseError, UnicodeError, OverflowError, sqlite3.InterfaceError) as exc:
                if is_data_error(exc):
                    log.error("dropping a pending %s that cannot be written: %s", op.kind, exc)
                else:
                    error = self._write_error(exc)
                    self._pending_message, self._pending_reason = str(error), error.reason
                    return False
            self._pending.pop(0)
        self._gave_up_at = None
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
            if version != SCHEMA_VERSION or _writable(conn, version) is not None:
                conn.close()
                return False
        except sqlite3.Error:
            return False
        if self._conn is not None:
            self._conn.close()
        search.register_functions(conn, self.terms.terms)
        self._set_busy_slice(conn)
        self._conn = conn
        self.read_only = False
        return True
