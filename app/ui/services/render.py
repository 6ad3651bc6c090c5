"""Markdown and Pygments off the GUI thread, and out of the GUI process.

Threading rule: construct ``RenderService`` and call its methods on the GUI
thread. One private QThread takes the jobs; with ``processes=True`` (the app)
it hands each to a worker process (``app.core.render.pool.RenderPool``, which
the thread starts, owns and closes before it ends), so Python-Markdown and
Pygments never take the GUI process's GIL; until that process is ready, and
with ``processes=False`` (most tests), it renders itself. It never touches a
Qt text object, because PyQt holds the GIL inside Qt text calls and building
documents there would stall the GUI just the same. Results come back as ``rendered`` signals (queued to the GUI
thread) carrying immutable ``app.core.render.blocks.Unit`` tuples; the view turns
them into small documents in time-boxed slices.

Jobs are taken by priority (lower first), then in order. A newer job for the
same key replaces a pending one; ``cancel`` drops a message's pending jobs.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import threading
from dataclasses import dataclass

from PyQt6.QtCore import QObject, QThread, pyqtSignal

from app.core.render import blocks
from app.core.render.jobs import RenderJob, render_job
from app.core.render.pool import RenderPool
from app.ui.services.threads import ThreadedService

__all__ = ["PRIORITY_BACKGROUND", "PRIORITY_NOW", "PRIORITY_VISIBLE", "RenderJob", "RenderResult", "RenderService",
           "render_job"]

log = logging.getLogger(__name__)

#: Priorities: the streaming reply and a just-sent message first, then what is
#: on screen, then everything else.
PRIORITY_NOW = 0
PRIORITY_VISIBLE = 1
PRIORITY_BACKGROUND = 2


@dataclass(frozen=True)
class RenderResult:
    job: RenderJob
    units: tuple[blocks.Unit, ...]


class _RenderThread(QThread):
    def __init__(self, service: RenderService) -> None:
        super().__init__()
        self.setObjectName("rill-render")
        self._service = service

    def run(self) -> None:
        service = self._service
        pool = service.pool
        if pool is not None:
            pool.start()
        try:
            while True:
                job = service._take()
                if job is None:
                    return
                # Plain pieces of a long open block cost microseconds: no round trip to the process.
                units = pool.render(job) if pool is not None and job.kind != "stream_plain" else render_job(job)
                service._deliver(RenderResult(job, units))
        finally:
            if pool is not None:
                pool.close()   # the process ends before the thread does


class RenderService(ThreadedService):
    """The GUI's handle on the render thread (see the module docstring)."""

    #: A job was rendered; arg: RenderResult. Emitted on the GUI thread.
    rendered = pyqtSignal(object)

    def __init__(self, parent: QObject | None = None, processes: bool = False) -> None:
        super().__init__(parent)
        #: The worker process's pool (``processes=True``); used by the render thread only.
        self.pool: RenderPool | None = RenderPool() if processes else None
        self._cond = threading.Condition()
        self._heap: list[tuple[int, int, tuple[str, str, int]]] = []
        self._jobs: dict[tuple[str, str, int], RenderJob] = {}
        self._order = itertools.count()
        self._stopping = False
        self._start_thread(_RenderThread(self), QThread.Priority.LowPriority)

    def request(self, job: RenderJob, priority: int = PRIORITY_NOW) -> None:
        key = (job.message_id, job.kind, job.token)
        with self._cond:
            if self._stopping:
                return
            fresh = key not in self._jobs
            self._jobs[key] = job
            if fresh:
                heapq.heappush(self._heap, (priority, next(self._order), key))
            self._cond.notify()

    def cancel(self, message_id: str) -> None:
        with self._cond:
            for key in [k for k in self._jobs if k[0] == message_id]:
                del self._jobs[key]

    def cancel_all(self) -> None:
        with self._cond:
            self._jobs.clear()
            self._heap.clear()

    def pending(self) -> int:
        with self._cond:
            return len(self._jobs)

    # -- render thread side ------------------------------------------------------

    def _take(self) -> RenderJob | None:
        with self._cond:
            while True:
                if self._stopping:
                    return None
                while self._heap:
                    _, _, key = heapq.heappop(self._heap)
                    job = self._jobs.pop(key, None)
                    if job is not None:
                        return job
                self._cond.wait()

    def _deliver(self, result: RenderResult) -> None:
        self.rendered.emit(result)  # queued to this object's (GUI) thread

    # -- lifetime ------------------------------------------------------------------

    def request_stop(self) -> None:
        """Ask the thread to end after the job it is rendering (if any); returns at once.
        ``worker_thread.finished`` follows."""
        with self._cond:
            self._stopping = True
            self._jobs.clear()
            self._heap.clear()
            self._cond.notify_all()
