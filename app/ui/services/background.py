"""Background calls: a blocking call on its own thread, its result
delivered on the GUI thread (``BackgroundCalls``).

Used by the Model menu's model lists, the Servers dialog's Test, the model
manager's header reads and the application's probes (``app.ui.services.lifecycle.AppServices``: About,
GPU offload, a model's trained context). Every thread started here is
tracked: ``background_threads()`` lists the live ones,
``join_background_threads()`` waits for them (tests), ``cancel_every_call()``
sets every pending call's cancel event and ``call_ended()`` is the signal
that one has ended; ``AppServices``' shutdown uses the last three and joins
them all, so no background call outlives the application.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable
from typing import Any

from PyQt6 import sip
from PyQt6.QtCore import QObject, pyqtBoundSignal, pyqtSignal

from app.ui.services.activity import traced

_threads: set[threading.Thread] = set()
_threads_lock = threading.Lock()
_tokens = itertools.count(1)


class _Relay(QObject):
    """Lives on the GUI thread for the whole process (never deleted, so a
    worker can always emit on it): hands each result to its callback."""

    #: A background call returned or raised (emitted on its thread, queued
    #: here); args: token, result, exception (or None).
    delivered = pyqtSignal(int, object, object)
    #: A background call's thread has ended (after its callback, if any, ran); no args.
    ended = pyqtSignal()

    def __init__(self) -> None:
        super().__init__()
        # token -> (owner, callback, cancel); touched on the GUI thread only.
        self.pending: dict[int, tuple[BackgroundCalls, Callable[[Any, BaseException | None], None], threading.Event]] = {}
        #: token -> the call's thread, until it has ended.
        self.threads: dict[int, threading.Thread] = {}
        self.delivered.connect(self._on_delivered)

    @traced("background call result")
    def _on_delivered(self, token: int, result: object, error: object) -> None:
        entry = self.pending.pop(token, None)
        thread = self.threads.pop(token, None)
        if thread is not None:
            # It has emitted: what is left of it is microseconds (the finally below).
            thread.join(1.0)
        try:
            if entry is not None:
                owner, callback, cancel = entry
                if not sip.isdeleted(owner) and not cancel.is_set():  # else its dialog closed: harmless
                    owner._cancels.discard(cancel)
                    callback(result, error if isinstance(error, BaseException) else None)
        finally:
            self.ended.emit()


def _get_relay() -> _Relay:
    global _relay
    if _relay is None:
        _relay = _Relay()
    return _relay


def call_ended() -> pyqtBoundSignal:
    """The signal that a background call has ended (its thread is gone or
    about to be, within microseconds: ``join_background_threads`` then
    returns at once). Emitted on the GUI thread; no args."""
    return _get_relay().ended


def cancel_every_call() -> None:
    """Set the cancel event of every call still running (shutdown); their
    callbacks will not run."""
    relay = _relay
    if relay is None:
        return
    for _owner, _callback, cancel in list(relay.pending.values()):
        cancel.set()


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
    """Runs blocking calls on their own threads and calls back on the GUI thread.

    A callback never runs after ``cancel_all()`` or once this object (or its
    parent, e.g. a closed dialog) is deleted, so a late answer is harmless.
    Create and use it on the GUI thread.
    """

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        _get_relay()
        self._cancels: set[threading.Event] = set()

    def run(
        self,
        work: Callable[[threading.Event], Any],
        on_done: Callable[[Any, BaseException | None], None],
        name: str = "rill-background",
        cancel: threading.Event | None = None,
    ) -> threading.Event:
        """Start ``work(cancel)`` on a thread of its own; ``on_done(result, error)``
        follows on the GUI thread. Returns the call's cancel event: ``cancel``
        when given (e.g. an ``app.core.hub.partial.CancelToken``, whose
        ``set`` also cuts the connection the work is reading), else a new one.

        The thread is a daemon only so that a call stuck in a system call
        cannot keep a crashed process alive: the application's shutdown
        joins it (``app.ui.services.lifecycle``)."""
        relay = _relay
        assert relay is not None
        cancel = threading.Event() if cancel is None else cancel
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
        relay.threads[token] = thread
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


