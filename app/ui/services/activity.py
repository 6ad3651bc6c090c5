"""What the GUI thread was doing, as the code knows it (the doctor's stall report).

The GUI thread's units of work (the consumer tick, a paint, a work slice and
the jobs it ran, a render result, a store reply, a send) record a span
``(label, start, end)`` here while ``ACTIVITY.enabled`` (the doctor and the
benchmarks turn it on; otherwise a call costs one attribute test). When a
heartbeat comes late, ``ACTIVITY.blame(since, until)`` names the spans that
overlapped the lateness, longest first; what none covers is "other (event
loop, layout, Qt, the GIL)".

While enabled it also records the garbage collector's older-generation
collections ("garbage collection (generation N)"), on whichever thread
they run: a collection holds the GIL throughout, so the GUI thread is
stopped either way (a 186,000-object heap took 27 ms). Such a span lies
inside the span of the work that set it off, so both are named.

Threading rule: spans are recorded on the GUI thread (spans from other
threads are not recorded), except the collector's, appended from any thread
(one ``deque.append``, atomic under the GIL).
"""

from __future__ import annotations

import functools
import gc
import time
from collections import deque
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["ACTIVITY", "ActivityLog", "traced"]

F = TypeVar("F", bound=Callable[..., Any])


class ActivityLog:
    """The last spans of GUI-thread work (a bounded ring)."""

    def __init__(self, maxlen: int = 4096) -> None:
        self._enabled = False
        self._spans: deque[tuple[str, float, float]] = deque(maxlen=maxlen)
        self._collection_start = 0.0

    @property
    def enabled(self) -> bool:
        return self._enabled

    @enabled.setter
    def enabled(self, on: bool) -> None:
        """Record spans from now on (or stop); the collector is watched only meanwhile."""
        if on and not self._enabled:
            gc.callbacks.append(self._on_collection)
        elif not on and self._enabled:
            gc.callbacks.remove(self._on_collection)
        self._enabled = on

    def _on_collection(self, phase: str, info: dict[str, int]) -> None:
        """``gc.callbacks``: a collection started or ended (any thread)."""
        if phase == "start":
            self._collection_start = time.perf_counter()
        elif info["generation"] >= 1:  # the youngest generation's are ~0.1 ms and frequent
            self.record(f"garbage collection (generation {info['generation']})",
                        self._collection_start, time.perf_counter())

    def record(self, label: str, start: float, end: float) -> None:
        if self.enabled:
            self._spans.append((label, start, end))

    def clear(self) -> None:
        self._spans.clear()

    def blame(self, since: float, until: float) -> list[tuple[str, float]]:
        """(label, ms of it inside [since, until]) for each span overlapping
        that interval, longest first; the rest as "other (…)"."""
        parts: dict[str, float] = {}
        covered = 0.0
        for label, start, end in reversed(self._spans):
            if end < since:
                break
            inside = min(end, until) - max(start, since)
            if inside > 0:
                parts[label] = parts.get(label, 0.0) + inside
                covered += inside
        rest = (until - since) - covered
        if rest > 0.0005:
            parts["other (event loop, layout, Qt, the GIL)"] = rest
        return sorted(((label, round(s * 1000, 2)) for label, s in parts.items()), key=lambda p: -p[1])


#: The GUI thread's activity log.
ACTIVITY = ActivityLog()


def traced(label: str) -> Callable[[F], F]:
    """Decorate a GUI-thread method: its calls are spans named ``label``."""

    def decorate(fn: F) -> F:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if not ACTIVITY.enabled:
                return fn(*args, **kwargs)
            start = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                ACTIVITY.record(label, start, time.perf_counter())

        return wrapper  # type: ignore[return-value]  # same signature as fn

    return decorate
