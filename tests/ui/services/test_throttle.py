"""Throttle: many asks in one interval make one deferred call."""

from __future__ import annotations

from typing import Any

from app.ui.services.throttle import Throttle


def test_asks_in_one_interval_collapse_into_one_call(qtbot: Any) -> None:
    calls: list[int] = []
    throttle = Throttle(lambda: calls.append(1), 30)
    for _ in range(5):
        throttle()
    assert throttle.pending and calls == []  # deferred, never called inline
    qtbot.waitUntil(lambda: calls == [1], timeout=2000)
    assert not throttle.pending


def test_cancel_drops_the_pending_call(qtbot: Any) -> None:
    calls: list[int] = []
    throttle = Throttle(lambda: calls.append(1), 10)
    throttle()
    throttle.cancel()
    assert not throttle.pending
    other = Throttle(lambda: calls.append(2), 10)
    other()
    qtbot.waitUntil(lambda: calls == [2], timeout=2000)  # the cancelled one never came
