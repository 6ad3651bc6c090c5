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

from app.core.backends.scripted import ScriptedBackend
from app.core.conversation.model import MessageStatus


def scripted(**kwargs):
    return lambda: ScriptedBackend(**kwargs)


def send_with_enter(qtbot, window, text: str) -> None:
    window.prompt.setPlainText(text)
    qtbot.keyClick(window.prompt, Qt.Key.Key_Return)


def wait_store_open(qtbot, window) -> None:
    if not window.store.available:
        with qtbot.waitSignal(window.store.opened, timeout=10000):
            pass


def close_and_wait(qtbot, window) -> None:
    with qtbot.waitSignal(window.services.shutdown_finished, timeout=10000):
        window.close()


def test_a_conversation_survives_closing_and_opens_again_at_start(qtbot, make_window) -> None:
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


def test_switching_away_while_a_reply_streams_and_coming_back_shows_it_live(qtbot, make_window) -> None:
    window = make_window(scripted(rate=300, n_tokens=100000))
    wait_store_open(qtbot, window)
    chat = window.chat
    with qtbot.waitSignal(chat.reply_started, timeout=5000):
        send_with_enter(qtbot, window, "first conversation")
    first = chat.conversation
    reply = chat.current_reply
    qtbot.waitUntil(lambda: len(reply.message) > 50, timeout=10000)
    window.menus.new_chat_action.trigger()
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
    shown = len(window.view.probe.message_text(reply.message.id))
    qtbot.waitUntil(lambda: len(window.view.probe.message_text(reply.message.id)) > shown + 50, timeout=10000)
    with qtbot.waitSignal(chat.reply_settled, timeout=10000):
        chat.stop()


def test_a_search_result_in_a_just_deleted_conversation_brings_it_back(qtbot, make_window) -> None:
    window = make_window(scripted(rate=3000, n_tokens=20))
    wait_store_open(qtbot, window)
    with qtbot.waitSignal(window.chat.reply_settled, timeout=20000):
        send_with_enter(qtbot, window, "find me later")
    conv_id = window.chat.conversation.id
    prompt_id = window.chat.conversation.messages[0].id
    qtbot.waitUntil(lambda: window.sidebar.model.row_of(conv_id) >= 0, timeout=5000)
    window.sidebar.select(conv_id)
    window.sidebar.list.setFocus()
    qtbot.keyClick(window.sidebar.list, Qt.Key.Key_Delete)
    assert window.sidebar.model.row_of(conv_id) < 0 and window.undo_button.isVisible()
    window.search_dialog.result_activated.emit(conv_id, prompt_id, "find")
    # The deletion is undone, not committed later behind the user's back.
    assert window.sidebar.model.row_of(conv_id) >= 0
    assert not window.undo_button.isVisible()
    qtbot.waitUntil(lambda: window.chat.conversation.id == conv_id, timeout=5000)


def test_delete_a_conversation_and_undo(qtbot, make_window) -> None:
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
    window.undo_bar.commit()
    done: list[object] = []
    window.store.read(lambda store: store.get_conversation(conv_id), done.append)
    qtbot.waitUntil(lambda: bool(done), timeout=5000)
    assert done == [None]


def test_rename_with_f2(qtbot, make_window) -> None:
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
        # At most about one second of text is lost: a save happens at the
        # first tick a second after the last one (plus scheduling slack on a
        # loaded machine: the exact bound is measured by benchmarks.store_crash).
        one_second_before = max(
            (p["chars"] for p in progress if p["t"] <= progress[-1]["t"] - 1.5), default=0
        )
        assert len(reply.content) >= one_second_before
        assert len(reply.content) <= shown_at_kill + 4000
    finally:
        store.close()


# -- message actions that need the store (issue #8 item 5) ------------------------


def finished_reply(qtbot, window, text: str):
    with qtbot.waitSignal(window.chat.reply_settled, timeout=20000) as blocker:
        send_with_enter(qtbot, window, text)
    return window.chat.conversation.get(blocker.args[0].message_id)


def click_action(qtbot, window, message_id: str, action: str) -> None:
    view = window.view
    view.scroll_to_message(message_id)
    qtbot.waitUntil(lambda: view.probe.footer_action_point(message_id, action) is not None, timeout=5000)
    point = view.probe.footer_action_point(message_id, action)
    if point.y() > view.viewport().height() - 5 or point.y() < 0:
        sb = view.verticalScrollBar()
        sb.setValue(sb.value() + int(point.y()) - view.viewport().height() // 2)
        point = view.probe.footer_action_point(message_id, action)
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=point.toPoint())


def test_regenerate_keeps_both_replies_and_the_switcher_moves_between_them(qtbot, make_window) -> None:
    window = make_window(scripted(rate=3000, n_tokens=30))
    wait_store_open(qtbot, window)
    first = finished_reply(qtbot, window, "tell me")
    chat = window.chat
    with qtbot.waitSignal(chat.reply_settled, timeout=20000) as blocker:
        qtbot.keyClick(window.prompt, Qt.Key.Key_R, Qt.KeyboardModifier.ControlModifier)
    second = chat.conversation.get(blocker.args[0].message_id)
    assert second.parent_id == first.parent_id and second.id != first.id
    assert [m.id for m in chat.conversation.messages] == [first.parent_id, second.id]
    assert "2/2" in window.view.probe.footer_texts(second.id)
    # ‹ goes back to the first version.
    click_action(qtbot, window, second.id, "previous")
    assert [m.id for m in chat.conversation.messages] == [first.parent_id, first.id]
    assert first.id in window.view.message_ids() and second.id not in window.view.message_ids()
    # Both are in the store, and the path the user is on is remembered.
    done: list[object] = []
    window.store.read(lambda s: ({m.id for m in s.load_messages(chat.conversation.id)},
                                 s.get_conversation(chat.conversation.id).current_leaf), done.append)
    qtbot.waitUntil(lambda: bool(done), timeout=5000)
    ids, leaf = done[0]
    assert {first.id, second.id} <= ids and leaf == first.id


def test_edit_and_resend_makes_a_new_branch_and_keeps_the_old_one(qtbot, make_window) -> None:
    window = make_window(scripted(rate=3000, n_tokens=30))
    wait_store_open(qtbot, window)
    reply = finished_reply(qtbot, window, "original question")
    chat = window.chat
    question_id = reply.parent_id
    click_action(qtbot, window, question_id, "edit")
    assert window.prompt.toPlainText() == "original question"
    with qtbot.waitSignal(chat.reply_settled, timeout=20000):
        window.prompt.setPlainText("edited question")
        qtbot.keyClick(window.prompt, Qt.Key.Key_Return)
    path = chat.conversation.messages
    assert path[0].content == "edited question" and path[0].id != question_id
    assert [m.content for m in chat.conversation.siblings(path[0].id)] == ["original question", "edited question"]
    assert chat.conversation.get(reply.id) is reply, "the old branch is kept"


def test_continue_a_stopped_reply_in_the_same_message(qtbot, make_window) -> None:
    window = make_window(scripted(rate=300, n_tokens=100000))
    wait_store_open(qtbot, window)
    chat = window.chat
    with qtbot.waitSignal(chat.reply_started, timeout=5000):
        send_with_enter(qtbot, window, "long")
    reply = chat.current_reply
    qtbot.waitUntil(lambda: len(reply.message) > 40, timeout=10000)
    with qtbot.waitSignal(chat.reply_settled, timeout=10000):
        chat.stop()
    msg = reply.message
    before = msg.content
    assert msg.status == MessageStatus.STOPPED
    with qtbot.waitSignal(chat.reply_started, timeout=5000):
        click_action(qtbot, window, msg.id, "continue")
    qtbot.waitUntil(lambda: len(msg.content) > len(before) + 40, timeout=10000)
    assert msg.content.startswith(before), "the continuation goes on in the same message"
    assert chat.conversation.messages[-1] is msg
    with qtbot.waitSignal(chat.reply_settled, timeout=10000):
        chat.stop()


def test_delete_a_message_and_undo(qtbot, make_window) -> None:
    window = make_window(scripted(rate=3000, n_tokens=20))
    wait_store_open(qtbot, window)
    reply = finished_reply(qtbot, window, "delete my answer")
    chat = window.chat
    click_action(qtbot, window, reply.id, "delete")
    assert reply.id not in window.view.message_ids() and chat.conversation.get(reply.id) is None
    assert window.undo_button.isVisible()
    window.undo_button.click()
    assert reply.id in window.view.message_ids() and chat.conversation.get(reply.id) is reply
    done: list[object] = []
    window.store.read(lambda s: s.get_message(reply.id) is not None, done.append)
    qtbot.waitUntil(lambda: bool(done), timeout=5000)
    assert done == [True]


def test_only_one_local_generation_at_a_time_is_said_clearly(qtbot, make_window) -> None:
    window = make_window(scripted(rate=300, n_tokens=100000))
    wait_store_open(qtbot, window)
    chat = window.chat
    with qtbot.waitSignal(chat.reply_started, timeout=5000):
        send_with_enter(qtbot, window, "busy")
    window.menus.new_chat_action.trigger()
    assert chat.regenerate() is False
    window.prompt.setPlainText("second")
    qtbot.keyClick(window.prompt, Qt.Key.Key_Return)
    assert chat.conversation.messages == [], "nothing was sent behind the user's back"
    assert not window.send_button.isEnabled()
    chat.stop()


def test_export_html_and_pdf_from_the_window(qtbot, make_window, tmp_path: Path) -> None:
    from app.ui.dialogs import exchange as exchange_actions
    from app.ui.dialogs.export_process import ExportProcess

    window = make_window(scripted(rate=3000, n_tokens=20))
    wait_store_open(qtbot, window)
    finished_reply(qtbot, window, "export me $x^2$ 界面")
    conv_id = window.chat.conversation.id
    messages: list[str] = []
    page, pdf = tmp_path / "one.html", tmp_path / "one.pdf"
    exchange_actions.export_to(window.store, page, [conv_id], messages.append)
    qtbot.waitUntil(lambda: len(messages) == 1, timeout=10000)
    assert messages[0].startswith("Exported 1 conversation"), messages
    html = page.read_text(encoding="utf-8")
    assert "export me $x^2$ 界面" in html and "<script" not in html  # a prompt is shown as typed
    process = ExportProcess(window)
    percents: list[int] = []
    process.progressed.connect(percents.append)
    with qtbot.waitSignal(process.finished, timeout=60000) as blocker:
        exchange_actions.export_to(window.store, pdf, [conv_id], messages.append, process)
        qtbot.waitUntil(lambda: process.running, timeout=10000)
        assert not process.start(Path("x.db"), pdf, None)  # one at a time
    assert blocker.args == [f"Exported to {pdf}"]
    assert pdf.read_bytes().startswith(b"%PDF")
    assert messages[-1] == f"Exported to {pdf}"
    assert percents and percents[-1] == 100 and percents == sorted(percents)
    # With the process, a web page is made there too (typesetting never loads the window's process).
    other = tmp_path / "two.html"
    with qtbot.waitSignal(process.finished, timeout=60000) as blocker:
        exchange_actions.export_to(window.store, other, [conv_id], messages.append, process)
    assert blocker.args == [f"Exported to {other}"]
    assert "export me $x^2$ 界面" in other.read_text(encoding="utf-8")


def test_print_from_the_file_menu(qtbot, make_window, tmp_path: Path) -> None:
    """File › Print… (Ctrl+P) asks in Qt's print dialog; "Print to File" writes
    the PDF export there; a printer that is not there is said plainly."""
    from PyQt6.QtPrintSupport import QPrintDialog, QPrinter
    from PyQt6.QtWidgets import QApplication, QLineEdit

    from app.ui.dialogs import exchange as exchange_actions
    from app.ui.dialogs.export_process import ExportProcess

    window = make_window(scripted(rate=3000, n_tokens=20))
    wait_store_open(qtbot, window)
    finished_reply(qtbot, window, "print me $x^2$")
    assert window.menus.print_action.shortcut().toString() == "Ctrl+P"
    assert window.menus.print_action in window.menus.file_menu.actions()
    window.menus.print_action.trigger()
    qtbot.waitUntil(lambda: isinstance(QApplication.activeModalWidget(), QPrintDialog), timeout=10000)
    dialog = QApplication.activeModalWidget()
    assert isinstance(dialog, QPrintDialog)
    target = tmp_path / "printed.pdf"
    # No printer here: the dialog offers Print to File (PDF); its file name is typed.
    name = dialog.findChild(QLineEdit, "filename")
    assert name is not None and name.isEnabled()
    name.setText(str(target))
    shown: list[str] = []
    window.statusBar().messageChanged.connect(lambda m: shown.append(m))
    dialog.accept()
    qtbot.waitUntil(lambda: any(m.startswith("Exported to") for m in shown), timeout=60000)
    assert f"Exported to {target}" in shown, shown
    assert target.read_bytes().startswith(b"%PDF")
    # No printer set up (this machine): said at once, nothing started.
    messages: list[str] = []
    process = ExportProcess(window)
    exchange_actions.print_on(window.store, QPrinter(), [window.chat.conversation.id], messages.append, process)
    assert messages and messages[0].startswith("Printing failed: no printer") and not process.running
    # A named printer goes to the child process, which says when it is not there.
    paths: list[Path] = []
    window.store.read(lambda s: s.path, paths.append)
    qtbot.waitUntil(lambda: bool(paths), timeout=10000)
    messages.clear()
    with qtbot.waitSignal(process.finished, timeout=60000) as blocker:
        assert process.start_print(paths[0], "nowhere", ["--printer", "nowhere"],
                                   [window.chat.conversation.id], messages.append)
    assert "There is no printer named 'nowhere'" in blocker.args[0], blocker.args
    assert messages == blocker.args and "Traceback" not in messages[0]


def test_export_and_import_from_the_window(qtbot, make_window, tmp_path: Path) -> None:
    from app.ui.dialogs import exchange as exchange_actions

    window = make_window(scripted(rate=3000, n_tokens=20))
    wait_store_open(qtbot, window)
    reply = finished_reply(qtbot, window, "export me 界面")
    conv_id = window.chat.conversation.id
    messages: list[str] = []
    md, js = tmp_path / "one.md", tmp_path / "all.json"
    exchange_actions.export_to(window.store, md, [conv_id], messages.append)
    exchange_actions.export_to(window.store, js, None, messages.append)
    qtbot.waitUntil(lambda: len(messages) == 2, timeout=10000)
    assert all(m.startswith("Exported 1 conversation") for m in messages), messages
    assert "export me 界面" in md.read_text(encoding="utf-8")
    data = json.loads(js.read_text(encoding="utf-8"))
    assert data["format"] == "rill.export" and data["conversations"][0]["id"] == conv_id
    # Importing it again makes a copy (never an overwrite), and the sidebar shows both.
    results: list[tuple[str, bool]] = []
    exchange_actions.import_from(window.store, js, lambda m, ok: results.append((m, ok)))
    qtbot.waitUntil(lambda: bool(results), timeout=10000)
    assert results[0][1] and "Imported 1 conversation" in results[0][0]
    window.library_wiring.show_import_result(*results[0])
    qtbot.waitUntil(lambda: len(window.sidebar.model.rows()) == 2, timeout=10000)
    # A malformed file imports nothing and says where it is wrong.
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "rill.export", "version": 1, "conversations": [{"id": 5}]}', encoding="utf-8")
    results.clear()
    exchange_actions.import_from(window.store, bad, lambda m, ok: results.append((m, ok)))
    qtbot.waitUntil(lambda: bool(results), timeout=10000)
    assert not results[0][1] and "Nothing was imported" in results[0][0] and "conversations[0]" in results[0][0]
    assert reply.id


def test_pin_moves_a_conversation_to_the_top(qtbot, make_window) -> None:
    window = make_window(scripted(rate=3000, n_tokens=10))
    wait_store_open(qtbot, window)
    finished_reply(qtbot, window, "older one")
    older = window.chat.conversation.id
    window.menus.new_chat_action.trigger()
    finished_reply(qtbot, window, "newer one")
    qtbot.waitUntil(lambda: len(window.sidebar.model.rows()) == 2, timeout=5000)
    assert window.sidebar.model.rows()[0].title == "newer one"
    window.sidebar.pin_requested.emit(older, True)
    rows = window.sidebar.model.rows()
    assert rows[0].id == older and rows[0].pinned
    done: list[object] = []
    window.store.read(lambda s: s.list_conversations(0, 10)[0].id, done.append)
    qtbot.waitUntil(lambda: bool(done), timeout=5000)
    assert done == [older]


def test_copy_conversation_gives_what_file_export_writes(qtbot, make_window) -> None:
    """One Markdown exporter: Edit › Copy Conversation as Markdown and File ›
    Export (``rill export --format md``) give the same text, but for the
    bodies: the copy has them as written, the export made inert (its
    headings two levels down: ``inert_markdown``)."""
    from PyQt6.QtWidgets import QApplication

    from app.core.store import Store
    from app.core.store.exchange import export_markdown

    window = make_window(scripted(rate=3000, n_tokens=30))
    wait_store_open(qtbot, window)
    with qtbot.waitSignal(window.chat.reply_settled, timeout=20000):
        send_with_enter(qtbot, window, "Copy me")
    conv_id = window.chat.conversation.id
    window.menus.copy_conversation_action.trigger()
    copied = QApplication.clipboard().text()
    close_and_wait(qtbot, window)
    result = Store.open(recover=False)
    assert result.store is not None
    try:
        exported = export_markdown(result.store, [conv_id])
    finally:
        result.store.close()
    assert copied.startswith("# Copy me\n") and "## You\n\nCopy me\n" in copied
    reply = window.chat.conversation.messages[-1].content
    assert reply in copied, "the copy has the reply as written"
    assert "\n# Streaming, without the freeze" in copied and "\n### Streaming, without the freeze" in exported
    assert copied.replace("\n# Streaming", "\n### Streaming") == exported, "otherwise the same text"
