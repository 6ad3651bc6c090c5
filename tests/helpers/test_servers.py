"""Self-tests of the test servers: the fault server does what its Scenario
says, and the real llama-cpp-python server fixture answers.

Bare httpx clients; every wait is on a condition with a timeout."""

from __future__ import annotations

import dataclasses
import json
import re
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.helpers.fault_server import (
    DEFAULT_TEXT,
    ERROR_MESSAGE,
    FaultServer,
    Scenario,
    split_text,
)

CHAT = "/v1/chat/completions"
MESSAGES = [{"role": "user", "content": "Hello there, how are you today?"}]
STREAM_BODY = {"model": "fault-model", "messages": MESSAGES, "stream": True}


def parse_sse(text: str) -> list[str]:
    """The data of each complete event in ``text`` (WHATWG rules: lines end
    with \\r\\n, \\r or \\n; ``:`` lines are comments; several ``data:`` lines
    are joined with \\n; an event is dispatched by a blank line)."""
    events: list[str] = []
    data: list[str] = []
    for line in re.split(r"\r\n|\r|\n", text):
        if line == "":
            if data:
                events.append("\n".join(data))
            data = []
            continue
        if line.startswith(":"):
            continue
        field, _, value = line.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if field == "data":
            data.append(value)
    return events


def openai_text(events: list[str], key: str = "content") -> str:
    out = []
    for event in events:
        if event == "[DONE]":
            continue
        obj = json.loads(event)
        for choice in obj.get("choices", []):
            out.append(choice["delta"].get(key) or "")
    return "".join(out)


def normalize(raw: bytes) -> bytes:
    """Drop what differs between two runs of one scenario (ids, timestamps)."""
    raw = re.sub(rb'"id": ?"chatcmpl-fault\d+"', b'"id":"X"', raw)
    raw = re.sub(rb'"created": ?\d+', b'"created":0', raw)
    return re.sub(rb'"created_at": ?"[^"]+"', b'"created_at":"T"', raw)


def read_stream(server: FaultServer, path: str = CHAT, body: Any = None) -> tuple[httpx.Response, bytes]:
    with httpx.Client(timeout=10) as client, client.stream("POST", server.url + path, json=body or STREAM_BODY) as r:
        return r, r.read()


@pytest.fixture
def server(fault_server: FaultServer) -> Iterator[FaultServer]:
    """The conftest fault_server, checked afterwards for handler errors."""
    yield fault_server
    assert not fault_server.errors, fault_server.errors


# -- Scenario basics -------------------------------------------------------------


def test_default_text_has_the_hard_cases() -> None:
    for needle in ("你好，世界", "👩\u200d💻", "e\u0301", "```"):
        assert needle in DEFAULT_TEXT
    tokens = split_text(DEFAULT_TEXT)
    assert "".join(tokens) == DEFAULT_TEXT
    assert len(tokens) == -(-len(DEFAULT_TEXT) // 3)
    assert split_text("abc", 10) == ["a", "b", "c"]
    assert split_text("", 4) == []
    with pytest.raises(ValueError):
        Scenario(fault="nope")


# -- OpenAI SSE ------------------------------------------------------------------


def test_openai_stream_shape(server: FaultServer) -> None:
    r, raw = read_stream(server)
    assert r.status_code == 200
    assert r.headers["content-type"] == "text/event-stream"  # no charset, like llama-server
    assert r.headers["transfer-encoding"] == "chunked"
    events = parse_sse(raw.decode("utf-8"))
    assert events[-1] == "[DONE]"
    chunks = [json.loads(e) for e in events[:-1]]
    assert chunks[0]["choices"][0]["delta"] == {"role": "assistant", "content": None}
    assert chunks[-1]["choices"][0] == {"index": 0, "delta": {}, "logprobs": None, "finish_reason": "stop"}
    assert all(c["object"] == "chat.completion.chunk" and c["model"] == "fault-model" for c in chunks)
    assert len(chunks) == 2 + len(split_text(DEFAULT_TEXT))
    assert openai_text(events) == DEFAULT_TEXT
    method, path, headers, body = server.requests[-1]
    assert (method, path, body) == ("POST", CHAT, STREAM_BODY)
    assert headers["content-type"] == "application/json"


@pytest.mark.parametrize("sizes", [(1,), (2, 3, 5), (7,), (4096,)])
def test_split_writes_reassemble_to_the_same_bytes(server: FaultServer, sizes: tuple[int, ...]) -> None:
    scenario = Scenario(comments=True, multiline_data=True, newline="\r\n", usage=True, reasoning="Hmm, 好的…")
    server.scenario = scenario
    _, whole = read_stream(server)
    server.scenario = dataclasses.replace(scenario, write_sizes=sizes)
    _, split = read_stream(server)
    assert normalize(split) == normalize(whole)
    events = parse_sse(split.decode("utf-8"))
    assert openai_text(events) == DEFAULT_TEXT
    assert openai_text(events, "reasoning_content") == "Hmm, 好的…"


def test_byte_by_byte_splits_utf8_characters_at_the_client(server: FaultServer) -> None:
    server.scenario = Scenario(text="你好😀é", pieces=2, write_sizes=(1,), write_delay_s=0.001)
    pieces = []
    with httpx.Client(timeout=10) as client, client.stream("POST", server.url + CHAT, json=STREAM_BODY) as r:
        pieces = list(r.iter_raw())
    body = b"".join(pieces)
    assert openai_text(parse_sse(body.decode("utf-8"))) == "你好😀é"

    def cuts_a_character(piece: bytes) -> bool:
        try:
            piece.decode("utf-8")
        except UnicodeDecodeError:
            return True
        return False

    assert len(pieces) > 20
    assert any(cuts_a_character(p) for p in pieces)


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_newlines_comments_multiline(server: FaultServer, newline: str) -> None:
    server.scenario = Scenario(newline=newline, comments=True, multiline_data=True)
    _, raw = read_stream(server)
    text = raw.decode("utf-8")
    assert ": keep-alive" + newline in text
    other = {"\n", "\r"} - set(newline)
    assert not any(ch in text.replace(newline, "") for ch in other)  # only that line ending
    events = parse_sse(text)
    assert any("\n" in e for e in events)  # some events spread over several data: lines
    assert openai_text(events) == DEFAULT_TEXT
    assert events[-1] == "[DONE]"


def test_reasoning_usage_length(server: FaultServer) -> None:
    server.scenario = Scenario(text="abcdef", pieces=2, reasoning="think", usage=True, finish_reason="length")
    _, raw = read_stream(server)
    events = parse_sse(raw.decode())
    chunks = [json.loads(e) for e in events[:-1]]
    assert openai_text(events, "reasoning_content") == "think"
    assert openai_text(events) == "abcdef"
    first_content = next(i for i, c in enumerate(chunks) if c["choices"] and c["choices"][0]["delta"].get("content"))
    last_reasoning = max(
        i for i, c in enumerate(chunks) if c["choices"] and c["choices"][0]["delta"].get("reasoning_content")
    )
    assert last_reasoning < first_content
    assert chunks[-2]["choices"][0]["finish_reason"] == "length"
    assert chunks[-1]["choices"] == []
    usage = chunks[-1]["usage"]
    assert usage["completion_tokens"] == 2 + len(split_text("think"))
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]


def test_ascii_json_and_close_delimited(server: FaultServer) -> None:
    server.scenario = Scenario(ascii_json=True, chunked=False)
    r, raw = read_stream(server)
    assert "transfer-encoding" not in r.headers
    assert raw.isascii()
    assert openai_text(parse_sse(raw.decode())) == DEFAULT_TEXT


def test_non_streaming_request_gets_a_completion(server: FaultServer) -> None:
    with httpx.Client(timeout=10) as client:
        r = client.post(server.url + CHAT, json={"messages": MESSAGES})
    assert r.headers["content-type"] == "application/json"
    obj = r.json()
    assert obj["object"] == "chat.completion"
    assert obj["choices"][0]["message"]["content"] == DEFAULT_TEXT


# -- faults ------------------------------------------------------------------------


@pytest.mark.parametrize("code", [401, 403, 404, 429, 500])
def test_http_faults(server: FaultServer, code: int) -> None:
    server.scenario = Scenario(fault=f"http{code}")
    with httpx.Client(timeout=10) as client:
        r = client.post(server.url + CHAT, json=STREAM_BODY)
        assert r.status_code == code
        error = r.json()["error"]
        assert error["code"] == code and error["message"] and error["type"]
        assert (r.headers.get("retry-after") == "7") == (code == 429)
        r = client.post(server.url + "/api/chat", json={"model": "qwen3:8b", "messages": MESSAGES})
        assert r.status_code == code
        assert isinstance(r.json()["error"], str)
        if code == 404:
            assert r.json()["error"] == 'model "qwen3:8b" not found, try pulling it first'
        # Listings are only affected with fault_listing=True.
        assert client.get(server.url + "/v1/models").status_code == 200
        server.scenario = Scenario(fault=f"http{code}", fault_listing=True)
        assert client.get(server.url + "/v1/models").status_code == code
        assert client.get(server.url + "/api/tags").status_code == code


def test_error_event(server: FaultServer) -> None:
    server.scenario = Scenario(fault="error_event", fail_after=2)
    _, raw = read_stream(server)  # the response ends cleanly, without [DONE]
    events = parse_sse(raw.decode())
    assert "[DONE]" not in events
    assert json.loads(events[-1]) == {"error": {"message": ERROR_MESSAGE, "type": "server_error", "code": 500}}
    assert openai_text(events[:-1]) == "".join(split_text(DEFAULT_TEXT)[:2])


def test_malformed_event_then_the_stream_goes_on(server: FaultServer) -> None:
    server.scenario = Scenario(fault="malformed", fail_after=1)
    _, raw = read_stream(server)
    events = parse_sse(raw.decode())
    bad = []
    for event in events[:-1]:
        try:
            json.loads(event)
        except ValueError:
            bad.append(event)
    assert len(bad) == 1
    assert events[-1] == "[DONE]"
    assert openai_text([e for e in events if e not in bad]) == DEFAULT_TEXT


def test_close_mid(server: FaultServer) -> None:
    server.scenario = Scenario(fault="close_mid", fail_after=3)
    received = bytearray()
    with httpx.Client(timeout=10) as client, client.stream("POST", server.url + CHAT, json=STREAM_BODY) as r:
        with pytest.raises(httpx.RemoteProtocolError):
            for piece in r.iter_raw():
                received += piece
    events = parse_sse(received.decode())
    assert "[DONE]" not in events
    assert openai_text(events) == "".join(split_text(DEFAULT_TEXT)[:3])
    assert not server.client_gone.is_set()  # the server left, not the client


@pytest.mark.parametrize("fail_after", [0, 2, 10_000])
def test_end_mid(server: FaultServer, fail_after: int) -> None:
    server.scenario = Scenario(fault="end_mid", fail_after=fail_after)
    _, raw = read_stream(server)
    events = parse_sse(raw.decode())
    assert "[DONE]" not in events
    assert openai_text(events) == "".join(split_text(DEFAULT_TEXT)[:fail_after])
    assert all(json.loads(e)["choices"][0]["finish_reason"] is None for e in events)


def test_empty_stream(server: FaultServer) -> None:
    server.scenario = Scenario(fault="empty_stream")
    r, raw = read_stream(server)
    assert r.status_code == 200 and r.headers["content-type"] == "text/event-stream"
    assert raw == b""


def test_not_stream_and_html(server: FaultServer) -> None:
    server.scenario = Scenario(fault="not_stream", reasoning="hm")
    r, raw = read_stream(server)
    assert r.headers["content-type"] == "application/json"
    obj = json.loads(raw)
    assert obj["object"] == "chat.completion"
    assert obj["choices"][0]["message"] == {"role": "assistant", "content": DEFAULT_TEXT, "reasoning_content": "hm"}
    server.scenario = Scenario(fault="html")
    r, raw = read_stream(server)
    assert r.status_code == 200 and r.headers["content-type"] == "text/html"
    assert raw.startswith(b"<html>")


def test_stall_then_client_leaves(server: FaultServer) -> None:
    server.scenario = Scenario(fault="stall", fail_after=2)
    with httpx.Client(timeout=10) as client:
        with client.stream("POST", server.url + CHAT, json=STREAM_BODY):
            assert server.stalled.wait(5)
            assert server.active_streams == 1
            closed_at = time.monotonic()
        # leaving the block closes the connection: the response was not read to the end
        assert server.client_gone.wait(5)
    assert len(server.disconnect_times) == 1
    assert server.disconnect_times[0] >= closed_at
    assert server.wait_for(lambda: server.active_streams == 0, timeout=5)


def test_client_shutdown_noticed_during_slow_stream(server: FaultServer) -> None:
    """With a rate, the gaps between tokens are watched for the client's EOF."""
    server.scenario = Scenario(rate=0.001)  # the next token is 1,000 s away
    with httpx.Client(timeout=10) as client:
        with client.stream("POST", server.url + CHAT, json=STREAM_BODY) as r:
            pieces = r.iter_raw()  # keep a reference: a dropped generator closes the connection
            first = next(pieces)  # the role chunk
            assert b'"role":"assistant"' in first
            sock = r.extensions["network_stream"].get_extra_info("socket")
            sock.shutdown(socket.SHUT_RDWR)
            # noticed inside the gap: a server that only noticed when writing would wait 1,000 s
            assert server.client_gone.wait(5)
    assert len(server.disconnect_times) == 1


def test_slow_headers(server: FaultServer) -> None:
    server.scenario = Scenario(fault="slow_headers", headers_delay_s=30)
    with httpx.Client(timeout=httpx.Timeout(10, read=0.3)) as client:
        with pytest.raises(httpx.ReadTimeout):
            client.post(server.url + CHAT, json=STREAM_BODY)
    assert server.stalled.is_set()
    assert server.client_gone.wait(5)
    # After headers_delay_s the normal stream follows.
    server.scenario = Scenario(fault="slow_headers", headers_delay_s=0.2)
    start = time.monotonic()
    with httpx.Client(timeout=10) as client, client.stream("POST", server.url + CHAT, json=STREAM_BODY) as r:
        waited = time.monotonic() - start
        events = parse_sse(r.read().decode())
    assert waited >= 0.2
    assert events[-1] == "[DONE]"


# -- Ollama ------------------------------------------------------------------------


def ndjson(raw: bytes) -> list[dict[str, Any]]:
    return [json.loads(line) for line in raw.decode("utf-8").splitlines() if line]


def test_ollama_stream(server: FaultServer) -> None:
    server.scenario = Scenario(reasoning="ponder", finish_reason="length")
    r, raw = read_stream(server, "/api/chat", {"model": "fault-model:latest", "messages": MESSAGES})
    assert r.headers["content-type"] == "application/x-ndjson"
    lines = ndjson(raw)
    assert all(not line["done"] for line in lines[:-1])
    assert "".join(line["message"].get("thinking", "") for line in lines) == "ponder"
    assert "".join(line["message"]["content"] for line in lines) == DEFAULT_TEXT
    final = lines[-1]
    assert final["done"] is True and final["done_reason"] == "length"
    assert final["eval_count"] == len(lines) - 1
    assert final["prompt_eval_count"] > 0 and final["model"] == "fault-model:latest"


def test_ollama_faults(server: FaultServer) -> None:
    body = {"model": "m", "messages": MESSAGES}
    server.scenario = Scenario(fault="error_event", fail_after=1)
    _, raw = read_stream(server, "/api/chat", body)
    lines = ndjson(raw)
    assert lines[-1] == {"error": ERROR_MESSAGE}
    assert len(lines) == 2 and not lines[0]["done"]
    server.scenario = Scenario(fault="malformed", fail_after=1)
    _, raw = read_stream(server, "/api/chat", body)
    text_lines = raw.decode().splitlines()
    broken = [line for line in text_lines if not _is_json(line)]
    assert len(broken) == 1
    assert json.loads(text_lines[-1])["done"] is True
    server.scenario = Scenario(fault="not_stream")
    r, raw = read_stream(server, "/api/chat", body)
    assert r.headers["content-type"] == "application/json"
    assert json.loads(raw)["message"]["content"] == DEFAULT_TEXT
    # "stream": false is honoured without a fault
    server.scenario = Scenario()
    with httpx.Client(timeout=10) as client:
        obj = client.post(server.url + "/api/chat", json={**body, "stream": False}).json()
    assert obj["done"] is True and obj["message"]["content"] == DEFAULT_TEXT


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


# -- listings, routing, robustness -------------------------------------------------


def test_listings_and_unknown_paths(server: FaultServer) -> None:
    with httpx.Client(timeout=10) as client:
        models = client.get(server.url + "/v1/models").json()
        assert models["object"] == "list"
        assert models["data"][0] == {**models["data"][0], "id": "fault-model", "object": "model"}
        tags = client.get(server.url + "/api/tags").json()
        assert tags["models"][0]["name"] == "fault-model:latest"
        assert tags["models"][0]["details"]["format"] == "gguf"
        r = client.get(server.url + "/v1/nothing")
        assert r.status_code == 404 and "error" in r.json()
        assert client.get(server.url + CHAT).status_code == 405
    assert [(m, p) for m, p, _, _ in server.requests] == [
        ("GET", "/v1/models"),
        ("GET", "/api/tags"),
        ("GET", "/v1/nothing"),
        ("GET", CHAT),
    ]


def test_garbage_never_prints_or_kills_the_server(server: FaultServer, capfd: pytest.CaptureFixture[str]) -> None:
    port = server.port
    for junk in (
        b"\x00\x01\x02 garbage\r\n\r\n",
        b"POST /v1/chat/completions HTTP/1.1\r\nContent-Length: 5\r\n\r\n{bad}",
        b"POST /api/chat HTTP/1.1\r\nContent-Length: nope\r\n\r\n",
        b"GET / HTTP/1.1\r\n",  # then hang up mid-headers
    ):
        with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
            sock.sendall(junk)
            sock.shutdown(socket.SHUT_WR)
            while sock.recv(65536):
                pass
    with httpx.Client(timeout=10) as client:
        assert client.get(server.url + "/v1/models").status_code == 200
    assert capfd.readouterr().err == ""


def test_stop_is_quick_with_a_stalled_stream_and_idle_connections() -> None:
    server = FaultServer(Scenario(fault="stall", fail_after=1)).start()
    idle = httpx.Client(timeout=10)
    try:
        assert idle.get(server.url + "/v1/models").status_code == 200  # stays open (keep-alive)
        with httpx.Client(timeout=10) as client, client.stream("POST", server.url + CHAT, json=STREAM_BODY) as r:
            assert server.stalled.wait(5)
            server.stop()  # the stall never ends on its own: stop() must end it
            assert server.active_streams == 0
            assert not [t for t in threading.enumerate() if t.name == "fault-server"]
            with pytest.raises(httpx.RemoteProtocolError):
                r.read()
        assert not server.client_gone.is_set()  # the server left, not the client
        assert not server.errors
    finally:
        idle.close()
        server.stop()


# -- the real llama-cpp-python server --------------------------------------------


@pytest.mark.model
def test_llama_server_lists_and_streams(llama_server) -> None:
    body = {
        "messages": [{"role": "user", "content": "Say hi."}],
        "stream": True,
        "max_tokens": 8,
        "temperature": 0,
    }
    with httpx.Client(timeout=60) as client:
        models = client.get(llama_server.url + "/v1/models").json()
        assert [m["id"] for m in models["data"]] == [llama_server.model_id]
        with client.stream("POST", llama_server.url + CHAT, json=body) as r:
            assert r.status_code == 200
            assert r.headers["content-type"].startswith("text/event-stream")
            events = parse_sse(r.read().decode("utf-8"))
    assert events[-1] == "[DONE]"
    chunks = [json.loads(e) for e in events[:-1]]
    assert chunks[0]["choices"][0]["delta"].get("role") == "assistant"
    assert openai_text(events).strip()
    assert chunks[-1]["choices"][0]["finish_reason"] in ("stop", "length")
    assert '"POST /v1/chat/completions HTTP/1.1" 200' in llama_server.log_text()
