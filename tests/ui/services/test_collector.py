"""freeze_long_lived: what exists at start-up leaves the collector's walks,
only once the application enabled it."""

from __future__ import annotations

import gc

from app.ui.services import collector


def test_nothing_is_frozen_until_the_application_enables_it(monkeypatch) -> None:
    monkeypatch.setattr(collector, "_enabled", False)
    before = gc.get_freeze_count()
    assert collector.freeze_long_lived() == before


def test_objects_alive_now_are_frozen_and_later_ones_are_not(monkeypatch) -> None:
    monkeypatch.setattr(collector, "_enabled", True)
    try:
        kept = [[n] for n in range(1000)]  # tracked containers
        frozen = collector.freeze_long_lived()
        assert frozen >= len(kept)
        later = [[n] for n in range(1000)]
        assert gc.get_freeze_count() == frozen, "what comes later is collected as usual"
        assert later
    finally:
        gc.unfreeze()  # a test process must not keep them


def test_freeze_after_first_freezes_once(qtbot, monkeypatch) -> None:
    from PyQt6.QtCore import QObject, pyqtSignal

    class Source(QObject):
        ready = pyqtSignal(object)

    calls: list[int] = []
    monkeypatch.setattr(collector, "freeze_long_lived", lambda: calls.append(1) or 0)
    source = Source()
    collector.freeze_after_first(source.ready)
    source.ready.emit(None)
    source.ready.emit(None)
    assert calls == [1], "a model loaded later leaves its conversation collectable"


def test_only_a_long_conversation_is_settled(monkeypatch) -> None:
    monkeypatch.setattr(collector, "_enabled", True)
    before = gc.get_freeze_count()
    try:
        assert not collector.settle_long(collector.LONG_CONVERSATION - 1)
        assert gc.get_freeze_count() == before
        assert collector.settle_long(collector.LONG_CONVERSATION)
        assert gc.get_freeze_count() > before
    finally:
        gc.unfreeze()


def test_a_frozen_long_history_is_given_back_when_the_view_leaves_it(qtbot, view, monkeypatch) -> None:
    """What makes freezing a long conversation safe: its messages and items
    hold no reference cycles, so they are freed while frozen."""
    from app.core.conversation.sample import history_messages

    monkeypatch.setattr(collector, "_enabled", True)
    try:
        collector.settle_long(collector.LONG_CONVERSATION)  # the test's own world, frozen first
        start = gc.get_freeze_count()
        messages = history_messages(collector.LONG_CONVERSATION * 2)
        with qtbot.waitSignal(view.history_completed, timeout=30000):
            view.add_messages(messages)
        collector.settle_long(view.item_count())
        shown = gc.get_freeze_count() - start
        assert shown > 3 * len(messages), "the messages and their items were frozen"
        view.clear()
        del messages

        def given_back() -> bool:  # (frozen objects are freed as their last reference goes)
            return gc.get_freeze_count() - start < 0.05 * shown

        qtbot.waitUntil(given_back, timeout=5000)
    finally:
        gc.unfreeze()
