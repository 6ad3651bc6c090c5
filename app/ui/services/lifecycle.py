"""The one owner of the application's services and of every thread they start.

``AppServices`` creates the store (and the conversation library on it), the
inference service, the render service and a pool of background calls, and
runs the three probes the window needs off the GUI thread (About's
llama.cpp description, GPU offload support, a model file's trained
context): each is a plain blocking core function run as a background call,
its answer delivered to a callback on the GUI thread.

Shutting down is one ordered sequence (as qutebrowser's ``misc/quitter.py``):

1. stop accepting work: ``shutting_down`` turns True, the probes refuse, every
   background call still running is cancelled;
2. stop inference (cancel, free the model, end the thread);
3. once it has ended: flush the store, hurried (the queued saves, a stopped
   reply's last one included, are written; a lock is waited for 0.25 s, not
   5 s per save, so the flush is bounded; the window's ``QuitGuard`` asked
   the user beforehand if anything could not be saved), then it closes;
4. stop the render thread and the Hub downloads' thread (``hub()``, when it
   was started: the running download is paused, its partial file kept);
5. once those threads have ended: join the background calls.

``shutdown_finished`` follows, once. ``request_shutdown()`` never blocks;
``wait(budget_ms)`` blocks the caller at most ``budget_ms`` (closing the
window waits ~10 ms, then hides it and quits on ``shutdown_finished``).

Threading rule: create and use it on the GUI thread. Until its shutdown has
finished it is kept referenced here (``_ALIVE``), so no service whose thread
still runs is destroyed with the window.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from enum import IntEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PyQt6.QtCore import QObject, QThread, pyqtSignal

from app.core.base import about
from app.core.config import preferences
from app.core.render import pool as render_pool
from app.ui.services import background
from app.ui.services.background import BackgroundCalls
from app.ui.services.inference import InferenceService
from app.ui.services.library import ConversationLibrary
from app.ui.services.render import RenderService
from app.ui.services.store import StoreService

if TYPE_CHECKING:
    from app.ui.services.hub import HubService

log = logging.getLogger(__name__)

#: Every AppServices whose shutdown has not finished (strong references).
_ALIVE: set[AppServices] = set()


def unfinished_services() -> list[AppServices]:
    """Every AppServices whose shutdown has not finished (tests join them with ``wait``)."""
    return list(_ALIVE)


class Stage(IntEnum):
    """Where the ordered shutdown is (see the module docstring)."""

    RUNNING = 0
    STOPPING_INFERENCE = 1
    STOPPING_STORE_AND_RENDER = 2
    JOINING_BACKGROUND = 3
    FINISHED = 4


def read_trained_context(path: str) -> int | None:
    """The context length a GGUF model was trained with (its header: 10-40
    ms, so off the GUI thread); None when the file cannot tell."""
    from app.core.models.gguf_info import read_gguf_info

    try:
        return read_gguf_info(path).context_length
    except Exception:  # noqa: BLE001 - only a warning depends on it
        return None


class AppServices(QObject):
    """See the module docstring."""

    #: The ordered shutdown is over: every thread the services started has ended; no args.
    shutdown_finished = pyqtSignal()

    def __init__(self, persist: bool = True, store_path: Path | None = None, parent: QObject | None = None) -> None:
        """``persist=False``: nothing is read from or written to the history
        (rill doctor, benchmarks). ``store_path`` None: the user's history."""
        super().__init__(parent)
        self.store = StoreService(store_path, parent=self, enabled=persist)
        self.library = ConversationLibrary(self.store, self)
        self.inference = InferenceService(self)
        self.render = RenderService(self, processes=render_pool.default_enabled())
        self.background = BackgroundCalls(self)
        self._hub: HubService | None = None
        self._stage = Stage.RUNNING
        _ALIVE.add(self)
        self._connect_signals()

    def _connect_signals(self) -> None:
        self.inference.shutdown_finished.connect(self._on_inference_finished)
        self.store.worker_thread.finished.connect(self._on_thread_finished)
        self.render.worker_thread.finished.connect(self._on_thread_finished)
        background.call_ended().connect(self._on_thread_finished)

    def hub(self) -> HubService | None:
        """The Hub downloads' service, started on first use; None once shutting down."""
        if self._hub is None and not self.shutting_down:
            from app.ui.services.hub import HubService

            self._hub = HubService(self)
            self._hub.worker_thread.finished.connect(self._on_thread_finished)
        return self._hub

    # -- probes ----------------------------------------------------------------------------

    def _probe(self, work: Callable[[], Any], on_done: Callable[[Any], None], name: str, fallback: Any) -> bool:
        if self.shutting_down:
            return False

        def done(result: Any, error: BaseException | None) -> None:
            if error is not None:
                log.error("%s failed", name, exc_info=error)
            on_done(fallback if error is not None else result)

        self.background.run(lambda _cancel: work(), done, name=name)
        return True

    def describe_llama(self, on_done: Callable[[about.LlamaInfo], None]) -> bool:
        """``about.llama_info()`` (imports llama_cpp: ~0.3 s) as a background
        call; ``on_done(info)`` on the GUI thread. False (and no call) once
        shutting down."""
        fallback = about.LlamaInfo(available=False, error="")
        return self._probe(about.llama_info, on_done, "rill-about-llama", fallback)

    def detect_gpu_offload(self, on_done: Callable[[bool], None]) -> bool:
        """``preferences.detect_gpu_offload()`` as a background call."""
        return self._probe(preferences.detect_gpu_offload, on_done, "rill-gpu-offload", False)

    def read_trained_context(self, path: str, on_done: Callable[[int | None], None]) -> bool:
        """``read_trained_context(path)`` as a background call."""
        return self._probe(lambda: read_trained_context(path), on_done, "rill-trained-ctx", None)

    # -- shutting down -------------------------------------------------------------------

    @property
    def shutting_down(self) -> bool:
        """``request_shutdown()`` was called (it may be over already)."""
        return self._stage != Stage.RUNNING

    @property
    def stage(self) -> Stage:
        return self._stage

    def is_finished(self) -> bool:
        """The shutdown is over (``shutdown_finished`` was emitted)."""
        return self._stage == Stage.FINISHED

    def request_shutdown(self) -> None:
        """Start the ordered shutdown and return at once; idempotent."""
        if self._stage != Stage.RUNNING:
            return
        self._stage = Stage.STOPPING_INFERENCE
        self.background.cancel_all()
        background.cancel_every_call()
        self.inference.request_shutdown()
        self._advance()

    def wait(self, budget_ms: int) -> bool:
        """Block at most ``budget_ms`` in all for the shutdown to finish,
        driving its stages meanwhile; True when it has (``shutdown_finished``
        was emitted). Call after ``request_shutdown()``."""
        deadline = time.monotonic() + budget_ms / 1000

        def left_ms() -> int:
            return max(0, int((deadline - time.monotonic()) * 1000))

        while self._stage not in (Stage.RUNNING, Stage.FINISHED):
            before = self._stage
            if before == Stage.STOPPING_INFERENCE:
                self.inference.worker_thread.wait(left_ms())
            elif before == Stage.STOPPING_STORE_AND_RENDER:
                for thread in self._stage_threads():
                    thread.wait(left_ms())
            else:
                background.join_background_threads(left_ms() / 1000)
            self._advance()
            if self._stage == before and left_ms() == 0:
                break
        return self._stage == Stage.FINISHED

    def _stage_threads(self) -> list[QThread]:
        threads = [self.store.worker_thread, self.render.worker_thread]
        return threads + ([self._hub.worker_thread] if self._hub is not None else [])

    def _on_inference_finished(self) -> None:
        self._advance()

    def _on_thread_finished(self) -> None:
        self._advance()

    def _advance(self) -> None:
        """Move through every stage whose threads have ended (re-entrant safe)."""
        while True:
            stage = self._stage
            if stage == Stage.STOPPING_INFERENCE and self.inference.is_finished():
                self._stage = Stage.STOPPING_STORE_AND_RENDER
                self.store.request_stop()  # the queued saves go first
                self.render.request_stop()
                if self._hub is not None:
                    self._hub.request_stop()
            elif stage == Stage.STOPPING_STORE_AND_RENDER and self.store.is_finished() and self.render.is_finished() \
                    and (self._hub is None or self._hub.is_finished()):
                self._stage = Stage.JOINING_BACKGROUND
            elif stage == Stage.JOINING_BACKGROUND and not background.background_threads():
                self._stage = Stage.FINISHED
                _ALIVE.discard(self)
                self.shutdown_finished.emit()
                return
            else:
                return

    def shutdown(self, timeout_ms: int = 10000) -> bool:
        """``request_shutdown()`` then ``wait(timeout_ms)`` (blocking: tests, doctor)."""
        self.request_shutdown()
        return self.wait(timeout_ms)
