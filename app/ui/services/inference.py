"""The inference thread and the tiny API the GUI uses to talk to it.

Threading rule: construct ``InferenceService`` and call its methods from the
GUI thread only. Everything that touches the model (load, generate, close)
runs on one private QThread that owns the backend. Text comes back through
``service.buffer`` (a bounded ChunkBuffer the GUI drains on its own tick);
the signals only announce events. Cancelling never waits on that thread: it
sets a ``threading.Event`` the worker checks before every token (and that a
model load checks between tensors).

Shutting down never blocks the GUI either: ``request_shutdown()`` cancels
everything, queues the worker's ``shut_down`` and returns; ``shutdown_finished``
follows once the thread has ended. Until then the thread and its worker stay
referenced here (``_RUNNING``), so a QThread is never destroyed while it runs
("QThread: Destroyed while thread is still running" aborts the process).
"""

from __future__ import annotations

import atexit
import dataclasses
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from PyQt6.QtCore import QObject, QThread, QTimer, pyqtSignal, pyqtSlot

from app.core.backends.base import (
    Backend,
    BackendError,
    CancelEvent,
    ChatMessage,
    FinishReason,
    GenerationRequest,
    LoadCancelled,
    LoadProgress,
    PromptProgress,
    SamplingParams,
    load_backend,
    start_generation,
    token_count,
)
from app.core.base.limits import MAX_PIECE_CHARS, MAX_REPLY_CHARS
from app.core.factory import BackendFactory
from app.core.pipeline.stream import Batcher, ChunkBuffer
from app.ui.services.threads import LIVE_THREADS

log = logging.getLogger(__name__)

#: Started threads that have not finished yet, with their workers and cancel
#: events: strong references, so neither is destroyed while the thread runs
#: even if the service that owns them is (e.g. with its window).
_RUNNING: dict[QThread, tuple[InferenceWorker, _Cancels]] = {}

#: At most this many load-progress signals per second (plus the final 1.0).
LOAD_PROGRESS_MAX_HZ = 20.0
PROMPT_PROGRESS_MAX_HZ = 20.0  # prompt-reading progress sent to the GUI at most this often


class _Cancels:
    """The cancel events of one service: generations' and the current load's."""

    def __init__(self) -> None:
        self.generations: dict[int, threading.Event] = {}
        self.load = CancelEvent()

    def set_all(self) -> None:
        self.load.set()
        for event in list(self.generations.values()):
            event.set()


@atexit.register
def _join_running_threads_at_exit() -> None:
    """Last resort when the interpreter exits with an inference thread still
    running (the app quit without shutting the service down): cancel, ask the
    thread to end and wait a little, rather than let Qt abort the process when
    the QThread object is destroyed at exit."""
    for thread, (_worker, cancels) in list(_RUNNING.items()):
        try:
            cancels.set_all()
            thread.quit()  # a worker busy in a slot ends it itself (shut_down)
            if not thread.wait(5000):
                log.error("the inference thread was still running at exit")
        except RuntimeError:  # the C++ object is already gone
            pass


@dataclass(frozen=True)
class GenerationResult:
    """How one request ended, as seen by the worker (times: time.monotonic())."""

    request_id: int
    finish_reason: FinishReason
    tokens: int
    prompt_tokens: int
    started_at: float
    first_token_at: float | None
    ended_at: float
    error: str = ""
    #: Ids of the conversation messages the backend left out of the context.
    dropped_ids: tuple[str, ...] = ()
    #: Something the user should know about how it ended ('' for nothing):
    #: e.g. the reply was cut at ``MAX_REPLY_CHARS``.
    notice: str = ""


@dataclass(frozen=True)
class _Job:
    request: GenerationRequest
    cancel: threading.Event


class InferenceWorker(QObject):
    """Lives on the inference thread. Use it only through InferenceService."""

    #: Loading of a model began; arg: a description of what is being loaded.
    model_load_started = pyqtSignal(str)
    #: Loading progress, 0.0 .. 1.0, at most LOAD_PROGRESS_MAX_HZ times a second
    #: (the final 1.0 always comes). Backends that do not report send nothing.
    model_load_progress = pyqtSignal(float)
    #: A model is ready; arg: ModelInfo.
    model_loaded = pyqtSignal(object)
    #: Loading failed or was cancelled; arg: a message for the user (includes
    #: llama.cpp's reason; "Loading was cancelled." when cancelled).
    model_load_failed = pyqtSignal(str)
    #: The first token of a request was produced; args: request_id, monotonic time.
    first_token_produced = pyqtSignal(int, float)
    #: Part of a request's prompt was read (a backend that says so: llama,
    #: after each batch); args: request_id, tokens read, tokens in all. At
    #: most PROMPT_PROGRESS_MAX_HZ times a second (the end always comes).
    prompt_progressed = pyqtSignal(int, int, int)
    #: A batch was put in the buffer; args: request_id, seq.
    chunks_ready = pyqtSignal(int, int)
    #: A request ended (stop, length, cancelled or error); arg: GenerationResult.
    generation_finished = pyqtSignal(object)

    def __init__(self, buffer: ChunkBuffer) -> None:
        super().__init__()
        self._buffer = buffer
        self._backend: Backend | None = None

    @pyqtSlot(object, str, object)
    def load(
        self, factory: BackendFactory, description: str, cancel: threading.Event | None = None
    ) -> None:
        self.model_load_started.emit(description)
        self._close_backend()
        cancel = cancel if cancel is not None else CancelEvent()
        try:
            if cancel.is_set():
                raise LoadCancelled()
            backend = factory()
            info = load_backend(backend, cancel, self._progress_reporter())
        except BackendError as exc:
            self.model_load_failed.emit(str(exc))
            return
        except Exception as exc:  # never let a worker exception escape the thread
            log.exception("model load failed")
            self.model_load_failed.emit(f"{type(exc).__name__}: {exc}")
            return
        self._backend = backend
        self.model_loaded.emit(info)

    def _progress_reporter(self) -> LoadProgress:
        """A progress callable for one load, throttled to LOAD_PROGRESS_MAX_HZ."""
        interval = 1.0 / LOAD_PROGRESS_MAX_HZ
        last_at = -interval
        done = False

        def report(fraction: float) -> None:
            nonlocal last_at, done
            now = time.monotonic()
            if done or (fraction < 1.0 and now - last_at < interval):
                return
            done = fraction >= 1.0
            last_at = now
            self.model_load_progress.emit(fraction)

        return report

    def _prompt_reporter(self, rid: int) -> PromptProgress:
        """A prompt-progress callable for one request, throttled to PROMPT_PROGRESS_MAX_HZ."""
        interval = 1.0 / PROMPT_PROGRESS_MAX_HZ
        last_at = -interval

        def report(done: int, total: int) -> None:
            nonlocal last_at
            now = time.monotonic()
            if done < total and now - last_at < interval:
                return
            last_at = now
            self.prompt_progressed.emit(rid, done, total)

        return report

    @pyqtSlot(object)
    def run(self, job: _Job) -> None:
        request, cancel = job.request, job.cancel
        if callable(request.messages):
            try:
                request = dataclasses.replace(request, messages=request.messages())
            except Exception as exc:  # noqa: BLE001 - tell the user, keep the thread
                log.exception("building the prompt failed")
                now = time.monotonic()
                error = self.tr("The prompt could not be built: {error}").format(error=exc)
                self._finish(request.request_id, FinishReason.ERROR, 0, 0, now, None, error)
                return
        rid = request.request_id
        started = time.monotonic()
        first: float | None = None
        tokens = 0
        error = ""
        reason = FinishReason.CANCELLED
        batcher = Batcher(rid)
        backend = self._backend
        if backend is None:
            self._finish(rid, FinishReason.ERROR, 0, 0, started, None, self.tr("No model is loaded."))
            return
        if cancel.is_set():  # stopped before it even started
            self._finish(rid, reason, 0, 0, started, None)
            return
        gen = start_generation(backend, request, cancel, self._prompt_reporter(rid))
        chars = 0
        notice = ""
        try:
            while True:
                if cancel.is_set():
                    reason = FinishReason.CANCELLED
                    break
                try:
                    piece = next(gen)
                except StopIteration as stop:
                    reason = stop.value if stop.value is not None else FinishReason.STOP
                    break
                now = time.monotonic()
                n_tokens = token_count(piece)
                tokens += n_tokens
                if first is None:
                    first = now
                    self.first_token_produced.emit(rid, now)
                if chars + len(piece) > MAX_REPLY_CHARS:
                    piece = piece[: MAX_REPLY_CHARS - chars]
                    reason = FinishReason.LENGTH
                    notice = self.tr("The reply was cut at {limit:,} characters, Rill's limit for one reply.").format(
                        limit=MAX_REPLY_CHARS)
                chars += len(piece)
                if not self._put_piece(batcher, piece, now, rid, cancel, n_tokens):
                    reason = FinishReason.CANCELLED
                    break
                if notice:
                    break
        except BackendError as exc:
            reason, error = FinishReason.ERROR, str(exc)
        except Exception as exc:
            log.exception("generation failed")
            reason, error = FinishReason.ERROR, f"{type(exc).__name__}: {exc}"
        finally:
            gen.close()
        if reason != FinishReason.CANCELLED:
            chunk = batcher.close()
            if chunk is not None and self._buffer.put(chunk, cancel):
                self.chunks_ready.emit(rid, chunk.seq)
        prompt_tokens = int(getattr(backend, "last_prompt_tokens", 0))
        dropped = tuple(getattr(backend, "last_dropped_ids", ()) or ())
        self._finish(rid, reason, tokens, prompt_tokens, started, first, error, dropped, notice)

    def _put_piece(self, batcher: Batcher, piece: str, now: float, rid: int, cancel: threading.Event,
                   n_tokens: int = 1) -> bool:
        """Hand ``piece`` (``n_tokens`` tokens) on, in parts of at most
        ``MAX_PIECE_CHARS`` (one huge delta from a server must not become one
        huge append; the tokens go with the first part). False: cancelled."""
        for start in range(0, max(len(piece), 1), MAX_PIECE_CHARS):
            chunk = batcher.add(piece[start : start + MAX_PIECE_CHARS], now, n_tokens if start == 0 else 1)
            if chunk is not None:
                if not self._buffer.put(chunk, cancel):
                    return False
                self.chunks_ready.emit(rid, chunk.seq)
        return True

    def _finish(
        self,
        rid: int,
        reason: FinishReason,
        tokens: int,
        prompt_tokens: int,
        started: float,
        first: float | None,
        error: str = "",
        dropped: tuple[str, ...] = (),
        notice: str = "",
    ) -> None:
        self.generation_finished.emit(
            GenerationResult(rid, reason, tokens, prompt_tokens, started, first, time.monotonic(), error, dropped,
                             notice)
        )

    @pyqtSlot()
    def shut_down(self) -> None:
        """Free the model on this thread, then end the thread's event loop."""
        self._close_backend()
        thread = self.thread()
        if thread is not None:
            thread.quit()

    def _close_backend(self) -> None:
        if self._backend is not None:
            try:
                self._backend.close()
            except Exception:
                log.exception("closing the backend failed")
            self._backend = None


class InferenceService(QObject):
    """The GUI's handle on the inference thread (see the module docstring)."""

    #: Re-emitted from the worker, in the GUI thread (see InferenceWorker).
    model_load_started = pyqtSignal(str)
    model_load_progress = pyqtSignal(float)
    model_loaded = pyqtSignal(object)
    model_load_failed = pyqtSignal(str)
    first_token_produced = pyqtSignal(int, float)
    prompt_progressed = pyqtSignal(int, int, int)
    chunks_ready = pyqtSignal(int, int)
    generation_finished = pyqtSignal(object)
    #: The inference thread has finished (after request_shutdown or shutdown);
    #: emitted once, in the GUI thread. The model is freed by then.
    shutdown_finished = pyqtSignal()

    # Private: queued into the worker thread.
    _load_requested = pyqtSignal(object, str, object)
    _run_requested = pyqtSignal(object)
    _shutdown_requested = pyqtSignal()

    def __init__(self, parent: QObject | None = None, buffer_chars: int = 65536) -> None:
        super().__init__(parent)
        self.buffer = ChunkBuffer(buffer_chars)
        self._next_id = 1
        self._cancel_events = _Cancels()
        self._cancels = self._cancel_events.generations
        self._shut = False  # shutdown requested: no new work is queued
        self._finished = False  # shutdown_finished was emitted
        self._thread = QThread()
        self._thread.setObjectName("rill-inference")
        self._worker = InferenceWorker(self.buffer)
        self._worker.moveToThread(self._thread)
        self._connect_signals()
        for thread in [t for t in _RUNNING if t.isFinished()]:
            del _RUNNING[thread]  # its service was deleted before it finished
        _RUNNING[self._thread] = (self._worker, self._cancel_events)
        self._thread.start()
        LIVE_THREADS.add(self._thread)

    def _connect_signals(self) -> None:
        w = self._worker
        self._load_requested.connect(w.load)
        self._run_requested.connect(w.run)
        self._shutdown_requested.connect(w.shut_down)
        w.model_load_started.connect(self.model_load_started)
        w.model_load_progress.connect(self.model_load_progress)
        w.model_loaded.connect(self.model_loaded)
        w.model_load_failed.connect(self.model_load_failed)
        w.first_token_produced.connect(self.first_token_produced)
        w.prompt_progressed.connect(self.prompt_progressed)
        w.chunks_ready.connect(self.chunks_ready)
        w.generation_finished.connect(self._on_generation_finished)
        # Emitted on the inference thread as it ends; queued to us (GUI thread).
        self._thread.finished.connect(self._on_thread_finished)

    def load(self, factory: BackendFactory, description: str) -> None:
        """Queue loading a backend (replacing the current one) on the worker.
        A load still in progress is cancelled (it reports model_load_failed
        with "Loading was cancelled."). Ignored after shutdown was requested."""
        if self._shut:
            log.warning("load(%s) after the inference service was shut down", description)
            return
        self.cancel_all()
        self._cancel_events.load = cancel = CancelEvent()
        self._load_requested.emit(factory, description, cancel)

    def submit(
        self,
        messages: tuple[ChatMessage, ...] | Callable[[], tuple[ChatMessage, ...]],
        params: SamplingParams,
        continue_text: str = "",
        overflow: str = "rolling",
    ) -> int:
        """Queue a generation; returns its request id. Text arrives in ``buffer``.
        ``messages`` may be a callable that builds them: it is called on the
        inference thread (a long conversation's prompt is built there, not on
        the GUI thread); it must only read data the GUI no longer changes.
        After shutdown was requested the request is cancelled from the start
        (its generation_finished never comes: the thread is ending)."""
        rid = self._next_id
        self._next_id += 1
        cancel = CancelEvent()
        if self._shut:
            cancel.set()
            return rid
        self._cancels[rid] = cancel
        request = GenerationRequest(rid, messages, params, continue_text, overflow)  # type: ignore[arg-type]  # a callable is built on the inference thread (run) first
        self._run_requested.emit(_Job(request, cancel))
        return rid

    def cancel(self, request_id: int) -> None:
        """Ask the worker to stop ``request_id``; returns at once."""
        event = self._cancels.get(request_id)
        if event is not None:
            event.set()
        self.buffer.discard(request_id)

    def cancel_all(self) -> None:
        """Cancel every request and the model load in progress, if any."""
        self._cancel_events.load.set()
        for rid in list(self._cancels):
            self.cancel(rid)

    def cancel_load(self) -> None:
        """Cancel the model load in progress, if any (generations are left
        alone); returns at once. The load ends with ``model_load_failed``
        ("Loading was cancelled."). The model loaded before it is not back:
        the worker freed it when this load started."""
        self._cancel_events.load.set()

    def _on_generation_finished(self, result: GenerationResult) -> None:
        self._cancels.pop(result.request_id, None)
        self.generation_finished.emit(result)

    def request_shutdown(self) -> None:
        """Cancel everything (generations and a model load), queue the
        worker's shut_down (frees the model, ends the thread) and return at
        once. ``shutdown_finished`` follows when the thread has ended.
        Idempotent."""
        if self._shut:
            return
        self._shut = True
        self.cancel_all()
        self._shutdown_requested.emit()

    def shutdown(self, timeout_ms: int = 10000) -> bool:
        """``request_shutdown()``, then block until the thread ends (at most
        ``timeout_ms``). True at once when it already has. Prefer
        ``request_shutdown`` + ``shutdown_finished`` on the GUI thread."""
        self.request_shutdown()
        if self._thread.isFinished() or self._thread.wait(timeout_ms):
            self._on_thread_finished()
            return True
        log.error("the inference thread did not finish within %d ms", timeout_ms)
        return False

    def is_finished(self) -> bool:
        """The inference thread has ended (the model is freed)."""
        return self._thread.isFinished()

    def _on_thread_finished(self) -> None:
        if self._finished:
            return
        thread = self._thread
        # ``finished`` is emitted by the thread just before it really ends;
        # that last stretch is microseconds, but let it pass before releasing
        # the references.
        if not thread.isFinished() and not thread.wait(5):
            QTimer.singleShot(5, self._on_thread_finished)  # almost never: try again
            return
        self._finished = True
        _RUNNING.pop(thread, None)
        self.shutdown_finished.emit()

    @property
    def worker_thread(self) -> QThread:
        """The inference thread (named so as not to shadow ``QObject.thread()``)."""
        return self._thread
