"""File › Export… and Import… in the window.

The file is chosen on the GUI thread (a file dialog); reading, checking,
writing and exporting run on the store thread (``StoreService``), so a large
export or import never blocks the window. Results and errors come back as one
plain sentence.

Threading rule: GUI thread only.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PyQt6.QtCore import QCoreApplication
from PyQt6.QtWidgets import QFileDialog, QWidget

from app.core.store import exchange
from app.ui.services.store import StoreService


def _write_atomically(path: Path, write: Callable[[Any], tuple[int, int]]) -> tuple[int, int]:
    """Write through a temporary file beside ``path``: the whole file or nothing."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=str(path.parent))
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as out:
            counts = write(out)
        os.replace(tmp, path)
        return counts
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def export_to(
    store: StoreService, path: Path, conversation_ids: list[str] | None, done: Callable[[str], None]
) -> None:
    """Export to ``path`` (Markdown for .md, JSON otherwise); ``done(message)``."""
    markdown = path.suffix.lower() in (".md", ".markdown")
    writer = exchange.write_markdown if markdown else exchange.write_json

    def job(s: Any) -> str:
        try:
            conversations, messages = _write_atomically(path, lambda out: writer(s, conversation_ids, out))
        except (OSError, exchange.ExchangeError) as exc:
            return QCoreApplication.translate("ExchangeActions", "Export failed: {error}").format(error=exc)
        return QCoreApplication.translate(
            "ExchangeActions", "Exported {conversations} conversation(s), {messages} message(s) to {path}"
        ).format(conversations=conversations, messages=messages, path=path)

    store.read(
        job,
        lambda message: done(
            message or QCoreApplication.translate("ExchangeActions", "Export failed: the history is not available")
        ),
    )


def import_from(store: StoreService, path: Path, done: Callable[[str, bool], None]) -> None:
    """Import an export file: all or nothing; ``done(message, imported)``."""

    def job(s: Any) -> tuple[str, bool]:
        try:
            text = exchange.decode_bytes(path.read_bytes())
            result = exchange.import_json(s, text)
        except (OSError, exchange.ExchangeError) as exc:
            return QCoreApplication.translate("ExchangeActions", "Nothing was imported: {error}").format(error=exc), False
        message = QCoreApplication.translate(
            "ExchangeActions", "Imported {conversations} conversation(s), {messages} message(s)"
        ).format(conversations=result.conversations, messages=result.messages)
        return " ".join([message + ".", *result.notices]) if result.notices else message, True

    def finished(r: tuple[str, bool] | None) -> None:
        if not r:
            r = (QCoreApplication.translate("ExchangeActions", "Nothing was imported: the history is not available"), False)
        done(*r)

    store.read(job, finished)


def ask_export_path(parent: QWidget, suggested: str) -> Path | None:
    path, _ = QFileDialog.getSaveFileName(
        parent,
        QCoreApplication.translate("ExchangeActions", "Export"),
        suggested,
        QCoreApplication.translate("ExchangeActions", "Markdown (*.md);;Rill JSON (*.json)"),
    )
    return Path(path) if path else None


def ask_import_path(parent: QWidget) -> Path | None:
    path, _ = QFileDialog.getOpenFileName(
        parent,
        QCoreApplication.translate("ExchangeActions", "Import Conversations"),
        "",
        QCoreApplication.translate("ExchangeActions", "Rill JSON (*.json)"),
    )
    return Path(path) if path else None
