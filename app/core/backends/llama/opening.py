"""Opening a GGUF file with llama-cpp-python (Qt-free): the checks said
before llama.cpp is asked (``check_model_file``), and the ``Llama`` itself
with llama.cpp's log captured, its load progress reported and cancellable,
and its failure said in words for the user (``open_llama``).

Threading rule: the inference worker's thread (the one that will own the model).
"""

from __future__ import annotations

import contextlib
import logging
import pathlib
import threading
from typing import Any

from app.core.backends.base import BackendError, LoadCancelled, LoadProgress
from app.core.backends.llama import shim
from app.core.backends.llama.logs import LOG_ROUTER, install_log_router, load_failure_reason, python_prints_to_log
from app.core.backends.llama.progress import load_hook, make_progress_callback
from app.core.base.i18n import translate

log = logging.getLogger(__name__)

GGUF_MAGIC = b"GGUF"


def check_model_file(path: pathlib.Path) -> None:
    """BackendError (for the user) unless ``path`` is a readable file that
    starts as a GGUF file does: said before llama.cpp is asked to load it."""
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


def open_llama(
    llama_cpp: Any, path: pathlib.Path, cancel: threading.Event, progress: LoadProgress | None, *,
    n_ctx: int, n_threads: int, n_threads_batch: int, n_gpu_layers: int,
) -> tuple[Any, Any]:
    """The loaded ``Llama`` and its progress callback (keep it referenced as
    long as the model lives: llama.cpp keeps the pointer). LoadCancelled when
    ``cancel`` is set during the load, BackendError when llama.cpp fails."""
    install_log_router(llama_cpp)
    hooked = shim.install_params_hook(llama_cpp)
    shim.install_template_guard(llama_cpp)
    callback = make_progress_callback(llama_cpp, cancel, progress) if hooked else None
    with contextlib.ExitStack() as stack:
        errors = stack.enter_context(LOG_ROUTER.capture_errors())
        stack.enter_context(python_prints_to_log())
        # A cancelled load makes llama.cpp log errors: expected, not warnings.
        stack.enter_context(LOG_ROUTER.abortable(cancel))
        hook = stack.enter_context(load_hook(callback))
        stack.enter_context(shim.templates_left_to_rill())
        try:
            llm = llama_cpp.Llama(
                model_path=str(path),
                n_ctx=n_ctx,
                n_threads=n_threads,
                n_threads_batch=n_threads_batch,
                n_gpu_layers=n_gpu_layers,
                verbose=True,  # our log callback keeps it off the terminal
            )
        except Exception as exc:
            if cancel.is_set():
                raise LoadCancelled() from exc
            reason = load_failure_reason(errors)
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
    return llm, callback
