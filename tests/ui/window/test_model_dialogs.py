"""ModelDialogs: Manage Models… and Servers…, one at a time each, and what
they say passed on (a model file to open, a server's model to chat with, the
servers and model lists for the Model menu)."""

from __future__ import annotations

from typing import Any

import keyring
import keyring.core
import pytest
from keyring.backends import fail
from PyQt6.QtWidgets import QWidget

from app.core.backends.remote import servers as servers_module
from app.core.backends.remote.servers import ServerConfig
from app.core.backends.scripted import ScriptedBackend
from app.ui.dialogs.model_manager import ModelManagerDialog
from app.ui.dialogs.servers import ServersDialog
from app.ui.services.background import join_background_threads
from app.ui.window.model_dialogs import ModelDialogs


@pytest.fixture
def no_keyring(monkeypatch: pytest.MonkeyPatch) -> None:
    """No keyring: the Servers dialog reads nothing of the machine's own."""
    monkeypatch.setattr(keyring.core, "_keyring_backend", keyring.core._keyring_backend)  # restored after
    keyring.set_keyring(fail.Keyring())
    monkeypatch.setattr(servers_module, "_SECRETS", None)


@pytest.mark.qt_log_ignore("This plugin does not support raise")  # offscreen: raise_() is a no-op
def test_manage_models_is_one_dialog_and_its_open_is_passed_on(qtbot: Any, make_window: Any) -> None:
    window = make_window(lambda: ScriptedBackend(rate=2000))
    parent = QWidget()
    qtbot.addWidget(parent)
    dialogs = ModelDialogs(window.model_menu, parent)
    assert dialogs.models_dialog is None
    dialogs.open_models()
    dialog = dialogs.models_dialog
    assert isinstance(dialog, ModelManagerDialog) and dialog.isVisible() and dialog.parent() is parent
    dialogs.open_models()  # a second time: the same one comes forward
    assert dialogs.models_dialog is dialog
    with qtbot.waitSignal(dialogs.model_open_requested, timeout=1000) as blocker:
        dialog.model_open_requested.emit("/models/x.gguf")
    assert blocker.args == ["/models/x.gguf"]
    dialog.reject()
    assert join_background_threads(5.0)


def test_servers_tells_the_model_menu_and_passes_the_choice_on(qtbot: Any, make_window: Any, no_keyring: None) -> None:
    window = make_window(lambda: ScriptedBackend(rate=2000))
    parent = QWidget()
    qtbot.addWidget(parent)
    menu = window.model_menu
    dialogs = ModelDialogs(menu, parent)
    dialogs.open_servers()
    dialog = dialogs.servers_dialog
    assert isinstance(dialog, ServersDialog) and dialog.isVisible()
    qtbot.waitUntil(lambda: dialog.keys_loaded, timeout=5000)
    server = ServerConfig("Desk", "openai", "http://127.0.0.1:9", "qwen")
    dialog.servers_saved.emit([server])
    assert [s.name for s in menu.servers] == ["Desk"]
    dialog.models_fetched.emit(server, ["qwen", "llama"])
    entry = menu.cache.get(server)
    assert entry is not None and list(entry.models) == ["qwen", "llama"]
    with qtbot.waitSignal(dialogs.server_model_chosen, timeout=1000) as chosen:
        dialog.model_chosen.emit(server, "llama")
    assert chosen.args == [server, "llama"]
    dialog.reject()
    assert join_background_threads(5.0)
