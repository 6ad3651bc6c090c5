"""Making remote backends and asking servers for their models (Qt-free).

Everything here blocks on the network (and the keyring): call it on a worker
thread, never on the GUI thread.

A server's URL login (``user:password@``) is not in the settings file: it is
kept in the keyring (app.core.backends.remote.servers) and put back here, for
a request to the address it was stored for.
"""

from __future__ import annotations

import threading
from dataclasses import replace

from app.core.backends.remote.base import ModelNames, RemoteBackend
from app.core.backends.remote.ollama import OllamaBackend
from app.core.backends.remote.openai import OpenAIBackend
from app.core.backends.remote.servers import OLLAMA, SecretStore, ServerConfig, with_login
from app.core.base.limits import MODEL_LIST_TIMEOUT_S

DEFAULT_LIST_TIMEOUT_S = MODEL_LIST_TIMEOUT_S


def make_backend(
    server: ServerConfig, model: str = "", api_key: str = "", store: SecretStore | None = None
) -> RemoteBackend:
    """The backend for ``server``'s kind (raises ServerConfigError if the
    config is invalid, BackendError if the key cannot be sent). ``store``:
    where the URL login is looked up (default: the process's keyring store)."""
    cls = OllamaBackend if server.kind == OLLAMA else OpenAIBackend
    return cls(with_login(server, store), model, api_key)


def list_models(
    server: ServerConfig,
    api_key: str = "",
    timeout: float = DEFAULT_LIST_TIMEOUT_S,
    cancel: threading.Event | None = None,
    store: SecretStore | None = None,
) -> ModelNames:
    """``server``'s model ids (at most ``MAX_MODELS``; ``.dropped`` counts the
    rest). Raises BackendError with a message naming the server (connection
    refused, bad key, not that kind of server, a limit passed...)."""
    backend = make_backend(replace(server, stall_s=max(1.0, min(timeout, server.stall_s))), "", api_key, store)
    try:
        return backend.list_models(cancel)
    finally:
        backend.close()
