"""At exit Rill's Qt objects are deleted before PyQt's own clean-up walks
sip's wrapper table (app.ui.misc.teardown): Python that runs while an object
is deleted, making thousands of wrappers, no longer crashes the process."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.ui.misc import teardown

ROOT = next(p for p in Path(__file__).resolve().parents if (p / "pyproject.toml").is_file())

# Without the ordered teardown this script died with SIGSEGV in PyQt's
# cleanup_qobject 3 runs of 3: each object's ``destroyed`` slot grows sip's
# wrapper table while PyQt walks it.
_SCRIPT = """
import sys
from PyQt6.QtCore import QObject, QTimer
from PyQt6.QtWidgets import QWidget
from app.application import make_application

app = make_application()
order, keep = [], []

def grow(kind):
    order.append(kind)
    keep.extend(QObject() for _ in range(5000))
    if len(order) == 51:
        print(" ".join(order), flush=True)

objects = []
for _ in range(50):
    o = QObject()
    o.destroyed.connect(lambda *_: grow("object"))
    objects.append(o)
window = QWidget()
window.destroyed.connect(lambda *_: grow("window"))
window.show()
QTimer.singleShot(0, app.quit)
sys.exit(app.exec())
"""


def test_objects_whose_deletion_runs_python_are_deleted_before_pyqts_clean_up() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    env.update(QT_QPA_PLATFORM="offscreen", PYTHONFAULTHANDLER="1")
    proc = subprocess.run([sys.executable, "-c", _SCRIPT], check=False, cwd=ROOT, capture_output=True,
                          text=True, timeout=60, env=env)
    assert proc.returncode == 0, proc.stderr
    order = proc.stdout.split()
    assert order == ["window"] + ["object"] * 50, "the window first, then every object, each once"


def test_the_handler_is_registered_once(monkeypatch: pytest.MonkeyPatch) -> None:
    registered: list[object] = []
    monkeypatch.setattr(teardown, "_installed", False)
    monkeypatch.setattr(teardown.atexit, "register", registered.append)
    teardown.install_ordered_teardown()
    teardown.install_ordered_teardown()
    assert registered == [teardown.release_qt_objects]
