"""Search across all conversations (Ctrl+K): the popup over the real store
(in the test's own XDG data dir), highlighting, stale answers, and opening
the message found."""

from __future__ import annotations

import time
from typing import Any

import pytest
from PyQt6.QtCore import Qt
from PyQt6.QtWidgets import QApplication

import app.core.store as store_module
from app.core.backends.scripted import ScriptedBackend
from app.core.conversation.model import Message
from app.core.store import ConversationInfo
from app.core.store.search import SearchHit
from app.ui.dialogs.search import HTML_ROLE, SearchDialog, highlight_text, snippet_html


@pytest.fixture
def window(qtbot, make_window):
    win = make_window(lambda: ScriptedBackend(rate=2000))
    if not hasattr(win, "search_dialog"):  # until MainWindow.__init__ calls it
        win.install_search()
    if not win.store.available:
        with qtbot.waitSignal(win.store.opened, timeout=10000):
            pass
    return win


def add_conversation(qtbot, window, title: str, *texts: str, branch: str | None = None) -> tuple[str, list[Message]]:
    """A conversation of alternating user/assistant messages; ``branch``: one
    more reply, a sibling of the last one, NOT on the current path."""
    info = ConversationInfo(title=title)
    msgs: list[Message] = []
    parent = None
    for i, text in enumerate(texts):
        msg = Message("user" if i % 2 == 0 else "assistant", text, parent_id=parent)
        msgs.append(msg)
        parent = msg.id
    info.current_leaf = msgs[-1].id
    if branch is not None:
        msgs.append(Message("assistant", branch, parent_id=msgs[-1].parent_id))
    done: list[bool] = []

    def write(s: Any) -> None:
        s.create_conversation(info)
        s.add_messages(info.id, msgs)

    window.store.write(write, callback=lambda _: done.append(True))
    qtbot.waitUntil(lambda: bool(done), timeout=10000)
    return info.id, msgs


def search(qtbot, dialog: SearchDialog, text: str) -> list[SearchHit]:
    with qtbot.waitSignal(dialog.results_shown, timeout=10000, check_params_cb=lambda q, n: q == text):
        dialog.edit.setText(text)
    return dialog.results()


def open_dialog(qtbot, window) -> SearchDialog:
    """Ctrl+K while typing a prompt opens the popup with its field focused."""
    window.activateWindow()
    window.prompt.setFocus()
    qtbot.keyClick(window.prompt, Qt.Key.Key_K, Qt.KeyboardModifier.ControlModifier)
    dialog = window.search_dialog
    assert dialog.isVisible() and not dialog.isModal()
    return dialog


def test_search_latin_cjk_and_emoji_with_highlighted_snippets(qtbot, window) -> None:
    py, py_msgs = add_conversation(qtbot, window, "Python tips", "How do I sort a list in Python?", "Use sorted().")
    zh, zh_msgs = add_conversation(qtbot, window, "界面设计", "用户界面的设计很重要", "是的，界面要简单。")
    party, party_msgs = add_conversation(qtbot, window, "Party", "Plans for tonight", "Let's celebrate 🎉 together")
    dialog = open_dialog(qtbot, window)
    assert dialog.message() == "Type to search all conversations"
    assert dialog.edit.accessibleName() and dialog.list.accessibleName()

    # Latin, typed key by key: one search after the pause, not one per key.
    reads: list[str] = []
    real_read = window.store.read
    window.store.read = lambda fn, cb: (reads.append(dialog.edit.text()), real_read(fn, cb))
    try:
        with qtbot.waitSignal(dialog.results_shown, timeout=10000, check_params_cb=lambda q, n: q == "python"):
            qtbot.keyClicks(dialog.edit, "python")
    finally:
        del window.store.read
    assert reads == ["python"]
    hits = dialog.results()
    assert [(h.conversation_id, h.message_id, h.role, h.conversation_title) for h in hits] == [
        (py, py_msgs[0].id, "user", "Python tips")
    ]
    assert dialog.model.index(0, 0).data(HTML_ROLE).endswith('<span style="background-color:#ffe58f; '
                                                              'color:#1f2328; font-weight:600;">Python</span>?')
    assert "Python tips" in dialog.model.index(0, 0).data(Qt.ItemDataRole.AccessibleTextRole)
    assert dialog.count_label.text() == "1 match"

    # A two-character Chinese word, in both messages of its conversation, newest first.
    hits = search(qtbot, dialog, "界面")
    assert [h.message_id for h in hits] == [zh_msgs[1].id, zh_msgs[0].id]
    assert hits[1].snippet == "用户\x02界面\x03的设计很重要"
    assert "\x02界面\x03" in hits[0].snippet

    # An emoji.
    hits = search(qtbot, dialog, "🎉")
    assert [(h.conversation_id, h.message_id, h.role) for h in hits] == [(party, party_msgs[1].id, "assistant")]
    assert ">🎉</span>" in dialog.model.index(0, 0).data(HTML_ROLE)
    dialog.list.viewport().grab()  # paints every row: the delegate's documents

    assert search(qtbot, dialog, "nothing like this anywhere") == []
    assert dialog.message() == "No matches"
    with qtbot.waitSignal(dialog.results_shown, timeout=1000):
        dialog.edit.clear()
    assert dialog.message() == "Type to search all conversations" and dialog.results() == []

    qtbot.keyClick(dialog.edit, Qt.Key.Key_Escape)
    assert not dialog.isVisible()


def test_snippets_show_hostile_html_literally(qtbot, window) -> None:
    hostile = "Look: <script>alert('x')</script> & <img src=x onerror=alert(1)> <b>not bold</b>"
    add_conversation(qtbot, window, "<i>title</i> & co", hostile)
    dialog = open_dialog(qtbot, window)
    hits = search(qtbot, dialog, "script")
    assert len(hits) == 1
    markup = dialog.model.index(0, 0).data(HTML_ROLE)
    assert "<script" not in markup and "<img" not in markup and "<b>" not in markup
    assert "&lt;<span" in markup and "&amp;" in markup
    dialog.list.viewport().grab()
    doc = dialog.delegate._docs[0]
    assert doc.toPlainText() == "Look: <script>alert('x')</script> & <img src=x onerror=alert(1)> <b>not bold</b>"
    # The markers themselves: escaped text, balanced spans whatever the input.
    assert snippet_html("a<\x02b>\x03c") == 'a&lt;<span style="background-color:#ffe58f; color:#1f2328; ' \
                                            'font-weight:600;">b&gt;</span>c'
    assert snippet_html("\x03x\x02y").count("<span") == snippet_html("\x03x\x02y").count("</span>") == 1


def test_enter_opens_the_conversation_on_the_branch_of_the_message(qtbot, window) -> None:
    other, other_msgs = add_conversation(qtbot, window, "Other", "zebras are striped", "Yes they are.")
    conv_id, msgs = add_conversation(
        qtbot, window, "Branches", "Tell me about animals", "Lions are big cats.",
        branch="An alternative answer: the zebra is an equid.",
    )
    sibling = msgs[-1]
    shown_first = msgs[1]
    dialog = open_dialog(qtbot, window)
    hits = search(qtbot, dialog, "zebra")
    assert [(h.conversation_id, h.message_id) for h in hits] == [(conv_id, sibling.id), (other, other_msgs[0].id)]
    # Up and Down move in the list while the field keeps the keys.
    assert dialog.list.currentIndex().row() == 0
    qtbot.keyClick(dialog.edit, Qt.Key.Key_Down)
    assert dialog.list.currentIndex().row() == 1
    qtbot.keyClick(dialog.edit, Qt.Key.Key_Up)
    assert dialog.list.currentIndex().row() == 0
    with qtbot.waitSignal(dialog.result_activated, timeout=5000) as blocker:
        qtbot.keyClick(dialog.edit, Qt.Key.Key_Return)
    assert blocker.args == [conv_id, sibling.id, "zebra"]
    assert not dialog.isVisible()
    qtbot.waitUntil(lambda: window.chat.conversation.id == conv_id, timeout=10000)
    conv = window.chat.conversation
    # The stored path went through the first reply; the window switched to the sibling found.
    assert [m.id for m in conv.messages] == [msgs[0].id, sibling.id]
    assert shown_first.id not in window.view.message_ids()
    qtbot.waitUntil(lambda: sibling.id in window.view.message_ids(), timeout=10000)
    assert window.view.probe.find_state() == ("zebra", (sibling.id, 0))

    # The other conversation, chosen with the mouse.
    dialog = open_dialog(qtbot, window)
    qtbot.waitUntil(lambda: len(dialog.results()) == 2 and dialog.message() == "", timeout=10000)
    rect = dialog.list.visualRect(dialog.model.index(1, 0))
    with qtbot.waitSignal(dialog.result_activated, timeout=5000) as blocker:
        qtbot.mouseClick(dialog.list.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert blocker.args == [other, other_msgs[0].id, "zebra"]
    qtbot.waitUntil(lambda: window.chat.conversation.id == other, timeout=10000)
    qtbot.waitUntil(lambda: other_msgs[0].id in window.view.message_ids(), timeout=10000)


def test_a_slow_older_answer_never_replaces_a_newer_one(qtbot, window, monkeypatch) -> None:
    add_conversation(qtbot, window, "Greek", "alpha particles", "beta decay")
    real = store_module.Store.search

    def slow(self, query: str, limit: int = 50):
        if query == "alpha":
            time.sleep(0.4)  # on the store thread
        return real(self, query, limit)

    monkeypatch.setattr(store_module.Store, "search", slow)
    dialog = open_dialog(qtbot, window)
    shown: list[str] = []
    dialog.results_shown.connect(lambda q, n: shown.append(q))
    dialog.edit.setText("alpha")
    dialog.search_now()  # the pause is over: "alpha" goes to the store thread
    dialog.edit.setText("beta")
    with qtbot.waitSignal(dialog.results_shown, timeout=10000, check_params_cb=lambda q, n: q == "beta"):
        dialog.search_now()
    qtbot.wait(100)
    assert shown == ["beta"]  # "alpha" answered first, and was dropped
    assert [h.snippet for h in dialog.results()] == ["\x02beta\x03 decay"]


class FakeStore:
    """Answers when the test says so."""

    def __init__(self) -> None:
        self.jobs: list[tuple[Any, Any]] = []

    def read(self, fn: Any, callback: Any) -> None:
        self.jobs.append((fn, callback))


def hit(text: str, n: int = 0) -> SearchHit:
    return SearchHit(f"c{n}", f"title {n}", f"m{n}", "user", f"\x02{text}\x03", 0.0)


def test_cleared_or_changed_queries_drop_late_answers_and_enter_waits_for_the_latest(qtbot) -> None:
    fake = FakeStore()
    dialog = SearchDialog(fake)
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.edit.setText("alpha")
    dialog.search_now()
    assert len(fake.jobs) == 1
    dialog.edit.setText("")  # cleared while "alpha" runs
    fake.jobs[0][1]([hit("alpha")])
    assert dialog.results() == [] and dialog.message() == "Type to search all conversations"

    dialog.edit.setText("beta")
    dialog.search_now()
    dialog.edit.setText("betamax")  # typed while "beta" runs: waits for it, one search at a time
    dialog.search_now()
    assert len(fake.jobs) == 2
    fake.jobs[1][1]([hit("beta")])  # late: dropped, and "betamax" is asked at once
    assert dialog.results() == [] and len(fake.jobs) == 3
    fake.jobs[2][1]([hit("betamax", 1), hit("betamax", 2)])
    assert [h.message_id for h in dialog.results()] == ["m1", "m2"]

    # Enter before the pause is over opens the first match of what was typed.
    qtbot.keyClicks(dialog.edit, "!")
    activated: list[list[str]] = []
    dialog.result_activated.connect(lambda *args: activated.append(list(args)))
    qtbot.keyClick(dialog.edit, Qt.Key.Key_Return)
    assert activated == [] and len(fake.jobs) == 4
    fake.jobs[3][1]([hit("betamax!", 7)])
    assert activated == [["c7", "m7", "betamax!"]]
    assert not dialog.isVisible()

    # No store: said plainly.
    fake.available = False
    dialog.show()
    dialog.edit.setText("gamma")
    dialog.search_now()
    fake.jobs[4][1](None)
    assert dialog.message() == "Search is not available: the conversation history could not be opened."


def test_highlight_text_picks_a_term_present_in_the_message() -> None:
    assert highlight_text("zebra stripes", "The Zebra has stripes everywhere") == "stripes"
    assert highlight_text('"sort a list" python', "how to sort a list in python") == "sort a list"
    assert highlight_text("界面", "用户界面") == "界面"
    assert highlight_text("missing", "") == "missing"
    assert QApplication.instance() is not None


def test_a_message_early_in_a_long_conversation_is_revealed_once_its_history_arrives(qtbot, window, monkeypatch) -> None:
    from app.ui.conversation import view as chat_view

    monkeypatch.setattr(chat_view, "SYNC_HISTORY", 4)  # the last 4 at once, the rest from the helper thread
    texts = [f"message number {i}" for i in range(30)]
    texts[2] = "the needle is here"
    conv_id, msgs = add_conversation(qtbot, window, "Long", *texts)
    dialog = open_dialog(qtbot, window)
    assert [h.message_id for h in search(qtbot, dialog, "needle")] == [msgs[2].id]
    present_when_shown: list[bool] = []
    window.chat.conversation_shown.connect(lambda conv: present_when_shown.append(window.view.has_item(msgs[2].id)))
    qtbot.keyClick(dialog.edit, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: bool(present_when_shown), timeout=10000)
    assert present_when_shown == [False]  # not there yet when the conversation was shown
    qtbot.waitUntil(lambda: msgs[2].id in window.view.message_ids(), timeout=10000)
    assert window.chat.conversation.id == conv_id
    qtbot.waitUntil(lambda: window.view.probe.find_state() == ("needle", (msgs[2].id, 0)), timeout=5000)
