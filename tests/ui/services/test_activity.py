"""app.ui.services.activity: the GUI thread's spans of work, and the blame for a late heartbeat."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from app.ui.services.activity import ACTIVITY, ActivityLog, traced
from app.ui.services.slicer import TimeSlicer


@pytest.fixture
def tracing() -> Iterator[None]:
    ACTIVITY.clear()
    ACTIVITY.enabled = True
    yield
    ACTIVITY.enabled = False
    ACTIVITY.clear()


def test_blame_names_the_overlapping_spans_longest_first_and_the_rest_as_other() -> None:
    log = ActivityLog()
    log.enabled = True
    log.record("long ago", -1.0, -0.9)   # spans come in time order
    log.record("paint", 0.000, 0.004)
    log.record("tick", 0.004, 0.011)
    log.record("paint", 0.011, 0.012)
    assert log.blame(0.002, 0.014) == [
        ("tick", 7.0), ("paint", 3.0), ("other (event loop, layout, Qt, the GIL)", 2.0)]
    off = ActivityLog()
    off.record("x", 0, 1)
    assert off.blame(0, 1) == [("other (event loop, layout, Qt, the GIL)", 1000.0)], "nothing recorded while off"


def test_traced_methods_and_slicer_jobs_are_spans(qtbot: Any, tracing: None) -> None:
    class Worker:
        @traced("work")
        def run(self, n: int) -> int:
            return n * 2

    assert Worker().run(21) == 42
    slicer = TimeSlicer()

    def job() -> Iterator[None]:
        yield
        yield

    with qtbot.waitSignal(slicer.drained, timeout=5000):
        slicer.queue("build:m1", job)
    labels = {label for label, _ms in ACTIVITY.blame(0, float("inf"))}
    assert {"work", "slice: build"} <= labels


def test_older_generation_collections_are_spans_while_enabled(tracing: None) -> None:
    import gc
    import time

    before = time.perf_counter()
    gc.collect(1)
    spans = ACTIVITY.blame(before, time.perf_counter())
    assert any(label == "garbage collection (generation 1)" for label, _ in spans)
    ACTIVITY.enabled = False
    assert ACTIVITY._on_collection not in gc.callbacks, "the collector is not watched while off"
    ACTIVITY.clear()
    before = time.perf_counter()
    gc.collect(2)
    assert [label for label, _ in ACTIVITY.blame(before, time.perf_counter())] == [
        "other (event loop, layout, Qt, the GIL)"]
