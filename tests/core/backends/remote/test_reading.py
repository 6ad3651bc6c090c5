"""app.core.backends.remote.reading: bounded lines, events and bodies, the
same results as the unbounded readers under any split, and Stop after
every read."""

from __future__ import annotations

import gzip
import json
import re
import threading
from collections.abc import Iterator

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.core.backends.remote import reading
from app.core.backends.remote.reading import ReadLimitError, SSEParser, iter_lines, loads_gently, read_body


def split(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts} | {0, len(data)})
    return [data[a:b] for a, b in zip(points, points[1:], strict=False) if b > a]


@settings(max_examples=200, deadline=None)
@given(lines=st.lists(st.binary(max_size=20).map(lambda b: b.replace(b"\r", b"").replace(b"\n", b"")), max_size=12),
       ends=st.lists(st.sampled_from([b"\n", b"\r\n", b"\r"]), min_size=12, max_size=12),
       cuts=st.lists(st.integers(0, 400), max_size=20))
def test_sse_lines_under_any_split(lines: list[bytes], ends: list[bytes], cuts: list[int]) -> None:
    data = b"".join(line + end for line, end in zip(lines, ends, strict=False))
    expected = re.split(rb"\r\n|\r|\n", data)[:-1] if data else []
    assert list(iter_lines(split(data, cuts), 1000, sse=True)) == expected


@settings(max_examples=200, deadline=None)
@given(text=st.text(max_size=60), cuts=st.lists(st.integers(0, 400), max_size=20))
def test_ndjson_lines_split_on_lf_only(text: str, cuts: list[int]) -> None:
    data = text.encode("utf-8")
    expected = [line[:-1] if line.endswith(b"\r") else line for line in data.split(b"\n")]
    if expected[-1] == b"":
        expected.pop()  # nothing after the last line end
    assert list(iter_lines(split(data, cuts), 1000, sse=False)) == expected


@pytest.mark.parametrize("sse", [True, False])
def test_a_line_over_the_limit_raises_while_it_grows(sse: bool) -> None:
    pulled = 0

    def endless() -> Iterator[bytes]:
        nonlocal pulled
        while pulled < 1000:
            pulled += 1
            yield b"x" * 100

    with pytest.raises(ReadLimitError) as caught:
        list(iter_lines(endless(), 1000, sse=sse))
    assert caught.value.kind == "line" and caught.value.limit == 1000
    assert pulled <= 11  # stopped as soon as the line passed 1000 bytes, not at its end


def test_lines_at_the_limit_pass() -> None:
    assert list(iter_lines([b"x" * 1000 + b"\n" + b"y" * 1000], 1000, sse=True)) == [b"x" * 1000, b"y" * 1000]


def test_the_sse_parser_joins_data_lines_and_caps_an_event() -> None:
    parser = SSEParser(max_event=100)
    got = [parser.feed(line) for line in [b"\xef\xbb\xbfdata: a", b"data:b", b": ping", b"event: x", b"", b""]]
    events = [e for e in got if e is not None]
    assert [(e.event, e.data) for e in events] == [("x", "a\nb")]
    with pytest.raises(ReadLimitError) as caught:
        for _ in range(20):
            parser.feed(b"data: " + b"z" * 10)
    assert caught.value.kind == "event"


@settings(max_examples=300, deadline=None)
@given(value=st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=4), children, max_size=4),
    max_leaves=20), indent=st.sampled_from([None, 1, "\t"]))
def test_loads_gently_equals_json_loads(value: object, indent: object) -> None:
    text = json.dumps(value, indent=indent)  # type: ignore[arg-type]  # None, an int or a string
    assert loads_gently(text) == json.loads(text)
    assert loads_gently(f" \n{text}\r\n ") == json.loads(text)


@pytest.mark.parametrize("text", ["", "[1,]", "[1 2]", '{"a" 1}', '{"a": 1,}', "[1] x", "{1: 2}", "[", '{"a": [1'])
def test_loads_gently_refuses_what_json_loads_refuses(text: str) -> None:
    with pytest.raises(ValueError):
        json.loads(text)
    with pytest.raises(ValueError):
        loads_gently(text)


def stream_response(pieces: Iterator[bytes], headers: dict[str, str] | None = None) -> httpx.Response:
    return httpx.Response(200, headers=headers or {}, content=pieces, request=httpx.Request("GET", "http://127.0.0.1:9/"))


def test_read_body_caps_unpacked_bytes_of_a_gzip_bomb() -> None:
    bomb = gzip.compress(bytes(50 * 1024 * 1024))  # 50 MB of zeros in ~50 KB
    with pytest.raises(ReadLimitError) as caught:
        read_body(stream_response(iter([bomb]), {"content-encoding": "gzip"}), 1024 * 1024)
    assert caught.value.kind == "inflated"
    truncated = read_body(stream_response(iter([bomb]), {"content-encoding": "gzip"}), 1000, truncate=True)
    assert truncated == bytes(1000)


def test_read_body_stops_after_the_read_where_stop_was_pressed() -> None:
    """Per read, not per line or document: the cancel set while piece 3 is
    produced means no piece after it is taken."""
    cancel = threading.Event()
    pulled = 0

    def pieces() -> Iterator[bytes]:
        nonlocal pulled
        while pulled < 100:
            pulled += 1
            if pulled == 3:
                cancel.set()
            yield b"x" * 1000

    body = read_body(stream_response(pieces()), 10**9, cancel)
    assert pulled == 3 and len(body) == 2000


def test_content_encoding_identity_is_none() -> None:
    assert reading.content_encoding(stream_response(iter([]), {"content-encoding": "identity"})) == ""
    assert reading.content_encoding(stream_response(iter([]), {"content-encoding": "GZIP"})) == "gzip"
