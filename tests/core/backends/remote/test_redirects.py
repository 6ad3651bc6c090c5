"""Redirects (issue #17, item 10): a chat request is never re-sent anywhere
(another address: never; the same one: not with the conversation either),
a model list follows a few redirects to the same address only; each refusal
says where the server pointed."""

from __future__ import annotations

import json

import pytest

from app.core.backends.base import BackendError, CancelEvent, ChatMessage, GenerationRequest
from app.core.backends.remote.client import list_models, make_backend
from app.core.backends.remote.servers import ServerConfig
from tests.helpers.hostile_server import Exchange, HostileServer

REQUEST = GenerationRequest(1, (ChatMessage("user", "my secret conversation"),))


def config(url: str, kind: str = "openai") -> ServerConfig:
    return ServerConfig(name="Redirector", kind=kind, base_url=url)


def answer_everything(ex: Exchange) -> None:
    """A normal server: a model list, or a one-event stream."""
    if ex.request.method == "GET":
        body = json.dumps({"data": [{"id": "elsewhere-model"}], "models": [{"name": "elsewhere-model"}]}).encode()
        ex.head(200, [("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
        ex.send(body)
        return
    ex.head(200, [("Content-Type", "text/event-stream")], chunked=True)
    ex.chunk(b'data: {"choices": [{"delta": {"content": "hi"}, "finish_reason": "stop"}]}\n\ndata: [DONE]\n\n')
    ex.chunk(b"")


def redirect_to(location: str, code: int = 307) -> object:
    def handler(ex: Exchange) -> None:
        ex.head(code, [("Location", location), ("Content-Length", "0")], reason="Redirect")

    return handler


def generate(url: str, kind: str = "openai") -> BackendError:
    backend = make_backend(config(url, kind), "m", api_key="sk-Zq81vXwP3LmT0b9K")
    gen = backend.generate(REQUEST, CancelEvent())
    try:
        with pytest.raises(BackendError) as caught:
            while True:
                next(gen)
    finally:
        gen.close()
        backend.close()
    return caught.value


@pytest.mark.parametrize("code", [301, 302, 303, 307, 308])
@pytest.mark.parametrize("kind", ["openai", "ollama"])
def test_a_chat_request_is_never_sent_on_to_another_address(code: int, kind: str) -> None:
    with HostileServer(answer_everything) as elsewhere:
        target = f"{elsewhere.url}/v1/chat/completions"
        with HostileServer(redirect_to(target, code)) as server:  # type: ignore[arg-type]  # a handler
            error = generate(server.url, kind)
        assert elsewhere.requests == []  # the conversation never went there
    message = str(error)
    assert f"redirected the request ({code}) to {target}" in message, message
    assert "Rill does not follow redirects to another address" in message
    assert "sk-Zq81" not in message


def test_a_chat_request_is_not_re_sent_to_the_same_address_either() -> None:
    with HostileServer(redirect_to("/v2/chat/completions")) as server:  # type: ignore[arg-type]  # a handler
        error = generate(server.url)
        assert len(server.requests) == 1
    message = str(error)
    assert f"redirected the chat request (307) to {server.url}/v2/chat/completions" in message, message
    assert "does not send a conversation on to a redirected address" in message


def test_a_model_list_follows_a_redirect_to_the_same_address() -> None:
    def handler(ex: Exchange) -> None:
        if ex.request.path == "/v1/models":
            redirect_to("/moved/models", 302)(ex)  # type: ignore[operator]  # a handler
        else:
            answer_everything(ex)

    with HostileServer(handler) as server:
        assert list_models(config(server.url)) == ["elsewhere-model"]
        assert [r.path for r in server.requests] == ["/v1/models", "/moved/models"]


def test_a_model_list_does_not_follow_a_redirect_to_another_address() -> None:
    with HostileServer(answer_everything) as elsewhere:
        target = f"{elsewhere.url}/v1/models"
        with HostileServer(redirect_to(target, 302)) as server:  # type: ignore[arg-type]  # a handler
            with pytest.raises(BackendError, match="Rill does not follow redirects to another address") as caught:
                list_models(config(server.url), api_key="sk-Hh4kW0pXy7Tq2Lr9")
        assert elsewhere.requests == []  # not even the key-less GET
    assert target in str(caught.value)


def test_a_redirect_loop_ends() -> None:
    with HostileServer(redirect_to("/v1/models", 302)) as server:  # type: ignore[arg-type]  # a handler
        with pytest.raises(BackendError, match="redirected the model list more than 3 times"):
            list_models(config(server.url))
        assert len(server.requests) == 4


def test_the_address_quoted_carries_no_password_no_query_and_no_key() -> None:
    location = "http://mallory:hunter22@203.0.113.9:81/steal?key=sk-Zq81vXwP3LmT0b9K&x=" + "y" * 5000
    with HostileServer(redirect_to(location)) as server:  # type: ignore[arg-type]  # a handler
        error = generate(server.url)
    message = str(error)
    assert "http://203.0.113.9:81/steal?…" in message, message
    assert "hunter22" not in message and "mallory" not in message and "sk-Zq81" not in message
    assert len(message) < 600


def test_a_redirect_without_a_location_is_named() -> None:
    def handler(ex: Exchange) -> None:
        ex.head(302, [("Content-Length", "0")], reason="Found")

    with HostileServer(handler) as server:
        assert "answered 302 (a redirect) without saying where to" in str(generate(server.url))
