"""ServerCalls: the Servers dialog's model lists and keyring reads and
writes run off the GUI thread and answer on it."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from app.core.backends.remote import servers as servers_module
from app.core.backends.remote.servers import KEYRING_SERVICE, SecretStore, ServerConfig
from app.ui.dialogs import server_calls
from app.ui.dialogs.server_calls import ServerCalls
from app.ui.services.background import join_background_threads


class DictKeyring:
    """A keyring module's three calls over a dict, noting each call's thread."""

    def __init__(self) -> None:
        self.data: dict[tuple[str, str], str] = {}
        self.threads: set[threading.Thread] = set()

    def get_password(self, service: str, username: str) -> str | None:
        self.threads.add(threading.current_thread())
        return self.data.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.threads.add(threading.current_thread())
        self.data[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        self.threads.add(threading.current_thread())
        self.data.pop((service, username), None)


@pytest.fixture
def ring(monkeypatch: pytest.MonkeyPatch) -> DictKeyring:
    backend = DictKeyring()
    monkeypatch.setattr(servers_module, "_SECRETS", SecretStore(backend))
    return backend


def answer(qtbot: Any, start: Any) -> tuple[Any, BaseException | None]:
    got: list[tuple[Any, BaseException | None]] = []
    start(lambda result, error: got.append((result, error)))
    qtbot.waitUntil(lambda: bool(got), timeout=5000)
    assert join_background_threads(5.0)
    return got[0]


def test_keys_are_read_and_written_off_the_gui_thread(qtbot: Any, qapp: Any, ring: DictKeyring) -> None:
    calls = ServerCalls()
    ring.data[(KEYRING_SERVICE, "a")] = "sk-a"
    assert answer(qtbot, lambda done: calls.read_keys(["a", "b"], done)) == (("", {"a": "sk-a", "b": ""}), None)
    assert answer(qtbot, lambda done: calls.write_keys([("b", "sk-b"), ("a", "")], done)) == (True, None)
    assert ring.data == {(KEYRING_SERVICE, "b"): "sk-b"}
    assert ring.threads and threading.main_thread() not in ring.threads


def test_a_model_list_uses_the_key_typed_else_the_stored_one(
    qtbot: Any, qapp: Any, ring: DictKeyring, monkeypatch: pytest.MonkeyPatch
) -> None:
    keys: list[str] = []

    def fake(server: ServerConfig, api_key: str = "", timeout: float = 10.0, cancel: Any = None) -> list[str]:
        keys.append(api_key)
        return ["qwen", "qwen", "llama"]

    monkeypatch.setattr(server_calls, "list_models", fake)
    ring.data[(KEYRING_SERVICE, "s")] = "stored"
    server = ServerConfig("Desk", "openai", "http://127.0.0.1:9", id="s")
    calls = ServerCalls()
    assert answer(qtbot, lambda done: calls.fetch_models(server, "typed", done)) == ((["qwen", "llama"], ""), None)
    assert answer(qtbot, lambda done: calls.fetch_models(server, None, done)) == ((["qwen", "llama"], ""), None)
    assert keys == ["typed", "stored"]


def test_answers_after_cancel_all_are_dropped(qtbot: Any, qapp: Any, ring: DictKeyring) -> None:
    calls = ServerCalls()
    got: list[object] = []
    calls.read_keys(["a"], lambda result, error: got.append(result))
    calls.cancel_all()
    assert join_background_threads(5.0)
    qapp.processEvents()
    assert got == []
