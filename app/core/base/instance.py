"""Is a Rill window running on a data dir? (Qt-free.)

The window holds a ``QLockFile`` named after a hash of the user and the
resolved data dir (``app.ui.misc.single_instance``, which this module mirrors
name for name; a test checks the two agree). On Unix Qt also holds an
exclusive ``flock`` on that file for as long as the lock is held, and the
kernel drops it when the process dies, even by ``kill -9``. So a process
without Qt (``rill export``, ``rill search``) can tell, without writing
anything, whether a live Rill may be streaming into the database: it asks for
a shared ``flock`` and gives it back at once.

Where ``flock`` is missing (Windows) the process id written in the file's
first line decides.
"""

from __future__ import annotations

import contextlib
import getpass
import hashlib
import os
import sys
import tempfile
from pathlib import Path

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]  # the module is absent there


def _user() -> str:
    if hasattr(os, "getuid"):
        return str(os.getuid())
    try:
        return getpass.getuser()
    except Exception:  # noqa: BLE001 - no user name: the data dir alone is enough
        return ""


def instance_key(data_dir: Path | str) -> str:
    """``rill-`` and a hash of the user and the resolved data dir."""
    path = os.path.realpath(os.path.abspath(os.fspath(data_dir)))
    digest = hashlib.sha256(f"{_user()}\0{path}".encode("utf-8", "surrogatepass")).hexdigest()
    return f"rill-{digest[:24]}"


def runtime_dir() -> str | None:
    """``$XDG_RUNTIME_DIR`` when it is usable (per user, mode 0700)."""
    runtime = os.environ.get("XDG_RUNTIME_DIR", "")
    if sys.platform != "win32" and runtime and os.path.isabs(runtime) and os.path.isdir(runtime) \
            and os.access(runtime, os.W_OK | os.X_OK):
        return runtime
    return None


def temp_dir() -> str:
    """What ``QDir.tempPath()`` answers: ``$TMPDIR`` (else ``/tmp``) on Unix."""
    if sys.platform == "win32":
        return tempfile.gettempdir()
    tmp = os.environ.get("TMPDIR", "")
    return os.path.normpath(tmp) if tmp else "/tmp"  # Qt's own fallback


def lock_path(data_dir: Path | str) -> str:
    """The window's lock file for ``data_dir``."""
    runtime = runtime_dir()
    return os.path.join(runtime if runtime is not None else temp_dir(), instance_key(data_dir) + ".lock")


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except PermissionError:
        return True  # someone else's process: alive
    except OSError:
        return False
    return True


def rill_is_running(data_dir: Path | str) -> bool:
    """True when a Rill window holds ``data_dir`` (or may: when in doubt,
    True). Writes nothing."""
    path = lock_path(data_dir)
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return False
    except OSError:
        return True
    try:
        if fcntl is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except BlockingIOError:
                return True
            except OSError:
                pass  # no flock on this file system: the process id decides
            else:
                with contextlib.suppress(OSError):
                    fcntl.flock(fd, fcntl.LOCK_UN)
                return False
        first = os.read(fd, 64).split(b"\n", 1)[0]
    except OSError:
        return True
    finally:
        os.close(fd)
    try:
        pid = int(first)
    except ValueError:
        return False  # not a lock Qt wrote
    return pid > 0 and _pid_alive(pid)
