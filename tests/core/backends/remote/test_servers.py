"""Server settings: URL forms people paste, validation, keys never in the settings file."""

from __future__ import annotations

import json

import keyring
import pytest

from app.core.backends.remote import servers
from app.core.backends.remote.servers import SecretStore, ServerConfig, ServerConfigError, normalize_base_url
from app.core.base import settings
from tests.helpers.keyring import MemoryKeyring


@pytest.mark.parametrize(
    ("kind", "url", "root"),
    [
        ("openai", "localhost:8080", "http://localhost:8080/v1"),
        ("openai", "http://127.0.0.1:8080/", "http://127.0.0.1:8080/v1"),
        ("openai", "http://127.0.0.1:8080/v1", "http://127.0.0.1:8080/v1"),
        ("openai", "http://127.0.0.1:8080/v1/", "http://127.0.0.1:8080/v1"),
        ("openai", "https://api.example.com/openai/v1", "https://api.example.com/openai/v1"),
        ("openai", "https://example.com/v1beta/openai/", "https://example.com/v1beta/openai"),
        ("ollama", "http://127.0.0.1:11434", "http://127.0.0.1:11434"),
        ("ollama", "http://127.0.0.1:11434/api/", "http://127.0.0.1:11434"),
        ("ollama", "127.0.0.1:11434/v1", "http://127.0.0.1:11434"),
    ],
)
def test_api_root_with_or_without_v1(kind: str, url: str, root: str) -> None:
    assert ServerConfig("s", kind, url).api_root == root


@pytest.mark.parametrize("url", ["", "   ", "ftp://host", "http://", "http://host:99999", "http://ho st:80"])
def test_bad_urls_are_refused_with_a_message(url: str) -> None:
    with pytest.raises(ServerConfigError) as info:
        normalize_base_url(url)
    assert str(info.value)


def test_display_url_drops_credentials() -> None:
    assert servers.display_url("https://user:secret@host:8443/v1?x=1") == "https://host:8443/v1"


def test_servers_round_trip_and_bad_entries_are_skipped(tmp_path) -> None:
    path = tmp_path / "settings.json"
    a = ServerConfig("Box", "openai", "http://10.0.0.2:8080/v1", "qwen")
    b = ServerConfig("Ollama", "ollama", "127.0.0.1:11434")
    assert servers.save_servers([a, b.validated()], path)
    data = json.loads(path.read_text())
    data["servers"].append({"name": "", "kind": "openai", "base_url": "x"})
    data["servers"].append("junk")
    path.write_text(json.dumps(data))
    loaded = servers.load_servers(path)
    assert [s.name for s in loaded] == ["Box", "Ollama"]
    assert loaded[0].id == a.id and loaded[0].model == "qwen"


def test_keys_go_to_the_keyring_never_to_the_settings_file(tmp_path) -> None:
    ring = MemoryKeyring()
    store = SecretStore(keyring_module=ring)
    server = ServerConfig("Hosted", "openai", "https://api.example.com/v1")
    servers.save_servers([server], tmp_path / "settings.json")
    assert store.set(server.id, "sk-very-secret-123")
    assert store.persistent and store.notice == ""
    assert ring.data[("rill", server.id)] == "sk-very-secret-123"
    assert "sk-very-secret" not in (tmp_path / "settings.json").read_text()
    assert store.get(server.id) == "sk-very-secret-123"
    store.delete(server.id)
    assert store.get(server.id) == ""


def test_without_a_keyring_keys_last_the_session_and_the_user_is_told(monkeypatch) -> None:
    from keyring.backends import fail

    monkeypatch.setattr(keyring, "get_keyring", lambda: fail.Keyring())
    store = SecretStore()
    assert not store.set("id1", "sk-abc-123")
    assert store.get("id1") == "sk-abc-123"
    assert not store.persistent
    assert "this session only" in store.notice
    assert SecretStore().get("id1") == ""  # a new session (process) does not have it


def test_redact() -> None:
    assert servers.redact("bad key sk-abc-123 given", "sk-abc-123") == "bad key *** given"
    assert settings  # the module the servers live in
