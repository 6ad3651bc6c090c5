"""A second Rill on the same data dir brings the first one forward and exits
(app.ui.misc.single_instance): real processes, real sockets and lock files."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from PyQt6.QtCore import QCoreApplication
from PyQt6.QtNetwork import QLocalSocket
from PyQt6.QtWidgets import QWidget

from app.ui.misc import single_instance
from app.ui.misc.single_instance import ALREADY_RUNNING, claim_single_instance, lock_path, server_name

ROOT = next(p for p in Path(__file__).resolve().parents if (p / "pyproject.toml").is_file())

# A tiny Rill: claims the data dir like `rill` does, says "primary" when it is
# the first one, "activated" for each activation, and quits after the first
# activation ("once") or when killed / after 30 s ("wait").
_SCRIPT = r"""
import sys
from PyQt6.QtCore import QCoreApplication, QTimer
from app.ui.misc.single_instance import claim_single_instance

app = QCoreApplication(sys.argv[:1])
app.setApplicationName("Rill")
instance = claim_single_instance(app)
if instance is None:
    sys.exit(0)
print("primary", flush=True)

def on_activation():
    print("activated", flush=True)
    if sys.argv[1] == "once":
        app.quit()

instance.activation_requested.connect(on_activation)
QTimer.singleShot(30000, app.quit)
sys.exit(app.exec())
"""


def _start(mode: str = "once") -> subprocess.Popen[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT), QT_QPA_PLATFORM="offscreen")
    return subprocess.Popen([sys.executable, "-c", _SCRIPT, mode], cwd=ROOT, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _expect_line(proc: subprocess.Popen[str], line: str) -> None:
    assert proc.stdout is not None
    got = proc.stdout.readline().strip()
    if got != line:
        proc.kill()
        _, err = proc.communicate(timeout=10)
        pytest.fail(f"expected {line!r}, got {got!r}; stderr: {err}")


def _run_second() -> tuple[int, str, float]:
    """A second start: its exit status, stderr and how long it took."""
    t0 = time.monotonic()
    proc = _start()
    try:
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    return proc.returncode, err, time.monotonic() - t0


def test_a_second_start_brings_the_first_forward_and_exits_0() -> None:
    first = _start("once")
    try:
        _expect_line(first, "primary")
        code, err, _ = _run_second()
        assert code == 0
        assert err.strip() == ALREADY_RUNNING  # one line, nothing else
        _expect_line(first, "activated")
        assert first.wait(timeout=10) == 0
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()
    # The first one quit normally: its lock and socket are gone, a new start is first again.
    assert not Path(lock_path()).exists()
    again = _start("once")
    try:
        _expect_line(again, "primary")
    finally:
        again.kill()
        again.wait()


def test_a_killed_instance_does_not_block_the_next_start() -> None:
    first = _start("wait")
    try:
        _expect_line(first, "primary")
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait()
    assert Path(lock_path()).exists()  # left behind by the crash, with the socket
    name = server_name()
    if os.path.isabs(name):
        assert Path(name).exists()
    t0 = time.monotonic()
    second = _start("once")
    try:
        _expect_line(second, "primary")  # not "already running", and without waiting for a timeout
        assert time.monotonic() - t0 < single_instance.WAIT_MS / 1000 + 10
        code, err, _ = _run_second()  # and it answers the next start
        assert (code, err.strip()) == (0, ALREADY_RUNNING)
        _expect_line(second, "activated")
        assert second.wait(timeout=10) == 0
    finally:
        if second.poll() is None:
            second.kill()
            second.wait()


def test_in_process_instance_gets_activation_and_raises_the_window(qtbot) -> None:
    window = QWidget()
    qtbot.addWidget(window)
    instance = claim_single_instance(QCoreApplication.instance())
    assert instance is not None and instance.is_listening
    try:
        window.showMinimized()
        instance.attach(window)
        proc = _start()
        with qtbot.waitSignal(instance.activation_requested, timeout=20000):
            pass
        assert proc.wait(timeout=20) == 0
        assert window.isVisible() and not window.isMinimized()
    finally:
        instance.release()
    assert not instance.is_listening and not Path(lock_path()).exists()


def test_other_data_dirs_and_junk_requests_are_ignored(qtbot, tmp_path: Path) -> None:
    assert server_name(tmp_path / "a") != server_name(tmp_path / "b")
    assert server_name(tmp_path / "a") == server_name(str(tmp_path / "a" / ".." / "a"))
    a = claim_single_instance(None, tmp_path / "a")
    b = claim_single_instance(None, tmp_path / "b")  # another data dir: a first instance too
    assert a is not None and b is not None
    try:
        fired: list[str] = []
        a.activation_requested.connect(lambda: fired.append("a"))
        b.activation_requested.connect(lambda: fired.append("b"))
        # Something else that connects and says nonsense is dropped, nothing fires.
        sock = QLocalSocket()
        sock.connectToServer(a.name)
        assert sock.waitForConnected(2000)
        sock.write(b"format c:\n")
        sock.flush()
        qtbot.waitUntil(lambda: sock.state() == QLocalSocket.LocalSocketState.UnconnectedState, timeout=5000)
        assert fired == []
        # An activation that comes before anything is connected waits for attach().
        c = claim_single_instance(None, tmp_path / "c")
        assert c is not None
        proc = _start_for(tmp_path / "c")
        qtbot.waitUntil(lambda: c.activation_pending, timeout=20000)
        assert proc.wait(timeout=20) == 0
        window = QWidget()
        qtbot.addWidget(window)
        c.attach(window)
        assert window.isVisible() and not c.activation_pending
        c.release()
        assert fired == []
    finally:
        a.release()
        b.release()


def _start_for(data_dir: Path) -> subprocess.Popen[str]:
    code = (
        "import sys\nfrom PyQt6.QtCore import QCoreApplication\n"
        "from app.ui.misc.single_instance import claim_single_instance\n"
        "app = QCoreApplication(sys.argv[:1])\n"
        f"sys.exit(0 if claim_single_instance(app, {str(data_dir)!r}) is None else 3)\n"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT), QT_QPA_PLATFORM="offscreen")
    return subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def test_the_store_commands_run_beside_a_running_instance(qtbot) -> None:
    instance = claim_single_instance(QCoreApplication.instance())
    assert instance is not None
    fired: list[bool] = []
    instance.activation_requested.connect(lambda: fired.append(True))
    try:
        env = dict(os.environ, PYTHONPATH=str(ROOT), QT_QPA_PLATFORM="offscreen")
        proc = subprocess.Popen([sys.executable, "-m", "app", "search", "anything"], cwd=ROOT, env=env,
                                text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        _, err = proc.communicate(timeout=30)
        assert ALREADY_RUNNING not in err
        assert "No conversation database" in err  # it ran (and found no history in this fresh data dir)
        assert fired == []
    finally:
        instance.release()
