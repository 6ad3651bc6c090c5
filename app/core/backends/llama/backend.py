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
llama-cpp-python's ``Llama()`` does not expose: see ``shim.install_params_hook``.

The package: ``threads`` (thread counts), ``logs`` (llama.cpp's log),
``progress`` (the load's progress callback), ``shim`` (the only private
llama-cpp-python access), ``stops`` (stop strings), ``template`` (the chat
template), ``vocab`` (a token's bytes and text, cached), ``vision`` and
``vision_prompt`` (images, through the model's vision projector: loaded by
``vision.attach_projector``), ``opening`` (the checks before a load, and the
``Llama`` opened with its log, progress and cancel), ``backend``
(``LlamaBackend``).

Images: a model with a vision projector beside it (``app.core.models.projector``)
loads it with the model; a request whose messages carry images then goes
through ``vision_prompt`` (the window, with each image's tokens counted) and
``vision.Chunks.evaluate`` (the images into the context), and is sampled by
the same token loop as text. A request without images takes the text path
unchanged. A projector libmtmd refuses (damaged, made for another model)
does not stop the model: it loads text-only, with a warning saying why.

Nothing here imports Qt.
"""

from __future__ import annotations

import contextlib
import logging
import os
import pathlib
import threading
from collections.abc import Callable, Generator, Iterator, Sequence
from typing import Any

from app.core.backends.base import (
    BackendError,
    ChatMessage,
    FinishReason,
    GenerationRequest,
    LoadCancelled,
    LoadProgress,
    ModelInfo,
    PromptProgress,
)
from app.core.backends.llama import shim
from app.core.backends.llama.logs import LOG_ROUTER
from app.core.backends.llama.opening import GGUF_MAGIC, check_model_file, open_llama
from app.core.backends.llama.sandbox import TemplateCancelled
from app.core.backends.llama.stops import StopStrings
from app.core.backends.llama.template import ChatTemplate
from app.core.backends.llama.threads import DEFAULT_N_THREADS, DEFAULT_N_THREADS_BATCH, default_thread_counts
from app.core.backends.llama.vision import Chunks, Projector, VisionCancelled, attach_projector
from app.core.backends.llama.vision_prompt import VisionPrompt, has_images
from app.core.backends.llama.vocab import Vocab
from app.core.backends.prompt_window import PromptWindow
from app.core.base.i18n import QT_TRANSLATE_NOOP, translate
from app.core.models.paths import DEFAULT_N_CTX
from app.core.models.projector import find_projector
from app.core.text.decoding import TokenDecoder

__all__ = [
    "DEFAULT_N_THREADS",
    "DEFAULT_N_THREADS_BATCH",
    "FALLBACK_TEMPLATE_DESCRIPTION",
    "FALLBACK_TEMPLATE_WARNING",
    "GGUF_MAGIC",
    "LlamaBackend",
    "default_thread_counts",
]

log = logging.getLogger(__name__)


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
        self._template: ChatTemplate | None = None
        self._projector: Projector | None = None
        self._vision: VisionPrompt | None = None

        self._llama_cpp: Any = None
        self._llm: Any = None
        self._vocab: Vocab | None = None
        self._stop_strings: tuple[str, ...] = ()
        self._bos: int = -1
        self._add_bos: bool = False
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
        check_model_file(path)

        try:
            import llama_cpp
            import llama_cpp.llama_chat_format as chat_format
        except ImportError as exc:
            raise BackendError(translate("LlamaBackend", "llama-cpp-python is not installed: {error}").format(
                error=exc)) from exc
        self._llama_cpp = llama_cpp
        llm, callback = open_llama(llama_cpp, path, cancel, progress, n_ctx=self.n_ctx, n_threads=self.n_threads,
                                   n_threads_batch=self.n_threads_batch, n_gpu_layers=self.n_gpu_layers)
        if cancel.is_set():  # cancelled after the tensors were loaded
            llm.close()
            raise LoadCancelled()
        # From now on no per-request chatter ("prefix-match hit") on stderr.
        llm.verbose = False
        self._llm = llm
        self._progress_cb = callback
        vocab = self._vocab = Vocab(llama_cpp, llama_cpp.llama_model_get_vocab(llm.model))

        metadata: dict[str, str] = dict(llm.metadata or {})
        warnings: list[str] = []
        eos = llm.token_eos()
        self._bos = llm.token_bos()
        self._add_bos = bool(llama_cpp.llama_vocab_get_add_bos(vocab.pointer))
        eos_text = vocab.text(eos)
        bos_text = vocab.text(self._bos)
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
            self._template = ChatTemplate(llm, template, eos_text, bos_text, self._bos, self._add_bos)
        except Exception as exc:
            self.close()
            raise BackendError(translate("LlamaBackend", "The model's chat template is invalid: {error}").format(
                error=exc)) from exc
        try:
            self._template.check(cancel)
        except TemplateCancelled:
            self.close()
            raise LoadCancelled() from None
        except BackendError:
            self.close()
            raise
        self._window = PromptWindow(self._render, self._template.measure, self.n_ctx, overhead=self._template.overhead)
        self._projector, reason = attach_projector(
            self._llama_cpp, llm, find_projector(path), self.n_threads_batch, use_gpu=self.n_gpu_layers != 0)
        if reason:
            warnings.append(reason)
        self._vision = VisionPrompt(self._projector, self._template, self.n_ctx) if self._projector else None
        vision = self._projector is not None

        n_ctx_train = int(llama_cpp.llama_model_n_ctx_train(llm.model) or 0)
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
            vision=vision,
            projector=self._projector.path.name if self._projector is not None else "",
            projector_error=reason,
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
        self, request: GenerationRequest, cancel: threading.Event, progress: PromptProgress | None = None
    ) -> Generator[str, None, FinishReason]:
        owned: list[Chunks] = []  # a prompt with images: libmtmd's chunks, freed at the end
        try:
            return (yield from self._generate(request, cancel, progress, owned))
        finally:
            for chunks in owned:
                chunks.free()

    def _generate(
        self, request: GenerationRequest, cancel: threading.Event, progress: PromptProgress | None,
        owned: list[Chunks],
    ) -> Generator[str, None, FinishReason]:
        llm = self._require_loaded()
        vocab = self._vocab
        assert vocab is not None  # set by load()
        params = request.params
        self.last_prompt_tokens = 0
        self.last_completion_tokens = 0
        self.last_dropped_ids = ()

        assert self._window is not None and self._template is not None  # set by load()
        self._template.cancel = cancel   # Stop also stops the chat template's render
        chunks: Chunks | None = None
        try:
            if self._vision is not None and has_images(request.messages):
                window, chunks = self._vision.fit(request.messages, params.max_tokens, request.overflow)
                owned.append(chunks)
            else:
                window = self._window.fit(request.messages, params.max_tokens, request.overflow)
        except TemplateCancelled:
            return FinishReason.CANCELLED
        finally:
            self._template.cancel = None
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
        if chunks is not None and chunks.extra_cells:  # M-RoPE images take more cells than positions
            max_tokens -= chunks.extra_cells
            if max_tokens < 1:
                raise BackendError(translate("LlamaBackend", "The images do not fit the model's context."))
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
        stops = StopStrings(self._stop_strings)
        finish = FinishReason.LENGTH
        stopped_by_string = False
        try:
            # The first next() evaluates the prompt (the long part) and samples
            # the first token: that is the part the abort callback covers.
            try:
                with self._abortable(cancel, self._reading(llm, len(prompt), progress)):
                    if chunks is not None:  # the images (and the text before them) first
                        assert self._projector is not None
                        chunks.evaluate(self._llama_cpp, llm, self._projector, cancel)
                    token = next(tokens)
            except VisionCancelled:
                self._after_abort()
                return FinishReason.CANCELLED
            except RuntimeError as exc:
                if shim.is_abort(exc):  # aborted by the callback
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
                if vocab.is_eog(token) and not params.ignore_eos:
                    finish = FinishReason.STOP
                    break
                self.last_completion_tokens += 1
                text, stopped = stops.feed(decoder.feed(vocab.piece(token)))
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
        self._template = None
        self._vision = None
        projector, self._projector = self._projector, None
        if projector is not None:  # before the model it was made for
            projector.close()
        if llm is not None:
            with contextlib.suppress(Exception):
                self._llama_cpp.llama_set_abort_callback(llm.ctx, self._llama_cpp.ggml_abort_callback(), None)
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
        shim.free_sampler(self._llm)

    def _require_loaded(self) -> Any:
        if self._llm is None:
            raise BackendError(translate("LlamaBackend", "The model is not loaded."))
        return self._llm

    @staticmethod
    def _reading(llm: Any, total: int, progress: PromptProgress | None) -> Callable[[], None] | None:
        """A check for the abort callback that tells ``progress`` the prompt
        tokens read: ``Llama.eval`` decodes the prompt in batches of
        ``n_batch`` and counts each finished batch in ``n_tokens`` (the
        cached prefix counts from the start), so a change of it is a batch
        read. One attribute read per call (None: no one to tell)."""
        if progress is None:
            return None
        last = [-1]

        def check() -> None:
            done = min(int(llm.n_tokens), total)
            if done != last[0]:
                last[0] = done
                progress(done, total)

        return check

    @contextlib.contextmanager
    def _abortable(self, cancel: threading.Event, check: Callable[[], None] | None = None) -> Iterator[None]:
        """Let ``cancel`` abort llama_decode while the prompt is evaluated.

        ggml calls the callback after every graph node (~600 per 512-token
        batch here) and it takes the GIL each time: free while the GUI thread
        sits in Qt's event loop, but while the GUI thread runs Python it
        roughly doubled prefill time at the default 5 ms switch interval (see
        the thread table above). So it is installed only around prompt
        evaluation, and removed (NULL) before the token loop. ``check`` runs
        first on each call (the prompt progress, ``_reading``)."""
        llama_cpp = self._llama_cpp
        ctx = self._llm.ctx
        if check is None:
            self._abort_cb = llama_cpp.ggml_abort_callback(lambda _data: cancel.is_set())
        else:
            def abort(_data: object) -> bool:
                check()  # (never raises: ``start_generation`` wraps the progress)
                return cancel.is_set()

            self._abort_cb = llama_cpp.ggml_abort_callback(abort)
        llama_cpp.llama_set_abort_callback(ctx, self._abort_cb, None)
        try:
            with LOG_ROUTER.abortable(cancel):
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
        shim.require_eval(self._llm)

    def _render(self, messages: Sequence[ChatMessage]) -> list[int]:
        if self._template is None:
            raise BackendError(translate("LlamaBackend", "The model is not loaded."))
        return self._template.render(messages)
