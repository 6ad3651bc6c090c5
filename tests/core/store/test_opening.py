"""app.core.store.opening: each fault at open has its own, correct words (a
locked database is not read-only, a full disk is not an older format), and
opening for reading only never changes the data dir."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from app.core.conversation.model import Message, MessageStatus
from app.core.store import ConversationInfo, Store
from app.core.store import opening as opening_module
from app.core.store import writes as writes_module
from tests.core.store.test_store import damage_inner_page, damage_text, plain, real_database

ROOT = next(p for p in Path(__file__).resolve().parents if (p / "pyproject.toml").is_file())


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "data" / "rill.db"


@pytest.fixture
def short_waits(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(opening_module, "BUSY_TIMEOUT_MS", 100)
    monkeypatch.setattr(writes_module, "BUSY_PATIENCE_S", 0.1)


def _lock(path: Path) -> sqlite3.Connection:
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")
    return other


def _older(path: Path) -> None:
    """A database in the previous format (v2: the same tables)."""
    real_database(path, conversations=2)
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA user_version = 2")
    conn.commit()
    conn.close()


# -- the words for each fault ------------------------------------------------------------


def test_a_database_locked_at_start_is_not_called_read_only(db_path: Path, short_waits: None) -> None:
    db_path.parent.mkdir()
    real_database(db_path, conversations=2)
    other = _lock(db_path)
    try:
        result = Store.open(db_path)
        assert result.store is not None and not result.read_only
        assert not any("read-only" in n for n in result.notices), result.notices
        # recovering interrupted replies could not write: said as what it is, and queued
        assert len(result.notices) == 1 and "another program is using" in result.notices[0]
        plain(result.notices[0])
        assert result.store.count_conversations() == 2  # the history reads
    finally:
        other.execute("COMMIT")
        other.close()
    assert result.store.retry_pending()
    result.store.close()


def test_an_older_database_locked_at_start_says_it_is_in_use(db_path: Path, short_waits: None) -> None:
    db_path.parent.mkdir()
    _older(db_path)
    other = _lock(db_path)
    try:
        result = Store.open(db_path)
    finally:
        other.execute("COMMIT")
        other.close()
    assert result.store is None
    notice = " ".join(result.notices)
    assert "another program is using" in notice
    assert "read-only" not in notice and "older format" not in notice
    plain(notice)


_FULL_DISK = """
import json, resource, shutil, sys
from collections import namedtuple
sys.path.insert(0, sys.argv[1])
# a file may not grow at all: every write fails as on a disk with no room left
resource.setrlimit(resource.RLIMIT_FSIZE, (0, resource.RLIM_INFINITY))
if sys.argv[3] == "full":
    Usage = namedtuple("Usage", "total used free")
    shutil.disk_usage = lambda path: Usage(10**9, 10**9, 0)
from app.core.store import Store
result = Store.open(sys.argv[2])
print(json.dumps({"store": result.store is not None, "read_only": result.read_only, "notices": result.notices}))
"""


@pytest.mark.parametrize("free", ["full", "room"])
def test_a_full_disk_at_first_start_is_not_called_an_older_format(tmp_path: Path, free: str) -> None:
    path = tmp_path / "rill.db"
    done = subprocess.run([sys.executable, "-c", _FULL_DISK, str(ROOT), str(path), free],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert not result["store"]
    notice = " ".join(result["notices"])
    assert "older format" not in notice and "read-only" not in notice, notice
    assert str(path) in notice and "not be saved" in notice
    plain(notice)
    if free == "full":
        assert "is full" in notice
    else:  # the disk has room, but writing failed: not called full either
        assert "is full" not in notice and "failed" in notice


def test_a_newer_and_a_read_only_database_keep_their_own_words(db_path: Path) -> None:
    db_path.parent.mkdir()
    real_database(db_path, conversations=1)
    conn = sqlite3.connect(db_path)
    conn.execute("PRAGMA user_version = 99")
    conn.commit()
    conn.close()
    notice = Store.open(db_path).notices[0]
    assert "newer version of Rill" in notice and "read-only" not in notice and "locked" not in notice


# -- opening for reading only ----------------------------------------------------------------


def _state(folder: Path) -> dict[str, tuple[bytes, int]]:
    """Every file of the folder: its bytes and its modification time."""
    return {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(folder.iterdir()) if p.is_file()}


def _check_untouched(path: Path, prepare: object) -> list[str]:
    path.parent.mkdir(exist_ok=True)
    if callable(prepare):
        prepare(path)
    before = _state(path.parent)
    result = Store.open_read_only(path)
    assert result.store is None
    assert _state(path.parent) == before  # nothing moved, created or written
    for notice in result.notices:
        plain(notice)
    return result.notices


@pytest.mark.parametrize(("prepare", "words"), [
    (damage_text, "damaged"),
    (damage_inner_page, "damaged"),
    (lambda p: p.write_bytes(b""), "empty"),
    (_older, "older format"),
])
def test_reading_a_file_that_cannot_be_used_leaves_it_as_it_is(db_path: Path, prepare: object, words: str) -> None:
    notices = _check_untouched(db_path, prepare)
    assert len(notices) == 1 and words in notices[0] and str(db_path) in notices[0]


def test_reading_a_foreign_or_newer_file_leaves_it_as_it_is(db_path: Path) -> None:
    def foreign(path: Path) -> None:
        conn = sqlite3.connect(path)
        conn.execute("CREATE TABLE mine (x)")
        conn.commit()
        conn.close()

    assert "not a Rill conversation database" in _check_untouched(db_path, foreign)[0]
    db_path.unlink()

    def newer(path: Path) -> None:
        real_database(path, conversations=1)
        conn = sqlite3.connect(path)
        conn.execute("PRAGMA user_version = 99")
        conn.commit()
        conn.close()

    assert "newer version of Rill" in _check_untouched(db_path, newer)[0]


def test_reading_no_file_creates_none(tmp_path: Path) -> None:
    folder = tmp_path / "nothing"
    result = Store.open_read_only(folder / "rill.db")
    assert result.store is None and "no conversation database" in result.notices[0]
    assert not folder.exists()


def test_reading_a_good_file_changes_nothing_and_reads_a_crash_left_reply_as_interrupted(db_path: Path) -> None:
    db_path.parent.mkdir()
    s = Store.open(db_path).store
    assert s is not None
    s.create_conversation(ConversationInfo(id="c", title="kept"))
    s.add_message("c", Message("assistant", "half", MessageStatus.STREAMING, id="m"))
    s.close()
    before = _state(db_path.parent)
    assert sorted(before) == ["rill.db"]  # closed cleanly: no -wal
    result = Store.open_read_only(db_path)
    assert result.store is not None and result.read_only and result.notices == []
    try:
        assert [c.title for c in result.store.list_conversations()] == ["kept"]
        got = result.store.get_message("m")
        assert got is not None and got.status == MessageStatus.INTERRUPTED  # no Rill holds the data dir
    finally:
        result.store.close()
    assert _state(db_path.parent) == before


def test_reading_beside_a_running_rill_sees_its_committed_writes(db_path: Path) -> None:
    db_path.parent.mkdir()
    writer = Store.open(db_path).store
    assert writer is not None
    try:
        writer.create_conversation(ConversationInfo(id="c", title="live"))
        assert os.path.exists(f"{db_path}-wal")
        wal_before = Path(f"{db_path}-wal").read_bytes()
        db_before = db_path.read_bytes()
        result = Store.open_read_only(db_path)
        assert result.store is not None
        assert [c.title for c in result.store.list_conversations()] == ["live"]
        result.store.close()
        assert Path(f"{db_path}-wal").read_bytes() == wal_before and db_path.read_bytes() == db_before
    finally:
        writer.close()
