"""Background calls: a blocking call on a daemon thread, its result
delivered on the GUI thread (``BackgroundCalls``).

Used by the Model menu's model lists, the Servers dialog's Test, the model
manager's header reads and the context meter's history estimate. Every thread
started here is tracked: ``background_threads()`` lists the live ones and
``join_background_threads()`` waits for them (shutdown, tests).
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable
from typing import Any

from PyQt6 import sip
from PyQt6.QtCore import QObject, pyqtSignal

_threads: set[threading.Thread] = set()
_threads_lock = threading.Lock()
_tokens = itertools.count(1)


class _Relay(QObject):
    """Lives on the GUI thread for the whole process (never deleted, so a
    worker can always emit on it): hands each result to its callback."""

    #: A background call ended; args: token, result, exception (or None).
    delivered = pyqtSignal(int, object, object)

    def __init__(self) -> None:
        super().__init__()
        # token -> (owner, callback, cancel); touched on the GUI thread only.
        self.pending: dict[int, tuple[BackgroundCalls, Callable[[Any, BaseException | None], None], threading.Event]] = {}
        self.delivered.connect(self._on_delivered)

    def _on_delivered(self, token: int, result: object, error: object) -> None:
        entry = self.pending.pop(token, None)
        if entry is None:
            return
        owner, callback, cancel = entry
        if sip.isdeleted(owner) or cancel.is_set():
            return  # its dialog closed (or it was cancelled): harmless
        owner._cancels.discard(cancel)
        callback(result, error if isinstance(error, BaseException) else None)


_relay: _Relay | None = None


def background_threads() -> list[threading.Thread]:
    """The background calls' threads still running."""
    with _threads_lock:
        return [t for t in _threads if t.is_alive()]


def join_background_threads(timeout: float = 5.0) -> bool:
    """Wait (tests, shutdown) for every background call's thread; True when none is left."""
    deadline = time.monotonic() + timeout
    for thread in background_threads():
        thread.join(max(0.0, deadline - time.monotonic()))
    return not background_threads()


class BackgroundCalls(QObject):
    """Runs blocking calls on daemon threads and calls back on the GUI thread.

    A callback never runs after ``cancel_all()`` or once this object (or its
    parent, e.g. a closed dialog) is deleted, so a late answer is harmless.
    Create and use it on the GUI thread.
    """

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        global _relay
        if _relay is None:
            _relay = _Relay()
        self._cancels: set[threading.Event] = set()

    def run(
        self,
        work: Callable[[threading.Event], Any],
        on_done: Callable[[Any, BaseException | None], None],
        name: str = "rill-background",
    ) -> threading.Event:
        """Start ``work(cancel)`` on a daemon thread; ``on_done(result, error)``
        follows on the GUI thread. Returns the call's cancel event."""
        relay = _relay
        assert relay is not None
        cancel = threading.Event()
        token = next(_tokens)
        relay.pending[token] = (self, on_done, cancel)
        self._cancels.add(cancel)

        def target() -> None:
            result: Any = None
            error: BaseException | None = None
            try:
                result = work(cancel)
            except Exception as exc:  # noqa: BLE001 - delivered to on_done
                error = exc
            try:
                relay.delivered.emit(token, result, error)
            except RuntimeError:  # the application is gone
                pass
            finally:
                with _threads_lock:
                    _threads.discard(threading.current_thread())

        thread = threading.Thread(target=target, name=name, daemon=True)
        with _threads_lock:
            _threads.add(thread)
        thread.start()
        return cancel

    def cancel_all(self) -> None:
        """Drop every pending callback and ask the calls to stop (they get the event)."""
        for cancel in self._cancels:
            cancel.set()
        self._cancels.clear()

    @property
    def busy(self) -> bool:
        return bool(self._cancels)


