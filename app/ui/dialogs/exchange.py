"""File › Export… and Import… in the window.

The file is chosen on the GUI thread (a file dialog); reading, checking,
writing and exporting run on the store thread (``StoreService``), so a large
export or import never blocks the window; a web page or a PDF is made by a
child process (``export_process``): typesetting math and Qt's text work hold
the GIL. Results and errors come back as one
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
from PyQt6.QtPrintSupport import QPrinter
from PyQt6.QtWidgets import QFileDialog, QWidget

from app.core.store import exchange
from app.core.store.exchange import export_html
from app.ui.dialogs.export_process import ExportProcess
from app.ui.misc import theme
from app.ui.services import printing
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


def _writer(suffix: str) -> Callable[[Any, list[str] | None, Any], tuple[int, int]]:
    if suffix in (".md", ".markdown"):
        return exchange.write_markdown
    if suffix in (".html", ".htm"):
        colours = export_html.DARK if theme.current().is_dark else export_html.LIGHT
        return lambda s, ids, out: exchange.write_html(s, ids, out, colours)
    return exchange.write_json


def export_to(
    store: StoreService,
    path: Path,
    conversation_ids: list[str] | None,
    done: Callable[[str], None],
    process: ExportProcess | None = None,
) -> None:
    """Export to ``path`` (Markdown for .md, JSON otherwise) on the store
    thread; a web page (.html, in the window's theme) or a PDF (.pdf)
    through ``process`` (a child process; without one, a web page is
    written on the store thread too); ``done(message)``."""
    suffix = path.suffix.lower()
    if suffix == ".pdf" or (suffix in (".html", ".htm") and process is not None):
        _export_in_process(store, path, conversation_ids, done, process, "pdf" if suffix == ".pdf" else "html")
        return
    writer = _writer(suffix)

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


def _export_in_process(
    store: StoreService, path: Path, conversation_ids: list[str] | None, done: Callable[[str], None],
    process: ExportProcess | None, fmt: str,
) -> None:
    colours = "dark" if fmt == "html" and theme.current().is_dark else "light"
    _with_database(store, done, QCoreApplication.translate("ExchangeActions", "Export failed: the history is not available"),
                   None if process is None else lambda db: process.start(db, path, conversation_ids, done, fmt, colours))


def _with_database(store: StoreService, done: Callable[[str], None], unavailable: str,
                   launch: Callable[[Path], bool] | None) -> None:
    """``launch(database path)`` once every write queued before it has landed
    (a child process reads the same file); ``done`` says why not when the
    history is not there or an export already runs."""
    def start(db: Path | None) -> None:
        if launch is None or db is None:
            done(unavailable)
        elif not launch(db):
            done(QCoreApplication.translate("ExchangeActions", "An export is already running."))

    store.read(lambda s: s.path, start)


def print_on(
    store: StoreService, printer: QPrinter, conversation_ids: list[str], done: Callable[[str], None],
    process: ExportProcess,
) -> None:
    """Print ``conversation_ids`` as the print dialog left ``printer``: "Print
    to File" is the PDF export to that file; a printer gets the job (its
    name, copies, pages, paper, modes) in a child ``rill export --printer``."""
    target = printer.outputFileName()
    if printer.outputFormat() == QPrinter.OutputFormat.PdfFormat and target:
        path = Path(target)
        if target.endswith(("/", os.sep)) or path.is_dir():  # a folder: the document's name in it
            path = path / (printer.docName() or "conversation")
        export_to(store, path if path.suffix.lower() == ".pdf" else path.with_suffix(".pdf"),
                  conversation_ids, done, process)
        return
    job = printing.job_from_printer(printer)
    if not job.printer:
        done(QCoreApplication.translate(
            "ExchangeActions", "Printing failed: no printer is set up on this computer (choose Print to File)."))
        return

    _with_database(store, done, QCoreApplication.translate("ExchangeActions", "Printing failed: the history is not available"),
                   lambda db: process.start_print(db, job.printer, printing.job_arguments(job), conversation_ids, done))


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
    filters = [
        QCoreApplication.translate("ExchangeActions", "Markdown (*.md)"),
        QCoreApplication.translate("ExchangeActions", "Rill JSON (*.json)"),
        QCoreApplication.translate("ExchangeActions", "Web page (*.html)"),
        QCoreApplication.translate("ExchangeActions", "PDF (*.pdf)"),
    ]
    suffix = Path(suggested).suffix.lower()
    initial = next((f for f in filters if f"*{suffix})" in f), filters[0])
    path, _ = QFileDialog.getSaveFileName(
        parent, QCoreApplication.translate("ExchangeActions", "Export"), suggested, ";;".join(filters), initial
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
