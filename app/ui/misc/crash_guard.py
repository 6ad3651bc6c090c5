"""Keep Rill running after an unexpected exception, and tell the user.

Without a ``sys.excepthook`` PyQt6 calls ``qFatal()`` for an exception that
escapes a slot or a virtual override: the whole app aborts. The crash guard
installs ``sys.excepthook`` and ``threading.excepthook`` so that such an
exception is

* written, with its full traceback, to ``$XDG_DATA_HOME/rill/logs/rill.log``
  (rotating, about 1 MB x 3 files, created on the first error; if that cannot
  be written, to stderr instead; the guard itself never raises);
* announced in a non-modal dialog on the GUI thread (marshalled there with a
  queued signal from any thread): something went wrong, Rill keeps running,
  and where the log is; the traceback only under "Show Details...". One dialog
  at a time: errors while it is open add to its counter, and errors in the
  first few seconds after the user dismissed it are only logged, so an error
  that repeats in a loop cannot bury the window in dialogs.

The app keeps running. ``install_crash_guard(app)`` is idempotent (one guard
per process); ``CrashGuard.uninstall()`` restores the previous hooks.
"""

from __future__ import annotations

import logging
import logging.handlers
import sys
import threading
import time
import traceback
from pathlib import Path
from types import TracebackType
from typing import Any

from PyQt6 import sip
from PyQt6.QtCore import QObject, Qt, pyqtSignal
from PyQt6.QtWidgets import QApplication, QMessageBox

from app.core.base import settings

log = logging.getLogger(__name__)

LOG_FILE_NAME = "rill.log"
LOG_MAX_BYTES = 1_000_000
LOG_BACKUP_COUNT = 3
#: After the user dismisses the dialog, errors within this many seconds are
#: only logged (an error repeating in a loop would otherwise re-open it at once).
QUIET_AFTER_DISMISS_S = 3.0
#: The dialog's "Show Details..." keeps at most this many characters of tracebacks.
MAX_DETAILS_CHARS = 20_000
DIALOG_OBJECT_NAME = "rillErrorDialog"

ExcInfo = tuple[type[BaseException], BaseException, TracebackType | None]


def default_log_path() -> Path:
    """``$XDG_DATA_HOME/rill/logs/rill.log`` (default ``~/.local/share/...``)."""
    return settings.data_dir() / "logs" / LOG_FILE_NAME


_ACTIVE: CrashGuard | None = None


def install_crash_guard(app: QApplication, log_path: Path | None = None) -> CrashGuard:
    """Install the crash guard for this process, or return the one installed."""
    global _ACTIVE
    if _ACTIVE is not None and _ACTIVE.installed:
        return _ACTIVE
    guard = CrashGuard(app, log_path)
    guard.install()
    _ACTIVE = guard
    return guard


def active_crash_guard() -> CrashGuard | None:
    return _ACTIVE if _ACTIVE is not None and _ACTIVE.installed else None


class CrashGuard(QObject):
    """See the module docstring. Create it on the GUI thread."""

    #: An unhandled exception was logged; args: a one-line summary, the
    #: traceback. Emitted on the GUI thread (e.g. for ``rill doctor`` to stop).
    error_reported = pyqtSignal(str, str)
    # Private: from any thread, queued to the GUI thread; the bool says the
    # error came from an error_reported listener (not announced again: no loop).
    _error_reported = pyqtSignal(str, str, bool)

    def __init__(
        self,
        app: QApplication,
        log_path: Path | None = None,
        quiet_after_dismiss_s: float = QUIET_AFTER_DISMISS_S,
    ) -> None:
        super().__init__()
        self.moveToThread(app.thread())
        self.log_path = Path(log_path) if log_path is not None else default_log_path()
        self.quiet_after_dismiss_s = quiet_after_dismiss_s
        #: Errors recorded since install (all of them, shown or not).
        self.error_count = 0
        #: Errors the dialog currently open counts (0 when none is open).
        self.dialog_count = 0
        self.dialog: QMessageBox | None = None
        self._details = ""
        self._dismissed_at: float | None = None
        self._installed = False
        self._prev_excepthook: Any = None
        self._prev_thread_excepthook: Any = None
        self._lock = threading.Lock()
        self._logger: logging.Logger | None = None
        self._log_file: Path | None = None  # None: the log goes to stderr
        self._log_problem = ""
        self._in_listener = False  # GUI thread: inside error_reported's slots
        self._gui_ident = threading.get_ident()
        self._error_reported.connect(self._on_error_reported, Qt.ConnectionType.QueuedConnection)  # type: ignore[call-arg]  # PyQt6 stubs: connect() takes a connection type

    # -- hooks -------------------------------------------------------------------

    @property
    def installed(self) -> bool:
        return self._installed

    def install(self) -> None:
        if self._installed:
            return
        self._prev_excepthook = sys.excepthook
        self._prev_thread_excepthook = threading.excepthook
        sys.excepthook = self._excepthook
        threading.excepthook = self._thread_excepthook
        self._installed = True

    def uninstall(self) -> None:
        """Restore the hooks found at install time; close the log file."""
        global _ACTIVE
        if not self._installed:
            return
        self._installed = False
        # Someone may have wrapped our hooks since; leave theirs in place (ours
        # delegate to the previous hooks once uninstalled).
        if sys.excepthook == self._excepthook:
            sys.excepthook = self._prev_excepthook
        if threading.excepthook == self._thread_excepthook:
            threading.excepthook = self._prev_thread_excepthook
        if _ACTIVE is self:
            _ACTIVE = None
        with self._lock:
            logger, self._logger = self._logger, None
        if logger is not None:
            for handler in list(logger.handlers):
                logger.removeHandler(handler)
                handler.close()

    def _excepthook(
        self, exc_type: type[BaseException], exc: BaseException, tb: TracebackType | None
    ) -> None:
        if not self._installed or not issubclass(exc_type, Exception):
            # KeyboardInterrupt, SystemExit...: what Python would do anyway.
            (self._prev_excepthook or sys.__excepthook__)(exc_type, exc, tb)
            return
        self.report((exc_type, exc, tb), threading.current_thread().name)

    def _thread_excepthook(self, args: Any) -> None:
        if not self._installed or args.exc_type is SystemExit:
            (self._prev_thread_excepthook or threading.__excepthook__)(args)
            return
        name = args.thread.name if args.thread is not None else "a thread"
        exc = args.exc_value if args.exc_value is not None else args.exc_type()
        self.report((args.exc_type, exc, args.exc_traceback), name)

    # -- recording -----------------------------------------------------------------

    def report(self, exc_info: ExcInfo, where: str = "") -> None:
        """Log ``exc_info`` and show (or update) the dialog; never raises."""
        try:
            exc_type, exc, tb = exc_info
            text = "".join(traceback.format_exception(exc_type, exc, tb))
            summary = "".join(traceback.format_exception_only(exc_type, exc)).strip()
            with self._lock:
                self.error_count += 1
        except Exception:  # noqa: BLE001 - the guard must not become the crash
            self._last_resort(exc_info)
            return
        try:
            self._get_logger().error(
                "Unhandled exception in thread %s", where or "?", exc_info=exc_info
            )
        except Exception:  # noqa: BLE001 - a broken logger must not become the crash
            self._last_resort(exc_info)
        try:
            from_listener = self._in_listener and threading.get_ident() == self._gui_ident
            self._error_reported.emit(summary, text, from_listener)
        except Exception:  # noqa: BLE001 - e.g. the guard's C++ object is gone at exit
            pass
        if self._log_file is not None and sys.stderr is not None:
            try:
                # A developer in a terminal still sees it, as without the guard.
                sys.stderr.write(f"Unhandled exception (logged to {self._log_file}):\n{text}")
            except Exception:  # noqa: BLE001 - a closed terminal must not become the crash
                pass

    @staticmethod
    def _last_resort(exc_info: ExcInfo) -> None:
        try:
            sys.__excepthook__(*exc_info)
        except Exception:  # noqa: BLE001 - nothing is left to report with
            pass

    def _get_logger(self) -> logging.Logger:
        with self._lock:
            if self._logger is not None:
                return self._logger
            # A private logger (not in logging's tree): nothing else writes to
            # these handlers, and the root logger's handlers do not see this.
            logger = logging.Logger("rill.crash", logging.INFO)
            formatter = logging.Formatter("%(asctime)s %(levelname)s [%(threadName)s] %(message)s")
            handler: logging.Handler
            try:
                self.log_path.parent.mkdir(parents=True, exist_ok=True)
                handler = logging.handlers.RotatingFileHandler(
                    self.log_path,
                    maxBytes=LOG_MAX_BYTES,
                    backupCount=LOG_BACKUP_COUNT,
                    encoding="utf-8",
                )
                self._log_file = self.log_path
            except OSError as exc:
                self._log_problem = f"{type(exc).__name__}: {exc}"
                handler = logging.StreamHandler(sys.stderr if sys.stderr is not None else sys.__stderr__)
                self._log_file = None
                log.warning("cannot write the error log %s (%s); using stderr", self.log_path, exc)
            handler.setFormatter(formatter)
            logger.addHandler(handler)
            self._logger = logger
            return logger

    @property
    def log_file(self) -> Path | None:
        """The file errors are written to; None before the first error or
        when it could not be opened (then they go to stderr)."""
        return self._log_file

    # -- the dialog (GUI thread) ------------------------------------------------------

    def _on_error_reported(self, summary: str, text: str, from_listener: bool) -> None:
        if not from_listener:
            self._in_listener = True
            try:
                self.error_reported.emit(summary, text)
            finally:
                self._in_listener = False
        try:
            self._add_details(summary, text)
            if self.dialog is not None:
                self.dialog_count += 1
                self._update_dialog(self.dialog)
                return
            now = time.monotonic()
            if self._dismissed_at is not None and now - self._dismissed_at < self.quiet_after_dismiss_s:
                return  # logged; the user was told about this a moment ago
            self.dialog_count = 1
            self._show_dialog()
        except Exception:
            log.exception("cannot show the error dialog")

    def _add_details(self, summary: str, text: str) -> None:
        if self.dialog is None:
            self._details = ""
        stamp = time.strftime("%H:%M:%S")
        entry = f"[{stamp}] {text}"
        details = f"{self._details}\n{entry}" if self._details else entry
        if len(details) > MAX_DETAILS_CHARS:
            details = self.tr("[earlier errors cut; see the log]") + "\n" + details[-MAX_DETAILS_CHARS:]
        self._details = details

    def _show_dialog(self) -> None:
        box = QMessageBox()
        box.setObjectName(DIALOG_OBJECT_NAME)
        box.setIcon(QMessageBox.Icon.Warning)
        box.setWindowTitle(self.tr("Rill: something went wrong"))
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        box.setStandardButtons(QMessageBox.StandardButton.Ok)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        # Not a reason to keep the app alive once its windows are closed.
        box.setAttribute(Qt.WidgetAttribute.WA_QuitOnClose, False)
        # Owned by C++ (WA_DeleteOnClose deletes it): dropping our reference in
        # a slot of its own ``finished`` must not delete it mid-signal (a
        # parentless widget made in Python is otherwise owned by Python).
        sip.transferto(box, None)  # type: ignore[arg-type]  # sip stubs: None (C++ owns it) is allowed
        box.finished.connect(self._on_dialog_finished)
        box.destroyed.connect(self._on_dialog_destroyed)
        self.dialog = box
        self._update_dialog(box)
        box.open()  # not exec(): no nested event loop, nothing blocked

    def _update_dialog(self, box: QMessageBox) -> None:
        box.setText(
            self.tr(
                "Something went wrong inside Rill. Rill is still running and you can "
                "carry on; if something looks wrong, save what you need and restart Rill."
            )
        )
        if self._log_file is not None:
            where = self.tr("The details were written to this file:\n{path}").format(path=self._log_file)
        else:
            where = self.tr(
                "The details could not be written to {path} "
                "({problem}); they were printed to the terminal instead."
            ).format(path=self.log_path, problem=self._log_problem)
        if self.dialog_count > 1:
            where += "\n\n" + self.tr(
                "This has happened %n times since this message appeared.", "", self.dialog_count
            )
        box.setInformativeText(where)
        box.setDetailedText(self._details)

    def _on_dialog_finished(self, _result: int) -> None:
        self.dialog = None
        self.dialog_count = 0
        self._dismissed_at = time.monotonic()

    def _on_dialog_destroyed(self) -> None:
        # Normally after finished; this covers a dialog deleted without it.
        if self.dialog is not None and sip.isdeleted(self.dialog):
            self.dialog = None
            self.dialog_count = 0
