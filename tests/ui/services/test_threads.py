"""The shared QThread base of the render and store services."""

from __future__ import annotations

import threading
from typing import Any

from PyQt6.QtCore import QThread

from app.ui.services.threads import LIVE_THREADS, ThreadedService


class _Waiting(QThread):
    def __init__(self, stop: threading.Event) -> None:
        super().__init__()
        self.setObjectName("rill-test-waiting")
        self._stop = stop

    def run(self) -> None:
        self._stop.wait(30)


class _Service(ThreadedService):
    def __init__(self) -> None:
        super().__init__()
        self.stop = threading.Event()
        self._start_thread(_Waiting(self.stop))

    def request_stop(self) -> None:
        self.stop.set()


def test_the_thread_is_registered_running_and_joined_by_shutdown(qtbot: Any) -> None:
    service = _Service()
    thread = service.worker_thread
    assert thread in LIVE_THREADS and thread.isRunning() and not service.is_finished()
    assert thread is not service.thread(), "worker_thread does not shadow QObject.thread()"
    assert service.shutdown(5000) is True
    assert service.is_finished() and thread.isFinished()
