"""The only private llama-cpp-python access that has no public equivalent.

Everything else uses the public API (``Llama.ctx``, ``Llama.model``,
``llama_model_get_vocab``, ``llama_vocab_*``, ``llama_model_n_ctx_train``).
These depend on llama-cpp-python's internals; ``PINNED`` names the
version they were written against (pyproject.toml pins it), and
tests/core/backends/llama/test_shim.py fails loudly when a new version moves
them:

* ``Llama._sampler``: ``Llama.generate()`` builds a sampler chain per call
  whose native memory only a full garbage collection frees
  (``free_sampler``).
* ``Llama._requires_eval``: after an aborted prompt evaluation the logits are
  stale; setting it forces a decode before the next sample
  (``require_eval``).
* the text of the ``RuntimeError`` an aborted ``llama_decode`` raises
  (``is_abort``): the return code 2 is only in its message.
* ``llama_cpp.llama_cpp.llama_model_default_params``: ``Llama.__init__``
  looks it up on the module at call time and passes its result straight to
  ``llama_model_load_from_file`` with no way to set ``progress_callback`` in
  between, so it is wrapped (``install_params_hook``).
"""

from __future__ import annotations

import contextlib
import threading
from typing import Any

#: The llama-cpp-python version these reach-ins were written against.
PINNED = "0.3.36"

# The wrapper returns the real defaults and, only when the calling thread is
# inside ``progress.load_hook`` (i.e. inside ``LlamaBackend.load``), sets that
# thread's progress callback on them. Every other caller, on any thread, gets
# the unchanged defaults; concurrent loads on different threads each get their
# own callback; nothing has to be restored.
LOAD_HOOK = threading.local()  # .callback: the ctypes callback of this thread's load; .applied
_PARAMS_HOOK_LOCK = threading.Lock()


def install_params_hook(llama_cpp: Any) -> bool:
    """Wrap ``llama_cpp.llama_cpp.llama_model_default_params`` (idempotent).
    False if this llama-cpp-python has no such function or struct field."""
    low = getattr(llama_cpp, "llama_cpp", None)
    original = getattr(low, "llama_model_default_params", None)
    if low is None or original is None or not hasattr(low, "llama_progress_callback"):
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
            callback = getattr(LOAD_HOOK, "callback", None)
            if callback is not None:
                params.progress_callback = callback
                params.progress_callback_user_data = None
                LOAD_HOOK.applied = True
            return params

        llama_model_default_params._rill_progress_hook = True  # type: ignore[attr-defined]  # a mark on a function
        llama_model_default_params.__wrapped__ = current  # type: ignore[attr-defined]  # as functools.wraps sets it
        low.llama_model_default_params = llama_model_default_params
    return True


def free_sampler(llm: Any) -> None:
    """Free the sampler chain the last ``Llama.generate()`` built (about
    0.3-0.6 MB of native memory per request otherwise, measured by
    benchmarks/memory.py)."""
    sampler = getattr(llm, "_sampler", None)
    if sampler is not None:
        llm._sampler = None
        with contextlib.suppress(Exception):
            sampler.close()


#: What ``LlamaContext.decode`` raises when the abort callback stopped it (return code 2).
ABORTED_DECODE = "llama_decode returned 2"


def is_abort(exc: BaseException) -> bool:
    """Is ``exc`` the error of a decode our abort callback stopped?"""
    return isinstance(exc, RuntimeError) and ABORTED_DECODE in str(exc)


def require_eval(llm: Any) -> None:
    """Make the next sample decode first (the logits are stale after an abort)."""
    if hasattr(llm, "_requires_eval"):
        llm._requires_eval = True
