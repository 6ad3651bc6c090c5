"""The inference backend contract shared by the local model and the scripted producer.

Threading rule: a backend is created, loaded, used and closed on ONE thread, the
inference worker's thread (never the GUI thread). ``generate`` runs there too;
the only thing other threads may touch is the ``cancel`` event they passed in
(to ``generate``, or to ``load``: a slow load is cancellable too).
"""

from __future__ import annotations

import enum
import inspect
import logging
import threading
from collections.abc import Callable, Generator, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from app.core.base.i18n import QT_TRANSLATE_NOOP, translate

log = logging.getLogger(__name__)

#: Receives the model-loading progress, 0.0 .. 1.0, on the loading thread.
#: It must be quick and must not raise (exceptions are logged and ignored).
LoadProgress = Callable[[float], None]

#: Receives the prompt-reading progress while ``generate`` reads the prompt,
#: on the generating thread: (prompt tokens read so far, prompt tokens in
#: all). Cached tokens count as read. It must be quick and must not raise.
PromptProgress = Callable[[int, int], None]

#: The message of the BackendError a cancelled ``load`` raises (English;
#: ``LoadCancelled`` translates it).
LOAD_CANCELLED_MESSAGE = QT_TRANSLATE_NOOP("Backend", "Loading was cancelled.")


class CancelEvent(threading.Event):
    """A ``threading.Event`` that also runs callbacks when it is set.

    A backend blocked in a read (a remote server that has not sent its next
    byte) cannot look at the flag; it registers ``on_set(abort)`` instead, and
    Stop closes its connection at once, on whichever thread called ``set``.
    Callbacks must be quick and thread-safe; each runs at most once.
    """

    def __init__(self) -> None:
        super().__init__()
        self._callbacks: list[Callable[[], None]] = []
        self._callbacks_lock = threading.Lock()

    def set(self) -> None:
        super().set()
        with self._callbacks_lock:
            callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            _run_callback(callback)

    def on_set(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Run ``callback`` when the event is set (now, if it already is).
        Returns a function that unregisters it."""
        with self._callbacks_lock:
            if not self.is_set():
                self._callbacks.append(callback)

                def remove() -> None:
                    with self._callbacks_lock:
                        if callback in self._callbacks:
                            self._callbacks.remove(callback)

                return remove
        _run_callback(callback)
        return lambda: None


def on_cancel(cancel: threading.Event | None, callback: Callable[[], None]) -> Callable[[], None]:
    """``cancel.on_set(callback)`` for a CancelEvent. A plain Event gets a
    small watcher thread that polls it every 10 ms instead. Returns the
    function that unregisters (and, for the watcher, ends) it."""
    if cancel is None:
        return lambda: None
    if isinstance(cancel, CancelEvent):
        return cancel.on_set(callback)
    done = threading.Event()

    def watch() -> None:
        while not done.is_set():
            if cancel.wait(0.01):
                if not done.is_set():
                    _run_callback(callback)
                return

    threading.Thread(target=watch, name="rill-cancel-watch", daemon=True).start()
    return done.set


def _run_callback(callback: Callable[[], None]) -> None:
    try:
        callback()
    except Exception:
        log.exception("a cancel callback failed")


class FinishReason(str, enum.Enum):
    STOP = "stop"            # end of generation token or a stop string
    LENGTH = "length"        # max_tokens (or the context) ran out
    CANCELLED = "cancelled"  # the user pressed Stop
    ERROR = "error"          # the backend raised


@dataclass(frozen=True)
class ChatMessage:
    role: str  # "system" | "user" | "assistant"
    content: str
    #: The conversation message it comes from ("" for the system prompt):
    #: lets a backend say which messages no longer fit its context.
    id: str = field(default="", compare=False)
    #: Images sent with it, each (MIME type, base64 data): attachments for a
    #: model that can see (the remote backends send them; others ignore them).
    images: tuple[tuple[str, str], ...] = field(default=(), compare=False)


@dataclass(frozen=True)
class SamplingParams:
    """Defaults suit SmolLM2-135M-Instruct: at low temperature with no repeat
    penalty it loops; 0.2-0.7 with repeat_penalty ~1.1 gives usable answers."""

    temperature: float = 0.6
    top_p: float = 0.9
    top_k: int = 40
    min_p: float = 0.05
    repeat_penalty: float = 1.1
    max_tokens: int = 1024
    seed: int | None = None
    ignore_eos: bool = False  # benchmarks: generate exactly max_tokens tokens


@dataclass(frozen=True)
class GenerationRequest:
    request_id: int
    messages: tuple[ChatMessage, ...]
    params: SamplingParams = SamplingParams()
    #: Continue a reply that stopped: the prompt is ``messages`` with the
    #: reply about to start, then this text, and generation goes on from it.
    continue_text: str = ""
    #: What to do when the conversation no longer fits the context:
    #: app.core.backends.prompt_window.OverflowPolicy value ("rolling", "middle", "stop").
    overflow: str = "rolling"


@dataclass(frozen=True)
class ModelInfo:
    name: str
    path: str = ""
    n_ctx: int = 0
    n_threads: int = 0
    chat_template: str = ""          # "gguf" or a description of the fallback
    warnings: tuple[str, ...] = field(default_factory=tuple)
    #: The model can see images: a local model whose vision projector loaded
    #: (a remote server decides for itself: False there).
    vision: bool = False
    #: The vision projector's file name when one loaded ("" : none).
    projector: str = ""
    #: Why a vision projector found beside the model was not loaded ("" : none refused).
    projector_error: str = ""


class BackendError(Exception):
    """A failure with a message meant for the user (shown on the reply or the
    model banner): missing/corrupt model, context overflow, dead server..."""


class LoadCancelled(BackendError):
    """``load`` stopped because its ``cancel`` event was set."""

    def __init__(self, message: str = LOAD_CANCELLED_MESSAGE) -> None:
        super().__init__(translate("Backend", message) if message == LOAD_CANCELLED_MESSAGE else message)


class TokenRun(str):
    """Several tokens' text yielded as one piece by a backend that received
    them together (a remote server's deltas of one socket read):
    ``n_tokens`` of them. Counted as that many by the inference worker, so
    that a fast stream costs one hand-over per run, not one per token."""

    n_tokens: int

    def __new__(cls, text: str, n_tokens: int) -> TokenRun:
        run = super().__new__(cls, text)
        run.n_tokens = n_tokens
        return run


def token_count(piece: str) -> int:
    """How many tokens ``piece`` (from ``generate``) carries: a ``TokenRun``'s
    ``n_tokens``, else 1."""
    return piece.n_tokens if type(piece) is TokenRun else 1


class Backend(Protocol):
    """An inference engine. See the module docstring for the threading rule."""

    def load(
        self, cancel: threading.Event | None = None, progress: LoadProgress | None = None
    ) -> ModelInfo:
        """Load the model. Raises BackendError with a user-facing reason.

        Both arguments are optional (``load_backend`` also accepts backends
        whose ``load`` takes neither). Once ``cancel`` is set, loading should
        stop as soon as it can and raise ``LoadCancelled``. ``progress`` is
        called with the fraction loaded (0.0 .. 1.0), as often as the backend
        likes, on the loading thread.
        """
        ...

    def generate(
        self, request: GenerationRequest, cancel: threading.Event
    ) -> Generator[str, None, FinishReason]:
        """Yield the reply's text one token at a time ("" while a multi-byte
        character is incomplete is allowed), or several at once as a
        ``TokenRun``, and return the finish reason.

        Must check ``cancel`` before every token and during prompt evaluation,
        returning FinishReason.CANCELLED promptly once it is set. Raises
        BackendError for user-facing failures (e.g. the prompt cannot fit).
        A backend that can tell how much of the prompt it has read takes a
        third, keyword argument ``progress: PromptProgress | None = None``
        (``start_generation`` passes it only to a ``generate`` that takes
        it) and calls it as often as it can say (llama: after each batch).
        """
        ...

    def close(self) -> None:
        """Free the model. Called on the worker thread after the last generate."""
        ...


def load_backend(
    backend: Any,
    cancel: threading.Event | None = None,
    progress: LoadProgress | None = None,
) -> ModelInfo:
    """``backend.load(...)``, passing ``cancel`` and ``progress`` only to a
    ``load`` that accepts them (older backends take no argument).

    A backend that cannot be cancelled still loads to the end; if ``cancel``
    was set meanwhile, the load counts as cancelled: the backend is closed and
    ``LoadCancelled`` raised, so the caller never gets a model it gave up on.
    """
    load = backend.load
    kwargs: dict[str, Any] = {}
    params: Mapping[str, inspect.Parameter]
    try:
        params = inspect.signature(load).parameters
    except (TypeError, ValueError):  # a builtin or an odd callable: pass nothing
        params = {}
    takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
    if cancel is not None and (takes_any or "cancel" in params):
        kwargs["cancel"] = cancel
    if progress is not None and (takes_any or "progress" in params):
        kwargs["progress"] = _safe_progress(progress)
    if cancel is not None and cancel.is_set():
        raise LoadCancelled()
    info = load(**kwargs)
    if cancel is not None and cancel.is_set():
        try:
            backend.close()
        except Exception:
            log.exception("closing a backend whose load was cancelled failed")
        raise LoadCancelled()
    return info  # type: ignore[no-any-return]  # ``backend`` is any object with a load()


def start_generation(
    backend: Any, request: GenerationRequest, cancel: threading.Event, progress: PromptProgress | None = None
) -> Generator[str, None, FinishReason]:
    """``backend.generate(request, cancel, ...)``, passing ``progress`` only
    to a ``generate`` that accepts it (remote backends do not), wrapped so
    that it never raises into the backend."""
    if progress is not None:
        try:
            params = inspect.signature(backend.generate).parameters
        except (TypeError, ValueError):
            params = {}  # type: ignore[assignment]  # (an odd callable: pass nothing)
        if "progress" in params or any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
            return backend.generate(request, cancel, progress=_safe_prompt_progress(progress))  # type: ignore[no-any-return]  # any backend object
    return backend.generate(request, cancel)  # type: ignore[no-any-return]  # any backend object


def _safe_prompt_progress(progress: PromptProgress) -> PromptProgress:
    """``progress`` that logs its exceptions instead of raising (llama calls
    it from inside llama.cpp's abort callback, a C callback)."""

    def report(done: int, total: int) -> None:
        try:
            progress(max(0, int(done)), max(0, int(total)))
        except Exception:
            log.exception("the prompt progress callback failed")

    return report


def _safe_progress(progress: LoadProgress) -> LoadProgress:
    """``progress`` that logs its exceptions instead of raising (it may be
    called from inside a C callback, where an exception would abort the load)."""

    def report(fraction: float) -> None:
        try:
            progress(min(1.0, max(0.0, float(fraction))))
        except Exception:
            log.exception("the load progress callback failed")

    return report
