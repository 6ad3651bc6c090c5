"""The inference thread and the tiny API the GUI uses to talk to it.

Threading rule: construct ``InferenceService`` and call its methods from the
GUI thread only. Everything that touches the model (load, generate, close)
runs on one private QThread that owns the backend. Text comes back through
``service.buffer`` (a bounded ChunkBuffer the GUI drains on its own tick);
the signals only announce events. Cancelling never waits on that thread: it
sets a ``threading.Event`` the worker checks before every token.
"""

from __future__ import annotations

import logging
import threading
import time
import weakref
from dataclasses import dataclass

from PyQt6.QtCore import QObject, QThread, pyqtSignal, pyqtSlot

from app.core.backend import (
    Backend,
    BackendError,
    ChatMessage,
    FinishReason,
    GenerationRequest,
    ModelInfo,
    SamplingParams,
)
from app.core.factory import BackendFactory
from app.core.stream import Batcher, ChunkBuffer

log = logging.getLogger(__name__)

#: Every inference QThread ever started, so tests can fail on leaked ones.
LIVE_THREADS: "weakref.WeakSet[QThread]" = weakref.WeakSet()


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


@dataclass(frozen=True)
class _Job:
    request: GenerationRequest
    cancel: threading.Event


class InferenceWorker(QObject):
    """Lives on the inference thread. Use it only through InferenceService."""

    #: Loading of a model began; arg: a description of what is being loaded.
    model_load_started = pyqtSignal(str)
    #: A model is ready; arg: ModelInfo.
    model_loaded = pyqtSignal(object)
    #: Loading failed; arg: a message for the user (includes llama.cpp's reason).
    model_load_failed = pyqtSignal(str)
    #: The first token of a request was produced; args: request_id, monotonic time.
    first_token_produced = pyqtSignal(int, float)
    #: A batch was put in the buffer; args: request_id, seq.
    chunks_ready = pyqtSignal(int, int)
    #: A request ended (stop, length, cancelled or error); arg: GenerationResult.
    generation_finished = pyqtSignal(object)

    def __init__(self, buffer: ChunkBuffer) -> None:
        super().__init__()
        self._buffer = buffer
        self._backend: Backend | None = None

    @pyqtSlot(object, str)
    def load(self, factory: BackendFactory, description: str) -> None:
        self.model_load_started.emit(description)
        self._close_backend()
        try:
            backend = factory()
            info = backend.load()
        except BackendError as exc:
            self.model_load_failed.emit(str(exc))
            return
        except Exception as exc:  # never let a worker exception escape the thread
            log.exception("model load failed")
            self.model_load_failed.emit(f"{type(exc).__name__}: {exc}")
            return
        self._backend = backend
        self.model_loaded.emit(info)

    @pyqtSlot(object)
    def run(self, job: _Job) -> None:
        request, cancel = job.request, job.cancel
        rid = request.request_id
        started = time.monotonic()
        first: float | None = None
        tokens = 0
        error = ""
        reason = FinishReason.CANCELLED
        batcher = Batcher(rid)
        backend = self._backend
        if backend is None:
            self._finish(rid, FinishReason.ERROR, 0, 0, started, None, "No model is loaded.")
            return
        if cancel.is_set():  # stopped before it even started
            self._finish(rid, reason, 0, 0, started, None)
            return
        gen = backend.generate(request, cancel)
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
                tokens += 1
                if first is None:
                    first = now
                    self.first_token_produced.emit(rid, now)
                chunk = batcher.add(piece, now)
                if chunk is not None:
                    if not self._buffer.put(chunk, cancel):
                        reason = FinishReason.CANCELLED
                        break
                    self.chunks_ready.emit(rid, chunk.seq)
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
        self._finish(rid, reason, tokens, prompt_tokens, started, first, error)

    def _finish(
        self,
        rid: int,
        reason: FinishReason,
        tokens: int,
        prompt_tokens: int,
        started: float,
        first: float | None,
        error: str = "",
    ) -> None:
        self.generation_finished.emit(
            GenerationResult(rid, reason, tokens, prompt_tokens, started, first, time.monotonic(), error)
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
    model_loaded = pyqtSignal(object)
    model_load_failed = pyqtSignal(str)
    first_token_produced = pyqtSignal(int, float)
    chunks_ready = pyqtSignal(int, int)
    generation_finished = pyqtSignal(object)

    # Private: queued into the worker thread.
    _load_requested = pyqtSignal(object, str)
    _run_requested = pyqtSignal(object)
    _shutdown_requested = pyqtSignal()

    def __init__(self, parent: QObject | None = None, buffer_chars: int = 65536) -> None:
        super().__init__(parent)
        self.buffer = ChunkBuffer(buffer_chars)
        self._next_id = 1
        self._cancels: dict[int, threading.Event] = {}
        self._thread = QThread()
        self._thread.setObjectName("rill-inference")
        self._worker = InferenceWorker(self.buffer)
        self._worker.moveToThread(self._thread)
        self._connect_signals()
        self._thread.start()
        LIVE_THREADS.add(self._thread)
        self._shut = False

    def _connect_signals(self) -> None:
        w = self._worker
        self._load_requested.connect(w.load)
        self._run_requested.connect(w.run)
        self._shutdown_requested.connect(w.shut_down)
        w.model_load_started.connect(self.model_load_started)
        w.model_loaded.connect(self.model_loaded)
        w.model_load_failed.connect(self.model_load_failed)
        w.first_token_produced.connect(self.first_token_produced)
        w.chunks_ready.connect(self.chunks_ready)
        w.generation_finished.connect(self._on_generation_finished)

    def load(self, factory: BackendFactory, description: str) -> None:
        """Queue loading a backend (replacing the current one) on the worker."""
        self.cancel_all()
        self._load_requested.emit(factory, description)

    def submit(self, messages: tuple[ChatMessage, ...], params: SamplingParams) -> int:
        """Queue a generation; returns its request id. Text arrives in ``buffer``."""
        rid = self._next_id
        self._next_id += 1
        cancel = threading.Event()
        self._cancels[rid] = cancel
        self._run_requested.emit(_Job(GenerationRequest(rid, messages, params), cancel))
        return rid

    def cancel(self, request_id: int) -> None:
        """Ask the worker to stop ``request_id``; returns at once."""
        event = self._cancels.get(request_id)
        if event is not None:
            event.set()
        self.buffer.discard(request_id)

    def cancel_all(self) -> None:
        for rid in list(self._cancels):
            self.cancel(rid)

    def _on_generation_finished(self, result: GenerationResult) -> None:
        self._cancels.pop(result.request_id, None)
        self.generation_finished.emit(result)

    def shutdown(self, timeout_ms: int = 10000) -> bool:
        """Cancel everything, free the model on its thread and join the thread."""
        if self._shut:
            return True
        self._shut = True
        self.cancel_all()
        self._shutdown_requested.emit()
        ok = self._thread.wait(timeout_ms)
        if not ok:
            log.error("the inference thread did not finish within %d ms", timeout_ms)
        return ok

    @property
    def thread(self) -> QThread:
        return self._thread
