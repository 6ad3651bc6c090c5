"""The carry stage: bounded buffer, batching, incremental decoding."""

from __future__ import annotations

import threading
import time

import pytest

from app.core.pipeline.stream import Batcher, Chunk, ChunkBuffer
from app.core.text.decoding import TokenDecoder


def chunk(rid: int, seq: int, text: str) -> Chunk:
    return Chunk(rid, seq, text, (0.0,) * max(1, len(text)))


def test_buffer_is_fifo_and_bounded_by_characters() -> None:
    buf = ChunkBuffer(max_chars=10)
    never = threading.Event()
    assert buf.put(chunk(1, 0, "abcd"), never)
    assert buf.put(chunk(1, 1, "efgh"), never)
    assert buf.depth_chars == 8
    got = buf.drain()
    assert [c.text for c in got] == ["abcd", "efgh"]
    assert buf.depth_chars == 0 and len(buf) == 0


def test_full_buffer_blocks_the_producer_until_the_consumer_drains() -> None:
    buf = ChunkBuffer(max_chars=8, wait_slice_s=0.01)
    never = threading.Event()
    buf.put(chunk(1, 0, "12345678"), never)
    done = threading.Event()

    def produce() -> None:
        buf.put(chunk(1, 1, "9"), never)
        done.set()

    t = threading.Thread(target=produce)
    t.start()
    assert not done.wait(0.1), "put must block while the buffer is full"
    assert [c.seq for c in buf.drain()] == [0]
    assert done.wait(2.0), "put must proceed once there is room"
    t.join()
    assert [c.seq for c in buf.drain()] == [1]
    assert buf.blocked_s > 0.05


def test_blocked_producer_sees_cancel_within_a_wait_slice() -> None:
    buf = ChunkBuffer(max_chars=4, wait_slice_s=0.01)
    cancel = threading.Event()
    buf.put(chunk(1, 0, "full"), cancel)
    result: list[bool] = []
    t = threading.Thread(target=lambda: result.append(buf.put(chunk(1, 1, "more"), cancel)))
    t.start()
    t.join(0.05)
    assert t.is_alive(), "put must block while the buffer is full"
    cancel.set()
    t.join(1.0)
    assert not t.is_alive()
    assert result == [False]
    assert len(buf) == 1


def test_oversized_chunk_is_admitted_when_empty() -> None:
    buf = ChunkBuffer(max_chars=4)
    assert buf.put(chunk(1, 0, "much longer than four"), threading.Event())
    assert len(buf.drain()) == 1


def test_nothing_is_dropped_or_reordered_under_contention() -> None:
    buf = ChunkBuffer(max_chars=64, wait_slice_s=0.001)
    never = threading.Event()
    n = 5000

    def produce() -> None:
        for i in range(n):
            buf.put(Chunk(7, i, f"<{i}>", (0.0,)), never)

    t = threading.Thread(target=produce)
    t.start()
    seen: list[int] = []
    deadline = time.monotonic() + 20
    while len(seen) < n and time.monotonic() < deadline:
        seen.extend(c.seq for c in buf.drain(max_chars=50))
    t.join()
    assert seen == list(range(n))
    assert buf.max_depth_chars <= 64 + 6


def test_discard_drops_only_the_stale_request() -> None:
    buf = ChunkBuffer()
    never = threading.Event()
    buf.put(chunk(1, 0, "old"), never)
    buf.put(chunk(2, 0, "new"), never)
    assert buf.discard(1) == 1
    assert [c.text for c in buf.drain()] == ["new"]


def test_batcher_closes_on_count() -> None:
    b = Batcher(1, window_s=10.0, max_tokens=3)
    t = time.monotonic()
    assert b.add("a", t) is None
    assert b.add("b", t) is None
    c = b.add("c", t)
    assert c is not None and c.text == "abc" and c.seq == 0 and c.n_tokens == 3
    assert b.add("d", t) is None
    c2 = b.close()
    assert c2 is not None and c2.text == "d" and c2.seq == 1
    assert b.close() is None


def test_batcher_closes_on_time_since_last_batch() -> None:
    b = Batcher(1, window_s=0.010, max_tokens=1000)
    t0 = time.monotonic()
    # A slow model: each token arrives after the window, so it goes out alone.
    c = b.add("slow", t0 + 0.5)
    assert c is not None and c.text == "slow"
    assert b.add("x", t0 + 0.501) is None
    c = b.add("y", t0 + 0.52)
    assert c is not None and c.text == "xy"


def test_decoder_holds_back_split_characters() -> None:
    dec = TokenDecoder()
    out = [dec.feed(bytes([b])) for b in "你好😀".encode()]
    assert all("\ufffd" not in piece for piece in out)
    assert "".join(out) + dec.flush() == "你好😀"
    assert out[0] == "" and out[2] == "你"


def test_decoder_replaces_invalid_bytes_instead_of_raising() -> None:
    dec = TokenDecoder()
    assert dec.feed(b"ok\xff") == "ok\ufffd"
    assert dec.feed(b"\xe4\xbd") == ""
    assert dec.flush() == "\ufffd"


@pytest.mark.parametrize("text", ["plain ascii", "naïve café", "emoji 👩‍💻 zwj", "中文和日本語"])
def test_decoder_round_trips_any_split(text: str) -> None:
    data = text.encode()
    for step in (1, 2, 3, 5):
        dec = TokenDecoder()
        out = "".join(dec.feed(data[i : i + step]) for i in range(0, len(data), step)) + dec.flush()
        assert out == text
