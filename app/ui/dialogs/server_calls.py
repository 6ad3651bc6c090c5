"""What Model › Servers… (``app.ui.dialogs.servers``) does off the GUI
thread: list a server's models (Test, Refresh), read the API keys from the
keyring (and whether there is one), write the changed ones. Each answer
comes back on the GUI thread as ``done(result, error)``
(``app.ui.services.background.BackgroundCalls``); ``cancel_all`` drops the
answers still on their way (the dialog closed).

Threading rule: created and called on the GUI thread; the work runs on
background threads.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from PyQt6.QtCore import QObject

from app.core.backends.remote.servers import ServerConfig, secrets
from app.ui.services.background import BackgroundCalls
from app.ui.services.model_lists import fetch_model_list, list_models

__all__ = ["Done", "ServerCalls", "list_models"]

#: How an answer is delivered: (the result, None) or (None, the exception).
Done = Callable[[Any, BaseException | None], None]


class ServerCalls(QObject):
    """The Servers dialog's background calls (see the module docstring)."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._calls = BackgroundCalls(self)

    def fetch_models(self, config: ServerConfig, typed_key: str | None, done: Done) -> None:
        """``config``'s model ids: ``done((models, message), error)``, message
        "" on success. ``typed_key`` None: the key is read from the keyring."""

        def work(cancel: threading.Event) -> tuple[list[str], str]:
            key = typed_key if typed_key is not None else secrets().get(config.id)
            # list_models is looked up when the thread runs (tests replace it).
            return fetch_model_list(list_models, config, key, cancel)

        self._calls.run(work, done, name="rill-list-models")

    def read_keys(self, server_ids: list[str], done: Done) -> None:
        """The keys of ``server_ids``: ``done((notice, {id: key}), error)``;
        notice: what the keyring says about itself ("" when all is well)."""

        def work(cancel: threading.Event) -> tuple[str, dict[str, str]]:
            store = secrets()
            return store.notice, {sid: store.get(sid) for sid in server_ids}

        self._calls.run(work, done, name="rill-read-keys")

    def write_keys(self, changes: list[tuple[str, str]], done: Done, forget_logins: list[str] | None = None) -> None:
        """Store each (server id, key) ("" deletes it), and delete the URL
        logins of ``forget_logins``: ``done(persistent, error)``, persistent
        False when a key did not reach the keyring."""
        forget = list(forget_logins or [])

        def work(cancel: threading.Event) -> bool:
            store = secrets()
            for server_id in forget:
                store.delete_login(server_id)
            persistent = True
            for server_id, key in changes:
                if key:
                    persistent = store.set(server_id, key) and persistent
                else:
                    store.delete(server_id)
            return persistent

        self._calls.run(work, done, name="rill-save-keys")

    def cancel_all(self) -> None:
        """Drop every answer still on its way."""
        self._calls.cancel_all()
