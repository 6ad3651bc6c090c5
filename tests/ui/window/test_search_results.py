"""SearchResultOpener.open_message: the match's conversation opens, its
words are highlighted; a conversation just deleted comes back; a missing
one is said plainly."""

from __future__ import annotations

from typing import Any

from app.core.backends.scripted import ScriptedBackend
from app.ui.window.search_results import SearchResultOpener


def open_window(qtbot: Any, make_window: Any) -> Any:
    window = make_window(lambda: ScriptedBackend(rate=5000, n_tokens=3))
    if not window.store.available:
        with qtbot.waitSignal(window.store.opened, timeout=10000):
            pass
    return window


def chat(qtbot: Any, window: Any, text: str) -> tuple[str, str]:
    with qtbot.waitSignal(window.chat.reply_settled, timeout=20000):
        window.enter_prompt(text)
    conv = window.chat.conversation
    return str(conv.id), str(conv.messages[0].id)


def test_a_match_opens_its_conversation_with_the_words_highlighted(qtbot: Any, make_window: Any) -> None:
    window = open_window(qtbot, make_window)
    opener = window.search_results
    assert isinstance(opener, SearchResultOpener)
    conv_id, msg_id = chat(qtbot, window, "zebra crossing")
    window.chat.new_chat()
    chat(qtbot, window, "something else")
    opener.open_message(conv_id, msg_id, "zebra")
    qtbot.waitUntil(lambda: window.chat.conversation.id == conv_id, timeout=10000)
    qtbot.waitUntil(lambda: window.view.probe.find_state() == ("zebra", (msg_id, 0)), timeout=10000)


def test_a_match_in_a_conversation_just_deleted_brings_it_back(qtbot: Any, make_window: Any) -> None:
    window = open_window(qtbot, make_window)
    conv_id, msg_id = chat(qtbot, window, "zebra crossing")
    window.chat.new_chat()
    chat(qtbot, window, "something else")
    qtbot.waitUntil(lambda: window.sidebar.model.row_of(conv_id) >= 0, timeout=5000)
    window.library_wiring.delete_conversation(conv_id)
    assert window.undo_bar.pending_conversation == conv_id
    window.search_results.open_message(conv_id, msg_id, "zebra")
    assert window.undo_bar.pending_conversation == "" and window.sidebar.model.row_of(conv_id) >= 0
    qtbot.waitUntil(lambda: window.chat.conversation.id == conv_id, timeout=10000)


def test_a_conversation_no_longer_there_is_said(qtbot: Any, make_window: Any) -> None:
    window = open_window(qtbot, make_window)
    window.search_results.open_message("no-such-conversation", "no-such-message", "zebra")
    qtbot.waitUntil(
        lambda: window.statusBar().currentMessage() == "That conversation is no longer in the history.", timeout=10000
    )
