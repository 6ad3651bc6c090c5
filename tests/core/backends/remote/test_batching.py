"""The batch readers (app.core.backends.remote.batching) against the
per-line path they replace (``iter_lines`` + ``SSEParser``, and the
backends' former one-event-at-a-time loops, kept here as oracles): the same
events, deltas, limits and messages for random streams cut at random places."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.core.backends.base import BackendError, TokenRun, token_count
from app.core.backends.remote import batching
from app.core.backends.remote.batching import NDJSONReader, SSEReader, decode_json_batch
from app.core.backends.remote.ollama import OllamaBackend
from app.core.backends.remote.openai import OpenAIBackend
from app.core.backends.remote.pieces import Delta, ReplyState, reply_pieces
from app.core.backends.remote.reading import ReadLimitError, SSEParser, iter_lines
from app.core.backends.remote.servers import ServerConfig
from app.core.base.limits import MAX_PIECE_CHARS
from app.core.pipeline.stream import Batcher

OPENAI = ServerConfig("Test server", "openai", "http://127.0.0.1:9")
OLLAMA = ServerConfig("Test ollama", "ollama", "http://127.0.0.1:9")


def _delta(content: str = "", **more: Any) -> str:
    return json.dumps({"choices": [{"index": 0, "delta": {"content": content, **more}, "finish_reason": None}]},
                      ensure_ascii=False)


#: SSE lines, usual and odd (one-line data events, fields, comments, malformed JSON, errors, limits).
SSE_LINES = st.one_of(
    st.builds(lambda t: "data: " + _delta(t), st.text(max_size=12)),
    st.builds(lambda t: "data:" + _delta(t), st.text(max_size=12)),
    st.sampled_from([
        "data: " + _delta("x"), "data: " + _delta("y", reasoning_content="r"), "data: [DONE]", "data:  [DONE] ",
        ": ping", ":", "event: error", "event: message", "event: x", "id: 7", "retry: 10", "data", "data:",
        "data: ", "data:" + _delta("nospace"), "data: {\"choices\": [], \"usage\": {\"prompt_tokens\": 5}}",
        "data: {\"choices\": [{\"delta\": {}, \"finish_reason\": \"stop\"}]}", "data: {\"error\": {\"message\": \"no\"}}",
        "data: {\"choices\": [", "data: 12", "data: [1, 2]", "data: \"\\ud800\"", "data: {\"a\": 1} ", "data: \ufeff{}",
        "data: " + "z" * 70, "\ufeffdata: " + _delta("bom"), "data: \x00", "data: caf\u00e9 \u2028",
        "data: {\"choices\": {\"a\": 1}}", "data: {\"choices\": [], \"usage\": {\"prompt_tokens\": \"x\"}}",
    ]),
    st.just(""),  # a blank line: dispatch
)
NEWLINES = st.sampled_from(["\n", "\r\n", "\r"])


@st.composite
def sse_streams(draw: st.DrawFn) -> bytes:
    lines = draw(st.lists(SSE_LINES, max_size=40))
    ends = draw(st.lists(NEWLINES, min_size=len(lines), max_size=len(lines)))
    if draw(st.booleans()):  # mostly plain: one data line, then a blank line
        ends = ["\n"] * len(lines)
    text = "".join(line + end for line, end in zip(lines, ends, strict=True))
    if draw(st.booleans()):
        text = text.rstrip("\r\n") + draw(st.sampled_from(["", "data: tail", ": tail", "\r"]))
    data = text.encode("utf-8", "surrogatepass")
    if draw(st.booleans()):
        data += b"data: \xe2\x82\n\n"  # invalid UTF-8
    return data


def cut(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts}) + [len(data)]
    pieces, last = [], 0
    for p in points:
        if p > last:
            pieces.append(data[last:p])
            last = p
    return pieces


def oracle_sse(chunks: list[bytes], max_line: int, max_event: int) -> tuple[list[Any], str | None]:
    """The per-line path: comments as None, events as (type, data)."""
    out: list[Any] = []
    parser = SSEParser(max_event)
    try:
        for line in iter_lines(chunks, max_line, sse=True):
            if line[:1] == b":":
                out.append(None)
                continue
            event = parser.feed(line)
            if event is not None:
                out.append((event.event, event.data))
    except ReadLimitError as exc:
        return out, exc.kind
    return out, None


def batch_sse(chunks: list[bytes], max_line: int, max_event: int) -> tuple[list[Any], str | None]:
    out: list[Any] = []
    reader = SSEReader(max_line, max_event)
    try:
        for chunk in [*chunks, None]:
            for item in reader.close() if chunk is None else reader.feed(chunk):
                if item is None:
                    out.append(None)
                else:
                    out += [(item.event, data) for data in item.data]
    except ReadLimitError as exc:
        return out, exc.kind
    return out, None


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=sse_streams(), cuts=st.lists(st.integers(0, 5000), max_size=12),
       limits=st.sampled_from([(4 << 20, 4 << 20), (60, 60), (200, 40), (30, 500)]))
def test_sse_reader_matches_the_per_line_parser(data: bytes, cuts: list[int], limits: tuple[int, int]) -> None:
    chunks = cut(data, cuts)
    assert batch_sse(chunks, *limits) == oracle_sse(chunks, *limits)


@settings(max_examples=200, deadline=None)
@given(data=sse_streams(), cuts=st.lists(st.integers(0, 5000), max_size=12))
def test_sse_reader_byte_by_byte_and_whole(data: bytes, cuts: list[int]) -> None:
    for chunks in ([data[i:i + 1] for i in range(len(data))], [data] if data else []):
        assert batch_sse(chunks, 4 << 20, 4 << 20) == oracle_sse(chunks, 4 << 20, 4 << 20)


def test_plain_events_take_the_fast_way(monkeypatch: pytest.MonkeyPatch) -> None:
    """Whole one-line ``data:`` events ending in "\\n" or "\\r\\n" never reach
    the per-line path (a stream of bare "\\r" line ends does, correctly)."""
    lines: list[bytes] = []
    on_line = SSEReader._on_line

    def spy(self: SSEReader, line: bytes, out: list[Any]) -> None:
        lines.append(line)
        on_line(self, line, out)

    monkeypatch.setattr(SSEReader, "_on_line", spy)
    reader = SSEReader(4 << 20, 4 << 20)
    reader.feed(b"data: {}\n\n")  # the first event: per line (a byte-order mark may start it)
    lines.clear()
    for ends, field in ((b"\n\n", b"data: "), (b"\r\n\r\n", b"data: "), (b"\r\n\n", b"data:"), (b"\r\r\n", b"data:")):
        block = b"".join(field + _delta(str(k)).encode() + ends for k in range(100))
        items = reader.feed(block)
        assert lines == [] and [i.data for i in items] == [[_delta(str(k)) for k in range(100)]]


# ------------------------------------------------------------------ NDJSON

NDJSON_LINES = st.one_of(
    st.builds(lambda t: json.dumps({"message": {"content": t}, "done": False}, ensure_ascii=False),
              st.text(max_size=10)),
    st.sampled_from(["", " ", "{\"error\": \"boom\"}", "[1]", "{\"done\": true, \"done_reason\": \"length\"}",
                     "{\"message\": {\"thinking\": \"hm\"}}", "{\"bad", "\"\\ud800\"", "{} ", "z" * 70,
                     "{\"prompt_eval_count\": 3, \"message\": {\"content\": \"p\"}}"]),
)


@st.composite
def ndjson_streams(draw: st.DrawFn) -> bytes:
    lines = draw(st.lists(NDJSON_LINES, max_size=40))
    ends = draw(st.lists(st.sampled_from(["\n", "\r\n"]), min_size=len(lines), max_size=len(lines)))
    text = "".join(line + end for line, end in zip(lines, ends, strict=True))
    if draw(st.booleans()):
        text = text.rstrip("\r\n") + draw(st.sampled_from(["", "{\"done\": true}", "\r"]))
    return text.encode("utf-8", "surrogatepass")


@settings(max_examples=300, deadline=None)
@given(data=ndjson_streams(), cuts=st.lists(st.integers(0, 3000), max_size=12), max_line=st.sampled_from([4 << 20, 60, 9]))
def test_ndjson_reader_matches_iter_lines(data: bytes, cuts: list[int], max_line: int) -> None:
    chunks = cut(data, cuts)

    def run(lines: Iterator[bytes]) -> tuple[list[bytes], bool]:
        out: list[bytes] = []
        try:
            out.extend(lines)
        except ReadLimitError:
            return out, True
        return out, False

    def batch() -> Iterator[bytes]:
        reader = NDJSONReader(max_line)
        for chunk in chunks:
            yield from reader.feed(chunk)
        yield from reader.close()

    assert run(batch()) == run(iter_lines(chunks, max_line, sse=False))


# ------------------------------------------------------------------ JSON

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=8,
)


@settings(max_examples=300, deadline=None)
@given(values=st.lists(JSON_VALUES, max_size=20), noise=st.lists(st.sampled_from(
    ["", " ", "[", "]", "{", "\"", ",", "1,2", "\n", "NaN", "[DONE]", "\ufeff"]), max_size=20))
def test_decode_json_batch_is_json_loads_or_nothing(values: list[Any], noise: list[str]) -> None:
    texts = [json.dumps(v, ensure_ascii=False) for v in values]
    assert decode_json_batch(texts) == [json.loads(t) for t in texts]
    mixed = [t + n if k % 2 else n + t for k, (t, n) in enumerate(zip(texts, noise, strict=False))] + texts[len(noise):]
    got = decode_json_batch(mixed)
    if got is not None:
        assert got == [json.loads(t) for t in mixed]


def test_decode_json_batch_refuses_payloads_that_only_parse_together() -> None:
    assert decode_json_batch(["[1", "2]", "3,4"]) is None  # "[[1,2],3,4]" would have 3 elements
    assert decode_json_batch(['"a', 'b"']) is None
    assert decode_json_batch([" 1", "2"]) is None  # json.loads would take it; the careful path does
    assert decode_json_batch(["[" * 100_000]) is None  # RecursionError or a parse error, no crash


def test_decode_json_batch_in_slices() -> None:
    texts = [json.dumps({"k": k}) for k in range(batching.JSON_SLICE * 3 + 5)]
    assert decode_json_batch(texts) == [{"k": k} for k in range(len(texts))]


# ------------------------------------------------------------------ the backends, old loop vs new


def old_openai_deltas(backend: OpenAIBackend, chunks: list[bytes]) -> Iterator[Delta]:
    """OpenAIBackend._deltas before batching (the per-line path)."""
    parser = SSEParser(4 << 20)
    for line in iter_lines(chunks, 4 << 20, sse=True):
        if line[:1] == b":":
            continue
        event = parser.feed(line)
        if event is None:
            continue
        data = event.data
        if not data.strip():
            continue
        if data.strip() == "[DONE]":
            yield Delta(done=True)
            return
        obj = backend._json(data, "event")
        delta = backend._chunk(obj, event.event)
        if delta is not None:
            yield delta


def old_ollama_deltas(backend: OllamaBackend, chunks: list[bytes]) -> Iterator[Delta]:
    for line in iter_lines(chunks, 4 << 20, sse=False):
        if not line.strip():
            continue
        yield backend._line(backend._json(line.decode("utf-8", errors="replace"), "line"))


def collect(deltas: Iterator[Delta]) -> tuple[list[Delta], str]:
    out: list[Delta] = []
    try:
        out.extend(deltas)
    except (BackendError, TypeError, ValueError, ReadLimitError) as exc:
        return out, f"{type(exc).__name__}: {exc}"
    return out, ""


def response(chunks: list[bytes], content_type: str) -> httpx.Response:
    return httpx.Response(200, headers={"content-type": content_type}, content=iter(chunks),
                          request=httpx.Request("POST", "http://127.0.0.1:9/x"))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=sse_streams(), cuts=st.lists(st.integers(0, 5000), max_size=12))
def test_openai_deltas_match_the_per_event_loop(data: bytes, cuts: list[int]) -> None:
    chunks = cut(data, cuts)
    backend = OpenAIBackend(OPENAI, "m")
    try:
        new = collect(backend._deltas(response(chunks, "text/event-stream")))
        assert new == collect(old_openai_deltas(backend, chunks))
    finally:
        backend.close()


@settings(max_examples=300, deadline=None)
@given(data=ndjson_streams(), cuts=st.lists(st.integers(0, 3000), max_size=12))
def test_ollama_deltas_match_the_per_line_loop(data: bytes, cuts: list[int]) -> None:
    chunks = cut(data, cuts)
    backend = OllamaBackend(OLLAMA, "m")
    try:
        new = collect(backend._deltas(response(chunks, "application/x-ndjson")))
        assert new == collect(old_ollama_deltas(backend, chunks))
    finally:
        backend.close()


def test_an_error_event_comes_after_the_deltas_before_it() -> None:
    data = b"data: {}\n\n" + b"".join(b"data: " + _delta(str(k)).encode() + b"\n\n" for k in range(50))
    data += b'data: {"error": {"message": "overloaded"}}\n\n'
    backend = OpenAIBackend(OPENAI, "m")
    try:
        batches = backend._delta_batches(response([data], "text/event-stream"))
        got = [d.content for d in next(batches)]
        assert got[-50:] == [str(k) for k in range(50)]
        with pytest.raises(BackendError, match="overloaded"):
            next(batches)
    finally:
        backend.close()


# ------------------------------------------------------------------ hand-over to the worker


def test_a_token_run_counts_its_tokens() -> None:
    run = TokenRun("abc", 3)
    assert run == "abc" and token_count(run) == 3 and token_count("abc") == 1
    assert token_count(run[:2]) == 1  # a slice is a plain str again
    batcher = Batcher(1, window_s=60, max_tokens=4)
    assert batcher.add(run, 1.0, 3) is None
    chunk = batcher.add("d", 2.0)
    assert chunk is not None and chunk.text == "abcd" and chunk.produced_at == (1.0, 1.0, 1.0, 2.0)


def test_reply_pieces_join_small_deltas_and_keep_the_thinking_tags() -> None:
    reply = ReplyState()
    batch = [Delta(reasoning="a"), Delta(reasoning="b"), Delta(content="c", prompt_tokens=4), Delta(content="d"),
             Delta(content="x" * (MAX_PIECE_CHARS + 1)), Delta(content="e"), Delta(finish_reason="stop", done=True),
             Delta(content="after the end")]
    pieces = list(reply_pieces(batch, reply))
    assert pieces == ["<think>", "ab", "</think>", "cd", "x" * (MAX_PIECE_CHARS + 1), "e"]
    assert [token_count(p) for p in pieces] == [1, 2, 1, 2, 1, 1]
    assert reply == ReplyState(thinking=False, finish="stop", ended=True, prompt_tokens=4)
    runs = list(reply_pieces([Delta(content="y" * 1000)] * 9, ReplyState()))
    assert [len(r) for r in runs] == [4000, 4000, 1000] and all(len(r) <= MAX_PIECE_CHARS for r in runs)
