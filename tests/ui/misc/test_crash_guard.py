"""The crash guard: an exception in a slot or a thread is logged, shown once,
and Rill keeps running.

pytest-qt normally installs its own sys.excepthook around every test (and
fails the test on an exception in a slot); ``qt_no_exception_capture`` turns
that off here, so the exceptions below reach the guard's hooks for real.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from PyQt6 import sip
from PyQt6.QtCore import QEvent, QObject, QTimer, pyqtSignal
from PyQt6.QtWidgets import QApplication, QMainWindow, QMessageBox

from app.ui.misc.crash_guard import (
    DIALOG_OBJECT_NAME,
    CrashGuard,
    active_crash_guard,
    default_log_path,
    install_crash_guard,
)

ROOT = next(p for p in Path(__file__).resolve().parents if (p / "pyproject.toml").is_file())

pytestmark = pytest.mark.qt_no_exception_capture


def error_dialogs() -> list[QMessageBox]:
    return [
        w for w in QApplication.topLevelWidgets()
        if isinstance(w, QMessageBox) and w.objectName() == DIALOG_OBJECT_NAME and w.isVisible()
    ]


def close_dialogs() -> None:
    for box in error_dialogs():
        box.done(QMessageBox.StandardButton.Ok.value)


@pytest.fixture
def guard(qapp: QApplication) -> Iterator[CrashGuard]:
    hooks = (sys.excepthook, threading.excepthook)
    g = install_crash_guard(qapp)
    yield g
    close_dialogs()
    g.uninstall()
    assert (sys.excepthook, threading.excepthook) == hooks


class Emitter(QObject):
    fired = pyqtSignal(str)


def test_install_is_idempotent_and_uninstall_restores_the_hooks(qapp: QApplication) -> None:
    before = (sys.excepthook, threading.excepthook)
    g = install_crash_guard(qapp)
    try:
        assert install_crash_guard(qapp) is g
        assert active_crash_guard() is g
        assert sys.excepthook != before[0] and threading.excepthook != before[1]
    finally:
        g.uninstall()
    assert (sys.excepthook, threading.excepthook) == before
    assert active_crash_guard() is None
    assert g.log_file is None, "no error, no log file"
    assert not default_log_path().exists()


def test_exception_in_a_timer_slot_is_logged_and_shown_once(qtbot, guard: CrashGuard) -> None:
    after: list[bool] = []

    def boom() -> None:
        raise RuntimeError("boom from a timer slot")

    QTimer.singleShot(0, boom)
    QTimer.singleShot(30, lambda: after.append(True))
    qtbot.waitUntil(lambda: bool(after) and len(error_dialogs()) == 1, timeout=5000)
    qtbot.wait(50)  # room for a stray second dialog

    log_file = guard.log_file
    assert log_file == default_log_path() and log_file.is_file()
    text = log_file.read_text(encoding="utf-8")
    assert "Traceback (most recent call last)" in text
    assert 'in boom\n    raise RuntimeError("boom from a timer slot")' in text
    assert "RuntimeError: boom from a timer slot" in text

    dialogs = error_dialogs()
    assert len(dialogs) == 1
    box = dialogs[0]
    shown = box.text() + box.informativeText()
    assert "went wrong" in shown and "still running" in shown
    assert str(log_file) in box.informativeText()
    assert "Traceback" not in shown and "boom from a timer slot" not in shown
    assert "boom from a timer slot" in box.detailedText()
    # Owned by Qt (deleted on close), not by the guard's Python reference:
    # dropping that reference inside the dialog's own finished signal would
    # otherwise delete it mid-signal (it crashed on quit with the dialog open).
    assert not sip.ispyowned(box)
    box.done(QMessageBox.StandardButton.Ok.value)
    qtbot.waitUntil(lambda: not error_dialogs(), timeout=2000)
    assert guard.dialog is None


def test_exception_in_a_signal_slot_does_not_stop_later_slots(qtbot, guard: CrashGuard) -> None:
    emitter = Emitter()
    received: list[str] = []

    def bad(text: str) -> None:
        raise ValueError(f"bad slot got {text}")

    emitter.fired.connect(bad)
    emitter.fired.connect(received.append)
    emitter.fired.emit("one")
    emitter.fired.emit("two")
    assert received == ["one", "two"], "the app (and this signal) keep working"
    qtbot.waitUntil(lambda: len(error_dialogs()) == 1, timeout=5000)
    assert guard.error_count == 2
    text = guard.log_file.read_text(encoding="utf-8")
    assert "ValueError: bad slot got one" in text and "ValueError: bad slot got two" in text


def test_repeated_errors_count_in_the_open_dialog(qtbot, guard: CrashGuard) -> None:
    def boom() -> None:
        raise KeyError("again")

    for i in range(5):
        QTimer.singleShot(i * 5, boom)
    qtbot.waitUntil(lambda: guard.error_count == 5 and guard.dialog_count == 5, timeout=5000)
    dialogs = error_dialogs()
    assert len(dialogs) == 1
    assert "5 times" in dialogs[0].informativeText()
    assert dialogs[0].detailedText().count("KeyError: 'again'") == 5

    # Just dismissed: an error that keeps coming back does not re-open it at once...
    dialogs[0].done(QMessageBox.StandardButton.Ok.value)
    QTimer.singleShot(0, boom)
    qtbot.waitUntil(lambda: guard.error_count == 6, timeout=5000)
    qtbot.wait(50)
    assert not error_dialogs()
    # ...but one after the quiet period does.
    guard.quiet_after_dismiss_s = 0.0
    QTimer.singleShot(0, boom)
    qtbot.waitUntil(lambda: len(error_dialogs()) == 1, timeout=5000)
    assert guard.dialog_count == 1
    assert "times" not in error_dialogs()[0].informativeText()


def test_error_reported_is_announced_on_the_gui_thread(qtbot, guard: CrashGuard) -> None:
    got: list[tuple[str, bool]] = []

    def listener(summary: str, text: str) -> None:
        got.append((summary, threading.current_thread() is threading.main_thread()))
        raise RuntimeError("a listener that fails too")  # must not loop

    guard.error_reported.connect(listener)
    threading.Thread(target=lambda: 1 / 0).start()
    qtbot.waitUntil(lambda: guard.error_count == 2 and bool(got), timeout=5000)
    assert got == [("ZeroDivisionError: division by zero", True)]
    assert guard.error_count == 2 and guard.dialog_count == 2


def test_the_dialog_blocks_no_window(qtbot, guard: CrashGuard) -> None:
    class BlockWatch(QObject):
        blocked = False

        def eventFilter(self, obj: QObject | None, event: QEvent | None) -> bool:
            if event is not None and event.type() == QEvent.Type.WindowBlocked:
                self.blocked = True
            return False

    window = QMainWindow()
    qtbot.addWidget(window)
    watch = BlockWatch()
    window.installEventFilter(watch)
    window.show()
    qtbot.waitExposed(window)

    def boom() -> None:
        raise RuntimeError("while a window is open")

    QTimer.singleShot(0, boom)
    qtbot.waitUntil(lambda: len(error_dialogs()) == 1, timeout=5000)
    qtbot.wait(20)
    assert not watch.blocked, "the error dialog must not block the main window"


def test_exception_in_a_python_thread_is_logged(qtbot, guard: CrashGuard) -> None:
    def work() -> None:
        raise ZeroDivisionError("thread went wrong")

    thread = threading.Thread(target=work, name="rill-test-worker")
    thread.start()
    thread.join(5)
    text = guard.log_file.read_text(encoding="utf-8")
    assert "rill-test-worker" in text
    assert "in work\n" in text and "ZeroDivisionError: thread went wrong" in text
    # The dialog is built on the GUI thread, from a queued signal.
    qtbot.waitUntil(lambda: len(error_dialogs()) == 1, timeout=5000)
    assert "thread went wrong" in error_dialogs()[0].detailedText()


def test_unwritable_data_dir_falls_back_to_stderr(
    qtbot, qapp: QApplication, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    not_a_dir = tmp_path / "data"
    not_a_dir.write_text("a file where the data folder should be")
    monkeypatch.setenv("XDG_DATA_HOME", str(not_a_dir))
    g = install_crash_guard(qapp)
    try:
        def boom() -> None:
            raise RuntimeError("nowhere to log")

        QTimer.singleShot(0, boom)
        qtbot.waitUntil(lambda: len(error_dialogs()) == 1, timeout=5000)
        assert g.log_file is None
        assert "RuntimeError: nowhere to log" in capsys.readouterr().err
        info = error_dialogs()[0].informativeText()
        assert "could not be written" in info and str(default_log_path()) in info
    finally:
        close_dialogs()
        g.uninstall()


def test_keyboard_interrupt_is_left_to_the_previous_hook(qapp: QApplication) -> None:
    seen: list[type[BaseException]] = []
    previous = sys.excepthook
    sys.excepthook = lambda t, v, tb: seen.append(t)
    try:
        g = install_crash_guard(qapp)
        try:
            try:
                raise KeyboardInterrupt
            except KeyboardInterrupt:
                sys.excepthook(*sys.exc_info())
            assert seen == [KeyboardInterrupt]
            assert g.error_count == 0
        finally:
            g.uninstall()
    finally:
        sys.excepthook = previous


def test_the_app_survives_an_exception_in_a_slot(tmp_path: Path) -> None:
    """The real application (make_application): the process would abort
    without the guard; with it, it logs, carries on and exits 0."""
    code = textwrap.dedent(
        """
        import sys
        from PyQt6.QtCore import QTimer
        from app.application import make_application
        app = make_application()
        make_application()  # idempotent: still one guard
        def boom():
            raise RuntimeError("slot failure in the real app")
        def dismiss():
            # as a user would: click OK (the guard keeps no Python reference)
            from PyQt6.QtWidgets import QApplication, QMessageBox
            for w in QApplication.topLevelWidgets():
                if isinstance(w, QMessageBox) and w.isVisible():
                    print("dialog:", w.text().split(".")[0], flush=True)
                    w.button(QMessageBox.StandardButton.Ok).click()
        QTimer.singleShot(0, boom)
        QTimer.singleShot(200, dismiss)
        QTimer.singleShot(300, boom)  # quiet period: logged only
        QTimer.singleShot(400, lambda: print("still running", flush=True))
        QTimer.singleShot(450, app.quit)
        sys.exit(app.exec())
        """
    )
    env = {**_clean_env(), "XDG_DATA_HOME": str(tmp_path / "data"), "QT_QPA_PLATFORM": "offscreen"}
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60, env=env
    )
    assert proc.returncode == 0, proc.stderr
    assert "dialog: Something went wrong inside Rill" in proc.stdout
    assert "still running" in proc.stdout
    log = (tmp_path / "data" / "rill" / "logs" / "rill.log").read_text(encoding="utf-8")
    assert log.count("RuntimeError: slot failure in the real app") == 2


def _clean_env() -> dict[str, str]:
    import os

    return {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
