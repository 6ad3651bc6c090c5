"""Several downloads, one after another: their states and the controls (Qt-free).

:class:`DownloadQueue` is the state of every download (queued,
downloading, paused, done, failed, cancelled) and the one place that changes
it; it runs nothing itself. A runner (the UI's hub QThread, ``rill pull``)
calls :meth:`take_next`, runs the ``FileDownload`` with the cancel event it
gets, and reports back with :meth:`finished` / :meth:`failed` /
:meth:`stopped`. Pause sets the running job's cancel event and keeps its
partial file; resume puts it back in the queue (it continues where it
stopped); cancel sets the event too and deletes the partial file.

Thread-safe. ``on_change(job)`` is called after every change, outside the
lock, on the thread that made it.
"""

from __future__ import annotations

import itertools
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from app.core.base.i18n import translate
from app.core.hub.download import FileDownload, Progress
from app.core.hub.endpoint import KIND_CANCELLED, HubError
from app.core.hub.partial import (
    SIDECAR_SUFFIX,
    CancelToken,
    DownloadRequest,
    discard_partial,
    partial_size,
    request_from_sidecar,
)

log = logging.getLogger(__name__)

__all__ = ["DownloadQueue", "Job", "run_next"]

QUEUED = "queued"
DOWNLOADING = "downloading"
PAUSED = "paused"
DONE = "done"
FAILED = "failed"
CANCELLED = "cancelled"
ACTIVE_STATES = (QUEUED, DOWNLOADING, PAUSED)
#: At most this many unfinished downloads are brought back from the models folder.
MAX_RESTORED = 50


@dataclass(frozen=True)
class Job:
    """One download as the downloads panel shows it."""

    id: int
    request: DownloadRequest
    state: str = QUEUED
    progress: Progress | None = None
    #: Why it failed (a sentence), or "".
    error: str = ""
    error_kind: str = ""
    #: The finished file (state DONE).
    path: str = ""

    @property
    def done_bytes(self) -> int:
        return self.progress.done if self.progress else partial_size(self.request)


class DownloadQueue:
    """See the module docstring."""

    def __init__(self, on_change: Callable[[Job], None] | None = None) -> None:
        self._lock = threading.Lock()
        self._jobs: dict[int, Job] = {}
        self._order: list[int] = []
        self._cancels: dict[int, CancelToken] = {}
        self._discard: set[int] = set()
        self._ids = itertools.count(1)
        self._on_change = on_change
        self._wakeup = threading.Condition(self._lock)

    def _changed(self, job: Job | None) -> None:
        if job is not None and self._on_change is not None:
            self._on_change(job)

    def add(self, request: DownloadRequest) -> Job:
        """Queue ``request``; the same target file already queued, running or
        paused is that job (resumed if paused), not a second one."""
        with self._lock:
            for jid in self._order:
                job = self._jobs[jid]
                if job.request.target == request.target and job.state in ACTIVE_STATES:
                    if job.state == PAUSED:
                        job = self._set(jid, state=QUEUED)
                        self._wakeup.notify_all()
                        break
                    return job
            else:
                job = Job(next(self._ids), request)
                self._jobs[job.id] = job
                self._order.append(job.id)
                self._wakeup.notify_all()
        self._changed(job)
        return job

    def _set(self, jid: int, **changes: object) -> Job:
        job = replace(self._jobs[jid], **changes)  # type: ignore[arg-type]
        self._jobs[jid] = job
        return job

    def jobs(self) -> list[Job]:
        with self._lock:
            return [self._jobs[jid] for jid in self._order]

    def get(self, jid: int) -> Job | None:
        with self._lock:
            return self._jobs.get(jid)

    def restore_partials(self, folder: Path) -> list[Job]:
        """The downloads left unfinished in ``folder`` (a ``.partial`` file with
        its sidecar, from an earlier run of Rill or ``rill pull``), added as
        PAUSED jobs: Resume continues each where it stopped. Blocks on I/O."""
        found: list[Job] = []
        try:
            sidecars = sorted(folder.glob("*" + SIDECAR_SUFFIX))[:MAX_RESTORED]
        except OSError:
            return found
        for sidecar in sidecars:
            request = request_from_sidecar(folder, sidecar)
            if request is None or not request.partial.is_file():
                continue
            with self._lock:
                if any(j.request.target == request.target for j in self._jobs.values()):
                    continue
                job = Job(next(self._ids), request, PAUSED)
                self._jobs[job.id] = job
                self._order.append(job.id)
            found.append(job)
            self._changed(job)
        return found

    def take_next(self, wait_s: float = 0.0) -> tuple[Job, threading.Event] | None:
        """The next queued job, now DOWNLOADING, and its cancel event; None when
        none is queued (after waiting up to ``wait_s`` for one)."""
        with self._lock:
            if wait_s > 0 and not self._queued():
                self._wakeup.wait(wait_s)
            queued = self._queued()
            if not queued:
                return None
            jid = queued[0]
            event = CancelToken()
            self._cancels[jid] = event
            job = self._set(jid, state=DOWNLOADING, error="", error_kind="")
        self._changed(job)
        return job, event

    def _queued(self) -> list[int]:
        return [jid for jid in self._order if self._jobs[jid].state == QUEUED]

    def wait_for_queued(self, timeout_s: float) -> bool:
        """Block up to ``timeout_s`` until a job is queued; True when one is."""
        with self._lock:
            if not self._queued():
                self._wakeup.wait(timeout_s)
            return bool(self._queued())

    def wake(self) -> None:
        """Wake a runner waiting in ``take_next`` (at shutdown)."""
        with self._lock:
            self._wakeup.notify_all()

    def progressed(self, jid: int, progress: Progress) -> None:
        with self._lock:
            if jid not in self._jobs:
                return
            job = self._set(jid, progress=progress)
        self._changed(job)

    def finished(self, jid: int, path: str) -> None:
        with self._lock:
            self._cancels.pop(jid, None)
            job = self._set(jid, state=DONE, path=path, error="")
        self._changed(job)

    def failed(self, jid: int, error: str, kind: str = "") -> None:
        """The run failed: the partial file is kept (resume retries it)."""
        with self._lock:
            self._cancels.pop(jid, None)
            job = self._set(jid, state=FAILED, error=error, error_kind=kind)
        self._changed(job)

    def stopped(self, jid: int) -> None:
        """The run ended because its cancel event was set: PAUSED, or CANCELLED
        (its partial file deleted) when cancel asked for it."""
        with self._lock:
            self._cancels.pop(jid, None)
            discard = jid in self._discard
            self._discard.discard(jid)
            job = self._set(jid, state=CANCELLED if discard else PAUSED)
        if discard:
            discard_partial(job.request)
        self._changed(job)

    def pause(self, jid: int) -> None:
        with self._lock:
            job = self._jobs.get(jid)
            if job is None or job.state not in (QUEUED, DOWNLOADING):
                return
            event = self._cancels.get(jid)
            if event is not None:
                event.set()  # the runner reports stopped()
                return
            job = self._set(jid, state=PAUSED)
        self._changed(job)

    def resume(self, jid: int) -> None:
        """A paused or failed download goes back in the queue."""
        with self._lock:
            job = self._jobs.get(jid)
            if job is None or job.state not in (PAUSED, FAILED):
                return
            job = self._set(jid, state=QUEUED, error="", error_kind="")
            self._wakeup.notify_all()
        self._changed(job)

    def cancel(self, jid: int) -> None:
        """Stop the download and delete its partial file."""
        with self._lock:
            job = self._jobs.get(jid)
            if job is None or job.state in (DONE, CANCELLED):
                return
            event = self._cancels.get(jid)
            if event is not None:
                self._discard.add(jid)
                event.set()
                return
            job = self._set(jid, state=CANCELLED)
        discard_partial(job.request)
        self._changed(job)

    def stop_all(self) -> None:
        """Pause the running download (at quit: its partial file is kept)."""
        with self._lock:
            events = list(self._cancels.values())
            self._wakeup.notify_all()
        for event in events:
            event.set()

    def clear_finished(self) -> None:
        with self._lock:
            self._order = [jid for jid in self._order if self._jobs[jid].state in ACTIVE_STATES + (FAILED,)]
            self._jobs = {jid: self._jobs[jid] for jid in self._order}


def run_next(queue: DownloadQueue, token: str = "", wait_s: float = 0.0, **options: Any) -> Job | None:
    """Take the next queued job, run it to its end (blocking), report it to
    ``queue``; the job as it ended, or None when nothing was queued.
    ``options`` go to ``FileDownload`` (client, stall_s...)."""
    taken = queue.take_next(wait_s)
    if taken is None:
        return None
    job, event = taken
    download = FileDownload(job.request, token, cancel=event,
                            on_progress=lambda p: queue.progressed(job.id, p), **options)
    try:
        result = download.run()
    except HubError as exc:
        if exc.kind == KIND_CANCELLED:
            queue.stopped(job.id)
        else:
            queue.failed(job.id, str(exc), exc.kind)
    except Exception as exc:  # noqa: BLE001 - a bug must not kill the runner: the job says it failed
        log.exception("download of %s failed", job.request.name)
        queue.failed(job.id, translate("Hub", "The download failed: {error}").format(error=type(exc).__name__))
    else:
        queue.finished(job.id, str(result.path))
    return queue.get(job.id)
