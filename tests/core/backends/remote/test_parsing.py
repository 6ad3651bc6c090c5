"""The remote backends' stream readers: exact text under any split of the bytes."""

from __future__ import annotations

import json

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.core.backends.base import BackendError
from app.core.backends.remote.base import Delta
from app.core.backends.remote.ollama import OllamaBackend
from app.core.backends.remote.openai import OpenAIBackend
from app.core.backends.remote.servers import ServerConfig
from app.core.text.thinking import split_thinking

TOKENS = ["Hello", ", ", "你好", "，世界", " 👩‍💻", " e\u0301", "\n\n```py\nx = 1\n```", " \u2028 \x85 end"]

OPENAI = ServerConfig("Test server", "openai", "http://127.0.0.1:9")
OLLAMA = ServerConfig("Test ollama", "ollama", "http://127.0.0.1:9")


def sse_stream(tokens: list[str], *, newline: str = "\n", comments: bool = False, multiline: bool = False,
               reasoning: list[str] = (), done: bool = True) -> bytes:
    events = [{"choices": [{"index": 0, "delta": {"role": "assistant", "content": None}}]}]
    events += [{"choices": [{"index": 0, "delta": {"reasoning_content": r}}]} for r in reasoning]
    events += [{"choices": [{"index": 0, "delta": {"content": t}, "finish_reason": None}]} for t in tokens]
    events.append({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    out = []
    for i, event in enumerate(events):
        if comments:
            out.append(": keep-alive" + newline)
        if multiline and i % 2:
            text = json.dumps(event, ensure_ascii=False, indent=1)
            out.append("".join(f"data: {line}{newline}" for line in text.split("\n")))
        else:
            out.append(f"data: {json.dumps(event, ensure_ascii=False)}{newline}")
        out.append(newline)
    if done:
        out.append(f"data: [DONE]{newline}{newline}")
    return "".join(out).encode("utf-8")


def ndjson_stream(tokens: list[str], *, reasoning: list[str] = (), newline: str = "\n") -> bytes:
    lines = [{"model": "m", "message": {"role": "assistant", "content": "", "thinking": r}, "done": False} for r in reasoning]
    lines += [{"model": "m", "message": {"role": "assistant", "content": t}, "done": False} for t in tokens]
    lines.append({"model": "m", "message": {"role": "assistant", "content": ""}, "done": True,
                  "done_reason": "stop", "prompt_eval_count": 12, "eval_count": len(tokens)})
    return "".join(json.dumps(line, ensure_ascii=False) + newline for line in lines).encode("utf-8")


def split_bytes(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts})
    pieces, last = [], 0
    for p in points + [len(data)]:
        if p > last:
            pieces.append(data[last:p])
        last = p
    return pieces


def response(pieces: list[bytes], content_type: str) -> httpx.Response:
    return httpx.Response(200, headers={"content-type": content_type}, content=iter(pieces),
                          request=httpx.Request("POST", "http://127.0.0.1:9/x"))


def read(backend_cls, server: ServerConfig, pieces: list[bytes], content_type: str) -> tuple[str, list[Delta]]:
    backend = backend_cls(server, "m")
    deltas = list(backend._deltas(response(pieces, content_type)))
    backend.close()
    text = []
    thinking = False
    for d in deltas:  # the same assembly generate() does
        if d.reasoning:
            text.append(d.reasoning if thinking else "<think>" + d.reasoning)
            thinking = True
        if d.content:
            text.append(("</think>" + d.content) if thinking else d.content)
            thinking = False
    if thinking:
        text.append("</think>")
    return "".join(text), deltas


@settings(max_examples=150, deadline=None)
@given(cuts=st.lists(st.integers(min_value=0, max_value=10_000), max_size=40),
       newline=st.sampled_from(["\n", "\r\n", "\r"]), comments=st.booleans(), multiline=st.booleans())
def test_sse_every_split_gives_the_same_text(cuts, newline, comments, multiline) -> None:
    data = sse_stream(TOKENS, newline=newline, comments=comments, multiline=multiline)
    text, deltas = read(OpenAIBackend, OPENAI, split_bytes(data, cuts), "text/event-stream")
    assert text == "".join(TOKENS)
    assert "\ufffd" not in text
    assert deltas[-1].done and any(d.finish_reason == "stop" for d in deltas)


def test_sse_byte_by_byte_with_reasoning() -> None:
    data = sse_stream(TOKENS, reasoning=["Let me ", "think 🤔"], newline="\r\n", comments=True)
    text, _ = read(OpenAIBackend, OPENAI, [data[i:i + 1] for i in range(len(data))], "text/event-stream")
    split = split_thinking(text)
    assert split.thoughts == "Let me think 🤔"
    assert split.answer == "".join(TOKENS)


@settings(max_examples=150, deadline=None)
@given(cuts=st.lists(st.integers(min_value=0, max_value=10_000), max_size=40), newline=st.sampled_from(["\n", "\r\n"]))
def test_ndjson_every_split_gives_the_same_text(cuts, newline) -> None:
    data = ndjson_stream(TOKENS, reasoning=["hmm", "…"], newline=newline)
    text, deltas = read(OllamaBackend, OLLAMA, split_bytes(data, cuts), "application/x-ndjson")
    split = split_thinking(text)
    assert split.thoughts == "hmm…"
    assert split.answer == "".join(TOKENS)
    assert deltas[-1].done and deltas[-1].prompt_tokens == 12


def test_sse_error_object_names_the_server() -> None:
    data = sse_stream(["a"], done=False) + b'data: {"error": {"message": "model crashed", "code": 500}}\n\n'
    with pytest.raises(BackendError, match="Test server.*model crashed"):
        read(OpenAIBackend, OPENAI, [data], "text/event-stream")


def test_sse_malformed_json_is_a_clear_error() -> None:
    data = sse_stream(["a"], done=False) + b'data: {"choices": [{"delta": {"content": "x"\n\n'
    with pytest.raises(BackendError, match="malformed JSON"):
        read(OpenAIBackend, OPENAI, [data], "text/event-stream")


def test_a_complete_json_reply_instead_of_a_stream_is_read() -> None:
    body = json.dumps({"choices": [{"message": {"role": "assistant", "content": "whole 你好"}, "finish_reason": "stop"}]})
    text, deltas = read(OpenAIBackend, OPENAI, [body.encode()], "application/json")
    assert text == "whole 你好" and deltas[-1].done


def test_an_html_page_is_not_a_stream() -> None:
    with pytest.raises(BackendError, match="not a stream.*text/html"):
        read(OpenAIBackend, OPENAI, [b"<html><body>Bad gateway</body></html>"], "text/html")


def test_ollama_error_line() -> None:
    first = json.dumps({"model": "m", "message": {"role": "assistant", "content": "a"}, "done": False})
    data = (first + '\n{"error": "out of memory"}\n').encode()
    with pytest.raises(BackendError, match="Test ollama.*out of memory"):
        read(OllamaBackend, OLLAMA, [data], "application/x-ndjson")
