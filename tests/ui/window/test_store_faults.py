"""The history under faults, through the real window: another program holds
the database (``BEGIN EXCLUSIVE`` on a second connection) or the disk is full
(``PRAGMA max_page_count`` on the store's own connection: SQLite reports
"database or disk is full" for real) while a reply streams.

Nothing that was shown is lost, and every notice is true. ``RILL_FAULT_RUNS=50``
runs each scenario 50 times (default 2)."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Any

import pytest

import app.ui.services.library as library_module
import app.ui.services.store as service_module
from app.core.backends.scripted import ScriptedBackend
from app.core.conversation.model import MessageStatus
from app.core.store import default_path
from app.core.store import opening as opening_module
from app.core.store import writes as writes_module

RUNS = max(1, int(os.environ.get("RILL_FAULT_RUNS", "2")))


@pytest.fixture
def quick_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    """Retry every 0.2 s, give up on a lock after 1 s and save a streaming
    reply every 0.1 s (the app: 10 s, 5 s and 1 s): while the lock is held,
    saves queue up behind the one waiting for it."""
    monkeypatch.setattr(service_module, "RETRY_S", 0.2)
    monkeypatch.setattr(library_module, "SAVE_INTERVAL_S", 0.1)
    monkeypatch.setattr(writes_module, "BUSY_PATIENCE_S", 1.0, raising=False)
    monkeypatch.setattr(opening_module, "BUSY_TIMEOUT_MS", 1000)


def _open(qtbot: Any, make_window: Any, tokens: int) -> Any:
    window = make_window(lambda: ScriptedBackend(rate=200, n_tokens=tokens))
    if not window.store.available:
        with qtbot.waitSignal(window.store.opened, timeout=10000):
            pass
    assert window.store.available
    return window


def _db_message(path: Path, message_id: str) -> tuple[str, str] | None:
    """The stored row, read on its own connection (what the next start sees)."""
    conn = sqlite3.connect(f"{path.absolute().as_uri()}?mode=ro", uri=True)
    try:
        row = conn.execute("SELECT content, status FROM messages WHERE id = ?", (message_id,)).fetchone()
    finally:
        conn.close()
    return None if row is None else (row[0], row[1])


class _Notices:
    """Every saving notice, and what the database held when "saved again" was said."""

    def __init__(self, window: Any, path: Path) -> None:
        self.failed: list[str] = []
        self.recovered: list[tuple[str, str] | None] = []
        self.message_id = ""
        window.store.saving_failed.connect(self.failed.append)
        window.store.saving_recovered.connect(
            lambda: self.recovered.append(_db_message(path, self.message_id) if self.message_id else None)
        )


@pytest.mark.parametrize("run", range(RUNS))
def test_a_database_locked_during_a_reply_ends_with_the_whole_reply(
    qtbot: Any, make_window: Any, quick_retries: None, run: int
) -> None:
    window = _open(qtbot, make_window, tokens=700)
    path = default_path()
    notices = _Notices(window, path)
    locker = sqlite3.connect(path, isolation_level=None)
    try:
        locker.execute("BEGIN EXCLUSIVE")
        with qtbot.waitSignal(window.chat.reply_started, timeout=5000):
            window.enter_prompt(f"run {run}")
        with qtbot.waitSignal(window.chat.reply_settled, timeout=30000) as settled:
            pass
        assert notices.failed, "the saves failed while the database was locked"
    finally:
        locker.execute("COMMIT")
        locker.close()
    message_id = settled.args[0].message_id
    notices.message_id = message_id
    shown = window.chat.conversation.get(message_id)
    assert shown is not None and shown.status == MessageStatus.COMPLETE and len(shown.content) > 1000
    qtbot.waitUntil(lambda: bool(notices.recovered), timeout=20000)
    # "Saved again: everything is in the history now" was true when it was said
    assert notices.recovered == [(shown.content, "complete")]
    assert _db_message(path, message_id) == (shown.content, "complete")


@pytest.mark.parametrize("run", range(RUNS))
def test_a_full_disk_during_a_reply_ends_with_the_whole_reply(
    qtbot: Any, make_window: Any, quick_retries: None, run: int
) -> None:
    window = _open(qtbot, make_window, tokens=600)
    path = default_path()
    notices = _Notices(window, path)
    limits: list[object] = []

    def fill(store: Any) -> int:  # on the store thread: the file may not grow by a single page
        pages = int(store.conn.execute("PRAGMA page_count").fetchone()[0])
        return int(store.conn.execute(f"PRAGMA max_page_count = {pages}").fetchone()[0])

    window.store.read(fill, limits.append)
    qtbot.waitUntil(lambda: bool(limits), timeout=5000)
    with qtbot.waitSignal(window.chat.reply_started, timeout=5000):
        window.enter_prompt(f"run {run}")
    with qtbot.waitSignal(window.chat.reply_settled, timeout=30000) as settled:
        pass
    assert notices.failed and all("full" in reason for reason in notices.failed)
    message_id = settled.args[0].message_id
    notices.message_id = message_id
    shown = window.chat.conversation.get(message_id)
    assert shown is not None and shown.status == MessageStatus.COMPLETE
    freed: list[object] = []
    window.store.read(lambda store: store.conn.execute("PRAGMA max_page_count = 1073741823").fetchone(), freed.append)
    qtbot.waitUntil(lambda: bool(notices.recovered), timeout=20000)
    assert notices.recovered == [(shown.content, "complete")]
    assert _db_message(path, message_id) == (shown.content, "complete")
