"""File › Export as Web Page / as PDF, and Print…, in a child process (``ExportProcess``).

Both typeset every formula (ziamath: pure Python, ~15 ms each) and the PDF
is Qt text work besides, which holds the GIL however it is threaded: on a
thread of the window's process either would stall it. So the window runs
``rill export --format html|pdf`` (``app.cli``, the same code as the command
line) as a child process on the same database, and reports its one-line
result. A second request while one runs is refused.

Threading rule: GUI thread only.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from PyQt6.QtCore import QCoreApplication, QObject, QProcess, pyqtSignal

__all__ = ["ExportProcess", "rill_command"]


def rill_command() -> list[str]:
    """How to run Rill's command line: the bundle's executable, or this Python with ``-m app``."""
    if getattr(sys, "frozen", False):
        return [sys.executable]
    return [sys.executable, "-m", "app"]


class ExportProcess(QObject):
    """Runs one export at a time (see the module docstring).

    Signals: ``progressed(int)``: the percentage done (the child's
    ``progress P`` lines); ``finished(str)``: the export ended; arg: a
    sentence for the user (what was written, or why not)."""

    #: Part of the export is done; arg: the percentage.
    progressed = pyqtSignal(int)
    #: The export ended; arg: what was written, or why not.
    finished = pyqtSignal(str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._process: QProcess | None = None
        self._path = Path()
        self._printer = ""  # printing on this printer (start_print), not exporting
        self._done: Callable[[str], None] | None = None
        self._said: list[str] = []   # the child's stderr lines that are not progress
        self._partial = b""

    @property
    def running(self) -> bool:
        return self._process is not None

    def start(self, db: Path, path: Path, conversation_ids: list[str] | None,
              done: Callable[[str], None] | None = None, fmt: str = "pdf", theme: str = "light") -> bool:
        """Export ``conversation_ids`` (None: all) of database ``db`` to ``path``
        as ``fmt`` ("html" in ``theme``'s colours, or "pdf"); ``done(message)``
        with ``finished``. False when an export already runs."""
        if self._process is not None:
            return False
        self._printer = ""
        self._launch(db, conversation_ids, done, ["--format", fmt, "--theme", theme, "-o", str(path)])
        self._path = path
        return True

    def start_print(self, db: Path, printer: str, job_arguments: list[str], conversation_ids: list[str] | None,
                    done: Callable[[str], None] | None = None) -> bool:
        """Print ``conversation_ids`` on ``printer`` (``job_arguments``: the
        ``rill export --printer`` options, ``printing.job_arguments``);
        ``done(message)`` with ``finished``. False when an export already runs."""
        if self._process is not None:
            return False
        self._printer = printer
        self._launch(db, conversation_ids, done, job_arguments)
        return True

    def _launch(self, db: Path, conversation_ids: list[str] | None, done: Callable[[str], None] | None,
                arguments: list[str]) -> None:
        self._done = done
        command = rill_command()
        which = ["--all"] if conversation_ids is None else [a for i in conversation_ids for a in ("--conversation", i)]
        process = QProcess(self)
        process.setProgram(command[0])
        process.setArguments([*command[1:], "export", "--db", str(db), *which, "--progress", *arguments])
        process.readyReadStandardError.connect(self._on_stderr)
        process.finished.connect(self._on_finished)
        process.errorOccurred.connect(self._on_error)
        self._process, self._said, self._partial = process, [], b""
        process.start()

    def stop(self, timeout_ms: int = 3000) -> None:
        """End a running export (the window closes)."""
        process = self._process
        if process is not None:
            process.kill()
            process.waitForFinished(timeout_ms)

    def _on_stderr(self) -> None:
        process = self._process
        if process is None:
            return
        data = self._partial + bytes(process.readAllStandardError().data())
        *lines, self._partial = data.split(b"\n")
        for raw in lines:
            line = raw.decode("utf-8", "replace").strip()
            word, _, value = line.partition(" ")
            if word == "progress" and value.isdigit():
                self.progressed.emit(min(100, int(value)))
            elif line:
                self._said.append(line[:500])

    def _on_finished(self, code: int, _status: QProcess.ExitStatus) -> None:
        process = self._process
        if process is None:
            return
        self._on_stderr()
        self._process = None
        said = [*self._said, self._partial.decode("utf-8", "replace").strip()]
        said = [line for line in said if line]
        process.deleteLater()
        if code == 0 and self._printer:
            self._report(QCoreApplication.translate("ExportProcess", "Sent to the printer {printer}").format(
                printer=self._printer))
        elif code == 0:
            self._report(QCoreApplication.translate("ExportProcess", "Exported to {path}").format(path=self._path))
        else:
            reason = said[-1] if said else QCoreApplication.translate("ExportProcess", "the exporter stopped")
            failed = (QCoreApplication.translate("ExportProcess", "Printing failed: {error}") if self._printer
                      else QCoreApplication.translate("ExportProcess", "Export failed: {error}"))
            self._report(failed.format(error=reason))

    def _report(self, message: str) -> None:
        done, self._done = self._done, None
        if done is not None:
            done(message)
        self.finished.emit(message)

    def _on_error(self, error: QProcess.ProcessError) -> None:
        if error == QProcess.ProcessError.FailedToStart and self._process is not None:
            process, self._process = self._process, None
            process.deleteLater()
            self._report(QCoreApplication.translate("ExportProcess", "Export failed: {error}").format(
                error=QCoreApplication.translate("ExportProcess", "the exporter could not be started")))
