"""``rill search`` and ``rill import`` never let a title or a message drive the
terminal (issue #17: a title with ``ESC]0;…BEL`` and ``ESC[2J`` retitled and
cleared it; U+202E read reversed). Checked on a real pseudo-terminal (colour
on) and through a pipe."""

from __future__ import annotations

import json
import os
import pty
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.terminal import read_terminal
from tests.test_cli_store import ROOT, make_db, rill

HOSTILE = "Owned\x1b]0;pwned\x07\x1b[2J\r\u202etxt.exe"
UNSAFE = ("\x1b]", "\x07", "\x1b[2J", "\r", "\u202e")


@pytest.fixture
def data_home(tmp_path: Path) -> Path:
    home = tmp_path / "xdg-data"
    home.mkdir()
    return home


def hostile_db(data_home: Path) -> Path:
    """The default database, with titles stored raw (as an older Rill or another tool would)."""
    path = make_db(data_home / "rill" / "rill.db")
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE conversations SET title = ?", (HOSTILE,))
    return path


def run_on_a_terminal(data_home: Path, *args: str) -> str:
    env = dict(os.environ, XDG_DATA_HOME=str(data_home))
    env.pop("NO_COLOR", None)
    env.pop("QT_QPA_PLATFORM", None)
    leader, follower = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "app.cli", *args], cwd=ROOT, env=env,
                            stdin=subprocess.DEVNULL, stdout=follower, stderr=follower)
    os.close(follower)
    written = read_terminal(leader)
    proc.wait(timeout=60)
    os.close(leader)
    assert proc.returncode == 0, written
    return written.decode("utf-8")


def test_search_on_a_terminal_prints_no_escape_from_the_data(data_home: Path) -> None:
    hostile_db(data_home)
    text = run_on_a_terminal(data_home, "search", "Hello")
    assert "\x1b[1;7m" in text, "the match is still highlighted (Rill's own escape)"
    for unsafe in UNSAFE:
        assert unsafe not in text.replace("\r\n", "\n"), repr(unsafe)
    assert "Owned]0;pwned" in text


def test_search_and_import_through_a_pipe_print_no_escape_either(data_home: Path, tmp_path: Path) -> None:
    hostile_db(data_home)
    proc = rill(data_home, "search", "Hello")
    assert proc.returncode == 0
    text = proc.stdout.decode("utf-8")
    assert "Owned" in text and not any(unsafe in text for unsafe in UNSAFE)
    # Import a file whose conversation title carries the same (into another database).
    doc = json.loads(rill(data_home, "export", "--all").stdout.decode("utf-8"))
    exported = tmp_path / "hostile.json"
    exported.write_text(json.dumps(doc), encoding="utf-8")
    other = tmp_path / "other-home"
    other.mkdir()
    proc = rill(other, "import", str(exported))
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout.decode("utf-8")
    assert "Imported" in text and not any(unsafe in text for unsafe in UNSAFE)
