"""The conversation store on its own thread.

Threading rule: construct ``StoreService`` and call its methods on the GUI
thread; they only queue work and return at once (well under 2 ms). One
private QThread opens the SQLite store (``app.core.store.store``) and runs every
job, in the order they were queued (so a save always lands before a later
load). Results come back to the GUI thread as callbacks.

Writes never lose anything, and what is said about them is true:

* a write the store refuses (read-only or full disk, another program holding
  the file) is kept in the store's own retry queue (``Store.retry_pending``:
  the only one, keyed by message, newest snapshot only); ``saving_failed``
  says so once, and every ``RETRY_S`` seconds the service asks the store to
  retry;
* ``saving_recovered`` ("everything is in the history now") is emitted only
  when the store's queue is empty AND no write queued on the thread is still
  waiting to run: every pending write has landed;
* ``unsaved_conversations`` names the conversations whose writes have not
  landed (for the quit guard, ``app.ui.window.quit_guard``), known on the GUI
  thread without asking the (possibly waiting) store thread;
* ``hurry()`` makes a write waiting for another program's lock give up
  within a fraction of a second (closing); ``request_stop`` hurries too, so
  the final flush is bounded: the queued writes merge into the store's queue,
  one last retry runs, the store closes.

Without a store (none could be opened) nothing can be written:
``saving_failed`` says so once. A job that fails for a reason that is not the
store's (a bug) is logged; the user reads a plain sentence, never a Python error.
"""

from __future__ import annotations

import logging
import queue
import sys
import threading
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
    #: The conversation a write changes ('' when none or unknown).
    conversation: str = ""


@dataclass
class _Done:
    """A job's outcome, sent from the store thread."""

    job: _Job
    value: Any
    #: A sentence for the user when a write failed (None: it did not).
    error: str | None
    #: The conversations the store's retry queue still holds writes of (None: no store).
    pending: tuple[str, ...] | None
    #: The store's reason key when a write failed ("invalid": it is not kept for a retry).
    reason: str = ""


class _StoreThread(QThread):
    def __init__(self, service: StoreService, path: Path | None, enabled: bool = True) -> None:
        super().__init__()
        self.setObjectName("rill-store")
        self._service = service
        self._path = path
        self._enabled = enabled
        self.jobs: queue.Queue[_Job | None] = queue.Queue()
        #: Set from the GUI thread: writes waiting for a lock give up soon (closing).
        self.hurry = threading.Event()
        self._store: Any = None
        #: What is unsaved as the store thread knows it now (any thread may read it):
        #: the conversations of the store's pending writes, or with no store of every write.
        self.unsaved_now: tuple[str, ...] = ()
        self._lost: dict[str, None] = {}

    def wait_idle(self, timeout_s: float) -> bool:
        """Any thread: block until every job queued so far has run (at most
        ``timeout_s``); True when it has."""
        jobs = self.jobs
        with jobs.all_tasks_done:
            return jobs.all_tasks_done.wait_for(lambda: jobs.unfinished_tasks == 0, timeout_s)

    def set_hurry(self, on: bool) -> None:
        """Any thread: hurry the store's writes (or stop hurrying them)."""
        if on:
            self.hurry.set()
        else:
            self.hurry.clear()
        store = self._store
        if store is not None:
            store.hurry(on)

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
        except Exception:  # noqa: BLE001 - never let the thread die silently
            log.exception("opening the store failed")
            notice = QCoreApplication.translate(
                "StoreService", "The conversation history could not be opened (the details are in the log)."
            )
            service._opened.emit((False, [notice], True))
        else:
            store = result.store
            if store is not None:
                self._store = store  # first: a hurry() from now on reaches it directly
                store.hurry(self.hurry.is_set())
            service._opened.emit((store is not None, list(result.notices), bool(result.read_only)))
        write_error = getattr(sys.modules.get("app.core.store"), "StoreWriteError", OSError)
        while True:
            job = self.jobs.get()
            try:
                if job is None:
                    break
                self._run(job, store, write_error)
            finally:
                self.jobs.task_done()
        if store is not None:
            try:
                if store.pending_count:
                    store.retry_pending()  # the last chance; hurried: a lock is waited for briefly
                store.close()
            except Exception:  # noqa: BLE001 - logged; the thread ends either way
                log.exception("closing the store failed")

    def _run(self, job: _Job, store: Any, write_error: type[BaseException]) -> None:
        service = self._service
        if store is None:
            reason = QCoreApplication.translate("StoreService", "no store") if job.write else None
            if job.write and job.conversation:
                self._lost[job.conversation] = None
                self.unsaved_now = tuple(self._lost)
            service._done.emit(_Done(job, None, reason, None))
            return
        error: str | None = None
        reason = ""
        value = None
        try:
            value = job.fn(store)
        except write_error as exc:
            error = str(exc) or QCoreApplication.translate("StoreService", "the disk refused the write")
            reason = str(getattr(exc, "reason", ""))
        except Exception:  # noqa: BLE001 - a failing job must not kill the store thread
            log.exception("store job failed")
            if job.write:
                error = QCoreApplication.translate(
                    "StoreService", "Rill could not save a change (an internal error; the details are in the log)"
                )
                reason = "invalid"
        pending = tuple(store.pending_conversations()) if store.pending_count else ()
        if store.pending_count and not pending:
            pending = ("",)  # pending writes of no known conversation: unsaved all the same
        self.unsaved_now = pending
        service._done.emit(_Done(job, value, error, pending, reason))


class StoreService(ThreadedService):
    """The GUI's handle on the store thread (see the module docstring)."""

    JOIN_TIMEOUT_MS = 10000

    #: The store is open; args: usable (bool), notices for the user (list[str]), read-only (bool).
    opened = pyqtSignal(bool, object, bool)
    #: A write failed; what was to be written is kept and retried; arg: the reason.
    saving_failed = pyqtSignal(str)
    #: Every write that had failed has landed, and none is waiting to run; no args.
    saving_recovered = pyqtSignal()
    #: A write could not be made at all (its data cannot be stored) and is not
    #: kept for a retry; arg: a sentence for the user.
    write_refused = pyqtSignal(str)
    #: ``unsaved_conversations`` changed; arg: the ids (list[str]).
    unsaved_changed = pyqtSignal(object)

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
        #: Why the last write failed (a sentence for the user; '' when none did since the last recovery).
        self.failure = ""
        self._failing = False
        self._writes_queued = 0  # write jobs put on the thread and not done yet
        self._unsaved: list[str] = []
        self._unsaved_without_store: dict[str, None] = {}
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

    def write(self, fn: StoreJob, callback: Callable[[Any], None] | None = None, conversation_id: str = "") -> None:
        """Queue a write: ``fn`` makes ONE store write call (a write the store
        refuses is queued there, and a job's later calls would not run).
        ``conversation_id``: the conversation it changes (what is unsaved if it fails)."""
        self._put(_Job(fn, callback, write=True, conversation=conversation_id))

    def save_message(self, conversation_id: str, message: Message) -> None:
        """Save a message's text, status and facts (a snapshot taken now)."""
        snapshot = message.snapshot()
        self.write(lambda store: store.save_message(snapshot, conversation_id), conversation_id=conversation_id)

    def retry_now(self, callback: Callable[[bool], None] | None = None) -> None:
        """Ask the store to write what is pending now, after the queued jobs;
        ``callback(everything_saved)`` on the GUI thread."""
        self._put(_Job(lambda store: store.retry_pending(), callback, write=True, retry=True))

    def wait_flushed(self, timeout_ms: int) -> bool:
        """Block the caller until every job queued so far has run, at most
        ``timeout_ms`` (closing: hurried, the last saves take milliseconds,
        a fraction of a second under a lock); True when they have. Then
        ``unsaved_now()`` is what the store thread knows."""
        return self._store_thread.wait_idle(timeout_ms / 1000)

    def unsaved_now(self) -> list[str]:
        """The conversations with unsaved changes as the store thread knows
        them now (ahead of ``unsaved_conversations``, which follows the
        results on the GUI thread); '' stands for changes of no known one."""
        return list(self._store_thread.unsaved_now)

    def hurry(self, on: bool = True) -> None:
        """A write waiting for another program's lock gives up within a
        fraction of a second, and writes after a failure join the store's
        queue without waiting (closing); ``hurry(False)``: wait as usual again."""
        self._store_thread.set_hurry(on)

    def _put(self, job: _Job) -> None:
        if self._stopped:
            return
        if not self.enabled:
            callback = job.callback
            if not job.write and callback is not None:
                QTimer.singleShot(0, lambda: callback(None))
            return
        if job.write:
            self._writes_queued += 1
        self._store_thread.jobs.put(job)

    # -- what is unsaved ---------------------------------------------------------------

    @property
    def saving_failing(self) -> bool:
        """A write failed and not everything has landed since."""
        return self._failing

    @property
    def writes_queued(self) -> int:
        """Write jobs queued on the store thread that have not run yet."""
        return self._writes_queued

    @property
    def unsaved_conversations(self) -> list[str]:
        """The ids of the conversations with changes not in the history (the
        store's retry queue, or every failed write when there is no store)."""
        return list(self._unsaved)

    # -- results -------------------------------------------------------------------

    def _on_opened(self, payload: tuple[bool, list[str], bool]) -> None:
        self.available, self.notices, self.read_only = payload
        self.opened.emit(self.available, self.notices, self.read_only)

    def _on_done(self, done: _Done) -> None:
        job = done.job
        if job.write:
            self._writes_queued = max(0, self._writes_queued - 1)
        if done.pending is None:  # no store: nothing written will ever land
            if job.write and job.conversation:
                self._unsaved_without_store[job.conversation] = None
            self._set_unsaved(list(self._unsaved_without_store))
        else:
            self._set_unsaved(list(done.pending))
        if done.error is not None and done.reason == "invalid":
            self.write_refused.emit(done.error)  # not kept: saying "saved again" later would be untrue
        elif done.error is not None and job.write and not job.retry:
            self.failure = done.error
            if not self._failing:
                self._failing = True
                self.saving_failed.emit(done.error)
            if done.pending is not None:
                self._retry.start()
        elif self._failing and done.pending == () and self._writes_queued == 0:
            self._set_recovered()  # every write that had failed has landed, none waits to run
        if job.callback is not None:
            try:
                job.callback(bool(done.value) if job.retry else done.value)
            except Exception:  # noqa: BLE001 - a callback's bug must not stop the queue
                log.exception("store callback failed")

    def _set_unsaved(self, ids: list[str]) -> None:
        if ids != self._unsaved:
            self._unsaved = ids
            self.unsaved_changed.emit(list(ids))

    def _set_recovered(self) -> None:
        if self._failing:
            self._failing = False
            self.failure = ""
            self._retry.stop()
            self.saving_recovered.emit()

    def _on_retry_due(self) -> None:
        self.retry_now()

    # -- lifetime ----------------------------------------------------------------------

    def request_stop(self) -> None:
        """Finish the queued jobs (hurried: the final flush is bounded), close
        the store and end the thread; returns at once."""
        if not self._stopped:
            self._stopped = True
            self._retry.stop()
            self.hurry()
            self._store_thread.jobs.put(None)
