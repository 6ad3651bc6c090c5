"""TimeSlicer: jobs in order, generators resumed across slices, one key queued once."""

from __future__ import annotations

from collections.abc import Iterator

from PyQt6 import sip
from PyQt6.QtCore import QObject, QTimer

from app.ui.services.slicer import Job, SliceScheduler, TimeSlicer


def test_jobs_run_in_order_and_generators_go_on_in_later_slices(qtbot) -> None:
    slicer = TimeSlicer(budget_s=0.0)  # every slice does one step
    done: list[str] = []

    def steps() -> Iterator[None]:
        for k in range(3):
            done.append(f"step{k}")
            yield

    slicer.queue("a", steps)
    slicer.queue("b", lambda: done.append("b"))
    slicer.queue("b", lambda: done.append("twice"))  # same key: not queued again
    with qtbot.waitSignal(slicer.drained, timeout=5000):
        pass
    assert done == ["step0", "step1", "step2", "b"]
    assert slicer.slices >= 4 and not slicer.busy


def test_a_failing_step_does_not_stop_the_others(qtbot, caplog) -> None:
    slicer = TimeSlicer()
    done: list[int] = []
    slicer.queue("bad", lambda: 1 // 0)
    slicer.queue("good", lambda: done.append(1))
    with qtbot.waitSignal(slicer.drained, timeout=5000):
        pass
    assert done == [1]
    assert "failed" in caplog.text


def test_stop_drops_the_queue(qtbot) -> None:
    slicer = TimeSlicer()
    done: list[int] = []
    slicer.queue("x", lambda: done.append(1))
    slicer.stop()
    slicer.run_slice()
    assert done == [] and not slicer.busy


def test_drained_names_the_kinds_of_work_run_since_the_last_drain(qtbot) -> None:
    slicer = TimeSlicer()
    slicer.queue("stream:m1:3", lambda: None)
    slicer.queue("free:42", lambda: None)
    slicer.queue("stream:m2:1", lambda: None)
    with qtbot.waitSignal(slicer.drained, timeout=5000):
        pass
    assert slicer.drained_kinds == {"stream", "free"}
    slicer.queue("build:m1", lambda: None)
    with qtbot.waitSignal(slicer.drained, timeout=5000):
        pass
    assert slicer.drained_kinds == {"build"}, "only what ran since the previous drain"


def _steps(log: list[str], name: str, n: int) -> Job:
    def job() -> Iterator[None]:
        for k in range(n):
            log.append(f"{name}{k}")
            yield
    return job


def test_busy_slicers_take_turns_one_slice_each(qtbot) -> None:
    scheduler = SliceScheduler()
    a, b = TimeSlicer(0.0, scheduler=scheduler), TimeSlicer(0.0, scheduler=scheduler)
    done: list[str] = []
    a.queue("a", _steps(done, "a", 3))
    b.queue("b", _steps(done, "b", 2))
    with qtbot.waitSignals([a.drained, b.drained], timeout=5000):
        pass
    assert done == ["a0", "b0", "a1", "b1", "a2"]
    assert not scheduler.waiting


def test_a_timer_due_between_slices_runs_before_the_next_slicer(qtbot) -> None:
    """One turn of the event loop holds one slice, never every busy slicer's."""
    scheduler = SliceScheduler()
    a, b = TimeSlicer(0.0, scheduler=scheduler), TimeSlicer(0.0, scheduler=scheduler)
    done: list[str] = []
    timer = QTimer()
    timer.setSingleShot(True)
    timer.timeout.connect(lambda: done.append("timer"))

    def first() -> None:
        done.append("a0")
        timer.start(0)      # due at once: the next turn of the loop

    a.queue("a", first)
    b.queue("b", lambda: done.append("b0"))
    with qtbot.waitSignals([a.drained, b.drained, timer.timeout], timeout=5000):
        pass
    assert done == ["a0", "timer", "b0"]


def test_a_deleted_slicer_loses_its_turn_and_the_others_go_on(qtbot) -> None:
    scheduler = SliceScheduler()
    owner = QObject()
    gone, kept = TimeSlicer(parent=owner, scheduler=scheduler), TimeSlicer(scheduler=scheduler)
    done: list[str] = []
    gone.queue("x", lambda: done.append("gone"))
    kept.queue("y", lambda: done.append("kept"))
    sip.delete(owner)
    with qtbot.waitSignal(kept.drained, timeout=5000):
        pass
    assert done == ["kept"] and not scheduler.waiting


def test_slicers_share_the_application_scheduler_by_default(qtbot) -> None:
    a, b = TimeSlicer(), TimeSlicer()
    assert a._scheduler is b._scheduler is SliceScheduler.shared()


def test_a_slice_due_right_after_other_busy_work_gives_way_for_one_turn(qtbot) -> None:
    """The consumer's tick ends with ``note_busy``: a slice due in the same
    turn of the event loop waits, so a timer that came due meanwhile runs
    first; it gives way once, then runs whatever ran before it."""
    scheduler = SliceScheduler()
    slicer = TimeSlicer(0.0, scheduler=scheduler)
    done: list[str] = []

    def busy(name: str, then: str | None) -> None:
        done.append(name)
        scheduler.note_busy()
        if then is not None:
            QTimer.singleShot(0, lambda: busy(then, None))  # came due during the busy work

    QTimer.singleShot(0, lambda: busy("tick", "timer"))
    with qtbot.waitSignal(slicer.drained, timeout=5000):
        slicer.queue("s", _steps(done, "s", 1))
    assert done == ["tick", "timer", "s0"]
