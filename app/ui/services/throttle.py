"""A Throttle: call a function at most once per interval, however often asked."""

from __future__ import annotations

import time
from collections.abc import Callable

from PyQt6.QtCore import QObject, Qt, QTimer


class Throttle(QObject):
    """``throttle()`` asks for a call of ``func``; calls are spaced at least
    ``delay_ms`` apart and asks in between collapse into one deferred call.
    Runs on the thread that owns it (the GUI thread here)."""

    def __init__(self, func: Callable[[], None], delay_ms: int, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._func = func
        self._delay_ms = delay_ms
        self._last = 0.0
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setTimerType(Qt.TimerType.CoarseTimer)
        self._timer.timeout.connect(self._on_timeout)

    def __call__(self) -> None:
        if self._timer.isActive():
            return
        since_ms = (time.monotonic() - self._last) * 1000
        self._timer.start(max(0, int(self._delay_ms - since_ms)))

    def _on_timeout(self) -> None:
        self._last = time.monotonic()
        self._func()

    def cancel(self) -> None:
        self._timer.stop()

    @property
    def pending(self) -> bool:
        return self._timer.isActive()
