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
