"""The remote producer alone (no Qt, no socket): events/s and CPU for a
stream of many tiny deltas through the real parsing path (issue #18, item 4).

    python -m benchmarks.remote_parse [--events 80000] [--reps 3] [--kind openai|ollama]

The stream is the hostile benchmark's "1 MB of short lines" (``data:`` events
of ``line NNNNNN\\n``, or the same as Ollama NDJSON lines), cut into 64 KB
reads, served by an ``httpx.MockTransport``; the backend's ``generate`` runs
as the inference worker drives it: every piece (one token, or a
``TokenRun`` of several) goes through a ``Batcher`` into a ``ChunkBuffer``
(drained here after each put: nothing waits). Runs on any tree (``cd`` to it,
``PYTHONPATH=.``): a before tree yields one piece per token. Prints
one JSON line: per rep, events/s and CPU µs per event (``time.thread_time``).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Iterator
from typing import Any

import httpx

from app.core.backends.base import CancelEvent, ChatMessage, GenerationRequest, SamplingParams
from app.core.backends.remote.ollama import OllamaBackend
from app.core.backends.remote.openai import OpenAIBackend
from app.core.backends.remote.servers import ServerConfig
from app.core.pipeline.stream import Batcher, ChunkBuffer

READ = 65536


def sse_body(n: int) -> bytes:
    def event(k: int) -> bytes:
        obj = {"choices": [{"index": 0, "delta": {"content": f"line {k:06d}\n"}, "finish_reason": None}]}
        return b"data: " + json.dumps(obj).encode() + b"\n\n"
    return b"".join(event(k) for k in range(n)) + b"data: [DONE]\n\n"


def ndjson_body(n: int) -> bytes:
    def line(k: int) -> bytes:
        return json.dumps({"model": "m", "message": {"role": "assistant", "content": f"line {k:06d}\n"},
                           "done": False}).encode() + b"\n"
    return b"".join(line(k) for k in range(n)) + b'{"model": "m", "done": true, "done_reason": "stop"}\n'


class _Chunks(httpx.SyncByteStream):
    def __init__(self, body: bytes) -> None:
        self._body = body

    def __iter__(self) -> Iterator[bytes]:
        for start in range(0, len(self._body), READ):
            yield self._body[start:start + READ]


def backend_for(kind: str, body: bytes) -> Any:
    ctype = "text/event-stream" if kind == "openai" else "application/x-ndjson"

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"content-type": ctype}, stream=_Chunks(body))

    cls = OpenAIBackend if kind == "openai" else OllamaBackend
    backend = cls(ServerConfig(name="bench", kind=kind, base_url="http://127.0.0.1:9/v1"), "m")
    backend._http._client = httpx.Client(transport=httpx.MockTransport(handler))
    return backend


def run_once(kind: str, body: bytes) -> dict[str, Any]:
    """One stream, driven like InferenceWorker.run (minus its Qt signal)."""
    backend = backend_for(kind, body)
    request = GenerationRequest(1, (ChatMessage("user", "hi"),), SamplingParams(max_tokens=10**7))
    cancel = CancelEvent()
    buffer = ChunkBuffer()
    batcher = Batcher(1)
    pieces = tokens = chars = 0
    cpu0, t0 = time.thread_time(), time.perf_counter()
    gen = backend.generate(request, cancel)
    for piece in gen:
        now = time.monotonic()
        n = getattr(piece, "n_tokens", 1)  # app.core.backends.base.token_count (absent before batching)
        pieces += 1
        tokens += n
        chars += len(piece)
        chunk = batcher.add(piece, now, n) if n != 1 else batcher.add(piece, now)
        if chunk is not None:
            buffer.put(chunk, cancel)
            buffer.drain()
    chunk = batcher.close()
    if chunk is not None:
        buffer.put(chunk, cancel)
    cpu, wall = time.thread_time() - cpu0, time.perf_counter() - t0
    backend.close()
    return {"pieces": pieces, "tokens": tokens, "chars": chars, "tokens_put": buffer.tokens_put,
            "events_s": round(tokens / wall), "cpu_s": round(cpu, 4), "cpu_us_per_event": round(cpu / tokens * 1e6, 2)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, default=80_000)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--kind", choices=("openai", "ollama"), default="openai")
    args = ap.parse_args(argv)
    make = sse_body if args.kind == "openai" else ndjson_body
    body = make(args.events)
    run_once(args.kind, make(2000))  # warm-up
    runs = [run_once(args.kind, body) for _ in range(args.reps)]
    print(json.dumps({"kind": args.kind, "events": args.events, "bytes": len(body), "runs": runs,
                      "median_events_s": statistics.median(r["events_s"] for r in runs),
                      "median_cpu_s": statistics.median(r["cpu_s"] for r in runs),
                      "median_cpu_us_per_event": statistics.median(r["cpu_us_per_event"] for r in runs)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
