"""What the GUI thread was doing, as the code knows it (the doctor's stall report).

The GUI thread's units of work (the consumer tick, a paint, a work slice and
the jobs it ran, a render result, a store reply, a send) record a span
``(label, start, end)`` here while ``ACTIVITY.enabled`` (the doctor and the
benchmarks turn it on; otherwise a call costs one attribute test). When a
heartbeat comes late, ``ACTIVITY.blame(since, until)`` names the spans that
overlapped the lateness, longest first; what none covers is "other (event
loop, layout, Qt, the GIL)".

Threading rule: GUI thread only (spans from other threads are not recorded).
"""

from __future__ import annotations

import functools
import time
from collections import deque
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["ACTIVITY", "ActivityLog", "traced"]

F = TypeVar("F", bound=Callable[..., Any])


class ActivityLog:
    """The last spans of GUI-thread work (a bounded ring)."""

    def __init__(self, maxlen: int = 4096) -> None:
        self.enabled = False
        self._spans: deque[tuple[str, float, float]] = deque(maxlen=maxlen)

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
