"""Secrets never leave (issue #17, item 9): the API key is redacted from every
message built from what a server sent (reason phrase, Retry-After, bodies,
error events), whole or in part, before any cut; keys are checked before
use; a URL's user:password goes to the keyring, never to settings.json, and
never into a log."""

from __future__ import annotations

import json
import logging

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.core.backends.base import BackendError, CancelEvent, ChatMessage, GenerationRequest
from app.core.backends.remote import servers
from app.core.backends.remote.client import list_models, make_backend
from app.core.backends.remote.redaction import Redactor
from app.core.backends.remote.servers import SecretStore, ServerConfig, ServerConfigError, validate_api_key
from app.core.base import limits
from tests.helpers.hostile_server import Exchange, HostileServer
from tests.helpers.keyring import MemoryKeyring

KEY = "sk-proj-Tq7Wz0Lm4Xc9Vb2Nh6Jd1Kf8"
REQUEST = GenerationRequest(1, (ChatMessage("user", "hi"),))


def runs_of(secret: str, n: int = 8) -> list[str]:
    return [secret[i:i + n] for i in range(len(secret) - n + 1)]


def assert_no_part_of(secret: str, text: str) -> None:
    leaked = [run for run in runs_of(secret) if run in text]
    assert not leaked, f"{leaked[:3]} leaked in {text!r}"


def config(url: str, kind: str = "openai") -> ServerConfig:
    return ServerConfig(name="Leaky", kind=kind, base_url=url)


def chat_error(server_url: str, key: str = KEY, kind: str = "openai") -> str:
    backend = make_backend(config(server_url, kind), "m", api_key=key)
    gen = backend.generate(REQUEST, CancelEvent())
    try:
        with pytest.raises(BackendError) as caught:
            while True:
                next(gen)
    finally:
        gen.close()
        backend.close()
    return str(caught.value)


def test_a_key_in_the_reason_phrase_is_redacted(caplog: pytest.LogCaptureFixture) -> None:
    def handler(ex: Exchange) -> None:
        ex.head(418, [("Content-Length", "0")], reason=f"{KEY} is not welcome here")

    caplog.set_level(logging.DEBUG)
    with HostileServer(handler) as server:
        message = chat_error(server.url)
        with pytest.raises(BackendError) as listed:
            list_models(config(server.url), api_key=KEY)
    assert "answered 418" in message, message
    for text in (message, str(listed.value), caplog.text):
        assert_no_part_of(KEY, text)


def test_a_20_kb_retry_after_holding_the_key_across_the_cut_is_quoted_short_and_redacted() -> None:
    """The key starts a little before where the quote is cut: redacting after
    the cut would leave its first characters; redacting first leaves none."""
    retry = "x" * (limits.MAX_QUOTED_CHARS - 40) + KEY + "y" * 20_000

    def handler(ex: Exchange) -> None:
        ex.head(429, [("Retry-After", retry), ("Content-Length", "0")], reason="Too Many Requests")

    with HostileServer(handler) as server:
        message = chat_error(server.url)
    assert "rate-limiting" in message and "Try again after" in message
    assert len(message) < 400, len(message)
    assert_no_part_of(KEY, message)
    assert "sk-" not in message


@pytest.mark.parametrize("echo", [
    KEY,                      # whole
    KEY[:14],                 # cut by the server's own truncation
    KEY[9:],                  # its tail
    KEY.upper(),              # not the key: left alone by the key rule, but sk-… looking
])
def test_a_body_echoing_the_key_or_part_of_it_is_redacted(echo: str) -> None:
    body = json.dumps({"error": {"message": f"Incorrect API key provided: {echo}. See the docs."}}).encode()

    def handler(ex: Exchange) -> None:
        ex.head(401, [("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
        ex.send(body)

    with HostileServer(handler) as server:
        message = chat_error(server.url)
    assert "rejected the API key (401)" in message and "Incorrect API key provided" in message
    assert_no_part_of(KEY, message)
    assert echo not in message


def test_a_key_in_an_error_event_is_redacted() -> None:
    def handler(ex: Exchange) -> None:
        ex.head(200, [("Content-Type", "text/event-stream")], chunked=True)
        ex.chunk(b'data: {"error": {"message": "key ' + KEY[3:20].encode() + b' revoked"}}\n\n')
        ex.chunk(b"")

    with HostileServer(handler) as server:
        message = chat_error(server.url)
    assert "reported an error during the reply" in message and "revoked" in message
    assert_no_part_of(KEY, message)


def test_a_key_with_a_line_break_or_spaces_around_it_is_sent_stripped() -> None:
    seen: list[str] = []

    def handler(ex: Exchange) -> None:
        seen.append(ex.request.headers.get("authorization", ""))
        ex.head(401, [("Content-Length", "0")], reason="Unauthorized")

    with HostileServer(handler) as server:
        message = chat_error(server.url, key=f"  {KEY}\r\n")
    assert seen == [f"Bearer {KEY}"]
    assert_no_part_of(KEY, message)


@pytest.mark.parametrize(("key", "words"), [
    (KEY[:10] + "\r" + KEY[10:], "control character"),
    (KEY[:10] + "\x00" + KEY[10:], "control character"),
    (KEY[:10] + " " + KEY[10:], "contains a space"),
    (KEY[:10] + "\u00a0" + KEY[10:], "not plain ASCII"),
    ("\u201c" + KEY + "\u201d", "not plain ASCII"),
])
def test_a_key_http_cannot_carry_is_refused_in_words_that_never_quote_it(key: str, words: str) -> None:
    with HostileServer(lambda ex: None) as server:
        with pytest.raises(BackendError) as caught:
            make_backend(config(server.url), "m", api_key=key)
        with pytest.raises(BackendError) as listed:
            list_models(config(server.url), api_key=key)
        assert server.requests == []  # nothing was sent
    for message in (str(caught.value), str(listed.value)):
        assert words in message and "Model › Servers" in message, message
        assert_no_part_of(KEY, message)
        assert "Illegal header" not in message


def test_validate_api_key() -> None:
    assert validate_api_key(f"\t{KEY} \n") == KEY
    assert validate_api_key("") == ""
    with pytest.raises(ServerConfigError):
        validate_api_key("ab\x7fcd")


@settings(max_examples=300, deadline=None)
@given(key=st.text(st.characters(min_codepoint=33, max_codepoint=126), min_size=8, max_size=60),
       start=st.integers(0, 60), length=st.integers(8, 60),
       before=st.text(max_size=30), after=st.text(max_size=30))
def test_no_run_of_8_characters_of_a_key_survives(key: str, start: int, length: int, before: str, after: str) -> None:
    part = key[start % (len(key) - 7):][:length]
    out = Redactor(key).redact(before + part + after)
    assert_no_part_of(key, out)


@settings(max_examples=200, deadline=None)
@given(key=st.text(st.characters(min_codepoint=33, max_codepoint=126), min_size=8, max_size=40),
       pad=st.integers(0, 400), limit=st.integers(10, 300))
def test_quote_redacts_before_it_cuts(key: str, pad: int, limit: int) -> None:
    quoted = Redactor(key).quote("a" * pad + key + "b" * 1000, limit)
    assert len(quoted) <= limit
    assert_no_part_of(key, quoted)


def test_quote_drops_control_and_bidi_characters() -> None:
    assert Redactor().quote("a\x1b]0;title\x07b\u202ec\r\nd") == "a ]0;title b c d"


@pytest.mark.parametrize("text", [
    "Authorization: Bearer abcdefghijklmnop", "api_key=Zx81Yq90Wd", '"password": "hunter2hunter2"', "sk-live-1234abcd",
])
def test_key_looking_tokens_are_redacted_whoever_they_belong_to(text: str) -> None:
    out = Redactor().redact(text)
    assert "***" in out
    for token in ("abcdefghijklmnop", "Zx81Yq90Wd", "hunter2hunter2", "1234abcd"):
        assert token not in out


# -- URL logins ---------------------------------------------------------------------------


def test_a_url_login_goes_to_the_keyring_and_is_sent_as_basic_auth(tmp_path, caplog) -> None:
    caplog.set_level(logging.DEBUG)
    ring = MemoryKeyring()
    store = SecretStore(keyring_module=ring)
    path = tmp_path / "settings.json"
    seen: list[str] = []

    def handler(ex: Exchange) -> None:
        seen.append(ex.request.headers.get("authorization", ""))
        body = b'{"data": [{"id": "m"}]}'
        ex.head(200, [("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
        ex.send(body)

    with HostileServer(handler) as server:
        typed = ServerConfig("Proxy", "openai", server.url.replace("http://", "http://alice:s3cr%40t-pass@"))
        assert servers.save_servers([typed], path, store=store)
        stored = path.read_text()
        assert "s3cr" not in stored and "alice" not in stored
        assert json.loads(stored)["servers"][0]["url_login"] is True
        [loaded] = servers.load_servers(path, store=store)
        assert loaded.base_url == server.url and loaded.id == typed.id
        assert list_models(loaded, store=store) == ["m"]
    import base64

    assert seen == ["Basic " + base64.b64encode(b"alice:s3cr@t-pass").decode()]
    assert "s3cr" not in caplog.text and "alice:" not in caplog.text


def test_a_login_is_only_sent_to_the_address_it_was_typed_for(tmp_path) -> None:
    store = SecretStore(keyring_module=MemoryKeyring())
    server = ServerConfig("Proxy", "openai", "http://bob:pw12345678@127.0.0.1:8080")
    servers.save_servers([server], tmp_path / "s.json", store=store)
    [loaded] = servers.load_servers(tmp_path / "s.json", store=store)
    assert "bob" in servers.with_login(loaded, store).base_url
    moved = ServerConfig("Proxy", "openai", "http://127.0.0.1:9090", id=loaded.id)  # the user changed the port
    assert servers.with_login(moved, store).base_url == "http://127.0.0.1:9090"


def test_a_settings_file_with_a_login_in_a_url_is_cleaned_at_load(tmp_path) -> None:
    ring = MemoryKeyring()
    store = SecretStore(keyring_module=ring)
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"servers": [{"name": "Old", "kind": "ollama", "id": "old1",
                                             "base_url": "http://carol:pa55word99@10.0.0.5:11434"}],
                                "other": 1}))
    [loaded] = servers.load_servers(path, store=store)
    assert loaded.base_url == "http://10.0.0.5:11434"
    assert "pa55word99" not in path.read_text() and json.loads(path.read_text())["other"] == 1
    assert "pa55word99" in ring.data[("rill", "old1:url-login")]
    assert "carol:pa55word99@" in servers.with_login(loaded, store).base_url


def test_removing_a_server_removes_its_login_and_saving_it_again_keeps_it(tmp_path) -> None:
    ring = MemoryKeyring()
    store = SecretStore(keyring_module=ring)
    path = tmp_path / "settings.json"
    a = ServerConfig("A", "openai", "http://dave:pw-a-123456@127.0.0.1:1")
    b = ServerConfig("B", "openai", "http://127.0.0.1:2")
    servers.save_servers([a, b], path, store=store)
    [a_loaded, b_loaded] = servers.load_servers(path, store=store)
    servers.save_servers([a_loaded, b_loaded], path, store=store)  # saved again as the dialog shows it: no login
    assert "dave" in servers.with_login(a_loaded, store).base_url
    servers.save_servers([b_loaded], path, store=store)
    assert (("rill", a.id + ":url-login")) not in ring.data


def test_errors_never_show_the_url_password() -> None:
    def handler(ex: Exchange) -> None:
        body = b'{"error": "bad login erin:pw-erin-9876 for you"}'
        ex.head(403, [("Content-Type", "application/json"), ("Content-Length", str(len(body)))], reason="pw-erin-9876")
        ex.send(body)

    with HostileServer(handler) as server:
        url = server.url.replace("http://", "http://erin:pw-erin-9876@")
        message = chat_error(url, key="")
    assert "refused access (403)" in message
    assert "pw-erin-9876" not in message and "erin" not in message.replace("Leaky", "")
