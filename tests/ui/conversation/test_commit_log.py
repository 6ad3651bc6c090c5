"""CommitLog: from a formula's arrival to its rendered swap-in."""

from __future__ import annotations

import pytest

from app.ui.conversation import commit_log
from app.ui.conversation.commit_log import CommitLog


def test_delays_pair_each_offset_with_its_arrival_and_its_swap(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = iter([1.0, 1.1, 1.2, 1.5, 2.0, 2.4])
    monkeypatch.setattr(commit_log.time, "monotonic", lambda: next(clock))
    log = CommitLog()
    log.arrived("m", 10)   # 0..10 at 1.0
    log.arrived("m", 10)   # ..20 at 1.1
    log.arrived("m", 0)    # nothing: no entry
    log.arrived("m", 10)   # ..30 at 1.2
    log.shown("m", 15)     # at 1.5
    log.shown("m", 12)     # not further: ignored
    log.arrived("m", 5)    # ..35 at 2.0
    log.finished("m")      # all 35 at 2.4
    assert log.delays_ms("m", [5, 15, 16, 30, 35]) == pytest.approx([500.0, 400.0, 1300.0, 1200.0, 400.0])
    assert log.delays_ms("m", [36]) == [] and log.delays_ms("other", [1]) == []


def test_only_the_newest_messages_are_kept() -> None:
    log = CommitLog()
    for n in range(6):
        log.arrived(f"m{n}", 3)
        log.finished(f"m{n}")
    assert log.delays_ms("m0", [1]) == [] and len(log.delays_ms("m5", [1])) == 1
