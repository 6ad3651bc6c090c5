"""One Rill per data dir: a second start brings the first window forward.

Two Rills writing one history would each show a stale sidebar, and the second
one's start-up recovery would mark the first one's streaming reply as
interrupted. So ``rill`` (the window, not ``rill doctor`` nor the store
commands, which must run beside a running app) calls
``claim_single_instance(app)`` before it builds its window:

* the **first** instance holds a lock file and listens on a local socket
  (``QLocalServer``); it gets ``SingleInstance``, whose
  ``activation_requested`` signal fires whenever another start asks for the
  window (``attach(window)`` connects it to ``bring_to_front``);
* a **second** instance on the same data dir connects, sends ``activate``,
  waits for ``ok``, prints one line to stderr and gets ``None``: it should
  exit with status 0.

Names
-----
Both the lock and the socket are named after a hash of the user and the
resolved data dir (``$XDG_DATA_HOME/rill``): two users, or two data dirs, never
meet. They live in ``$XDG_RUNTIME_DIR`` (per user, mode 0700) when there is
one, else in Qt's temp dir (``QDir.tempPath()``; a named pipe on Windows). The
socket is made with ``UserAccessOption`` (only this user can connect).

Faults
------
* **A crash** (``kill -9``) leaves the lock file and the socket file behind.
  ``QLockFile`` sees the lock's process is gone and takes it over; the new
  first instance then removes the dead socket (``QLocalServer.removeServer``)
  before listening.
* **Two starts at once:** only one gets the lock; the other keeps asking (and
  trying the lock, in case the first one is quitting) until the first
  listens, for up to ``WAIT_MS``.
* **A first instance that does not answer** within ``WAIT_MS`` (hung, or the
  lock could be taken but the socket cannot be made): the second one says so
  on stderr and starts anyway (SQLite's locking keeps the file consistent).
* **No lock file possible** (an unwritable temp dir): the socket alone
  decides, as before locks existed.

Threading rule: GUI thread (the thread of the QCoreApplication) only.
"""

from __future__ import annotations

import logging
import os
import sys
import time
from pathlib import Path

from PyQt6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QLockFile, QObject, Qt, QTimer, pyqtSignal
from PyQt6.QtGui import QGuiApplication
from PyQt6.QtWidgets import QWidget

try:
    from PyQt6.QtNetwork import QLocalServer, QLocalSocket
except ImportError:  # a bundle built without QtNetwork: every start is a first one
    QLocalServer = QLocalSocket = None  # type: ignore[assignment,misc]  # the classes become None: callers check QLocalServer first

from app.core.base import instance, settings

log = logging.getLogger(__name__)

ACTIVATE = b"activate\n"
ACK = b"ok\n"
#: How long a second start keeps trying to reach the first one.
WAIT_MS = 3000
#: One attempt to connect and be answered.
ASK_MS = 1000
#: A client that has not said its line by then is dropped.
CLIENT_TIMEOUT_MS = 2000
#: Printed to the terminal when a second start found Rill running and brought its window forward.
ALREADY_RUNNING = QT_TRANSLATE_NOOP("SingleInstance", "Rill is already running; its window was brought forward.")
#: A Unix socket path longer than this does not fit ``sockaddr_un``.
_MAX_SOCKET_PATH = 100


def instance_key(data_dir: Path | str | None = None) -> str:
    """``rill-`` and a hash of the user and the resolved data dir (the core's
    ``app.core.base.instance.instance_key``, which the CLI checks without Qt)."""
    return instance.instance_key(data_dir if data_dir is not None else settings.data_dir())


def server_name(data_dir: Path | str | None = None) -> str:
    """The local socket's name: a path in ``$XDG_RUNTIME_DIR``, else a bare
    name (Qt puts it in its temp dir, or makes it a named pipe on Windows)."""
    key = instance_key(data_dir)
    runtime = instance.runtime_dir()
    if runtime is not None:
        path = os.path.join(runtime, key + ".sock")
        if len(path.encode()) <= _MAX_SOCKET_PATH:
            return path
    return key


def lock_path(data_dir: Path | str | None = None) -> str:
    """The lock file beside the socket (``app.core.base.instance.lock_path``:
    the one the CLI probes)."""
    return instance.lock_path(data_dir if data_dir is not None else settings.data_dir())


def bring_to_front(window: QWidget) -> None:
    """Show ``window`` un-minimized (keeping it maximized or full screen if it
    was), on top, with the focus (as far as the window system allows)."""
    state = window.windowState()
    if state & Qt.WindowState.WindowMinimized:
        window.setWindowState((state & ~Qt.WindowState.WindowMinimized) | Qt.WindowState.WindowActive)
    window.show()
    if QGuiApplication.platformName() not in ("offscreen", "minimal"):  # nothing to raise there (Qt warns)
        window.raise_()
        window.activateWindow()


def ask_to_activate(name: str, timeout_ms: int = ASK_MS) -> bool:
    """Connect to the instance listening on ``name``, ask it to come forward;
    True when it answered ``ok``. Blocking (no event loop needed)."""
    if QLocalSocket is None:
        return False
    sock = QLocalSocket()
    try:
        sock.connectToServer(name)
        if not sock.waitForConnected(timeout_ms):
            return False
        sock.write(ACTIVATE)
        if not sock.waitForBytesWritten(timeout_ms):
            return False
        answer = b""
        deadline = time.monotonic() + timeout_ms / 1000
        while len(answer) < len(ACK):
            left = int((deadline - time.monotonic()) * 1000)
            if left <= 0 or not sock.waitForReadyRead(left):
                break
            answer += sock.readAll().data()
        answer += sock.readAll().data()  # the answer may come with the disconnection
        return answer.startswith(ACK)
    finally:
        sock.abort()


class SingleInstance(QObject):
    """The first Rill on a data dir: holds the lock and answers later starts."""

    #: Another start of Rill asked for this instance's window.
    activation_requested = pyqtSignal()

    def __init__(self, name: str, lock: QLockFile | None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.name = name
        self._lock = lock
        #: An activation arrived before anything was connected (``attach`` honours it).
        self.activation_pending = False
        self._buffers: dict[int, bytes] = {}
        self._server = QLocalServer(self) if QLocalServer is not None else None
        if self._server is not None:
            self._server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)
            self._server.newConnection.connect(self._on_new_connection)
        app = QCoreApplication.instance()
        if app is not None:
            app.aboutToQuit.connect(self.release)

    @property
    def is_listening(self) -> bool:
        return self._server is not None and self._server.isListening()

    def listen(self) -> bool:
        """Listen on ``name``, replacing a dead instance's socket file."""
        if self._server is None:
            log.warning("Rill was built without QtNetwork: a second Rill will not find this one.")
            return False
        QLocalServer.removeServer(self.name)
        if self._server.listen(self.name):
            return True
        log.warning("Rill cannot listen on %s (%s): a second Rill will not find this one.",
                    self.name, self._server.errorString())
        return False

    def attach(self, window: QWidget) -> None:
        """Bring ``window`` forward on every activation (and now, if one
        came before the window existed)."""
        self.activation_requested.connect(lambda: bring_to_front(window))
        if self.activation_pending:
            self.activation_pending = False
            bring_to_front(window)

    def release(self) -> None:
        """Stop answering and free the lock (at quit; a later start becomes
        the first instance). Idempotent."""
        if self._server is not None and self._server.isListening():
            self._server.close()  # removes the socket file
        if self._lock is not None:
            self._lock.unlock()
            self._lock = None

    # -- answering ------------------------------------------------------------------

    def _on_new_connection(self) -> None:
        while self._server is not None:
            sock = self._server.nextPendingConnection()
            if sock is None:
                return
            key = id(sock)
            self._buffers[key] = b""
            timer = QTimer(sock)
            timer.setSingleShot(True)
            timer.timeout.connect(sock.abort)
            timer.start(CLIENT_TIMEOUT_MS)
            sock.readyRead.connect(lambda s=sock: self._on_ready_read(s))
            sock.disconnected.connect(lambda s=sock, k=key: self._on_disconnected(s, k))

    def _on_ready_read(self, sock: QLocalSocket) -> None:
        key = id(sock)
        if key not in self._buffers:
            return
        data = self._buffers[key] + sock.readAll().data()
        self._buffers[key] = data
        if b"\n" not in data:
            if len(data) > 256:
                sock.abort()
            return
        line = data.split(b"\n", 1)[0].strip()
        del self._buffers[key]
        if line != ACTIVATE.strip():
            log.warning("Rill's instance socket got an unknown request; ignored.")
            sock.abort()
            return
        sock.write(ACK)
        sock.flush()
        sock.disconnectFromServer()
        if self.receivers(self.activation_requested) > 0:
            self.activation_requested.emit()
        else:
            self.activation_pending = True

    def _on_disconnected(self, sock: QLocalSocket, key: int) -> None:
        self._buffers.pop(key, None)
        sock.deleteLater()


def claim_single_instance(
    app: QCoreApplication | None = None,
    data_dir: Path | str | None = None,
    *,
    wait_ms: int = WAIT_MS,
    quiet: bool = False,
) -> SingleInstance | None:
    """Become the first Rill on ``data_dir`` (default: the app's), or ask the
    first one to bring its window forward.

    Returns the ``SingleInstance`` (keep a reference; connect
    ``activation_requested`` or call ``attach(window)``), or None when
    another instance answered: then ``ALREADY_RUNNING`` was printed to stderr
    (unless ``quiet``) and the caller should exit with status 0."""
    parent = app if app is not None else QCoreApplication.instance()
    name = server_name(data_dir)
    if QLocalServer is None:
        log.warning("Rill was built without QtNetwork: it cannot tell whether it already runs.")
        return SingleInstance(name, None, parent)
    lock_file = QLockFile(lock_path(data_dir))
    lock_file.setStaleLockTime(0)  # stale only when its process is gone: Rill runs for days
    lock: QLockFile | None = lock_file
    deadline = time.monotonic() + wait_ms / 1000
    while True:
        if lock is not None and lock.tryLock(0):
            # A process that runs without the lock (see "No lock file possible")
            # may still be listening: ask it first (a dead socket refuses at once).
            if ask_to_activate(name, min(ASK_MS, 300)):
                lock.unlock()
                break
            instance = SingleInstance(name, lock, parent)
            instance.listen()
            return instance
        if lock is not None and lock.error() != QLockFile.LockError.LockFailedError:
            log.warning("Rill cannot use the lock file %s (%s); the socket alone decides.",
                        lock_path(data_dir), lock.error().name)
            lock = None
        if ask_to_activate(name, ASK_MS):
            break
        if lock is None:  # nobody answered and there is no lock to wait for: we are first
            instance = SingleInstance(name, None, parent)
            instance.listen()
            return instance
        if time.monotonic() >= deadline:
            info = lock.getLockInfo()
            pid = info[1] if info and info[0] else "?"
            print(QCoreApplication.translate(
                "SingleInstance",
                "Another Rill (process {pid}) is using this data folder but does not answer; starting anyway.",
            ).format(pid=pid), file=sys.stderr)
            return SingleInstance(name, None, parent)  # not listening: the other one keeps the name
        time.sleep(0.05)
    if not quiet:
        print(QCoreApplication.translate("SingleInstance", ALREADY_RUNNING), file=sys.stderr)
    return None
