"""The Model menu: the local model, model files, each configured server's
models and Servers…. The servers' model lists come from
``app.ui.services.model_lists.ModelListCache``.

A server may list thousands of models (the core keeps up to ``MAX_MODELS``):
the menu shows the first ``MENU_MODELS_MAX``, a "More Models" submenu with the
next ``MENU_MORE_MAX`` at most, and past that "Filter All N Models…", which
opens a filterable list (``app.ui.dialogs.model_picker``). Building a QAction
per model was the freeze: 200,000 of them took 26-31 s each time the menu
opened; a rebuild now builds at most 212 model actions per server.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from PyQt6 import sip
from PyQt6.QtCore import QCoreApplication, QObject, Qt, QTimer, pyqtSignal
from PyQt6.QtGui import QAction, QActionGroup
from PyQt6.QtWidgets import QMenu, QWidget

from app.core.backends.remote.servers import ServerConfig
from app.core.base.limits import MAX_MODELS
from app.ui.dialogs.model_picker import ModelPicker
from app.ui.services.model_lists import ModelListCache

#: A server with more models than this lists the rest in a "More Models" submenu.
MENU_MODELS_MAX = 12
#: At most this many models in the "More Models" submenu; the rest through
#: "Filter All N Models…".
MENU_MORE_MAX = 200

LOCAL = {"kind": "local"}


def server_choice(server_id: str, model: str) -> dict[str, str]:
    """The ``last_backend`` settings value for a server's model."""
    return {"kind": "server", "server_id": server_id, "model": model}


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
        self._picker: ModelPicker | None = None
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

    def _on_filter_triggered(self, server: ServerConfig) -> None:
        self.open_picker(server)

    @property
    def picker(self) -> ModelPicker | None:
        """The model picker last opened, while it exists."""
        if self._picker is not None and sip.isdeleted(self._picker):
            self._picker = None
        return self._picker

    def open_picker(self, server: ServerConfig) -> ModelPicker:
        """Open the filterable list of ``server``'s models (one picker at a time)."""
        old = self.picker
        if old is not None:
            old.close()
        entry = self.cache.get(server)
        current = self._current or {}
        chosen = (current.get("model") or server.model) if current.get("server_id") == server.id else ""
        picker = ModelPicker(server.name, self.server_models(server), entry.dropped if entry is not None else 0,
                             chosen, self.parentWidget() or None)
        picker.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        picker.model_chosen.connect(lambda model, s=server: self._on_server_model_triggered(s, model))
        self._picker = picker
        picker.open()
        return picker

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
        self.local_action.setChecked(self._current is not None and self._current.get("kind") == "local")
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
            rest = models[len(shown):]
            if rest:
                more = self.addMenu(
                    QCoreApplication.translate("ModelMenu", "More Models ({n})").format(n=len(rest))
                )
                assert more is not None
                self._transient.append(more)
                for model in rest[:MENU_MORE_MAX]:
                    self._add_model_action(more, group, server, model, model)
            if len(rest) > MENU_MORE_MAX:
                filter_all = self.addAction(
                    QCoreApplication.translate("ModelMenu", "Filter All {n} Models…").format(n=f"{len(models):,}")
                )
                assert filter_all is not None
                filter_all.triggered.connect(lambda _checked=False, s=server: self._on_filter_triggered(s))
            if entry is not None and entry.dropped:
                dropped = self.addAction(QCoreApplication.translate(
                    "ModelMenu", "{n} More Not Kept (Rill Keeps {kept})").format(
                    n=f"{entry.dropped:,}", kept=f"{MAX_MODELS:,}"))
                assert dropped is not None
                dropped.setEnabled(False)
                dropped.setToolTip(QCoreApplication.translate(
                    "ModelMenu", "{server} listed {total} models; Rill keeps the first {kept}.").format(
                    server=server.name, total=f"{entry.dropped + len(entry.models):,}", kept=f"{len(entry.models):,}"))
            if fetching:
                loading = self.addAction(QCoreApplication.translate("ModelMenu", "Loading models…"))
                assert loading is not None
                loading.setEnabled(False)
            elif entry is not None and entry.error:
                failed = self.addAction(QCoreApplication.translate("ModelMenu", "⚠ Could not list the models"))
                assert failed is not None
                failed.setEnabled(False)
                failed.setToolTip(entry.error)
            if not models and not fetching:
                default = QCoreApplication.translate("ModelMenu", "Server's Default Model")
                self._add_model_action(self, group, server, "", default)
        self.addSeparator()
        self.addAction(self.servers_action)


# -- the Model menu with Manage Models… ------------------------------------------------------


class ManagedModelMenu(ModelMenu):
    """The Model menu with Manage Models… and Get More Models… right after
    Open Model File…. The menu rebuilds itself (server lists arriving...):
    the actions are put back every time."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.manage_action: QAction | None = None
        self.hub_action: QAction | None = None
        super().__init__(*args, **kwargs)

    def set_manage_action(self, action: QAction) -> None:
        """Show ``action`` after Open Model File… (it must be owned elsewhere:
        the menu deletes the actions it owns when it rebuilds)."""
        self.manage_action = action
        self._rebuild()

    def set_hub_action(self, action: QAction) -> None:
        """Show ``action`` (Get More Models…) after Manage Models… (owned elsewhere too)."""
        self.hub_action = action
        self._rebuild()

    def _rebuild(self) -> None:
        super()._rebuild()
        for action in reversed([a for a in (self.manage_action, self.hub_action) if a is not None]):
            actions = self.actions()
            try:
                after = actions.index(self.open_model_action) + 1
            except ValueError:
                self.addAction(action)
                continue
            if after < len(actions):
                self.insertAction(actions[after], action)
            else:
                self.addAction(action)
