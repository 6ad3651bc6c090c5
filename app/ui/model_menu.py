"""The Model menu: the local model, model files, each configured server's
models and Servers…; plus the two helpers it shares with the Servers dialog:
``BackgroundCalls`` (a blocking call on a daemon thread, its result delivered
on the GUI thread) and ``ModelListCache`` (servers' model lists, fetched in
the background, kept in memory).

Nothing here blocks the GUI thread: model lists (network) and API keys (the
keyring may be a D-Bus round trip) are only ever read on background threads.
"""

from __future__ import annotations

import itertools
import logging
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from PyQt6 import sip
from PyQt6.QtCore import QCoreApplication, QObject, QTimer, pyqtSignal
from PyQt6.QtGui import QAction, QActionGroup
from PyQt6.QtWidgets import QMenu, QWidget

from app.core.backend import BackendError
from app.core.remote.servers import ServerConfig, redact, secrets

log = logging.getLogger(__name__)

#: A server's model list older than this (seconds) is fetched again when the
#: Model menu is about to show.
STALE_S = 60.0
#: How long one model-list request may take.
FETCH_TIMEOUT_S = 10.0
#: A server with more models than this lists the rest in a "More Models" submenu.
MENU_MODELS_MAX = 12

LOCAL = {"kind": "local"}


def server_choice(server_id: str, model: str) -> dict[str, str]:
    """The ``last_backend`` settings value for a server's model."""
    return {"kind": "server", "server_id": server_id, "model": model}


def list_models(
    server: ServerConfig, api_key: str = "", timeout: float = FETCH_TIMEOUT_S, cancel: threading.Event | None = None
) -> list[str]:
    """The server's model ids: ``app.core.remote.client.list_models``, imported
    when first used. BLOCKS on the network: call it off the GUI thread. Raises
    BackendError with a message for the user."""
    from app.core.remote import client

    return client.list_models(server, api_key=api_key, timeout=timeout, cancel=cancel)


def fetch_model_list(
    fetch: Callable[..., list[str]], server: ServerConfig, api_key: str, cancel: threading.Event | None = None
) -> tuple[list[str], str]:
    """``fetch(server, api_key=..., timeout=..., cancel=...)`` as ``(models, "")``
    or ``([], message)``: never raises, and the message never holds the key
    (a server may echo it back). Blocks: background threads only."""
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
    seen: dict[str, None] = {}
    for model in models or []:
        if isinstance(model, str) and model.strip():
            seen.setdefault(model.strip(), None)
    return list(seen), ""


# -- background calls ------------------------------------------------------------

_threads: set[threading.Thread] = set()
_threads_lock = threading.Lock()
_tokens = itertools.count(1)


class _Relay(QObject):
    """Lives on the GUI thread for the whole process (never deleted, so a
    worker can always emit on it): hands each result to its callback."""

    #: A background call ended; args: token, result, exception (or None).
    delivered = pyqtSignal(int, object, object)

    def __init__(self) -> None:
        super().__init__()
        # token -> (owner, callback, cancel); touched on the GUI thread only.
        self.pending: dict[int, tuple[BackgroundCalls, Callable[[Any, BaseException | None], None], threading.Event]] = {}
        self.delivered.connect(self._on_delivered)

    def _on_delivered(self, token: int, result: object, error: object) -> None:
        entry = self.pending.pop(token, None)
        if entry is None:
            return
        owner, callback, cancel = entry
        if sip.isdeleted(owner) or cancel.is_set():
            return  # its dialog closed (or it was cancelled): harmless
        owner._cancels.discard(cancel)
        callback(result, error if isinstance(error, BaseException) else None)


_relay: _Relay | None = None


def background_threads() -> list[threading.Thread]:
    """The background calls' threads still running."""
    with _threads_lock:
        return [t for t in _threads if t.is_alive()]


def join_background_threads(timeout: float = 5.0) -> bool:
    """Wait (tests, shutdown) for every background call's thread; True when none is left."""
    deadline = time.monotonic() + timeout
    for thread in background_threads():
        thread.join(max(0.0, deadline - time.monotonic()))
    return not background_threads()


class BackgroundCalls(QObject):
    """Runs blocking calls on daemon threads and calls back on the GUI thread.

    A callback never runs after ``cancel_all()`` or once this object (or its
    parent, e.g. a closed dialog) is deleted, so a late answer is harmless.
    Create and use it on the GUI thread.
    """

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        global _relay
        if _relay is None:
            _relay = _Relay()
        self._cancels: set[threading.Event] = set()

    def run(
        self,
        work: Callable[[threading.Event], Any],
        on_done: Callable[[Any, BaseException | None], None],
        name: str = "rill-background",
    ) -> threading.Event:
        """Start ``work(cancel)`` on a daemon thread; ``on_done(result, error)``
        follows on the GUI thread. Returns the call's cancel event."""
        relay = _relay
        assert relay is not None
        cancel = threading.Event()
        token = next(_tokens)
        relay.pending[token] = (self, on_done, cancel)
        self._cancels.add(cancel)

        def target() -> None:
            result: Any = None
            error: BaseException | None = None
            try:
                result = work(cancel)
            except Exception as exc:  # noqa: BLE001 - delivered to on_done
                error = exc
            try:
                relay.delivered.emit(token, result, error)
            except RuntimeError:  # the application is gone
                pass
            finally:
                with _threads_lock:
                    _threads.discard(threading.current_thread())

        thread = threading.Thread(target=target, name=name, daemon=True)
        with _threads_lock:
            _threads.add(thread)
        thread.start()
        return cancel

    def cancel_all(self) -> None:
        """Drop every pending callback and ask the calls to stop (they get the event)."""
        for cancel in self._cancels:
            cancel.set()
        self._cancels.clear()

    @property
    def busy(self) -> bool:
        return bool(self._cancels)


# -- model lists -------------------------------------------------------------------


@dataclass(frozen=True)
class ModelList:
    """What a server listed (or why it did not), and when."""

    models: tuple[str, ...]
    error: str
    fetched_at: float  # time.monotonic()
    signature: tuple[str, str]  # (kind, api_root) the list was fetched from


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

    def store(self, server: ServerConfig, models: Iterable[str], error: str = "") -> None:
        """Record a list (e.g. fetched by the Servers dialog's Test)."""
        self._lists[server.id] = ModelList(tuple(models), error, time.monotonic(), _signature(server))
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
            if message and old is not None:
                models = list(old.models)  # keep the last good list; retried when stale
            self.store(server, models, message)

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


# -- the menu ----------------------------------------------------------------------


def _menu_text(text: str) -> str:
    return text.replace("&", "&&")  # "&" would be a mnemonic


class ModelMenu(QMenu):
    """Model: Local Model (Default), Open Model File…, a section per server
    with its models, Servers…. The current choice is checked. Opening the
    menu fetches stale model lists in the background ("Loading models…").

    Subclassed (``ManagedModelMenu``): its strings use the explicit "ModelMenu"
    translation context, never ``self.tr`` (which would take the subclass's name)."""

    #: The user chose the local model (the default one, or the file last opened); no args.
    local_chosen = pyqtSignal()
    #: The user chose a server's model; args: ServerConfig, model id ("" = the server's default).
    server_model_chosen = pyqtSignal(object, str)

    def __init__(self, open_model_action: QAction, servers_action: QAction, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setTitle(QCoreApplication.translate("ModelMenu", "&Model"))
        self.setToolTipsVisible(True)
        self.cache = ModelListCache(self)
        self._servers: list[ServerConfig] = []
        self._current: dict[str, str] | None = dict(LOCAL)
        # Actions kept across rebuilds are owned elsewhere (QMenu.clear deletes its own).
        self._keep = QObject(self)
        self.local_action = QAction(QCoreApplication.translate("ModelMenu", "&Local Model (Default)"), self._keep)
        self.local_action.setCheckable(True)
        self.local_action.setToolTip(
            QCoreApplication.translate("ModelMenu", "The model on this computer Rill starts with")
        )
        self.open_model_action = open_model_action
        self.servers_action = servers_action
        self._rebuild_timer = QTimer(self)
        self._rebuild_timer.setSingleShot(True)
        self._rebuild_timer.setInterval(0)
        self._transient: list[QObject] = []
        #: Returns True while a reply is streaming (set by the window).
        self.is_generating: Callable[[], bool] = lambda: False
        self._connect_signals()
        self._rebuild()

    def _connect_signals(self) -> None:
        self.aboutToShow.connect(self._on_about_to_show)
        self.cache.changed.connect(self._on_list_changed)
        self.local_action.triggered.connect(self._on_local_triggered)
        self._rebuild_timer.timeout.connect(self._rebuild)

    # -- state ----------------------------------------------------------------------

    @property
    def servers(self) -> list[ServerConfig]:
        return list(self._servers)

    def set_servers(self, servers: Iterable[ServerConfig]) -> None:
        """The configured servers changed (Servers dialog saved)."""
        self._servers = list(servers)
        self.cache.forget_except(s.id for s in self._servers)
        self._rebuild()

    @property
    def current(self) -> dict[str, str] | None:
        return dict(self._current) if self._current is not None else None

    def set_current(self, choice: dict[str, str] | None) -> None:
        """What is loaded now (checked): ``{"kind": "local"}``, a server_choice(), or None."""
        self._current = dict(choice) if choice is not None else None
        self._rebuild_soon()

    def server_models(self, server: ServerConfig) -> list[str]:
        """The entries listed for ``server``: its default model first, then the
        models it listed the last time it was asked."""
        entry = self.cache.get(server)
        models = [server.model] if server.model else []
        if entry is not None:
            models += [m for m in entry.models if m != server.model]
        return models

    # -- slots ----------------------------------------------------------------------

    def _on_about_to_show(self) -> None:
        servers = self._servers
        current = self._current or {}
        if self.is_generating() and current.get("kind") == "server":
            # Never ask the server a reply is streaming from: llama-cpp-python's
            # server ends a running stream when another request arrives.
            servers = [s for s in servers if s.id != current.get("server_id")]
        self.cache.fetch_stale(servers)
        self._rebuild()

    def _on_list_changed(self, server_id: str) -> None:
        self._rebuild_soon()

    def _on_local_triggered(self) -> None:
        self._rebuild_soon()  # the check follows what loads, not what was clicked
        self.local_chosen.emit()

    def _on_server_model_triggered(self, server: ServerConfig, model: str) -> None:
        self._rebuild_soon()
        self.server_model_chosen.emit(server, model)

    # -- building -----------------------------------------------------------------------

    def _rebuild_soon(self) -> None:
        # Never delete the actions while one of them is emitting (triggered).
        self._rebuild_timer.start()

    def _is_current(self, server: ServerConfig, model: str) -> bool:
        cur = self._current
        if not cur or cur.get("kind") != "server" or cur.get("server_id") != server.id:
            return False
        return (cur.get("model") or server.model) == model

    def _add_model_action(self, menu: QMenu, group: QActionGroup, server: ServerConfig, model: str, label: str) -> None:
        action = QAction(_menu_text(label), menu)
        action.setCheckable(True)
        action.setChecked(self._is_current(server, model))
        action.setData(server_choice(server.id, model))
        if model:
            tip = QCoreApplication.translate("ModelMenu", "Chat with {model} on {server}")
        else:
            tip = QCoreApplication.translate("ModelMenu", "Chat with the default model on {server}")
        action.setToolTip(tip.format(model=model, server=server.name))
        action.triggered.connect(lambda _checked=False, s=server, m=model: self._on_server_model_triggered(s, m))
        group.addAction(action)
        menu.addAction(action)

    def _rebuild(self) -> None:
        self._rebuild_timer.stop()
        self.clear()
        for obj in self._transient:  # the last build's group and submenus
            obj.deleteLater()
        self._transient = []
        group = QActionGroup(self)  # exclusive checks
        group.setExclusive(True)
        self._transient.append(group)
        self.local_action.setChecked(bool(self._current) and self._current.get("kind") == "local")  # type: ignore[union-attr]
        group.addAction(self.local_action)
        self.addAction(self.local_action)
        self.addAction(self.open_model_action)
        for server in self._servers:
            self.addSection(_menu_text(server.name))
            models = self.server_models(server)
            entry = self.cache.get(server)
            fetching = self.cache.is_fetching(server.id)
            shown = models[:MENU_MODELS_MAX]
            for model in shown:
                if model == server.model:
                    label = QCoreApplication.translate("ModelMenu", "{model} (default)").format(model=model)
                else:
                    label = model
                self._add_model_action(self, group, server, model, label)
            if len(models) > len(shown):
                more = self.addMenu(
                    QCoreApplication.translate("ModelMenu", "More Models ({n})").format(n=len(models) - len(shown))
                )
                self._transient.append(more)
                for model in models[len(shown):]:
                    self._add_model_action(more, group, server, model, model)
            if fetching:
                loading = self.addAction(QCoreApplication.translate("ModelMenu", "Loading models…"))
                loading.setEnabled(False)
            elif entry is not None and entry.error:
                failed = self.addAction(QCoreApplication.translate("ModelMenu", "⚠ Could not list the models"))
                failed.setEnabled(False)
                failed.setToolTip(entry.error)
            if not models and not fetching:
                default = QCoreApplication.translate("ModelMenu", "Server's Default Model")
                self._add_model_action(self, group, server, "", default)
        self.addSeparator()
        self.addAction(self.servers_action)
