"""Settings › Hugging Face Hub… and Get More Models › Hub Address and
Token…: the Hub's address (a mirror) and the access token for gated models
(``HubSettingsDialog``).

The address is saved in the settings file (``hub_endpoint``); ``HF_ENDPOINT``
in the environment takes precedence and the dialog says so. The token goes to
the system keyring (``app.core.hub.endpoint.HubToken``), never to the
settings file; the field never shows a saved token, only that there is one.
Reading and saving run as background calls (a keyring may block).
"""

from __future__ import annotations

import os
from typing import Any

from PyQt6.QtCore import QCoreApplication
from PyQt6.QtWidgets import QDialog, QDialogButtonBox, QFormLayout, QLabel, QLineEdit, QVBoxLayout, QWidget

from app.core.hub.endpoint import DEFAULT_ENDPOINT, HubToken, hub_endpoint, save_endpoint, valid_endpoint
from app.ui.services.background import BackgroundCalls

#: Qt's translate, by the name lupdate looks for.
translate = QCoreApplication.translate



def _load() -> tuple[str, bool]:
    from app.core.base import settings
    from app.core.hub.endpoint import ENDPOINT_SETTING

    saved = settings.load_settings().get(ENDPOINT_SETTING)
    return (saved if isinstance(saved, str) else ""), bool(HubToken().get())


def _save(endpoint: str, token: str | None) -> bool:
    ok = save_endpoint(endpoint)
    if token is not None:
        HubToken().set(token)
    return ok


class HubSettingsDialog(QDialog):
    """See the module docstring."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(translate("HubSettings", "Hugging Face Hub"))
        self._calls = BackgroundCalls(self)
        self.endpoint_edit = QLineEdit()
        self.endpoint_edit.setPlaceholderText(DEFAULT_ENDPOINT)
        self.token_edit = QLineEdit()
        self.token_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.token_edit.setPlaceholderText(translate("HubSettings", "hf_… (for gated models such as Llama and Gemma)"))
        self.note = QLabel()
        self.note.setWordWrap(True)
        env = valid_endpoint(os.environ.get("HF_ENDPOINT", ""))
        if env:
            self.note.setText(translate("HubSettings", "HF_ENDPOINT is set to {url}: it is used instead of this address.").format(
                url=env))
        form = QFormLayout()
        form.addRow(translate("HubSettings", "Hub address:"), self.endpoint_edit)
        form.addRow(translate("HubSettings", "Access token:"), self.token_edit)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        self.status = QLabel()
        self.status.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.note)
        layout.addWidget(self.status)
        layout.addWidget(self.buttons)
        self._connect_signals()
        self._calls.run(lambda _c: _load(), self._on_loaded, name="rill-hub-settings")

    def _connect_signals(self) -> None:
        self.buttons.accepted.connect(self._on_save_clicked)
        self.buttons.rejected.connect(self.reject)

    def _on_loaded(self, result: Any, error: BaseException | None) -> None:
        if error is not None or result is None:
            return
        endpoint, has_token = result
        if not self.endpoint_edit.text():
            self.endpoint_edit.setText(endpoint)
        if has_token:
            self.token_edit.setPlaceholderText(translate("HubSettings", "A token is saved (type a new one to replace it)"))

    def _on_save_clicked(self) -> None:
        endpoint = self.endpoint_edit.text().strip()
        if endpoint and not valid_endpoint(endpoint):
            self.status.setText(translate("HubSettings", "The Hub address must be an http:// or https:// address."))
            return
        token = self.token_edit.text().strip() or None
        self.buttons.setEnabled(False)
        self._calls.run(lambda _c: _save(endpoint, token), self._on_saved, name="rill-hub-settings-save")

    def _on_saved(self, ok: Any, error: BaseException | None) -> None:
        self.buttons.setEnabled(True)
        if error is not None or not ok:
            self.status.setText(translate("HubSettings", "The settings could not be saved (the details are in the log)."))
            return
        self.accept()

    @staticmethod
    def current_endpoint() -> str:
        return hub_endpoint()
