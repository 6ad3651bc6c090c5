"""Rendering in a worker process, outside the GUI process's GIL (Qt-free).

PyQt6 holds the GIL inside Qt text calls, and Python-Markdown and Pygments
are pure Python: on a thread of the GUI process they take the GIL from the
GUI thread (issue #18). ``RenderPool`` runs ``app.core.render.jobs.render_job``
in one ``multiprocessing`` process started with *spawn* (no fork of a Qt
process); jobs and units cross as pickles.

* **Start-up off the first paint**: ``start()`` only launches the process
  and sends it a warm-up job (importing Markdown and Pygments there); until
  its answer is back, ``render`` renders in the calling thread, the same way.
  The process starts at the window's priority and lowers its own once warm
  (``warm_up_worker``): started at nice 10 on a busy machine (two cores
  taken by the model, a test run or a build), it got a tenth of a core and
  was still importing when a whole reply had been rendered in the window's
  process instead (seen in CI).
* **Faults**: a job that takes longer than ``timeout_s`` (hostile text), or a
  process that died, ends the process; that job's text comes back as plain
  units, and a new process is started for the next job.
* **Frozen bundle**: the launcher calls ``multiprocessing.freeze_support()``.

Threading rule: one thread (the render thread) calls ``start``, ``render``
and ``close``; ``close`` ends the process and joins the pool's own threads.
"""

from __future__ import annotations

import logging
import multiprocessing
import multiprocessing.pool
import os
import pickle
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from app.core.render import blocks
from app.core.render.jobs import (
    RenderJob,
    plain_units,
    render_job,
    render_job_pickled,
    warm_up_math,
)

log = logging.getLogger(__name__)
T = TypeVar("T")

__all__ = ["RENDER_TIMEOUT_S", "RenderPool"]

#: A job that takes longer in the worker process is given up (its text is shown plain).
RENDER_TIMEOUT_S = 15.0
_WARM_UP = RenderJob("", "final", "*warm* `up`\n\n```python\nx = 1\n```\n")


#: A job with math waits this long at most for the starting process (see ``render``).
MATH_WAIT_S = 5.0


def _has_math(text: str) -> bool:
    return "$" in text or "\\(" in text or "\\[" in text


class RenderPool:
    """One worker process that renders jobs (see the module docstring)."""

    def __init__(self, timeout_s: float = RENDER_TIMEOUT_S) -> None:
        self.timeout_s = timeout_s
        self._pool: multiprocessing.pool.Pool | None = None
        self._warm: multiprocessing.pool.AsyncResult[tuple[blocks.Unit, ...]] | None = None
        self._ready = False
        self._waited = False       # a math job waited for the process in vain once
        self.restarts = 0          # processes replaced after a fault (tests, the doctor)
        self.in_process = 0        # jobs rendered here while the process was not ready
        self.in_worker = 0         # jobs rendered by the process

    def start(self) -> None:
        """Launch the process (if none runs) and warm it up; returns at once.
        A process that cannot be started (no processes left, a sandbox)
        leaves the pool without one: every job is rendered here."""
        if self._pool is not None:
            return
        self._ready = False
        try:
            self._pool = multiprocessing.get_context("spawn").Pool(processes=1)
            self._warm = self._pool.apply_async(warm_up_worker, (_WARM_UP,))
        except Exception:  # noqa: BLE001 - any reason: rendering goes on in this process
            log.exception("could not start the render process; rendering in this process")
            self._terminate()

    @property
    def answered(self) -> bool:
        """The process has answered its warm-up job (either way). Unlike
        ``ready``, safe to read from any thread (the doctor's wait)."""
        warm = self._warm
        return warm is not None and warm.ready()

    @property
    def ready(self) -> bool:
        """The process has answered its warm-up job."""
        if not self._ready and self._warm is not None and self._warm.ready():
            self._ready = self._warm.successful()
            if not self._ready:
                log.warning("the render process failed to start; rendering in this process")
        return self._ready

    def wait_ready(self, timeout_s: float) -> bool:
        """Block until the process answered its warm-up job (tests, the doctor); ``ready``."""
        if self._warm is not None:
            self._warm.wait(timeout_s)
        return self.ready

    def call(self, fn: Callable[..., T], *args: Any, timeout_s: float = 30.0) -> T:
        """``fn(*args)`` run in the worker process (tests, diagnostics); it must be started."""
        if self._pool is None:
            raise RuntimeError("the render process is not started")
        return self._pool.apply_async(fn, args).get(timeout_s)

    def render(self, job: RenderJob) -> tuple[blocks.Unit, ...]:
        """``render_job(job)``: in the process when it is ready, here otherwise."""
        if self._pool is not None and not self.ready and not self._waited and _has_math(job.text):
            # Typesetting here would import ziamath into this (the window's)
            # process and hold its GIL for ~0.5 s: the process is about to be
            # ready, so this thread waits for it instead (once: a process that
            # does not come up is not waited for again).
            self._waited = not self.wait_ready(MATH_WAIT_S)
        if self._pool is None or not self.ready:
            self.in_process += 1
            return render_job(job)
        try:
            pickled = self._pool.apply_async(render_job_pickled, (job,)).get(self.timeout_s)
            units = tuple(pickle.loads(data) for data in pickled)   # one small unpickling at a time
        except multiprocessing.TimeoutError:
            log.warning("rendering %s took longer than %.0f s: shown as plain text", job.message_id, self.timeout_s)
            self._restart()
            return plain_units(job.text)
        except Exception:  # noqa: BLE001 - the process died or the result did not come back
            log.exception("the render process failed; shown as plain text")
            self._restart()
            return plain_units(job.text)
        self.in_worker += 1
        return units

    def _restart(self) -> None:
        self.restarts += 1
        self._terminate()
        self.start()

    def _terminate(self) -> None:
        pool, self._pool, self._warm, self._ready = self._pool, None, None, False
        if pool is not None:
            pool.terminate()
            pool.join()

    def close(self) -> None:
        """End the process (a job still running in it is abandoned) and join the pool's threads."""
        self._terminate()


def warm_up_worker(job: RenderJob) -> tuple[blocks.Unit, ...]:
    """The worker process's first job: render ``job`` (importing Markdown and
    Pygments) at the priority the process started with, then lower it, then
    load ziamath and its font (~0.3–0.7 s) on a thread of its own. Not as a
    queued job: the process keeps taking jobs meanwhile (a job queued behind
    a busy worker could fill the pipe, and a restart would then wait on it
    forever); a formula rendered in the meantime waits for the import."""
    units = render_job(job)
    lower_priority()   # (on Linux a thread's: the math thread, started next, inherits it)
    threading.Thread(target=warm_up_math, name="rill-math-warm-up", daemon=True).start()
    return units


def lower_priority() -> None:
    """The worker process's start: a lower CPU priority (nice 10), so that on
    a machine with few cores the model's threads and the GUI come first (the
    deferred pass is the low-priority one: the product card)."""
    try:
        os.nice(10)
    except (AttributeError, OSError):  # no nice() (Windows) or not allowed: render at the same priority
        pass


def default_enabled() -> bool:
    """Render in a worker process unless ``RILL_RENDER_PROCESS=0``."""
    return os.environ.get("RILL_RENDER_PROCESS", "1") != "0"
