"""app.core.backends.llama.shim: the private llama-cpp-python access, and the
guard that fails loudly when the pinned llama-cpp-python moves it."""

from __future__ import annotations

import importlib
import importlib.metadata
import inspect
import threading
import types
from typing import Any, ClassVar

import pytest

from app.core.backends.llama import shim
from app.core.backends.llama.progress import load_hook, make_progress_callback


def _llama() -> Any:
    llama_cpp = pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed")
    return llama_cpp


def test_the_pinned_llama_cpp_python_still_has_what_the_shim_reaches_into() -> None:
    llama_cpp = _llama()
    version = importlib.metadata.version("llama-cpp-python")
    assert version == shim.PINNED, (
        f"llama-cpp-python {version} is installed, the shim was written for {shim.PINNED}: check each reach-in in "
        "app/core/backends/llama/shim.py against the new source, then update PINNED (and pyproject.toml)")
    source = inspect.getsource(llama_cpp.Llama)
    init = inspect.getsource(llama_cpp.Llama.__init__)
    # the params hook: Llama() looks the defaults up on the module at call time
    assert "llama_cpp.llama_model_default_params()" in init
    fields = {name for name, *_ in llama_cpp.llama_cpp.llama_model_params._fields_}
    assert {"progress_callback", "progress_callback_user_data"} <= fields
    assert hasattr(llama_cpp.llama_cpp, "llama_progress_callback")
    # generate() builds a sampler into self._sampler; an eval is forced through self._requires_eval
    assert "self._sampler = self._init_sampler(" in source and "self._sampler = None" in source
    assert "if self._requires_eval" in source or "self._requires_eval = False" in source
    # an aborted decode is told apart by its message only
    internals = inspect.getsource(importlib.import_module("llama_cpp._internals"))
    assert 'raise RuntimeError(f"llama_decode returned {return_code}")' in internals
    assert shim.is_abort(RuntimeError("llama_decode returned 2")) and not shim.is_abort(RuntimeError("returned 1"))
    # the public API used instead of the other private fields
    assert isinstance(llama_cpp.Llama.ctx, property) and isinstance(llama_cpp.Llama.model, property)
    for name in ("llama_model_get_vocab", "llama_model_n_ctx_train", "llama_vocab_get_text", "llama_vocab_is_eog",
                 "llama_token_to_piece", "llama_vocab_get_add_bos", "llama_set_abort_callback"):
        assert callable(getattr(llama_cpp, name)), name


def _fake_llama_cpp() -> Any:
    class Params:
        _fields_: ClassVar[list[tuple[str, None]]] = [("progress_callback", None), ("progress_callback_user_data", None)]
        progress_callback: Any = None
        progress_callback_user_data: Any = None

    low = types.SimpleNamespace(llama_model_params=Params, llama_model_default_params=Params,
                                llama_progress_callback=lambda fn: fn)
    return types.SimpleNamespace(llama_cpp=low)


def test_the_params_hook_sets_the_callback_only_inside_a_load_on_this_thread() -> None:
    fake = _fake_llama_cpp()
    assert shim.install_params_hook(fake) and shim.install_params_hook(fake)  # idempotent
    assert fake.llama_cpp.llama_model_default_params().progress_callback is None
    seen: list[float] = []
    callback = make_progress_callback(fake, threading.Event(), seen.append)
    with load_hook(callback) as hook:
        other: list[Any] = []
        thread = threading.Thread(target=lambda: other.append(fake.llama_cpp.llama_model_default_params()))
        thread.start()
        thread.join()
        assert other[0].progress_callback is None
        params = fake.llama_cpp.llama_model_default_params()
        assert hook.applied and params.progress_callback is callback
    assert params.progress_callback(0.5, None) is True and seen == [0.5]
    assert fake.llama_cpp.llama_model_default_params().progress_callback is None


def test_the_hook_declines_a_llama_cpp_without_the_fields() -> None:
    fake = _fake_llama_cpp()
    fake.llama_cpp.llama_model_params = type("Params", (), {"_fields_": []})
    assert not shim.install_params_hook(fake)
    assert not shim.install_params_hook(types.SimpleNamespace())


def test_a_cancelled_load_makes_the_callback_say_stop() -> None:
    cancel = threading.Event()
    callback = make_progress_callback(_fake_llama_cpp(), cancel, None)
    assert callback(0.1, None) is True
    cancel.set()
    assert callback(0.2, None) is False


def test_free_sampler_and_require_eval() -> None:
    closed: list[bool] = []
    llm = types.SimpleNamespace(_sampler=types.SimpleNamespace(close=lambda: closed.append(True)), _requires_eval=False)
    shim.free_sampler(llm)
    assert llm._sampler is None and closed == [True]
    shim.free_sampler(llm)  # nothing to free
    shim.require_eval(llm)
    assert llm._requires_eval is True


def test_inside_a_rill_load_llama_compiles_no_chat_template_elsewhere_it_does() -> None:
    """Llama() compiles the file's templates with constant folding
    (``{{ 'x' * 3000000000 }}`` ran inside it); a Rill load gets inert ones."""
    llama_cpp = _llama()
    init = inspect.getsource(llama_cpp.Llama.__init__)
    assert "llama_chat_format.Jinja2ChatFormatter(" in init   # looked up on the module at call time
    assert shim.install_template_guard(llama_cpp) and shim.install_template_guard(llama_cpp)  # idempotent
    formats = llama_cpp.llama_chat_format
    hostile = "{{ 'x' * 3000000000 }}"
    with shim.templates_left_to_rill():
        handler = formats.Jinja2ChatFormatter(template=hostile, eos_token="", bos_token="").to_chat_handler()
        with pytest.raises(RuntimeError, match="Rill renders chat templates itself"):
            handler()
        seen: list[str] = []
        other = threading.Thread(target=lambda: seen.append(
            formats.Jinja2ChatFormatter(template="{{ 'a' ~ 'b' }}", eos_token="", bos_token="")(messages=[]).prompt))
        other.start()
        other.join()
        assert seen == ["ab"], "another thread still gets the real formatter"
    assert formats.Jinja2ChatFormatter(template="{{ 1 + 1 }}", eos_token="", bos_token="")(messages=[]).prompt == "2"
