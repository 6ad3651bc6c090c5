"""Servers' model lists: ``list_models`` (blocking, one server),
``fetch_model_list`` (never raises, never leaks the key) and
``ModelListCache`` (in memory, fetched in the background).

Nothing here blocks the GUI thread: model lists (network) and API keys (the
keyring may be a D-Bus round trip) are only ever read on background threads.

A list is bounded by the core (app.core.base.limits: bytes, time, at most
``MAX_MODELS`` kept); ``ModelList.dropped`` says how many more the server
listed, so the menu can say so.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from PyQt6.QtCore import QCoreApplication, QObject, pyqtSignal

from app.core.backends.base import BackendError
from app.core.backends.remote.servers import ServerConfig, redact, secrets
from app.core.base.limits import MODEL_LIST_TIMEOUT_S
from app.ui.services.background import BackgroundCalls

log = logging.getLogger(__name__)

#: A server's model list older than this (seconds) is fetched again when the
#: Model menu is about to show.
STALE_S = 60.0
#: How long one whole model list may take (seconds).
FETCH_TIMEOUT_S = MODEL_LIST_TIMEOUT_S


def list_models(
    server: ServerConfig, api_key: str = "", timeout: float = FETCH_TIMEOUT_S, cancel: threading.Event | None = None
) -> list[str]:
    """The server's model ids: ``app.core.backends.remote.client.list_models``, imported
    when first used. BLOCKS on the network: call it off the GUI thread. Raises
    BackendError with a message for the user."""
    from app.core.backends.remote import client

    return client.list_models(server, api_key=api_key, timeout=timeout, cancel=cancel)


def fetch_model_list(
    fetch: Callable[..., list[str]], server: ServerConfig, api_key: str, cancel: threading.Event | None = None
) -> tuple[list[str], str]:
    """``fetch(server, api_key=..., timeout=..., cancel=...)`` as ``(models, "")``
    or ``([], message)``: never raises, and the message never holds the key
    (a server may echo it back). ``models`` is a ``ModelNames`` (its
    ``dropped``: how many the server listed beyond the ones kept). Blocks:
    background threads only."""
    try:
        models = fetch(server, api_key=api_key, timeout=FETCH_TIMEOUT_S, cancel=cancel)
    except BackendError as exc:
        return [], redact(str(exc), api_key) or QCoreApplication.translate(
            "ModelMenu", "{server} did not answer."
        ).format(server=server.name)
    except Exception as exc:  # noqa: BLE001 - shown to the user, logged without the key
        message = redact(f"{type(exc).__name__}: {exc}", api_key)
        log.warning("listing the models of server %s failed: %s", server.id, message)
        return [], QCoreApplication.translate(
            "ModelMenu", "Could not list the models of {server}: {message}"
        ).format(server=server.name, message=message)
    from app.core.backends.remote.base import ModelNames  # httpx: imported when first used, off the GUI thread

    seen: dict[str, None] = {}
    for model in models or []:
        if isinstance(model, str) and model.strip():
            seen.setdefault(model.strip(), None)
    return ModelNames(seen, getattr(models, "dropped", 0)), ""


@dataclass(frozen=True)
class ModelList:
    """What a server listed (or why it did not), and when."""

    models: tuple[str, ...]
    error: str
    fetched_at: float  # time.monotonic()
    signature: tuple[str, str]  # (kind, api_root) the list was fetched from
    dropped: int = 0  # how many more the server listed than were kept


def _signature(server: ServerConfig) -> tuple[str, str]:
    try:
        return server.kind, server.api_root
    except ValueError:
        return server.kind, server.base_url


class ModelListCache(QObject):
    """Servers' model lists, in memory, by server id; fetched in the background."""

    #: A server's list arrived, failed or started/stopped loading; arg: server id.
    changed = pyqtSignal(str)

    def __init__(self, parent: QObject | None = None, stale_s: float = STALE_S) -> None:
        super().__init__(parent)
        self.stale_s = stale_s
        self._lists: dict[str, ModelList] = {}
        self._fetching: dict[str, threading.Event] = {}
        self._calls = BackgroundCalls(self)

    def get(self, server: ServerConfig) -> ModelList | None:
        """The last list fetched from this server as configured now (None: none)."""
        entry = self._lists.get(server.id)
        if entry is None or entry.signature != _signature(server):
            return None
        return entry

    def models(self, server_id: str) -> list[str]:
        entry = self._lists.get(server_id)
        return list(entry.models) if entry is not None else []

    def snapshot(self) -> dict[str, list[str]]:
        """Every server's last list: {server id: model ids}."""
        return {sid: list(entry.models) for sid, entry in self._lists.items() if entry.models}

    def is_fetching(self, server_id: str) -> bool:
        return server_id in self._fetching

    def is_stale(self, server: ServerConfig) -> bool:
        entry = self.get(server)
        return entry is None or time.monotonic() - entry.fetched_at > self.stale_s

    def store(self, server: ServerConfig, models: Iterable[str], error: str = "", dropped: int | None = None) -> None:
        """Record a list (e.g. fetched by the Servers dialog's Test);
        ``dropped`` None: the ``dropped`` of ``models`` if it has one."""
        if dropped is None:
            dropped = int(getattr(models, "dropped", 0))
        self._lists[server.id] = ModelList(tuple(models), error, time.monotonic(), _signature(server), dropped)
        self.changed.emit(server.id)

    def forget_except(self, server_ids: Iterable[str]) -> None:
        keep = set(server_ids)
        for sid in [s for s in self._lists if s not in keep]:
            del self._lists[sid]
        for sid in [s for s in self._fetching if s not in keep]:
            self._fetching.pop(sid).set()

    def fetch(self, server: ServerConfig) -> bool:
        """Fetch the server's list in the background (False: already fetching)."""
        if server.id in self._fetching:
            return False

        def work(cancel: threading.Event) -> tuple[list[str], str]:
            return fetch_model_list(list_models, server, secrets().get(server.id), cancel)

        def done(result: Any, error: BaseException | None) -> None:
            if self._fetching.get(server.id) is not cancel:
                return  # forgotten meanwhile
            del self._fetching[server.id]
            if error is None:
                models, message = result
            else:
                models, message = [], QCoreApplication.translate(
                    "ModelMenu", "Could not list the models of {server}."
                ).format(server=server.name)
            old = self.get(server)
            dropped = int(getattr(models, "dropped", 0))
            if message and old is not None:
                models, dropped = list(old.models), old.dropped  # keep the last good list; retried when stale
            self.store(server, models, message, dropped)

        cancel = self._calls.run(work, done, name="rill-list-models")
        self._fetching[server.id] = cancel
        self.changed.emit(server.id)
        return True

    def fetch_stale(self, servers: Iterable[ServerConfig]) -> None:
        for server in servers:
            if self.is_stale(server):
                self.fetch(server)

    def cancel_all(self) -> None:
        self._calls.cancel_all()
        self._fetching.clear()


