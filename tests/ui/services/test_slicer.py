"""TimeSlicer: jobs in order, generators resumed across slices, one key queued once."""

from __future__ import annotations

from collections.abc import Iterator

from app.ui.services.slicer import TimeSlicer


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
