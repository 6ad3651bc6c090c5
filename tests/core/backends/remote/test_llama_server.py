"""The OpenAI-compatible backend against llama-cpp-python's own server
(``python -m llama_cpp.server`` with the default model on 127.0.0.1)."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from app.core.backends.base import CancelEvent, ChatMessage, FinishReason, GenerationRequest, SamplingParams
from app.core.backends.remote.client import list_models, make_backend
from app.core.backends.remote.openai import OpenAIBackend
from app.core.backends.remote.servers import ServerConfig

pytestmark = pytest.mark.model

#: SmolLM2's end-of-text tokens (<|endoftext|>, <|im_end|>): banned so a
#: reply runs to max_tokens and is still generating when the test stops it.
NO_EOS = {"0": -100, "2": -100}


class LongReplyBackend(OpenAIBackend):
    def _chat_request(self, request: GenerationRequest) -> tuple[str, dict[str, Any]]:
        url, payload = super()._chat_request(request)
        payload["logit_bias"] = NO_EOS
        return url, payload


def config(url: str) -> ServerConfig:
    return ServerConfig("llama-cpp-python server", "openai", url + "/v1/")


def test_lists_models_and_streams_a_reply(llama_server) -> None:
    assert list_models(config(llama_server.url)) == [llama_server.model_id]
    backend = make_backend(config(llama_server.url))
    info = backend.load()
    assert backend.model == llama_server.model_id and "llama-cpp-python server" in info.name
    request = GenerationRequest(1, (ChatMessage("user", "Say hello in Chinese and with an emoji."),),
                                SamplingParams(max_tokens=40, seed=7))
    pieces: list[str] = []
    gen = backend.generate(request, CancelEvent())
    try:
        while True:
            pieces.append(next(gen))
    except StopIteration as stop:
        reason = stop.value
    backend.close()
    text = "".join(pieces)
    assert reason in (FinishReason.STOP, FinishReason.LENGTH)
    assert text.strip() and "\ufffd" not in text


def test_stop_ends_generation_on_the_server_and_the_next_request_is_served(llama_server) -> None:
    """The server queues requests (interrupt_requests=False): the next one is
    served only once the previous ended. Stop closes the connection, the
    server notices (its log says so) mid-generation and frees itself; the
    next request then completes, far from the 1,500 tokens the first asked for."""
    server = config(llama_server.url)
    backend = LongReplyBackend(server, llama_server.model_id)
    long_request = GenerationRequest(1, (ChatMessage("user", "Tell a very long story."),),
                                     SamplingParams(max_tokens=1500, seed=1))
    disconnects_before = llama_server.log_text().count("Disconnected from client")
    cancel = CancelEvent()
    got: list[str] = []
    result: list[Any] = []
    five = threading.Event()

    def consume() -> None:
        gen = backend.generate(long_request, cancel)
        try:
            while True:
                got.append(next(gen))
                if len(got) >= 5:
                    five.set()
        except StopIteration as stop:
            result.append(stop.value)
        except Exception as exc:  # noqa: BLE001 - reported below
            result.append(exc)
        finally:
            five.set()

    thread = threading.Thread(target=consume, daemon=True)
    thread.start()
    assert five.wait(120) and len(got) >= 5, result
    cancel.set()
    thread.join(10)
    assert not thread.is_alive() and result == [FinishReason.CANCELLED]

    # The server saw the client go while it was generating...
    seen = threading.Event()
    for _ in range(600):
        if llama_server.log_text().count("Disconnected from client") > disconnects_before:
            break
        seen.wait(0.05)
    assert llama_server.log_text().count("Disconnected from client") > disconnects_before
    # ...and the next request is served (it would otherwise queue behind ~1,500 tokens).
    short = make_backend(server, llama_server.model_id)
    request = GenerationRequest(2, (ChatMessage("user", "Hi"),), SamplingParams(max_tokens=8, seed=2))
    gen = short.generate(request, CancelEvent())
    pieces = []
    try:
        while True:
            pieces.append(next(gen))
    except StopIteration as stop:
        assert stop.value in (FinishReason.STOP, FinishReason.LENGTH)
    assert "".join(pieces).strip()
    short.close()
    backend.close()
