"""Which backend the window runs, and what it remembers of it.

``ModelChoice`` follows every model load once (``model_load_started``,
``model_ready``, ``model_failed``, each connected here only):

- the load the user chose (Model menu, File › Open Model…, a drop, Servers…)
  is announced first with ``expect_load``; when it has loaded, the Model menu
  checks it and, unless told otherwise, it is the backend to start with next
  time (settings ``last_backend``);
- a model file opened by the user is the model to start with next time;
- every local model that loads joins Rill's list of models;
- the first-run panel shows when a load failed and no model exists at all.

Threading rule: GUI thread only. The settings file is small (≤ 64 KB) and is
read and written on the GUI thread.
"""

from __future__ import annotations

from pathlib import Path

from PyQt6.QtCore import QObject

from app.core.backends.base import ModelInfo
from app.core.backends.remote.servers import ServerConfig
from app.core.base import settings
from app.core.factory import local_factory, remote_factory
from app.core.models import paths as models
from app.ui.conversation.controller import ChatController
from app.ui.window.first_run import FirstRunPanel
from app.ui.window.model_menu import LOCAL, ManagedModelMenu, server_choice

#: Settings key: the backend to start with, {"kind": "local"} or
#: {"kind": "server", "server_id": ..., "model": ...} (see application.startup_choice).
LAST_BACKEND_KEY = "last_backend"


class ModelChoice(QObject):
    """See the module docstring."""

    def __init__(
        self, chat: ChatController, model_menu: ManagedModelMenu, first_run: FirstRunPanel, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self._chat = chat
        self._menu = model_menu
        self._first_run = first_run
        #: description -> (choice, remember): what a load about to start stands for.
        self._expected: dict[str, tuple[dict[str, str], bool]] = {}
        self._loading: tuple[dict[str, str], bool] | None = None
        self._requested_path: str | None = None  # a model file the user opened
        self._connect_signals()

    def _connect_signals(self) -> None:
        self._chat.service.model_load_started.connect(self._on_model_load_started)
        self._chat.model_ready.connect(self._on_model_ready)
        self._chat.model_failed.connect(self._on_model_failed)

    # -- what the user chose ---------------------------------------------------------------

    def expect_load(self, description: str, choice: dict[str, str], remember: bool = True) -> None:
        """The next load described ``description`` is ``choice`` (Model menu
        check); ``remember``: once it has loaded, it is the backend to start with."""
        self._expected[description] = (dict(choice), remember)

    def file_requested(self, path: str) -> None:
        """The user opened the model file ``path`` (File › Open Model…, a drop, Manage Models…)."""
        self._requested_path = path
        self.expect_load(local_factory(path)[1], LOCAL)

    def local_chosen(self) -> None:
        """Model › Local Model (Default)."""
        self.expect_load(local_factory(None)[1], LOCAL)

    def server_chosen(self, server: ServerConfig, model: str) -> None:
        """A server's model (Model menu or Servers…)."""
        # remote_factory only describes here: nothing is built or contacted.
        self.expect_load(remote_factory(server, model)[1], server_choice(server.id, model))

    # -- what happened -----------------------------------------------------------------------

    def _on_model_load_started(self, description: str) -> None:
        self._loading = self._expected.pop(description, None)
        self._menu.set_current(None)  # the previous backend is being replaced

    def _on_model_ready(self, info: ModelInfo) -> None:
        self._first_run.hide()
        self._remember_opened_file(info)
        self._remember_backend()
        # A local model that loaded joins Rill's list (a small settings
        # write, only when it is not there yet; failures are logged).
        if info.path and info.path.lower().endswith(models.MODEL_SUFFIX) and Path(info.path).is_absolute():
            settings.add_known_model(info.path)

    def _remember_opened_file(self, info: ModelInfo) -> None:
        requested, self._requested_path = self._requested_path, None
        if requested and info.path and Path(info.path) == Path(requested):
            # Opened by the user: the model to start with next time. A failed
            # write (read-only config dir...) is logged; nothing else changes.
            settings.remember_last_model(info.path)
        elif requested:
            self._requested_path = requested  # an earlier load finished first

    def _remember_backend(self) -> None:
        loading, self._loading = self._loading, None
        if loading is None:
            return
        choice, remember = loading
        self._menu.set_current(choice)
        if remember:
            # Written once the model works, not when merely chosen; a failed
            # write is logged and changes nothing else.
            data = settings.load_settings()
            data[LAST_BACKEND_KEY] = choice
            settings.save_settings(data)

    def _on_model_failed(self, message: str) -> None:
        self._loading = None
        self._menu.set_current(None)
        if models.default_model_path() is None:
            self._first_run.refresh()
            self._first_run.show()
