"""A path change in a long conversation keeps the reader's place (issue #16,
review 0.3): switching a version ‹ ›, deleting a message, undoing the delete
and regenerating used to rebuild the view and jump to the bottom, and closed
the find bar."""

from __future__ import annotations

from typing import Any

from PyQt6.QtCore import QPointF, Qt

from app.core.backends.scripted import ScriptedBackend
from app.core.conversation.model import Message, Role


def scripted(**kwargs):
    return lambda: ScriptedBackend(**kwargs)


def long_branched_conversation(window: Any, n: int = 120, split: int = 59) -> tuple[Any, Message, Message]:
    """``n`` messages; the reply at ``split`` has a second version with as
    many follow-ups as the first; the path is the first version's."""
    library = window.library
    conv = library.new_conversation()
    words = " ".join(["words"] * 40)
    main = []
    for i in range(n):
        role = Role.USER.value if i % 2 == 0 else Role.ASSISTANT.value
        main.append(conv.add(Message(role, f"message {i}: {words}", created_at=float(i))))
        library.message_added(conv, main[-1])
    parent = main[split - 1]
    second: Message | None = None
    for i in range(n - split):
        role = Role.ASSISTANT.value if i % 2 == 0 else Role.USER.value
        parent = conv.add(Message(role, f"other {i}: {words}", created_at=1000.0 + i, parent_id=parent.id), follow=False)
        library.message_added(conv, parent)
        second = second or parent
    assert second is not None
    conv.switch_to(main[-1].id)
    return conv, main[split], second


class RowSpy:
    def __init__(self, model: Any) -> None:
        self.events: list[tuple[Any, ...]] = []
        model.modelReset.connect(lambda: self.events.append(("reset",)))
        model.rowsAboutToBeRemoved.connect(lambda _p, a, b: self.events.append(("remove", a, b)))
        model.rowsInserted.connect(lambda _p, a, b: self.events.append(("insert", a, b)))


def screen_y(qtbot: Any, view: Any, message_id: str) -> float:
    """Where the first line of a message is on screen (once laid out)."""
    qtbot.waitUntil(lambda: not view.busy and view.probe.point_of_text(message_id, "message") is not None, timeout=5000)
    point: QPointF = view.probe.point_of_text(message_id, "message")
    return point.y()


def test_path_changes_keep_the_readers_place_and_the_find_bar(qtbot, make_window) -> None:
    window = make_window(scripted(rate=3000, n_tokens=20))
    chat, view = window.chat, window.view
    conv, first, second = long_branched_conversation(window)
    with qtbot.waitSignal(chat.conversation_shown, timeout=5000):
        chat.show_conversation(conv)
    assert view.at_bottom()
    # The reader searches (the first match is shown), then scrolls to the
    # middle, where the version switcher is.
    window.find_bar.open_bar()
    with qtbot.waitSignal(window.find_bar.search_finished, timeout=5000):
        window.find_bar.edit.setText("words")
    view.scroll_to_message(first.id)
    sb = view.verticalScrollBar()
    sb.setValue(sb.value() - view.viewport().height() // 3)
    above = conv.messages[58].id  # the prompt just above the switched reply
    qtbot.waitUntil(lambda: view.probe.footer_action_point(first.id, "next") is not None, timeout=5000)
    value, y_above = sb.value(), screen_y(qtbot, view, above)
    assert not view.at_bottom()
    rows = RowSpy(chat.conversations.rows)
    shown: list[object] = []
    chat.conversation_shown.connect(shown.append)
    paths: list[object] = []
    chat.path_changed.connect(paths.append)
    n = len(conv.messages)

    def assert_in_place(what: str) -> None:
        # The scroll value itself may change while items above are laid out
        # (their estimated heights become real ones): what is on screen stays.
        assert not view.at_bottom(), f"{what}: the view jumped to the bottom"
        assert abs(sb.value() - value) < view.viewport().height(), f"{what}: the view moved away"
        assert abs(screen_y(qtbot, view, above) - y_above) < 1, f"{what}: the content above moved"
        assert window.find_bar.isVisible(), f"{what}: the find bar was closed"
        assert view.message_ids() == [m.id for m in conv.messages], what
        # The find bar counted the new path again and kept its current match
        # (the first "words", in a message the change did not touch).
        expected = sum(m.content.count("words") for m in conv.messages)
        assert len(window.find_bar.matches) == expected, f"{what}: the find bar kept the old count"
        assert window.find_bar.current == 0, f"{what}: the current match was lost"
        assert window.find_bar.count_label.text() == f"1 of {expected}", what

    # 1. ‹ › on a version in the middle (a real click on "›").
    point = view.probe.footer_action_point(first.id, "next")
    with qtbot.waitSignal(window.find_bar.search_finished, timeout=5000):
        qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=point.toPoint())
    assert conv.messages[59] is second
    assert rows.events == [("remove", 59, n - 1), ("insert", 59, len(conv.messages) - 1)]
    assert_in_place("version switch")

    # 2. Delete that version: the path goes back to the other one.
    rows.events.clear()
    point = view.probe.footer_action_point(second.id, "delete")
    with qtbot.waitSignal(window.find_bar.search_finished, timeout=5000):
        qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=point.toPoint())
    assert conv.get(second.id) is None and conv.messages[59] is first
    assert rows.events == [("remove", 59, len(conv.messages) - 1), ("insert", 59, n - 1)]
    assert_in_place("delete")

    # 3. Undo the delete.
    rows.events.clear()
    assert window.undo_button.isVisible()
    with qtbot.waitSignal(window.find_bar.search_finished, timeout=5000):
        window.undo_button.click()
    assert conv.messages[59] is second
    assert rows.events == [("remove", 59, n - 1), ("insert", 59, len(conv.messages) - 1)]
    assert_in_place("undo")

    # 4. Regenerate the last reply (Ctrl+R) while reading the middle.
    rows.events.clear()
    last = len(conv.messages) - 1
    with qtbot.waitSignal(chat.reply_settled, timeout=20000):
        chat.regenerate()
    qtbot.waitUntil(lambda: window.find_bar.count_label.text().startswith("1 of"), timeout=5000)
    assert rows.events == [("remove", last, last), ("insert", last, last)]
    assert_in_place("regenerate")

    assert shown == [], "the same conversation was never shown anew"
    assert len(paths) == 4


def test_another_conversation_is_still_a_reset_to_the_bottom(qtbot, make_window) -> None:
    window = make_window(scripted(rate=3000, n_tokens=20))
    chat, view = window.chat, window.view
    conv, _first, _second = long_branched_conversation(window)
    chat.show_conversation(conv)
    view.verticalScrollBar().setValue(0)
    window.find_bar.open_bar()
    rows = RowSpy(chat.conversations.rows)
    with qtbot.waitSignal(chat.conversation_shown, timeout=5000):
        window.menus.new_chat_action.trigger()
    assert rows.events == [("reset",)]
    assert view.message_ids() == []
    assert not window.find_bar.isVisible(), "another conversation closes the find bar"
    with qtbot.waitSignal(chat.conversation_shown, timeout=5000):
        chat.show_conversation(conv)
    assert view.at_bottom() and view.message_ids() == [m.id for m in conv.messages]
