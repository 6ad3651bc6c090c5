"""Closing with unsaved work (app.ui.window.quit_guard): the window says what
is unsaved and offers Retry, Export to a File… or Quit Anyway; whichever is
chosen, no invisible process outlives the window for long. The database is
held by a second connection (``BEGIN EXCLUSIVE``), as another program would."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import app.ui.services.store as service_module
from app.core.backends.scripted import ScriptedBackend
from app.core.conversation.model import MessageStatus
from app.core.store import Store, default_path, exchange
from app.core.store import opening as opening_module
from app.core.store import writes as writes_module
from app.ui.dialogs.unsaved import UnsavedDialog
from app.ui.window.quit_guard import QuitGuard
from tests.ui.window.test_store_faults import _db_message


@pytest.fixture(autouse=True)
def quick_failures(monkeypatch: pytest.MonkeyPatch) -> None:
    """A lock is given up on after 0.3 s (the app: 5 s) so that saves fail quickly."""
    monkeypatch.setattr(writes_module, "BUSY_PATIENCE_S", 0.3)
    monkeypatch.setattr(opening_module, "BUSY_TIMEOUT_MS", 300)
    monkeypatch.setattr(service_module, "RETRY_S", 0.2)


class Locked:
    """A window whose reply streamed while another program held the database."""

    def __init__(self, qtbot: Any, make_window: Any) -> None:
        self.qtbot = qtbot
        self.window = make_window(lambda: ScriptedBackend(rate=2000, n_tokens=300))
        if not self.window.store.available:
            with qtbot.waitSignal(self.window.store.opened, timeout=10000):
                pass
        self.path = default_path()
        self.locker: sqlite3.Connection | None = sqlite3.connect(self.path, isolation_level=None)
        self.locker.execute("BEGIN EXCLUSIVE")
        with qtbot.waitSignal(self.window.chat.reply_settled, timeout=30000) as settled:
            self.window.enter_prompt("tell me everything")
        qtbot.waitUntil(lambda: self.window.store.saving_failing, timeout=10000)
        self.message_id = settled.args[0].message_id
        reply = self.window.chat.conversation.get(self.message_id)
        assert reply is not None and reply.status == MessageStatus.COMPLETE
        self.content = reply.content
        self.guard: QuitGuard = self.window.library_wiring.quit_guard

    def release(self) -> None:
        if self.locker is not None:
            self.locker.execute("COMMIT")
            self.locker.close()
            self.locker = None

    def close_and_get_asked(self) -> UnsavedDialog:
        with self.qtbot.waitSignal(self.guard.asked, timeout=10000) as asked:
            self.window.close()
        dialog = asked.args[0]
        assert isinstance(dialog, UnsavedDialog) and dialog.isVisible()
        assert self.window.isVisible() and not self.window.services.shutting_down  # not hidden, not lingering
        return dialog

    def quit_with(self, button: Any) -> float:
        """Click ``button``; the seconds until every thread has ended."""
        start = time.monotonic()
        with self.qtbot.waitSignal(self.window.services.shutdown_finished, timeout=5000):
            button.click()
        return time.monotonic() - start


@pytest.fixture
def locked(qtbot: Any, make_window: Any) -> Iterator[Locked]:
    scenario = Locked(qtbot, make_window)
    try:
        yield scenario
    finally:
        scenario.release()


def test_closing_says_what_is_unsaved_and_quit_anyway_ends_at_once(locked: Locked) -> None:
    dialog = locked.close_and_get_asked()
    text = dialog.message.text()
    title = locked.window.chat.conversation.title or "New chat"
    assert title in text and "another program is using" in text
    assert [b.text() for b in (dialog.retry_button, dialog.export_button, dialog.quit_button)] == [
        "&Retry", "&Export to a File…", "&Quit Anyway"]
    # the database is still locked: the final flush is bounded (it was 5 s per queued save)
    elapsed = locked.quit_with(dialog.quit_button)
    print(f"quit anyway -> every thread ended in {elapsed:.2f} s")  # noqa: T201 - the measurement, with -s
    assert not locked.window.isVisible()


def test_export_writes_the_unsaved_conversations_to_an_importable_file(locked: Locked, tmp_path: Path) -> None:
    target = tmp_path / "unsaved.json"
    locked.guard.ask_path = lambda parent, name: target
    dialog = locked.close_and_get_asked()
    with locked.qtbot.waitSignal(locked.guard.exported, timeout=10000) as exported:
        locked.quit_with(dialog.export_button)
    assert exported.args[0] == str(target)
    (conv,) = exchange.parse_export(target.read_text(encoding="utf-8"))
    reply = next(m for m in conv.messages if m.id == locked.message_id)
    assert reply.content == locked.content and reply.status == MessageStatus.COMPLETE
    assert [p.name for p in tmp_path.iterdir()] == ["unsaved.json"]  # no temporary file left
    locked.release()
    with Store.in_memory() as other:
        assert exchange.import_json(other, target.read_text(encoding="utf-8")).messages == len(conv.messages)


def test_retry_after_the_lock_is_gone_saves_everything_then_closes(locked: Locked) -> None:
    dialog = locked.close_and_get_asked()
    locked.release()
    locked.quit_with(dialog.retry_button)
    assert _db_message(locked.path, locked.message_id) == (locked.content, "complete")


def test_cancel_keeps_rill_open_and_saving(locked: Locked) -> None:
    dialog = locked.close_and_get_asked()
    dialog.reject()  # Esc
    assert locked.window.isVisible() and not locked.window.services.shutting_down
    with locked.qtbot.waitSignal(locked.window.store.saving_recovered, timeout=10000):
        locked.release()
    assert _db_message(locked.path, locked.message_id) == (locked.content, "complete")
    with locked.qtbot.assertNotEmitted(locked.guard.asked), \
            locked.qtbot.waitSignal(locked.window.services.shutdown_finished, timeout=5000):
        locked.window.close()


def test_closing_with_everything_saved_asks_nothing(qtbot: Any, make_window: Any) -> None:
    window = make_window(lambda: ScriptedBackend(rate=5000, n_tokens=20))
    with qtbot.waitSignal(window.chat.reply_settled, timeout=20000) as settled:
        window.enter_prompt("hi")
    guard = window.library_wiring.quit_guard
    with qtbot.assertNotEmitted(guard.asked), qtbot.waitSignal(window.services.shutdown_finished, timeout=5000):
        window.close()
    stored = _db_message(default_path(), settled.args[0].message_id)
    assert stored is not None and stored[1] == "complete"


def test_without_a_history_closing_offers_the_export_too(qtbot: Any, make_window: Any) -> None:
    path = default_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(path) as conn:  # a newer Rill's file: left untouched, nothing can be saved
        conn.execute("PRAGMA user_version = 99")
    conn.close()
    window = make_window(lambda: ScriptedBackend(rate=5000, n_tokens=20))
    with qtbot.waitSignal(window.chat.reply_settled, timeout=20000):
        window.enter_prompt("hi")
    guard = window.library_wiring.quit_guard
    with qtbot.waitSignal(guard.asked, timeout=10000) as asked:
        window.close()
    dialog = asked.args[0]
    assert (window.chat.conversation.title or "New chat") in dialog.message.text()
    with qtbot.waitSignal(window.services.shutdown_finished, timeout=5000):
        dialog.quit_button.click()
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 99
    conn.close()
