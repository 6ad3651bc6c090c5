"""StoreService: jobs run on the store thread in order, results come back on the
GUI thread; one retry queue, the store's (``Store.retry_pending``)."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import app.ui.services.store as service_module
from app.core.conversation.model import Conversation, Message, MessageStatus
from app.core.store import Store
from app.ui.services.library import ConversationLibrary
from app.ui.services.store import StoreService


class _Disk:
    """Makes every message write fail like a full disk while ``full``."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.full = False
        for name in ("_do_save_message", "_do_add_message"):
            real = getattr(Store, name)

            def failing(store: Store, payload: object, real: object = real) -> object:
                if self.full:
                    raise sqlite3.OperationalError("database or disk is full")
                return real(store, payload)  # the method taken above

            monkeypatch.setattr(Store, name, failing)


@pytest.fixture
def service(qtbot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[StoreService]:
    monkeypatch.setattr(service_module, "RETRY_S", 0.05)
    svc = StoreService(tmp_path / "rill.db")
    with qtbot.waitSignal(svc.opened, timeout=10000):
        pass
    yield svc
    assert svc.shutdown()


def _stored(path: Path, message_id: str) -> tuple[str, str] | None:
    with Store.open(path, recover=False).store as store:  # the test made it
        msg = store.get_message(message_id)
        return None if msg is None else (msg.content, msg.status.value)


def test_a_refused_write_is_retried_by_the_store_newest_snapshot_only(
    qtbot, service: StoreService, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    disk = _Disk(monkeypatch)
    library = ConversationLibrary(service)
    conv = Conversation()
    prompt = conv.add_user("hello")
    with qtbot.waitSignal(service.saving_failed, timeout=5000) as failed:
        disk.full = True
        library.message_added(conv, prompt)
    assert "full" in failed.args[0]
    reply = conv.start_reply()
    library.message_added(conv, reply)
    for text in ("one", " two", " three"):
        reply.append(text)
        library.message_changed(conv, reply, force=True)
    reply.status = MessageStatus.COMPLETE
    library.message_changed(conv, reply, force=True)
    pending: list[int] = []
    service.read(lambda store: store.pending_count, pending.append)
    qtbot.waitUntil(lambda: bool(pending), timeout=5000)
    # the prompt and its leaf update, the reply (its four saves merged into it) and its leaf update
    assert pending == [4]
    with qtbot.waitSignal(service.saving_recovered, timeout=5000):
        disk.full = False
    done: list[object] = []
    service.read(lambda store: store.pending_count, done.append)
    qtbot.waitUntil(lambda: bool(done), timeout=5000)
    assert done == [0]
    assert _stored(tmp_path / "rill.db", reply.id) == ("one two three", "complete")
    assert _stored(tmp_path / "rill.db", prompt.id) == ("hello", "complete")


def test_writes_after_recovery_say_nothing_more(qtbot, service: StoreService) -> None:
    msg = Message("user", "x")
    with qtbot.assertNotEmitted(service.saving_failed, wait=100):
        service.save_message("c", msg)  # not stored: an UPDATE of nothing, no failure
        written: list[object] = []
        service.read(lambda store: store.get_message(msg.id), written.append)
        qtbot.waitUntil(lambda: bool(written), timeout=5000)
    assert written == [None]


def test_jobs_run_in_order_on_the_store_thread(qtbot: Any, tmp_path: Any) -> None:
    service = StoreService(tmp_path / "h.db")
    try:
        with qtbot.waitSignal(service.opened, timeout=10000) as opened:
            pass
        assert opened.args[0] is True and service.available
        order: list[str] = []
        on: list[threading.Thread] = []

        def write(store: Any) -> None:
            on.append(threading.current_thread())
            order.append("write")

        def read(store: Any) -> int:
            order.append("read")
            return 42

        got: list[int] = []
        service.write(write)
        service.read(read, got.append)
        qtbot.waitUntil(lambda: got == [42], timeout=5000)
        assert order == ["write", "read"]
        assert on and on[0] is not threading.main_thread()
    finally:
        assert service.shutdown()
    assert service.is_finished()


def test_a_disabled_store_answers_none_and_drops_writes(qtbot: Any) -> None:
    service = StoreService(enabled=False)
    try:
        got: list[object] = []
        service.write(lambda store: 1 / 0)  # dropped: never run
        service.read(lambda store: 1, got.append)
        qtbot.waitUntil(lambda: got == [None], timeout=5000)
    finally:
        assert service.shutdown()


def test_jobs_after_request_stop_are_ignored(qtbot: Any, tmp_path: Any) -> None:
    service = StoreService(tmp_path / "h.db")
    service.request_stop()
    got: list[object] = []
    service.read(lambda store: 1, got.append)
    assert service.shutdown()
    assert got == []


def test_a_lone_surrogate_from_a_server_is_saved_not_a_python_error(
    qtbot, service: StoreService, tmp_path: Path
) -> None:
    library = ConversationLibrary(service)
    conv = Conversation()
    library.message_added(conv, conv.add_user("hi"))
    reply = conv.start_reply()
    library.message_added(conv, reply)
    reply.append("a\ud800b")  # valid JSON from a server: "a\\ud800b"
    reply.status = MessageStatus.COMPLETE
    with qtbot.assertNotEmitted(service.saving_failed, wait=100), qtbot.assertNotEmitted(service.write_refused):
        library.message_changed(conv, reply, force=True)
        done: list[object] = []
        service.read(lambda store: store.pending_count, done.append)
        qtbot.waitUntil(lambda: bool(done), timeout=5000)
    assert done == [0]
    assert _stored(tmp_path / "rill.db", reply.id) == ("a\ufffdb", "complete")


def test_a_failing_job_is_said_in_plain_words(qtbot, service: StoreService) -> None:
    def broken(store: Store) -> None:
        raise TypeError("unsupported type")

    with qtbot.waitSignal(service.write_refused, timeout=5000) as refused, \
            qtbot.assertNotEmitted(service.saving_recovered, wait=300):
        service.write(broken)
    assert "TypeError" not in refused.args[0] and "unsupported" not in refused.args[0]
    assert not service.saving_failing


def test_unsaved_conversations_are_known_on_the_gui_thread(
    qtbot, service: StoreService, monkeypatch: pytest.MonkeyPatch
) -> None:
    disk = _Disk(monkeypatch)
    library = ConversationLibrary(service)
    conv = Conversation()
    with qtbot.waitSignal(service.unsaved_changed, timeout=5000) as changed:
        disk.full = True
        library.message_added(conv, conv.add_user("hello"))
    assert changed.args[0] == [conv.id] == service.unsaved_conversations
    with qtbot.waitSignal(service.saving_recovered, timeout=5000):
        disk.full = False
    assert service.unsaved_conversations == [] and not service.saving_failing
