"""Who owns the app's threads, and the base of the two queue-driven services.

``LIVE_THREADS`` lists every QThread a service ever started (weakly), so the
tests can fail on one left running. ``ThreadedService`` is what the render
and store services share: one private QThread started at construction,
``request_stop()`` (the subclass's own: returns at once), ``shutdown()``
(stop, then join), ``is_finished()`` and ``worker_thread``.

Every service is created and shut down by ``app.ui.services.lifecycle.AppServices``.
"""

from __future__ import annotations

import weakref

from PyQt6.QtCore import QObject, QThread

#: Every service QThread ever started, so tests can fail on leaked ones.
LIVE_THREADS: weakref.WeakSet[QThread] = weakref.WeakSet()


class ThreadedService(QObject):
    """A GUI-thread handle on one private QThread (see the module docstring).

    Subclasses build their thread, then call ``_start_thread``; they
    implement ``request_stop`` (ask the thread to end; never blocks)."""

    #: How long ``shutdown()`` waits by default.
    JOIN_TIMEOUT_MS = 5000

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._thread: QThread | None = None

    def _start_thread(self, thread: QThread, priority: QThread.Priority = QThread.Priority.InheritPriority) -> None:
        self._thread = thread
        LIVE_THREADS.add(thread)
        thread.start(priority)

    @property
    def worker_thread(self) -> QThread:
        """The service's thread (its ``finished`` signal says it has ended)."""
        assert self._thread is not None, "the service's thread was never started"
        return self._thread

    def request_stop(self) -> None:
        """Ask the thread to end; returns at once (``worker_thread.finished`` follows)."""
        raise NotImplementedError

    def is_finished(self) -> bool:
        thread = self.worker_thread
        return thread.isFinished() or not thread.isRunning()

    def shutdown(self, timeout_ms: int | None = None) -> bool:
        """``request_stop()``, then block until the thread ends (at most
        ``timeout_ms``, default ``JOIN_TIMEOUT_MS``)."""
        self.request_stop()
        return self.worker_thread.wait(self.JOIN_TIMEOUT_MS if timeout_ms is None else timeout_ms)
