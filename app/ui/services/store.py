"""The conversation store on its own thread.

Threading rule: construct ``StoreService`` and call its methods on the GUI
thread; they only queue work and return at once (well under 2 ms). One
private QThread opens the SQLite store (``app.core.store.store``) and runs every
job, in the order they were queued (so a save always lands before a later
load). Results come back to the GUI thread as callbacks.

Writes never lose anything: a write the store refuses (read-only or full
disk, another program holding the file) is kept in the store's own retry
queue (``Store.retry_pending``: the only one, keyed by message, newest
snapshot only), ``saving_failed`` says so once, and every ``RETRY_S``
seconds the service asks the store to retry until everything is written
(``saving_recovered``). Without a store (none could be opened) nothing can be
written: ``saving_failed`` says so once.
"""

from __future__ import annotations

import logging
import queue
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PyQt6.QtCore import QCoreApplication, QObject, QThread, QTimer, pyqtSignal

from app.core.conversation.model import Message
from app.ui.services.threads import ThreadedService

log = logging.getLogger(__name__)

RETRY_S = 10.0

StoreJob = Callable[[Any], Any]


@dataclass
class _Job:
    fn: StoreJob
    callback: Callable[[Any], None] | None
    write: bool
    #: The job is ``Store.retry_pending`` (its result says whether all is written).
    retry: bool = False


class _StoreThread(QThread):
    def __init__(self, service: StoreService, path: Path | None, enabled: bool = True) -> None:
        super().__init__()
        self.setObjectName("rill-store")
        self._service = service
        self._path = path
        self._enabled = enabled
        self.jobs: queue.Queue[_Job | None] = queue.Queue()

    def run(self) -> None:
        service = self._service
        if not self._enabled:
            service._opened.emit((False, [], False))
            while self.jobs.get() is not None:
                pass
            return
        store = None
        try:
            import app.core.store as store_module

            result = store_module.Store.open(self._path)
        except Exception as exc:  # noqa: BLE001 - never let the thread die silently
            log.exception("opening the store failed")
            notice = QCoreApplication.translate(
                "StoreService", "The conversation history could not be opened: {error}"
            ).format(error=exc)
            service._opened.emit((False, [notice], True))
        else:
            service._opened.emit((result.store is not None, list(result.notices), bool(result.read_only)))
            store = result.store
        write_error = getattr(sys.modules.get("app.core.store"), "StoreWriteError", OSError)
        while True:
            job = self.jobs.get()
            if job is None:
                break
            if store is None:
                reason = QCoreApplication.translate("StoreService", "no store") if job.write else None
                service._done.emit((job, None, reason))
                continue
            try:
                value = job.fn(store)
            except write_error as exc:
                reason = str(exc) or QCoreApplication.translate("StoreService", "the disk refused the write")
                service._done.emit((job, None, reason))
                continue
            except Exception as exc:  # noqa: BLE001 - a failing job must not kill the store thread
                log.exception("store job failed")
                service._done.emit((job, None, f"{type(exc).__name__}: {exc}" if job.write else None))
                continue
            service._done.emit((job, value, None))
        if store is not None:
            try:
                store.close()
            except Exception:  # noqa: BLE001 - logged; the thread ends either way
                log.exception("closing the store failed")


class StoreService(ThreadedService):
    """The GUI's handle on the store thread (see the module docstring)."""

    JOIN_TIMEOUT_MS = 10000

    #: The store is open; args: usable (bool), notices for the user (list[str]), read-only (bool).
    opened = pyqtSignal(bool, object, bool)
    #: A write failed; what was to be written is kept and retried; arg: the reason.
    saving_failed = pyqtSignal(str)
    #: Writes go through again after a failure.
    saving_recovered = pyqtSignal()

    # Private: from the store thread.
    _opened = pyqtSignal(object)
    _done = pyqtSignal(object)

    def __init__(self, path: Path | None = None, parent: QObject | None = None, enabled: bool = True) -> None:
        super().__init__(parent)
        #: False: nothing is stored at all (rill doctor, benchmarks): reads
        #: answer None, writes are dropped, no warning is shown.
        self.enabled = enabled
        self.available = False
        self.read_only = False
        self.notices: list[str] = []
        self._failing = False
        self._retry = QTimer(self)
        self._retry.setInterval(int(RETRY_S * 1000))
        self._retry.timeout.connect(self._on_retry_due)
        self._store_thread = _StoreThread(self, path if enabled else None, enabled)
        self._opened.connect(self._on_opened)
        self._done.connect(self._on_done)
        self._stopped = False
        self._start_thread(self._store_thread)

    # -- asking ------------------------------------------------------------------

    def read(self, fn: StoreJob, callback: Callable[[Any], None]) -> None:
        """Run ``fn(store)`` on the store thread; ``callback(result)`` on the
        GUI thread (result None when there is no store or it failed)."""
        self._put(_Job(fn, callback, write=False))

    def write(self, fn: StoreJob, callback: Callable[[Any], None] | None = None) -> None:
        """Queue a write: ``fn`` makes ONE store write call (a write the store
        refuses is queued there, and a job's later calls would not run)."""
        self._put(_Job(fn, callback, write=True))

    def save_message(self, conversation_id: str, message: Message) -> None:
        """Save a message's text, status and facts (a snapshot taken now)."""
        snapshot = message.snapshot()
        self.write(lambda store: store.save_message(snapshot))

    def _put(self, job: _Job) -> None:
        if self._stopped:
            return
        if not self.enabled:
            callback = job.callback
            if not job.write and callback is not None:
                QTimer.singleShot(0, lambda: callback(None))
            return
        self._store_thread.jobs.put(job)

    # -- results -------------------------------------------------------------------

    def _on_opened(self, payload: tuple[bool, list[str], bool]) -> None:
        self.available, self.notices, self.read_only = payload
        self.opened.emit(self.available, self.notices, self.read_only)

    def _on_done(self, payload: tuple[_Job, Any, str | None]) -> None:
        job, value, error = payload
        if job.retry:
            if error is None and value:
                self._set_recovered()
            return
        if error is not None and job.write:
            # the store keeps the refused write (or there is no store at all)
            if not self._failing:
                self._failing = True
                self.saving_failed.emit(error)
                self._retry.start()
            return
        if job.write:
            self._set_recovered()  # the store wrote it: nothing is pending before it
        if job.callback is not None:
            try:
                job.callback(value)
            except Exception:  # noqa: BLE001 - a callback's bug must not stop the queue
                log.exception("store callback failed")

    def _set_recovered(self) -> None:
        if self._failing:
            self._failing = False
            self._retry.stop()
            self.saving_recovered.emit()

    def _on_retry_due(self) -> None:
        self._put(_Job(lambda store: store.retry_pending(), None, write=True, retry=True))

    # -- lifetime ----------------------------------------------------------------------

    def request_stop(self) -> None:
        """Finish the queued jobs, close the store and end the thread; returns at once."""
        if not self._stopped:
            self._stopped = True
            self._retry.stop()
            self._store_thread.jobs.put(None)
