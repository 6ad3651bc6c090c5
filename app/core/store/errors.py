"""The store's errors: a write that failed for a reason outside the program
says so in plain words."""

from __future__ import annotations

from pathlib import Path

from app.core.base.i18n import translate


class StoreError(Exception):
    """Base class of the store's own errors."""


class StoreWriteError(StoreError):
    """A write failed for a reason outside the program. ``str(err)`` is a
    plain sentence for the user; ``reason`` is one of ``read_only``,
    ``disk_full``, ``locked``, ``io``, ``other``."""

    def __init__(self, message: str, reason: str = "other") -> None:
        super().__init__(message)
        self.reason = reason



def errname(exc: BaseException) -> str:
    """SQLite's name of the error (``SQLITE_FULL``...; '' when unknown)."""
    return str(getattr(exc, "sqlite_errorname", "") or "")


def plain_cause(exc: BaseException, path: Path | str) -> tuple[str, str]:
    """(reason, cause) for a failed write: the cause is a plain clause (in
    the user's language) such as "the disk holding … is full"; the reason
    (``read_only``, ``disk_full``...) is a key and stays as it is."""
    text = str(exc).lower()
    name = errname(exc)
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

