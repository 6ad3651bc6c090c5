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
* ``llama_cpp.llama_chat_format.Jinja2ChatFormatter`` as ``Llama.__init__``
  looks it up: it compiles every chat template of the file's metadata with a
  sandbox whose optimizer folds constants, so ``{{ 'x' * 3000000000 }}`` or
  ``{{ 7 ** 100000000 }}`` runs (3 GB, minutes) inside ``Llama()`` before Rill
  sees the template. Rill renders templates itself
  (``app.core.backends.llama.sandbox``), so inside ``templates_left_to_rill``
  the name gives an inert formatter (``install_template_guard``).
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
# .active: this thread is inside ``templates_left_to_rill`` (a Rill load).
_TEMPLATES = threading.local()


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


class _InertFormatter:
    """What ``Llama()`` gets for each metadata template inside a Rill load."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    def to_chat_handler(self) -> Any:
        def handler(*args: Any, **kwargs: Any) -> Any:
            raise RuntimeError("Rill renders chat templates itself (app.core.backends.llama.template)")

        return handler


def install_template_guard(llama_cpp: Any) -> bool:
    """Wrap ``llama_chat_format.Jinja2ChatFormatter`` (idempotent): inside
    ``templates_left_to_rill`` on this thread it makes an inert formatter;
    everywhere else (another thread, llama-cpp-python's own server) the real
    one. False if this llama-cpp-python has no such name."""
    formats = getattr(llama_cpp, "llama_chat_format", None)
    current = getattr(formats, "Jinja2ChatFormatter", None)
    if formats is None or current is None:
        return False
    with _PARAMS_HOOK_LOCK:
        current = formats.Jinja2ChatFormatter
        if getattr(current, "_rill_template_guard", False):
            return True

        class Jinja2ChatFormatter(current):  # type: ignore[misc, valid-type]  # a subclass of a class found at run time
            # A subclass, not a function: the class's own code names
            # ``Jinja2ChatFormatter.IgnoreGenerationTags`` through the module.
            _rill_template_guard = True

            def __new__(cls, *args: Any, **kwargs: Any) -> Any:
                if getattr(_TEMPLATES, "active", False):
                    return _InertFormatter()
                return super().__new__(cls)

        formats.Jinja2ChatFormatter = Jinja2ChatFormatter
    return True


@contextlib.contextmanager
def templates_left_to_rill() -> Any:
    """While inside, ``Llama()`` on this thread compiles no chat template."""
    _TEMPLATES.active = True
    try:
        yield
    finally:
        _TEMPLATES.active = False


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
