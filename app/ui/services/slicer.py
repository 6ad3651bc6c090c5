"""A cooperative, time-sliced work queue on the GUI thread (``TimeSlicer``).

Jobs run in order in slices of at most ``budget_s`` seconds. A job that
returns a generator goes on, one ``next`` at a time, in later slices: it
yields after each costly step (one document built, one message scanned...).
Used by the conversation view (documents), the history loader, the find bar
(matches), the context meter (estimates) and the clipboard.

``SliceScheduler`` gives all of a thread's slicers **one slice per turn of
the event loop, in turn**. Each slicer with its own zero timer ran its slice
in the same pass as the others (Qt fires every due timer in one pass), so
three slicers busy at once (opening a long conversation: the view frees the
old items, the loader makes the new ones, the meter estimates the tokens)
held the GUI thread for the sum of their budgets and a frame due in the
middle waited for all of them. Now a pass holds at most one budget, and
timers, input and paints run between slices. Other GUI work of milliseconds
(the consumer's tick) says so with ``note_busy``: a slice due in the same
pass then gives way once, to the next pass, so a heartbeat or an input due
meanwhile does not wait for the tick and a slice back to back.

Threading rule: GUI thread only.
"""

from __future__ import annotations

import logging
import time
from collections import deque
from collections.abc import Callable, Iterator

from PyQt6 import sip
from PyQt6.QtCore import QCoreApplication, QObject, QTimer, pyqtSignal

from app.ui.services.activity import ACTIVITY

log = logging.getLogger(__name__)

Job = Callable[[], Iterator[None] | None]


class SliceScheduler(QObject):
    """Runs one ready slicer's slice per turn of the event loop, round robin.

    One per application (``shared``), owned by the ``QCoreApplication``; a
    slicer with work asks for a turn (``request``) and goes to the back of
    the line after its slice if it still has work.
    """

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._ready: deque[TimeSlicer] = deque()
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._on_due)
        self._busy_end = 0.0   # perf_counter when other GUI work last ended (``note_busy``)
        self._gave_way = False

    @staticmethod
    def shared() -> SliceScheduler:
        """The application's scheduler, made on first use (a child of the application)."""
        app = QCoreApplication.instance()
        for scheduler in _SHARED:
            if not sip.isdeleted(scheduler) and scheduler.parent() is app:
                return scheduler
        _SHARED[:] = [SliceScheduler(app)]   # the old one went with its application
        return _SHARED[0]

    def request(self, slicer: TimeSlicer) -> None:
        """Give ``slicer`` a turn after the slicers already waiting."""
        if slicer not in self._ready:
            self._ready.append(slicer)
        if not self._timer.isActive():
            self._timer.start(0)

    def withdraw(self, slicer: TimeSlicer) -> None:
        """Drop ``slicer``'s turn (it has no work any more)."""
        try:
            self._ready.remove(slicer)
        except ValueError:
            pass
        if not self._ready:
            self._timer.stop()

    @property
    def waiting(self) -> int:
        """How many slicers wait for a turn."""
        return len(self._ready)

    def note_busy(self) -> None:
        """Other GUI work that costs milliseconds just ended (the consumer's
        tick): a slice due in the same turn of the event loop waits for the
        next one, so a timer or input that came due meanwhile runs first."""
        self._busy_end = time.perf_counter()

    def _on_due(self) -> None:
        if not self._gave_way and time.perf_counter() - self._busy_end < GIVE_WAY_S:
            self._gave_way = True      # once: the next turn runs the slice whatever ran before it
            self._timer.start(0)
            return
        self._gave_way = False
        while self._ready:
            slicer = self._ready.popleft()
            if sip.isdeleted(slicer):
                continue          # its owner went away with its queue
            slicer.run_slice()    # asks for another turn when work remains
            break
        if self._ready and not self._timer.isActive():
            self._timer.start(0)


_SHARED: list[SliceScheduler] = []

#: Other work that ended less than this long ago ran in the same turn of the event loop.
GIVE_WAY_S = 0.0005


class TimeSlicer(QObject):
    """Runs queued jobs in time-boxed slices (see the module docstring)."""

    #: A slice ran and the queue is empty now (``drained_kinds``: what ran since the last time); no args.
    drained = pyqtSignal()

    def __init__(
        self, budget_s: float = 0.003, parent: QObject | None = None, scheduler: SliceScheduler | None = None,
    ) -> None:
        super().__init__(parent)
        self.budget_s = budget_s
        self._work: deque[tuple[str, Job | Iterator[None]]] = deque()
        self._keys: set[str] = set()
        self._scheduler = scheduler if scheduler is not None else SliceScheduler.shared()
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
        self._scheduler.request(self)

    def clear(self) -> None:
        """Drop every queued job."""
        self._ran_kinds.add("cleared")
        self._work.clear()
        self._keys.clear()

    def stop(self) -> None:
        """Drop every queued job and give up the turn."""
        self.clear()
        self._scheduler.withdraw(self)

    @property
    def busy(self) -> bool:
        return bool(self._work)

    def run_slice(self) -> None:
        """Run one slice now (what the scheduler does on this slicer's turn)."""
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
            self._scheduler.request(self)
        else:
            self._scheduler.withdraw(self)
            self.drained_kinds, self._ran_kinds = frozenset(self._ran_kinds), set()
            self.drained.emit()
