"""The message-list facade of the view: removing and adding messages
never moves what the reader looks at."""

from __future__ import annotations

from app.core.conversation.model import Message
from app.core.conversation.sample import history_messages


def _middle(qtbot, view, n: int = 200):
    msgs = history_messages(n)
    with qtbot.waitSignal(view.viewport_ready, timeout=20000):
        view.add_messages(msgs)
    middle = msgs[n // 2]
    with qtbot.waitSignal(view.viewport_ready, timeout=20000):
        view.scroll_to_message(middle.id)
    qtbot.waitUntil(lambda: not view.busy, timeout=20000)
    assert not view.at_bottom()
    return msgs, middle


def test_removing_the_last_messages_keeps_the_scroll_and_the_selection(qtbot, view) -> None:
    msgs, middle = _middle(qtbot, view)
    view.probe.select(middle.id, 0, 5)
    selected = view.selected_text()
    assert selected
    value = view.verticalScrollBar().value()
    view.remove_messages([m.id for m in msgs[-3:]])
    assert view.message_ids() == [m.id for m in msgs[:-3]]
    assert view.verticalScrollBar().value() == value
    assert view.selected_text() == selected


def test_adding_messages_below_keeps_the_scroll_and_the_selection(qtbot, view) -> None:
    msgs, middle = _middle(qtbot, view)
    view.probe.select(middle.id, 0, 5)
    selected = view.selected_text()
    value = view.verticalScrollBar().value()
    view.add_messages([Message("user", f"more {i}") for i in range(3)])
    assert view.item_count() == len(msgs) + 3
    assert view.verticalScrollBar().value() == value
    assert view.selected_text() == selected


def test_adding_at_the_bottom_keeps_following(qtbot, view) -> None:
    with qtbot.waitSignal(view.viewport_ready, timeout=20000):
        view.add_messages(history_messages(50))
    assert view.at_bottom()
    view.add_messages([Message("user", "one more")])
    assert view.at_bottom()


def test_removing_messages_above_keeps_what_is_on_screen(qtbot, view) -> None:
    msgs, middle = _middle(qtbot, view)
    before = view.probe.point_of_text(middle.id, "turn")
    view.probe.select(middle.id, 0, 5)
    selected = view.selected_text()
    view.remove_messages([m.id for m in msgs[10:20]])
    qtbot.waitUntil(lambda: view.probe.point_of_text(middle.id, "turn") is not None, timeout=10000)
    after = view.probe.point_of_text(middle.id, "turn")
    assert before is not None and after is not None
    assert abs(after.y() - before.y()) < 1.0
    assert view.selected_text() == selected, "the selection moved with its message"


def test_removing_the_messages_on_screen_anchors_to_the_one_above(qtbot, view) -> None:
    msgs, middle = _middle(qtbot, view)
    k = msgs.index(middle)
    view.probe.select(middle.id, 0, 5)
    view.remove_messages([m.id for m in msgs[k : k + 5]])
    assert not view.has_selection(), "the selection was inside a removed message"
    assert not view.at_bottom()
    assert middle.id not in view.message_ids()
    # the message above the removed ones ends where the viewport starts (or above it)
    above = msgs[k - 1].id
    assert view.verticalScrollBar().value() > 0
    assert view.has_item(above)
