"""Downloads from the Hugging Face Hub on a QThread of their own (``HubService``).

The queue and the transfer are the core's (``app.core.hub.queue``,
``app.core.hub.download``); this service owns the thread that runs them, one
download after another, and hands every change of a download to the GUI
thread as ``job_changed``. The token is read from the keyring on that
thread, per download (a keyring may block).

At start the thread lists the downloads an earlier run left unfinished in
the models folder (their ``.partial`` files and sidecars) as paused jobs.

Created on first use by ``AppServices.hub()`` and stopped in its ordered
shutdown: the running download is paused (its ``.partial`` file kept, so the
next ``rill pull`` or the next Rill resumes it), then the thread is joined.

Threading rule: create and call it on the GUI thread; the worker thread
only runs ``run_next`` and emits.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from PyQt6.QtCore import QObject, QThread, pyqtSignal

from app.core.base.settings import user_models_dir
from app.core.hub.download import DownloadRequest
from app.core.hub.endpoint import HubToken
from app.core.hub.queue import DONE, DownloadQueue, Job, run_next
from app.ui.services.threads import ThreadedService

log = logging.getLogger(__name__)

#: How long the idle thread waits for a queued download before looking at its stop flag (s).
IDLE_WAIT_S = 0.25


class _HubThread(QThread):
    def __init__(self, service: HubService) -> None:
        super().__init__()
        self.setObjectName("rill-hub")
        self._service = service
        self.stop = threading.Event()

    def run(self) -> None:
        service = self._service
        queue = service.queue
        tokens = HubToken()
        try:
            queue.restore_partials(user_models_dir())  # an earlier run's unfinished downloads, paused
        except Exception:  # noqa: BLE001 - only a convenience
            log.exception("cannot list the unfinished downloads")
        while not self.stop.is_set():
            try:
                if not queue.wait_for_queued(IDLE_WAIT_S) or self.stop.is_set():
                    continue
                run_next(queue, tokens.get(), **service.download_options)
            except Exception:  # noqa: BLE001 - the thread must not die: the job says it failed
                log.exception("the hub thread's download failed")


class HubService(ThreadedService):
    """The downloads queue and its thread (see the module docstring).

    Signals:

    * ``job_changed``: a download changed (queued, progress, paused, done,
      failed, cancelled); arg: its ``app.core.hub.queue.Job``.
    * ``download_finished``: a download is complete and verified; arg: the file's path.
    """

    #: A download changed; arg: the Job (GUI thread).
    job_changed = pyqtSignal(object)
    #: A download finished and was verified; arg: the model file's path (str).
    download_finished = pyqtSignal(str)
    #: Internal: emitted on whatever thread changed the queue, queued to the GUI thread.
    _changed = pyqtSignal(object)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.queue = DownloadQueue(self._changed.emit)
        #: Keyword arguments for every FileDownload (tests: short stall timeouts).
        self.download_options: dict[str, Any] = {}
        self._connect_signals()
        self._start_thread(_HubThread(self))

    def _connect_signals(self) -> None:
        self._changed.connect(self._on_changed)

    def _on_changed(self, job: Job) -> None:
        self.job_changed.emit(job)
        if job.state == DONE and job.path:
            self.download_finished.emit(job.path)

    # -- controls (GUI thread) ---------------------------------------------------------------

    def download(self, request: DownloadRequest) -> Job:
        """Queue ``request`` (a file already queued is that job)."""
        return self.queue.add(request)

    def pause(self, job_id: int) -> None:
        self.queue.pause(job_id)

    def resume(self, job_id: int) -> None:
        self.queue.resume(job_id)

    def cancel(self, job_id: int) -> None:
        self.queue.cancel(job_id)

    def jobs(self) -> list[Job]:
        return self.queue.jobs()

    def request_stop(self) -> None:
        thread = self._thread
        if isinstance(thread, _HubThread):
            thread.stop.set()
        self.queue.stop_all()
