"""The local-model backend: llama-cpp-python driven token by token.

Threading rule: ONE thread owns the model. ``LlamaBackend`` is created, loaded,
used (``generate``) and closed on the inference worker's thread, never on the
GUI thread; two threads on one ``Llama`` instance crash llama.cpp. The only
object other threads may touch is the ``threading.Event`` passed to
``generate`` as ``cancel``.

Why not ``create_chat_completion(stream=True)``: it re-detokenizes the whole
completion for every token (per-token cost grows with the reply), drops a
multi-byte character withheld at the end of the stream, and cannot interrupt
prompt evaluation. Here we render the GGUF chat template ourselves, trim the
history to the context, drive ``Llama.generate()``, turn each token into bytes
with the vocab's piece API (O(1) per token) and decode them with
``TokenDecoder``. Prompt evaluation is interruptible through llama.cpp's abort
callback, installed only while the prompt is evaluated.

Loading is cancellable and reports progress through llama.cpp's model-loading
progress callback (``llama_model_params.progress_callback``), which
llama-cpp-python's ``Llama()`` does not expose: see ``_install_params_hook``.

Nothing here imports Qt.
"""

from __future__ import annotations

import contextlib
import ctypes
import io
import logging
import os
import pathlib
import sys
import threading
from collections.abc import Generator, Iterator, Sequence
from typing import Any

from app.core.backends.base import (
    BackendError,
    ChatMessage,
    FinishReason,
    GenerationRequest,
    LoadCancelled,
    LoadProgress,
    ModelInfo,
)
from app.core.text.decoding import TokenDecoder
from app.core.base.i18n import QT_TRANSLATE_NOOP, translate
from app.core.models.paths import DEFAULT_N_CTX
from app.core.backends.prompt_window import MIN_REPLY_TOKENS, PromptWindow

log = logging.getLogger(__name__)
llama_log = logging.getLogger(__name__ + ".llama_cpp")  # llama.cpp's own log lines

GGUF_MAGIC = b"GGUF"

# Thread defaults, chosen by measurement: benchmarks/threads.py, SmolLM2-135M
# Q4_1, 2-vCPU shared VM (OpenMP build), 500-token prompt prefill and 200-token
# decode, alone and with a busy pure-Python thread standing in for the GUI.
# "GUI share" = the busy thread's progress relative to running alone; medians
# of 3 interleaved repeats; Python's default 5 ms GIL switch interval.
#
#   threads (n_threads = n_threads_batch)        1             2
#   quiet box     prefill 500 tok              5.3 s         3.1 s
#                   prefill with abort cb      5.1 s         2.4 s
#                 decode                    51.6 tok/s    63.0 tok/s
#   + busy GUI    prefill                      6.0 s         6.3 s
#                   GUI share / worst stall   0.83 / 4 ms   0.65 / 8 ms
#                   prefill with abort cb     11.3 s         8.1 s
#                 decode                    21.8 tok/s     6.8 tok/s
#                   GUI share / worst stall   0.67 / 12 ms  0.45 / 16 ms
#   box loaded by other processes (a concurrent pytest + pip run):
#                 prefill                      6.9 s        12.6 s
#                 decode                    39.4 tok/s     7.5 tok/s
#                 decode + busy GUI         12.8 tok/s     1.7 tok/s
#
# Two threads win only on an idle box (prefill 1.7x, decode 1.2x); with the
# GUI thread busy they give no prefill gain, 3x slower decode and a smaller GUI
# share, and under outside load they collapse (OpenMP threads spin-wait for a
# descheduled partner). So: 1 and 1 on <= 2 CPUs. On bigger machines (not
# measured here) use up to half the logical CPUs, at most 4, leaving the rest
# to the GUI.
#
# The "busy GUI" decode loss with 1 thread is the GIL, not the cores: every
# ctypes call in the token loop releases the GIL and may wait up to a switch
# interval to get it back. With sys.setswitchinterval(0.001) the same run gave
# decode 39.0 tok/s, GUI share 0.89, worst stall 2.6 ms, and prefill with the
# abort callback 6.8 s instead of 11.3 s.


def default_thread_counts(cpu_count: int | None = None) -> tuple[int, int]:
    """(n_threads, n_threads_batch) for this machine; see the table above."""
    cpus = cpu_count if cpu_count is not None else (os.cpu_count() or 1)
    if cpus <= 2:
        return 1, 1
    n = max(1, min(4, cpus // 2))
    return n, n


DEFAULT_N_THREADS, DEFAULT_N_THREADS_BATCH = default_thread_counts()

#: Measuring a message's tokens renders it after this (see LlamaBackend._measure).
_PROBE_SYSTEM = ChatMessage("system", "Rill.")

# The smallest reply we are willing to start: below this a message is "too long".

# English; translated where used (context "LlamaBackend").
FALLBACK_TEMPLATE_DESCRIPTION = QT_TRANSLATE_NOOP(
    "LlamaBackend", "fallback: ChatML (the model file has no chat template)")
FALLBACK_TEMPLATE_WARNING = QT_TRANSLATE_NOOP(
    "LlamaBackend", "The model file has no chat template; using ChatML. Replies may be poor "
    "if the model was trained with another format."
)
# With the fallback template the ChatML markers may be plain text in the
# model's vocabulary, so they are also watched for as stop strings.
_FALLBACK_STOP_STRINGS = ("<|im_end|>", "<|im_start|>")

# ggml_log_level in this ggml: NONE=0, DEBUG=1, INFO=2, WARN=3, ERROR=4,
# CONT=5 (continues the previous line). llama-cpp-python's own _logger.py still
# uses the older numbering (ERROR=3, DEBUG=4), i.e. it treats errors as debug.
_GGML_LOG_ERROR = 4
_GGML_LOG_CONT = 5


# --------------------------------------------------------------------------
# llama.cpp log -> Python logging
# --------------------------------------------------------------------------


class _LlamaLogRouter:
    """Receives llama.cpp's log fragments, reassembles lines and forwards them
    to ``logging`` (errors at WARNING, everything else at DEBUG, so nothing
    reaches the terminal in a normal run). Error lines are also handed to any
    active capture so a failed load can tell the user llama.cpp's reason."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._partial = ""
        self._partial_level = 0
        self._captures: list[list[str]] = []
        self._local = threading.local()  # .cancel: the Event of an abortable decode

    def on_log(self, level: int, text: bytes | None) -> None:
        try:
            fragment = (text or b"").decode("utf-8", errors="replace")
            lines: list[tuple[int, str]] = []
            with self._lock:
                if level != _GGML_LOG_CONT:
                    if self._partial:  # a new message starts: flush an unterminated one
                        lines.append((self._partial_level, self._partial))
                        self._partial = ""
                    self._partial_level = level
                self._partial += fragment
                while "\n" in self._partial:
                    line, self._partial = self._partial.split("\n", 1)
                    lines.append((self._partial_level, line))
                for lvl, line in lines:
                    if lvl == _GGML_LOG_ERROR and line.strip():
                        for capture in self._captures:
                            capture.append(line.strip())
            cancel = getattr(self._local, "cancel", None)
            # An abort we asked for makes llama.cpp log errors ("failed to
            # compute graph"): expected, so not worth a warning.
            expected = cancel is not None and cancel.is_set()
            for lvl, line in lines:
                if lvl == _GGML_LOG_ERROR and not expected:
                    llama_log.warning("%s", line)
                else:
                    llama_log.debug("%s", line)
        except Exception:  # never let an exception escape into C
            pass

    @contextlib.contextmanager
    def abortable(self, cancel: threading.Event) -> Iterator[None]:
        """Log lines from this thread are expected errors once ``cancel`` is set."""
        self._local.cancel = cancel
        try:
            yield
        finally:
            self._local.cancel = None

    @contextlib.contextmanager
    def capture_errors(self) -> Iterator[list[str]]:
        captured: list[str] = []
        with self._lock:
            self._captures.append(captured)
        try:
            yield captured
        finally:
            with self._lock:
                if self._partial and self._partial_level == _GGML_LOG_ERROR:
                    captured.append(self._partial.strip())
                self._captures.remove(captured)


_LOG_ROUTER = _LlamaLogRouter()
# The ctypes callback must stay referenced for as long as llama.cpp may call it
# (i.e. for the life of the process): a collected callback segfaults.
_LOG_CALLBACK: Any = None


def _install_log_router(llama_cpp: Any) -> None:
    global _LOG_CALLBACK
    if _LOG_CALLBACK is None:
        _LOG_CALLBACK = llama_cpp.llama_log_callback(
            lambda level, text, _user_data: _LOG_ROUTER.on_log(level, text)
        )
    llama_cpp.llama_log_set(_LOG_CALLBACK, ctypes.c_void_p(0))


# --------------------------------------------------------------------------
# The model-loading progress callback
# --------------------------------------------------------------------------

# ``Llama.__init__`` builds its model params with
# ``llama_cpp.llama_cpp.llama_model_default_params()`` (looked up on the module
# at call time) and passes them straight to ``llama_model_load_from_file``,
# with no way to set ``progress_callback`` in between. So that module function
# is wrapped, once per process: the wrapper returns the real defaults and, only
# when the calling thread is inside ``_load_hook`` (i.e. inside
# ``LlamaBackend.load``), sets that thread's progress callback on them. Every
# other caller, on any thread, gets the unchanged defaults; concurrent loads on
# different threads each get their own callback; nothing has to be restored.
_LOAD_HOOK = threading.local()  # .callback: the ctypes callback of this thread's load
_PARAMS_HOOK_LOCK = threading.Lock()


def _install_params_hook(llama_cpp: Any) -> bool:
    """Wrap ``llama_cpp.llama_cpp.llama_model_default_params`` (idempotent).
    False if this llama-cpp-python has no such function or struct field."""
    low = getattr(llama_cpp, "llama_cpp", None)
    original = getattr(low, "llama_model_default_params", None)
    if original is None or not hasattr(low, "llama_progress_callback"):
        return False
    fields = {name for name, *_ in getattr(low.llama_model_params, "_fields_", ())}
    if not {"progress_callback", "progress_callback_user_data"} <= fields:
        return False
    with _PARAMS_HOOK_LOCK:
        current = low.llama_model_default_params
        if getattr(current, "_rill_progress_hook", False):
            return True

        def llama_model_default_params() -> Any:
            params = current()
            callback = getattr(_LOAD_HOOK, "callback", None)
            if callback is not None:
                params.progress_callback = callback
                params.progress_callback_user_data = None
                _LOAD_HOOK.applied = True
            return params

        llama_model_default_params._rill_progress_hook = True  # type: ignore[attr-defined]
        llama_model_default_params.__wrapped__ = current  # type: ignore[attr-defined]
        low.llama_model_default_params = llama_model_default_params
    return True


def _make_progress_callback(
    llama_cpp: Any, cancel: threading.Event, progress: LoadProgress | None
) -> Any:
    """A ``llama_progress_callback``: reports ``progress`` and returns False
    (abort the load) once ``cancel`` is set. It never raises: an exception in
    a ctypes callback would be printed and read as False."""

    def on_progress(fraction: float, _user_data: Any) -> bool:
        try:
            if cancel.is_set():
                return False
            if progress is not None:
                progress(fraction)
            return not cancel.is_set()
        except BaseException:  # noqa: BLE001 (nothing may escape into C)
            return not cancel.is_set()

    return llama_cpp.llama_cpp.llama_progress_callback(on_progress)


@contextlib.contextmanager
def _load_hook(callback: Any) -> Iterator[Any]:
    """Make ``callback`` the progress callback of models this thread loads;
    yields the thread-local state (``.applied`` tells whether it was used)."""
    _LOAD_HOOK.callback = callback
    _LOAD_HOOK.applied = False
    try:
        yield _LOAD_HOOK
    finally:
        _LOAD_HOOK.callback = None


class _StderrForThread(io.TextIOBase):
    """Stands in for ``sys.stderr`` while a model loads: llama-cpp-python's
    ``verbose=True`` prints (system info, metadata, chat format) from the
    loading thread go to ``logging`` at DEBUG; other threads still reach the
    real stderr. (``verbose=False`` would instead redirect the process's fds
    1 and 2, silencing every thread.)"""

    def __init__(self, real: Any, owner: int) -> None:
        super().__init__()
        self._real = real
        self._owner = owner
        self._buffer = ""
        self._writing = False  # a logging handler writing to sys.stderr must not loop

    def write(self, s: str) -> int:
        if threading.get_ident() != self._owner or self._writing:
            return self._real.write(s)
        self._writing = True
        try:
            self._buffer += s
            while "\n" in self._buffer:
                line, self._buffer = self._buffer.split("\n", 1)
                if line.strip():
                    llama_log.debug("%s", line)
        finally:
            self._writing = False
        return len(s)

    def flush(self) -> None:
        if threading.get_ident() != self._owner:
            self._real.flush()

    def close_out(self) -> None:
        if self._buffer.strip():
            llama_log.debug("%s", self._buffer)
        self._buffer = ""


@contextlib.contextmanager
def _python_prints_to_log() -> Iterator[None]:
    proxy = _StderrForThread(sys.stderr, threading.get_ident())
    real = sys.stderr
    sys.stderr = proxy
    try:
        yield
    finally:
        if sys.stderr is proxy:
            sys.stderr = real
        proxy.close_out()


def _load_failure_reason(error_lines: Sequence[str]) -> str:
    """llama.cpp's error lines from a failed load, without function-name
    prefixes and without the generic "failed to load model" ones, e.g.
    "failed to read key-value pairs" or "tensor 'blk.0.attn_q.weight' data is
    not within the file bounds, model is corrupted or incomplete"."""
    reasons: list[str] = []
    for line in error_lines:
        text = line.strip()
        text = text.split("error loading model:", 1)[-1].strip()
        while ": " in text and " " not in text.split(": ", 1)[0]:
            text = text.split(": ", 1)[1].strip()  # drop "function_name: "
        if not text or text.startswith("failed to load model") or text in reasons:
            continue
        reasons.append(text)
    return "; ".join(reasons)


# --------------------------------------------------------------------------
# Stop strings (only used with the fallback template)
# --------------------------------------------------------------------------


class _StopStrings:
    """Holds back text that may be the start of a stop string; reports a hit."""

    def __init__(self, stops: Sequence[str]) -> None:
        self._stops = tuple(s for s in stops if s)
        self._pending = ""

    def feed(self, text: str) -> tuple[str, bool]:
        if not self._stops:
            return text, False
        self._pending += text
        hits = [i for i in (self._pending.find(s) for s in self._stops) if i >= 0]
        if hits:
            out = self._pending[: min(hits)]
            self._pending = ""
            return out, True
        hold = 0
        for stop in self._stops:
            for k in range(min(len(stop) - 1, len(self._pending)), 0, -1):
                if self._pending.endswith(stop[:k]):
                    hold = max(hold, k)
                    break
        out = self._pending[: len(self._pending) - hold]
        self._pending = self._pending[len(out):]
        return out, False

    def flush(self) -> str:
        out, self._pending = self._pending, ""
        return out


# --------------------------------------------------------------------------
# The backend
# --------------------------------------------------------------------------


class LlamaBackend:
    """A GGUF model run in-process by llama-cpp-python. See the module docstring
    for the threading rule.

    After ``load()``, ``info`` holds the ModelInfo. After (or during) each
    ``generate()``, ``last_prompt_tokens`` is the prompt size after history
    trimming and ``last_completion_tokens`` the tokens generated so far (not
    counting the end-of-generation token), for stats.

    ``n_ctx`` must be a multiple of 256 (ValueError otherwise); thread counts
    default to ``default_thread_counts()``. ``n_gpu_layers`` (-1: all) is
    handed to llama.cpp, which uses it only when built with a GPU backend.
    """

    def __init__(
        self,
        model_path: str | os.PathLike[str],
        n_ctx: int = DEFAULT_N_CTX,
        n_threads: int | None = None,
        n_threads_batch: int | None = None,
        n_gpu_layers: int = 0,
        warm_up_system_prompt: str = "",
    ) -> None:
        if n_ctx <= 0 or n_ctx % 256:
            # llama.cpp pads n_ctx up to a multiple of 256 while the Python
            # arrays keep the requested size: prompts in the gap would fail.
            raise ValueError(f"n_ctx must be a positive multiple of 256, got {n_ctx}")
        self.model_path = pathlib.Path(model_path)
        self.n_ctx = n_ctx
        self.n_threads = n_threads if n_threads is not None else DEFAULT_N_THREADS
        self.n_threads_batch = (
            n_threads_batch if n_threads_batch is not None else DEFAULT_N_THREADS_BATCH
        )
        self.n_gpu_layers = n_gpu_layers
        #: The system prompt evaluated while loading, so that it is already in
        #: the KV cache when the first reply starts ("" = a bare user turn).
        self.warm_up_system_prompt = warm_up_system_prompt
        self.last_prompt_tokens: int = 0
        self.last_completion_tokens: int = 0
        #: Messages of the last request left out of the context (ids, oldest first).
        self.last_dropped_ids: tuple[str, ...] = ()
        self.info: ModelInfo | None = None
        self._window: PromptWindow | None = None
        self._segment_formatter: Any = None
        self._probe_tokens: int | None = None

        self._llama_cpp: Any = None
        self._llm: Any = None
        self._vocab: Any = None
        self._formatter: Any = None
        self._stop_strings: tuple[str, ...] = ()
        self._bos: int = -1
        self._add_bos: bool = False
        self._piece_cache: dict[int, bytes] = {}
        self._eog_cache: dict[int, bool] = {}
        self._piece_buf = ctypes.create_string_buffer(64)
        self._abort_cb: Any = None  # referenced while installed (see _abortable)
        # The load's progress callback: llama.cpp keeps the function pointer in
        # the model's params, so it stays referenced as long as the model lives.
        self._progress_cb: Any = None

    # ---------------------------------------------------------------- load

    def load(
        self, cancel: threading.Event | None = None, progress: LoadProgress | None = None
    ) -> ModelInfo:
        """Load the model (see ``Backend.load``). Setting ``cancel`` aborts the
        tensor loading at the next tensor (llama.cpp's progress callback) and
        raises LoadCancelled; ``progress`` gets llama.cpp's fraction loaded."""
        if self._llm is not None:
            self.close()
        cancel = cancel if cancel is not None else threading.Event()
        if cancel.is_set():
            raise LoadCancelled()
        path = self.model_path
        if not path.exists():
            raise BackendError(translate("LlamaBackend", "Model file not found: {path}").format(path=path))
        if not path.is_file():
            raise BackendError(translate("LlamaBackend", "Model path is not a file: {path}").format(path=path))
        try:
            with path.open("rb") as f:
                magic = f.read(4)
        except OSError as exc:
            raise BackendError(translate("LlamaBackend", "Cannot read the model file {path}: {error}").format(
                path=path, error=exc)) from exc
        if magic != GGUF_MAGIC:
            if not magic:
                text = translate("LlamaBackend", "{name} is not a GGUF model file (the file is empty).")
            else:
                text = translate("LlamaBackend", "{name} is not a GGUF model file (it does not start with 'GGUF').")
            raise BackendError(text.format(name=path.name))

        try:
            import llama_cpp
            import llama_cpp.llama_chat_format as chat_format
        except ImportError as exc:
            raise BackendError(translate("LlamaBackend", "llama-cpp-python is not installed: {error}").format(
                error=exc)) from exc
        self._llama_cpp = llama_cpp
        _install_log_router(llama_cpp)
        hooked = _install_params_hook(llama_cpp)
        callback = _make_progress_callback(llama_cpp, cancel, progress) if hooked else None

        with contextlib.ExitStack() as stack:
            errors = stack.enter_context(_LOG_ROUTER.capture_errors())
            stack.enter_context(_python_prints_to_log())
            # A cancelled load makes llama.cpp log errors: expected, not warnings.
            stack.enter_context(_LOG_ROUTER.abortable(cancel))
            hook = stack.enter_context(_load_hook(callback))
            try:
                llm = llama_cpp.Llama(
                    model_path=str(path),
                    n_ctx=self.n_ctx,
                    n_threads=self.n_threads,
                    n_threads_batch=self.n_threads_batch,
                    n_gpu_layers=self.n_gpu_layers,
                    verbose=True,  # our log callback keeps it off the terminal
                )
            except Exception as exc:
                if cancel.is_set():
                    raise LoadCancelled() from exc
                reason = _load_failure_reason(errors)
                if reason:
                    message = translate(
                        "LlamaBackend", "Failed to load model {name}. llama.cpp says: {reason}. "
                        "The file may be incomplete or corrupted, or made for a "
                        "newer llama.cpp."
                    ).format(name=path.name, reason=reason)
                else:
                    message = translate("LlamaBackend", "Failed to load model {name} ({error})").format(
                        name=path.name, error=exc)
                raise BackendError(message) from exc
            if callback is not None and not hook.applied:
                log.warning(
                    "this llama-cpp-python did not take Rill's model-loading progress "
                    "callback: loading cannot be cancelled or report progress"
                )
        if cancel.is_set():  # cancelled after the tensors were loaded
            llm.close()
            raise LoadCancelled()
        # From now on no per-request chatter ("prefix-match hit") on stderr.
        llm.verbose = False
        self._llm = llm
        self._progress_cb = callback
        self._vocab = llm._model.vocab
        self._piece_cache.clear()
        self._eog_cache.clear()

        metadata: dict[str, str] = dict(llm.metadata or {})
        warnings: list[str] = []
        eos = llm.token_eos()
        self._bos = llm.token_bos()
        self._add_bos = bool(llama_cpp.llama_vocab_get_add_bos(self._vocab))
        eos_text = llm._model.token_get_text(eos) if eos != -1 else ""
        bos_text = llm._model.token_get_text(self._bos) if self._bos != -1 else ""
        template = metadata.get("tokenizer.chat_template")
        if template:
            template_desc = "gguf"
            self._stop_strings = ()
        else:
            template = chat_format.CHATML_CHAT_TEMPLATE
            template_desc = FALLBACK_TEMPLATE_DESCRIPTION
            warnings.append(translate("LlamaBackend", FALLBACK_TEMPLATE_WARNING))
            self._stop_strings = _FALLBACK_STOP_STRINGS
        try:
            self._formatter = chat_format.Jinja2ChatFormatter(
                template=template,
                eos_token=eos_text,
                bos_token=bos_text,
                add_generation_prompt=True,
            )
            self._segment_formatter = chat_format.Jinja2ChatFormatter(
                template=template,
                eos_token=eos_text,
                bos_token=bos_text,
                add_generation_prompt=False,
            )
        except Exception as exc:
            self.close()
            raise BackendError(translate("LlamaBackend", "The model's chat template is invalid: {error}").format(
                error=exc)) from exc
        self._window = PromptWindow(
            self._render, self._measure, self.n_ctx,
            overhead=lambda: len(self._render([_PROBE_SYSTEM])) - self._segment_tokens([_PROBE_SYSTEM]),
        )

        n_ctx_train = int(llm._model.n_ctx_train() or 0)
        if 0 < n_ctx_train < self.n_ctx:
            warnings.append(translate(
                "LlamaBackend", "The context ({n_ctx} tokens) is larger than the model was "
                "trained for ({trained}); long chats may degrade."
            ).format(n_ctx=self.n_ctx, trained=n_ctx_train))
        self.info = ModelInfo(
            # The file name: GGUF names are often training-run labels
            # ("Smollm2 135M 8k Lc100K Mix1 Ep2") while files are named for people.
            name=path.stem,
            path=str(path),
            n_ctx=int(llm.n_ctx()),
            n_threads=self.n_threads,
            chat_template=translate("LlamaBackend", template_desc) if template_desc != "gguf" else template_desc,
            warnings=tuple(warnings),
        )
        self._warm_up(cancel)
        if cancel.is_set():
            self.close()
            raise LoadCancelled()
        log.info(
            "loaded %s (n_ctx=%d, threads=%d/%d, template=%s)",
            self.info.name, self.info.n_ctx, self.n_threads, self.n_threads_batch,
            template_desc,
        )
        return self.info

    # ------------------------------------------------------------ generate

    def generate(
        self, request: GenerationRequest, cancel: threading.Event
    ) -> Generator[str, None, FinishReason]:
        llm = self._require_loaded()
        params = request.params
        self.last_prompt_tokens = 0
        self.last_completion_tokens = 0
        self.last_dropped_ids = ()

        window = self._window.fit(request.messages, params.max_tokens, request.overflow)
        prompt, max_tokens = window.tokens, window.max_tokens
        self.last_dropped_ids = window.dropped_ids
        if request.continue_text:
            # The reply so far follows the generation prompt as plain text
            # (no end-of-turn token), so the model writes on from it.
            more = llm.tokenize(request.continue_text.encode("utf-8"), add_bos=False, special=False)
            if len(more) >= max_tokens:
                raise BackendError(translate("LlamaBackend", "The reply is too long to continue within the model's context."))
            prompt = prompt + more
            max_tokens -= len(more)
        self.last_prompt_tokens = len(prompt)
        if cancel.is_set():
            return FinishReason.CANCELLED

        llm.set_seed(
            params.seed if params.seed is not None else self._llama_cpp.LLAMA_DEFAULT_SEED
        )
        tokens = llm.generate(
            prompt,
            top_k=params.top_k,
            top_p=params.top_p,
            min_p=params.min_p,
            temp=params.temperature,
            repeat_penalty=params.repeat_penalty,
        )
        decoder = TokenDecoder()
        stops = _StopStrings(self._stop_strings)
        finish = FinishReason.LENGTH
        stopped_by_string = False
        try:
            # The first next() evaluates the prompt (the long part) and samples
            # the first token: that is the part the abort callback covers.
            try:
                with self._abortable(cancel):
                    token = next(tokens)
            except RuntimeError as exc:
                if "llama_decode returned 2" in str(exc):  # aborted by the callback
                    self._after_abort()
                    return FinishReason.CANCELLED
                if cancel.is_set():
                    llm.reset()
                    return FinishReason.CANCELLED
                raise
            while True:
                if cancel.is_set():
                    finish = FinishReason.CANCELLED
                    break
                if self._is_eog(token) and not params.ignore_eos:
                    finish = FinishReason.STOP
                    break
                self.last_completion_tokens += 1
                text, stopped = stops.feed(decoder.feed(self._piece(token)))
                yield text
                if stopped:
                    finish = FinishReason.STOP
                    stopped_by_string = True
                    break
                if self.last_completion_tokens >= max_tokens:
                    finish = FinishReason.LENGTH
                    break
                if cancel.is_set():
                    finish = FinishReason.CANCELLED
                    break
                token = next(tokens)
        except StopIteration:  # llama-cpp-python ended the stream itself
            finish = FinishReason.STOP
        except BackendError:
            raise
        except Exception as exc:
            log.exception("generation failed")
            llm.reset()  # re-evaluate from scratch next time
            raise BackendError(translate("LlamaBackend", "Generation failed: {error}").format(error=exc)) from exc
        finally:
            tokens.close()
            self._free_sampler()
        if not stopped_by_string:
            tail, _ = stops.feed(decoder.flush())
            tail += stops.flush()  # text held back as a possible stop-string start
            if tail:
                yield tail
        return finish

    # --------------------------------------------------------------- close

    def close(self) -> None:
        llm, self._llm = self._llm, None
        self._vocab = None
        self._formatter = None
        self._piece_cache.clear()
        self._eog_cache.clear()
        if llm is not None:
            with contextlib.suppress(Exception):
                self._llama_cpp.llama_set_abort_callback(
                    llm._ctx.ctx, self._llama_cpp.ggml_abort_callback(), None
                )
            llm.close()
        self._abort_cb = None
        self._progress_cb = None

    # ------------------------------------------------------------- helpers

    def _warm_up(self, cancel: threading.Event) -> None:
        """Pay the first request's one-time costs while the model loads, not in
        the first reply (283 ms -> 65 ms time to first token here): the first
        decode and sampling, and the default system prompt's evaluation, which
        stays in the KV cache as the prefix of the first real prompt."""
        messages = [ChatMessage("user", "Hi")]
        if self.warm_up_system_prompt:
            messages.insert(0, ChatMessage("system", self.warm_up_system_prompt))
        try:
            prompt = self._render(messages)
            tokens = self._llm.generate(prompt, top_k=1, temp=0.0)
            try:
                with self._abortable(cancel):
                    next(tokens)
            finally:
                tokens.close()
                self._free_sampler()
        except Exception as exc:  # noqa: BLE001 - a warm-up failure only costs time
            if not cancel.is_set():
                log.warning("warming the model up failed: %s", exc)
            with contextlib.suppress(Exception):
                self._llm.reset()

    def _free_sampler(self) -> None:
        """Llama.generate() builds a new sampler chain per call whose native
        memory is freed only by a full garbage collection (about 0.3-0.6 MB
        per request otherwise, measured by benchmarks/memory.py): free it now."""
        llm = self._llm
        sampler = getattr(llm, "_sampler", None)
        if sampler is not None:
            llm._sampler = None
            with contextlib.suppress(Exception):
                sampler.close()

    def _require_loaded(self) -> Any:
        if self._llm is None:
            raise BackendError(translate("LlamaBackend", "The model is not loaded."))
        return self._llm

    # Per-token ctypes calls are cached: each one releases and re-takes the
    # GIL, and when the GUI thread is running Python, re-taking it can cost up
    # to a switch interval (5 ms by default).

    def _is_eog(self, token: int) -> bool:
        eog = self._eog_cache.get(token)
        if eog is None:
            eog = self._eog_cache[token] = bool(
                self._llama_cpp.llama_vocab_is_eog(self._vocab, token)
            )
        return eog

    def _piece(self, token: int) -> bytes:
        """The bytes of one token (O(1); special tokens render as nothing)."""
        piece = self._piece_cache.get(token)
        if piece is None:
            buf = self._piece_buf
            n = self._llama_cpp.llama_token_to_piece(self._vocab, token, buf, len(buf), 0, False)
            if n < 0:  # buffer too small: -n is the size needed
                buf = self._piece_buf = ctypes.create_string_buffer(-n)
                n = self._llama_cpp.llama_token_to_piece(
                    self._vocab, token, buf, len(buf), 0, False
                )
            piece = buf.raw[: max(n, 0)]
            self._piece_cache[token] = piece
        return piece

    @contextlib.contextmanager
    def _abortable(self, cancel: threading.Event) -> Iterator[None]:
        """Let ``cancel`` abort llama_decode while the prompt is evaluated.

        ggml calls the callback after every graph node (~600 per 512-token
        batch here) and it takes the GIL each time: free while the GUI thread
        sits in Qt's event loop, but while the GUI thread runs Python it
        roughly doubled prefill time at the default 5 ms switch interval (see
        the thread table above). So it is installed only around prompt
        evaluation, and removed (NULL) before the token loop."""
        llama_cpp = self._llama_cpp
        ctx = self._llm._ctx.ctx
        self._abort_cb = llama_cpp.ggml_abort_callback(lambda _data: cancel.is_set())
        llama_cpp.llama_set_abort_callback(ctx, self._abort_cb, None)
        try:
            with _LOG_ROUTER.abortable(cancel):
                yield
        finally:
            # a NULL function pointer: decode no longer calls into Python
            llama_cpp.llama_set_abort_callback(ctx, llama_cpp.ggml_abort_callback(), None)
            self._abort_cb = None

    def _after_abort(self) -> None:
        # llama.cpp dropped the aborted ubatch from the KV cache and the
        # wrapper's n_tokens covers only the batches that finished, so the next
        # request reuses that prefix. The logits are stale, though: force a
        # decode before the next sample.
        llm = self._llm
        if hasattr(llm, "_requires_eval"):
            llm._requires_eval = True

    def _render(self, messages: Sequence[ChatMessage]) -> list[int]:
        try:
            result = self._formatter(
                messages=[{"role": m.role, "content": m.content} for m in messages]
            )
        except Exception as exc:
            raise BackendError(translate("LlamaBackend", "The model's chat template failed: {error}").format(
                error=exc)) from exc
        tokens: list[int] = self._llm.tokenize(
            result.prompt.encode("utf-8"), add_bos=False, special=True
        )
        if self._add_bos and self._bos != -1 and (not tokens or tokens[0] != self._bos):
            tokens.insert(0, self._bos)
        return tokens

    def _measure(self, message: ChatMessage) -> int:
        """The tokens ``message`` takes inside a prompt: an estimate for
        choosing the window (the chosen window is then tokenized exactly).

        Rendered after a fixed system message and minus that message's own
        tokens: templates add a default system prompt to a conversation that
        has none (SmolLM2's does), which must not be counted per message."""
        if message.role == "system":
            return self._segment_tokens([message])
        if self._probe_tokens is None:
            self._probe_tokens = self._segment_tokens([_PROBE_SYSTEM])
        try:
            return self._segment_tokens([_PROBE_SYSTEM, message]) - self._probe_tokens
        except Exception:  # noqa: BLE001 - a template that refuses this order
            return len(self._llm.tokenize(message.content.encode("utf-8"), add_bos=False, special=False)) + 4

    def _segment_tokens(self, messages: Sequence[ChatMessage]) -> int:
        text = self._segment_formatter(messages=[{"role": m.role, "content": m.content} for m in messages]).prompt
        tokens = self._llm.tokenize(text.encode("utf-8"), add_bos=False, special=True)
        return len(tokens) - (1 if tokens and tokens[0] == self._bos else 0)
