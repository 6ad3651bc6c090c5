"""A cooperative, time-sliced work queue on the GUI thread (``TimeSlicer``).

Jobs run in order in slices of at most ``budget_s`` seconds, one slice per
turn of the event loop. A job that returns a generator goes on, one ``next``
at a time, in later slices: it yields after each costly step (one document
built, one message scanned...). Used by the conversation view (documents)
and the find bar (matches).

Threading rule: GUI thread only.
"""

from __future__ import annotations

import logging
import time
from collections import deque
from collections.abc import Callable, Iterator

from PyQt6.QtCore import QObject, QTimer, pyqtSignal

from app.ui.services.activity import ACTIVITY

log = logging.getLogger(__name__)

Job = Callable[[], Iterator[None] | None]


class TimeSlicer(QObject):
    """Runs queued jobs in time-boxed slices (see the module docstring)."""

    #: A slice ran and the queue is empty now (``drained_kinds``: what ran since the last time); no args.
    drained = pyqtSignal()

    def __init__(self, budget_s: float = 0.003, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.budget_s = budget_s
        self._work: deque[tuple[str, Job | Iterator[None]]] = deque()
        self._keys: set[str] = set()
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._on_due)
        #: The kinds of the jobs run since the queue last drained (a key's text before its first ":").
        self.drained_kinds: frozenset[str] = frozenset()
        self._ran_kinds: set[str] = set()
        self.slices = 0              # slices run (telemetry for benchmarks and the doctor)
        self.max_slice_s = 0.0
        self.last_slice_s = 0.0

    def queue(self, key: str, job: Job) -> None:
        """Run ``job`` in later slices; a key already queued is not queued twice."""
        if key in self._keys:
            return
        self._keys.add(key)
        self._work.append((key, job))
        if not self._timer.isActive():
            self._timer.start(0)

    def clear(self) -> None:
        """Drop every queued job."""
        self._ran_kinds.add("cleared")
        self._work.clear()
        self._keys.clear()

    def stop(self) -> None:
        """Drop every queued job and stop the timer."""
        self.clear()
        self._timer.stop()

    @property
    def busy(self) -> bool:
        return bool(self._work)

    def run_slice(self) -> None:
        """Run one slice now (what the timer does)."""
        t0 = time.perf_counter()
        deadline = t0 + self.budget_s
        work = self._work
        ran = False
        tracing = ACTIVITY.enabled
        while work and (not ran or time.perf_counter() < deadline):  # at least one step per slice
            ran = True
            key, step = work[0]
            kind = key.split(":", 1)[0]   # "build", "free", "scan" …: the job's kind, not its id
            step_start = time.perf_counter() if tracing else 0.0
            try:
                if isinstance(step, Iterator):
                    next(step)
                    continue
                result = step()
                if isinstance(result, Iterator):
                    work[0] = (key, result)
                    continue
            except StopIteration:
                pass
            except Exception:
                log.exception("time-sliced work step failed")
            finally:
                if tracing:
                    ACTIVITY.record("slice: " + kind, step_start, time.perf_counter())
            work.popleft()
            self._keys.discard(key)
            self._ran_kinds.add(kind)
        spent = time.perf_counter() - t0
        self.slices += 1
        self.last_slice_s = spent
        self.max_slice_s = max(self.max_slice_s, spent)
        if work:
            self._timer.start(0)
        else:
            self.drained_kinds, self._ran_kinds = frozenset(self._ran_kinds), set()
            self.drained.emit()

    def _on_due(self) -> None:
        self.run_slice()
