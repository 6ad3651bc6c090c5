"""Making remote backends and asking servers for their models (Qt-free).

Everything here blocks on the network: call it on a worker thread, never on
the GUI thread.
"""

from __future__ import annotations

import threading

from app.core.backends.remote.base import RemoteBackend
from app.core.backends.remote.ollama import OllamaBackend
from app.core.backends.remote.openai import OpenAIBackend
from app.core.backends.remote.servers import OLLAMA, ServerConfig

DEFAULT_LIST_TIMEOUT_S = 10.0


def make_backend(server: ServerConfig, model: str = "", api_key: str = "") -> RemoteBackend:
    """The backend for ``server``'s kind (raises ServerConfigError if the config is invalid)."""
    cls = OllamaBackend if server.kind == OLLAMA else OpenAIBackend
    return cls(server, model, api_key)


def list_models(
    server: ServerConfig,
    api_key: str = "",
    timeout: float = DEFAULT_LIST_TIMEOUT_S,
    cancel: threading.Event | None = None,
) -> list[str]:
    """``server``'s model ids. Raises BackendError with a message naming the
    server (connection refused, bad key, not that kind of server...)."""
    from dataclasses import replace

    backend = make_backend(replace(server, stall_s=max(1.0, min(timeout, server.stall_s))), "", api_key)
    try:
        return backend.list_models(cancel)
    finally:
        backend.close()
