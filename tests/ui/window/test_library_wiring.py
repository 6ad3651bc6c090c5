"""LibraryWiring: the sidebar kept in step with the library (changes, pins,
deletions with Undo) and the store's saving notices."""

from __future__ import annotations

from typing import Any

from app.core.backends.scripted import ScriptedBackend
from app.ui.window.library_wiring import LibraryWiring


def open_window(qtbot: Any, make_window: Any) -> Any:
    window = make_window(lambda: ScriptedBackend(rate=5000, n_tokens=3))
    if not window.store.available:
        with qtbot.waitSignal(window.store.opened, timeout=10000):
            pass
    return window


def chat(qtbot: Any, window: Any, text: str) -> str:
    with qtbot.waitSignal(window.chat.reply_settled, timeout=20000):
        window.enter_prompt(text)
    return str(window.chat.conversation.id)


def test_a_changed_conversation_joins_the_sidebar_and_pins_move_it(qtbot: Any, make_window: Any) -> None:
    window = open_window(qtbot, make_window)
    wiring = window.library_wiring
    assert isinstance(wiring, LibraryWiring)
    first = chat(qtbot, window, "first")
    window.chat.new_chat()
    second = chat(qtbot, window, "second")
    qtbot.waitUntil(lambda: [r.id for r in window.sidebar.model.rows()] == [second, first], timeout=5000)
    window.sidebar.pin_requested.emit(first, True)
    assert [(r.id, r.pinned) for r in window.sidebar.model.rows()] == [(first, True), (second, False)]
    wiring.open_conversation(first)
    qtbot.waitUntil(lambda: window.chat.conversation.id == first, timeout=5000)


def test_deleting_the_shown_conversation_opens_the_next_and_undo_brings_it_back(qtbot: Any, make_window: Any) -> None:
    window = open_window(qtbot, make_window)
    first = chat(qtbot, window, "first")
    window.chat.new_chat()
    second = chat(qtbot, window, "second")
    qtbot.waitUntil(lambda: window.sidebar.model.row_of(first) >= 0, timeout=5000)
    window.library_wiring.delete_conversation(second)
    assert window.sidebar.model.row_of(second) < 0
    assert window.statusBar().currentMessage() == "Deleted “second”"
    qtbot.waitUntil(lambda: window.chat.conversation.id == first, timeout=5000)
    window.undo_bar.undo()
    assert window.sidebar.model.row_of(second) >= 0
    qtbot.waitUntil(lambda: window.chat.conversation.id == second, timeout=5000)


def test_saving_notices_reach_the_conversation(qtbot: Any, make_window: Any) -> None:
    window = open_window(qtbot, make_window)
    notices: list[tuple[str, str]] = []
    window.chat.notify = lambda text, kind="info": notices.append((text, kind))
    window.store.saving_failed.emit("disk full")
    window.store.saving_recovered.emit()
    window.store.write_refused.emit("Rill cannot save a change: the text could not be written.")
    assert notices == [
        ("⚠ Not saved: disk full. Your conversation is kept in memory and Rill keeps trying to save it.", "warning"),
        ("Saved again: everything is in the history now.", "info"),
        ("⚠ Rill cannot save a change: the text could not be written.", "warning"),
    ]
