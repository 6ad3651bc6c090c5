"""The store's errors: a write that failed for a reason outside the program
says so in plain words, and each reason has its own words (a locked database
is not called read-only, a full disk is not called an older format)."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

from app.core.base.i18n import translate

#: A disk with less free space than this is full (SQLite reports some
#: failed writes on a full disk as plain I/O errors: a -shm file it cannot grow).
FULL_BELOW_BYTES = 1024 * 1024


class StoreError(Exception):
    """Base class of the store's own errors."""


class StoreWriteError(StoreError):
    """A write failed for a reason outside the program. ``str(err)`` is a
    plain sentence for the user; ``reason`` is one of ``read_only``,
    ``disk_full``, ``locked``, ``io``, ``invalid`` (the data cannot be
    written at all: it is not kept for a retry), ``other``."""

    def __init__(self, message: str, reason: str = "other") -> None:
        super().__init__(message)
        self.reason = reason


def errname(exc: BaseException) -> str:
    """SQLite's name of the error (``SQLITE_FULL``...; '' when unknown)."""
    return str(getattr(exc, "sqlite_errorname", "") or "")


def is_busy(exc: BaseException) -> bool:
    """Another connection holds the lock (waiting longer may help)."""
    name = errname(exc)
    if name:
        return name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED"))
    return isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc).lower()


def is_data_error(exc: BaseException) -> bool:
    """The values themselves cannot be written (retrying cannot help): text
    that is not UTF-8, a number SQLite cannot hold, a string too big."""
    if isinstance(exc, (UnicodeError, OverflowError, sqlite3.InterfaceError, sqlite3.DataError)):
        return True
    return errname(exc).startswith(("SQLITE_TOOBIG", "SQLITE_MISMATCH", "SQLITE_RANGE"))


def disk_is_full(path: Path | str) -> bool:
    """The disk holding ``path`` has (almost) no free space left."""
    folder = Path(path).parent
    try:
        return shutil.disk_usage(folder).free < FULL_BELOW_BYTES
    except (OSError, ValueError):
        return False


def plain_cause(exc: BaseException, path: Path | str) -> tuple[str, str]:
    """(reason, cause) for a failed write: the cause is a plain clause (in
    the user's language) such as "the disk holding … is full"; the reason
    (``read_only``, ``disk_full``...) is a key and stays as it is."""
    text = str(exc).lower()
    name = errname(exc)
    if is_data_error(exc):
        return "invalid", translate("Store", "the text could not be written to {path} ({detail})").format(
            path=path, detail=type(exc).__name__)
    if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")) or (not name and "locked" in text):
        return "locked", translate("Store", "another program is using the conversation database {path}").format(
            path=path)
    if name.startswith("SQLITE_READONLY") or "readonly" in text or "read-only" in text:
        return "read_only", translate("Store", "the conversation database {path} (or its folder) is read-only").format(
            path=path)
    if name.startswith("SQLITE_FULL") or "disk is full" in text or "database or disk is full" in text:
        return "disk_full", translate("Store", "the disk holding {path} is full").format(path=path)
    if name.startswith(("SQLITE_IOERR", "SQLITE_CANTOPEN")) or "i/o" in text or "unable to open" in text:
        if str(path) != ":memory:" and disk_is_full(path):
            return "disk_full", translate("Store", "the disk holding {path} is full").format(path=path)
        return "io", translate("Store", "writing to {path} failed (a disk or permission problem)").format(path=path)
    first = str(exc).splitlines()[0].rstrip(".") if str(exc) else type(exc).__name__
    return "other", translate("Store", "SQLite said \"{message}\" about {path}").format(message=first, path=path)
