"""Model › Manage Models… (``app.ui.dialogs.model_manager``), Model ›
Get More Models… (``app.ui.hub.dialog``) and Model › Servers…
(``app.ui.dialogs.servers``): each one at a time, built when first
asked for, and what they tell the window (a model file to open, a server's
model to chat with) and the Model menu (the servers saved, the model lists
fetched).

Threading rule: GUI thread only.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PyQt6.QtCore import QObject, Qt, pyqtSignal
from PyQt6.QtWidgets import QWidget

from app.ui.dialogs.singleton import SingletonDialog
from app.ui.window.model_menu import ModelMenu

if TYPE_CHECKING:
    from app.ui.dialogs.model_manager import ModelManagerDialog
    from app.ui.dialogs.servers import ServersDialog
    from app.ui.hub.dialog import GetModelsDialog
    from app.ui.services.hub import HubService


class ModelDialogs(QObject):
    """The two model dialogs of the window ``parent``; the servers' are kept
    in step with ``model_menu`` (its servers and its cache of model lists).

    Signals:

    * ``model_open_requested``: Manage Models › Open, Get More Models › Load.
    * ``server_model_chosen``: Servers › Chat with This Model.
    """

    #: The user chose Open for a model file in Manage Models; arg: its path.
    model_open_requested = pyqtSignal(str)
    #: The user chose Chat with This Model in Servers (saved first); args:
    #: ServerConfig, model id ("" = the server's default).
    server_model_chosen = pyqtSignal(object, str)

    def __init__(self, model_menu: ModelMenu, parent: QWidget,
                 hub: Callable[[], HubService | None] | None = None) -> None:
        """``hub``: the application's Hub downloads (``AppServices.hub``)."""
        super().__init__(parent)
        self._model_menu = model_menu
        self._window = parent
        self._hub = hub
        self._models_dialog = SingletonDialog(self._make_models_dialog)
        self._servers_dialog = SingletonDialog(self._make_servers_dialog)
        self._hub_dialog = SingletonDialog(self._make_hub_dialog, modeless=True)
        self._hub_connected = False

    def open_models(self) -> None:
        """Show Manage Models (raised when it is open already)."""
        self._models_dialog.show()

    def open_hub(self, recommended: object = None) -> None:
        """Show Get More Models (raised when it is open already); with
        ``recommended`` (a ``Recommended``: the demo model's offer, Get It),
        that model selected and its download started. Nothing once shutting down."""
        if self._hub is None or self._hub() is None:
            return
        dialog = self._hub_dialog.show()
        if recommended is not None:
            dialog.select_recommended(recommended, download=True)  # type: ignore[arg-type]

    @property
    def hub_dialog(self) -> GetModelsDialog | None:
        """Model › Get More Models…, when it has been opened (None after it closed)."""
        return self._hub_dialog.dialog

    def open_servers(self) -> None:
        """Show Servers (raised when it is open already)."""
        self._servers_dialog.show()

    @property
    def models_dialog(self) -> ModelManagerDialog | None:
        """Model › Manage Models…, when it has been opened (None after it closed)."""
        return self._models_dialog.dialog

    @property
    def servers_dialog(self) -> ServersDialog | None:
        """Model › Servers…, when it has been opened (None after it closed)."""
        return self._servers_dialog.dialog

    def _make_models_dialog(self) -> ModelManagerDialog:
        from app.ui.dialogs.model_manager import ModelManagerDialog

        dialog = ModelManagerDialog(self._window)
        dialog.model_open_requested.connect(self.model_open_requested)
        return dialog

    def _make_hub_dialog(self) -> GetModelsDialog:
        from app.ui.hub.dialog import GetModelsDialog

        assert self._hub is not None
        service = self._hub()
        assert service is not None
        dialog = GetModelsDialog(service, self._window)
        dialog.model_open_requested.connect(self.model_open_requested)
        dialog.hub_settings_requested.connect(lambda: self._open_hub_settings(dialog))
        if not self._hub_connected:
            self._hub_connected = True
            service.download_finished.connect(self._on_download_finished)
        return dialog

    @staticmethod
    def _open_hub_settings(parent: QWidget) -> None:
        from app.ui.dialogs.hub_settings import HubSettingsDialog

        settings = HubSettingsDialog(parent)
        settings.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        settings.open()

    def _on_download_finished(self, _path: str) -> None:
        dialog = self.models_dialog
        if dialog is not None:
            dialog.reader.scan()  # Manage Models is open: the new file appears in it

    def _make_servers_dialog(self) -> ServersDialog:
        from app.ui.dialogs.servers import ServersDialog

        dialog = ServersDialog(self._window, known_models=self._model_menu.cache.snapshot())
        dialog.servers_saved.connect(self._model_menu.set_servers)
        dialog.models_fetched.connect(self._model_menu.cache.store)
        dialog.model_chosen.connect(self.server_model_chosen)
        return dialog
