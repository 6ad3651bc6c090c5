"""Conversations that last: the window with the real SQLite store (in the
test's own XDG data dir), the sidebar, switching while a reply streams,
and a kill -9 in the middle of a reply."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from PyQt6.QtCore import Qt

from app.core.conversation import MessageStatus
from app.core.scripted import ScriptedBackend


def scripted(**kwargs):  # type: ignore[no-untyped-def]
    return lambda: ScriptedBackend(**kwargs)


def send_with_enter(qtbot, window, text: str) -> None:  # type: ignore[no-untyped-def]
    window.prompt.setPlainText(text)
    qtbot.keyClick(window.prompt, Qt.Key.Key_Return)


def wait_store_open(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    if not window.store.available:
        with qtbot.waitSignal(window.store.opened, timeout=10000):
            pass


def close_and_wait(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    with qtbot.waitSignal(window.chat.shutdown_finished, timeout=10000):
        window.close()


def test_a_conversation_survives_closing_and_opens_again_at_start(qtbot, make_window) -> None:  # type: ignore[no-untyped-def]
    window = make_window(scripted(rate=3000, n_tokens=60))
    wait_store_open(qtbot, window)
    with qtbot.waitSignal(window.chat.reply_settled, timeout=20000) as blocker:
        send_with_enter(qtbot, window, "Remember me 你好")
    reply_id = blocker.args[0].message_id
    text = window.chat.conversation.get(reply_id).content
    conv_id = window.chat.conversation.id
    close_and_wait(qtbot, window)

    again = make_window(scripted(rate=3000, n_tokens=60))
    qtbot.waitUntil(lambda: again.chat.conversation.id == conv_id, timeout=10000)
    conv = again.chat.conversation
    assert [m.content for m in conv.messages] == ["Remember me 你好", text]
    assert conv.messages[1].status == MessageStatus.COMPLETE
    assert conv.title == "Remember me 你好"
    assert [r.id for r in again.sidebar.model.rows()] == [conv_id]
    qtbot.waitUntil(lambda: reply_id in again.view.message_ids(), timeout=10000)


def test_switching_away_while_a_reply_streams_and_coming_back_shows_it_live(qtbot, make_window) -> None:  # type: ignore[no-untyped-def]
    window = make_window(scripted(rate=300, n_tokens=100000))
    wait_store_open(qtbot, window)
    chat = window.chat
    with qtbot.waitSignal(chat.reply_started, timeout=5000):
        send_with_enter(qtbot, window, "first conversation")
    first = chat.conversation
    reply = chat.current_reply
    qtbot.waitUntil(lambda: len(reply.message) > 50, timeout=10000)
    window.new_chat_action.trigger()
    assert chat.conversation is not first and window.view.message_ids() == []
    # The reply goes on in its own conversation, and cannot be joined by a
    # second local generation: Send says so by being unavailable.
    grown = len(reply.message)
    qtbot.waitUntil(lambda: len(reply.message) > grown + 100, timeout=10000)
    assert not window.send_button.isEnabled()
    # Back to the first conversation: the reply shows live and keeps growing.
    qtbot.waitUntil(lambda: window.sidebar.model.row_of(first.id) >= 0, timeout=10000)
    window.sidebar.conversation_activated.emit(first.id)
    assert chat.conversation is first
    assert reply.message.id in window.view.message_ids()
    shown = len(window.view.message_text(reply.message.id))
    qtbot.waitUntil(lambda: len(window.view.message_text(reply.message.id)) > shown + 50, timeout=10000)
    with qtbot.waitSignal(chat.reply_settled, timeout=10000):
        chat.stop()


def test_delete_a_conversation_and_undo(qtbot, make_window) -> None:  # type: ignore[no-untyped-def]
    window = make_window(scripted(rate=3000, n_tokens=20))
    wait_store_open(qtbot, window)
    with qtbot.waitSignal(window.chat.reply_settled, timeout=20000):
        send_with_enter(qtbot, window, "keep or drop")
    conv_id = window.chat.conversation.id
    qtbot.waitUntil(lambda: window.sidebar.model.row_of(conv_id) >= 0, timeout=5000)
    window.sidebar.select(conv_id)
    window.sidebar.list.setFocus()
    qtbot.keyClick(window.sidebar.list, Qt.Key.Key_Delete)
    assert window.sidebar.model.row_of(conv_id) < 0
    assert window.undo_button.isVisible()
    window.undo_button.click()
    assert window.sidebar.model.row_of(conv_id) >= 0
    qtbot.waitUntil(lambda: window.chat.conversation.id == conv_id, timeout=5000)
    # Delete for good: after the undo time (forced here), it is gone from the store.
    window.sidebar.select(conv_id)
    window.sidebar.list.setFocus()
    qtbot.keyClick(window.sidebar.list, Qt.Key.Key_Delete)
    assert window.sidebar.model.row_of(conv_id) < 0
    window._commit_pending_delete()
    done: list[object] = []
    window.store.read(lambda store: store.get_conversation(conv_id), done.append)
    qtbot.waitUntil(lambda: bool(done), timeout=5000)
    assert done == [None]


def test_rename_with_f2(qtbot, make_window) -> None:  # type: ignore[no-untyped-def]
    window = make_window(scripted(rate=3000, n_tokens=20))
    wait_store_open(qtbot, window)
    with qtbot.waitSignal(window.chat.reply_settled, timeout=20000):
        send_with_enter(qtbot, window, "old title")
    conv_id = window.chat.conversation.id
    qtbot.waitUntil(lambda: window.sidebar.model.row_of(conv_id) >= 0, timeout=5000)
    index = window.sidebar.model.index(window.sidebar.model.row_of(conv_id))
    assert window.sidebar.model.setData(index, "  A better   title ")
    assert window.chat.conversation.title == "A better title"
    done: list[object] = []
    window.store.read(lambda store: store.get_conversation(conv_id).title, done.append)
    qtbot.waitUntil(lambda: bool(done), timeout=5000)
    assert done == ["A better title"]


_KILL_SCRIPT = r"""
import json, sys, time
from PyQt6.QtCore import QTimer
from app.application import create_window, make_application
from app.core.factory import scripted_factory
app = make_application()
w = create_window(*scripted_factory(rate=200, n_tokens=1000000))
def ready(info):
    w.enter_prompt("stream until killed")
def tick():
    r = w.chat.current_reply
    print(json.dumps({"t": time.time(), "chars": len(r.message) if r else 0, "id": r.message.id if r else ""}),
          flush=True)
w.chat.model_ready.connect(ready)
t = QTimer(); t.timeout.connect(tick); t.start(100)
w.show()
app.exec()
"""


@pytest.mark.parametrize("attempt", range(3))
def test_kill_9_during_a_reply_loses_at_most_a_second(tmp_path: Path, attempt: int) -> None:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", XDG_DATA_HOME=str(tmp_path / "data"),
               XDG_CONFIG_HOME=str(tmp_path / "config"))
    proc = subprocess.Popen([sys.executable, "-c", _KILL_SCRIPT], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=env, text=True)
    assert proc.stdout is not None
    progress: list[dict] = []
    deadline = time.monotonic() + 60
    kill_after = 1.5 + attempt * 0.7
    started = None
    os.set_blocking(proc.stdout.fileno(), True)
    while time.monotonic() < deadline:
        ready, _, _ = select.select([proc.stdout], [], [], 1.0)
        if not ready:
            continue  # the child prints every 100 ms: keep checking the deadline
        line = proc.stdout.readline()
        if not line:
            break
        item = json.loads(line)
        if item["chars"] > 0:
            started = started or item["t"]
            progress.append(item)
            if item["t"] - started >= kill_after:
                break
    proc.send_signal(signal.SIGKILL)
    proc.wait(10)
    assert progress, proc.stderr.read() if proc.stderr else ""
    shown_at_kill = progress[-1]["chars"]
    message_id = progress[-1]["id"]

    from app.core.store import Store

    result = Store.open(tmp_path / "data" / "rill" / "rill.db")
    store = result.store
    assert store is not None
    try:
        assert store.integrity_ok()
        store.recover_interrupted()
        convs = store.list_conversations(0, 10)
        assert len(convs) == 1
        messages = {m.id: m for m in store.load_messages(convs[0].id)}
        reply = messages[message_id]
        assert reply.status == MessageStatus.INTERRUPTED
        # At most about one second of text is lost (200 tok/s, a token is 1-10 chars).
        one_second_before = max(
            (p["chars"] for p in progress if p["t"] <= progress[-1]["t"] - 1.2), default=0
        )
        assert len(reply.content) >= one_second_before
        assert len(reply.content) <= shown_at_kill + 4000
    finally:
        store.close()
