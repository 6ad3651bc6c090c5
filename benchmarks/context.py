"""Issue #10's context goals, on the real default model (core level, no Qt).

    python -m benchmarks.context [--quick] [--out DIR]

1. Prompt-building work before inference, 10 -> 1,000 turns of history: the
   send path now (``PromptWindow.fit``: cached per-message counts, one window
   rendered) vs the old path (render and tokenize the whole history, then
   binary-search re-renders: ``_old_fit`` below, a copy of what it replaced).
2. Time to first token turn by turn in a conversation that grows past 3,000
   tokens of history (20 turns): turn 20 vs turn 1, with the KV cache reused
   across turns (Rill) and with it reset before every turn (no reuse).
Medians over reps; every rep alternates the paths compared.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path
from typing import Any

from app.core.backends.base import CancelEvent, ChatMessage, GenerationRequest, SamplingParams
from app.core.conversation.model import DEFAULT_SYSTEM_PROMPT
from app.core.conversation.sample import history_messages


def sample_messages(n: int) -> list[str]:
    return [m.content for m in history_messages(n)]
from app.core.backends.llama.backend import LlamaBackend
from app.core.models.paths import package_model_path


def _history(turns: int) -> list[ChatMessage]:
    texts = sample_messages(turns * 2)
    out = [ChatMessage("system", DEFAULT_SYSTEM_PROMPT)]
    for i in range(turns * 2):
        out.append(ChatMessage("user" if i % 2 == 0 else "assistant", texts[i][:600], id=f"m{i}"))
    return out


def _old_fit(backend: LlamaBackend, messages: list[ChatMessage], max_tokens: int) -> int:
    """The replaced algorithm's work: render the whole prompt, then binary
    search over turn starts, rendering each candidate."""
    n_ctx = backend.n_ctx
    head = messages[:1]
    rest = messages[1:]
    prompt = backend._render(head + rest)
    if len(prompt) + max_tokens <= n_ctx:
        return len(prompt)
    starts = [i for i, m in enumerate(rest) if i > 0 and m.role == "user"]
    lo, hi, best = 0, len(starts) - 1, None
    while lo <= hi:
        mid = (lo + hi) // 2
        cand = backend._render(head + rest[starts[mid]:])
        if len(cand) + max_tokens <= n_ctx:
            best, hi = cand, mid - 1
        else:
            lo = mid + 1
    return len(best or [])


def bench_prompt_building(backend: LlamaBackend, levels: list[int], reps: int) -> list[dict[str, Any]]:
    rows = []
    for turns in levels:
        history = _history(turns)
        backend._window.fit(history + [ChatMessage("user", "warm", id="w")], 256, "rolling")  # counts cached
        new, old = [], []
        for r in range(reps):
            msgs = history + [ChatMessage("assistant", f"reply {r}", id=f"r{r}"), ChatMessage("user", f"next question {r}", id=f"q{r}")]
            t = time.perf_counter()
            window = backend._window.fit(msgs, 256, "rolling")
            new.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            _old_fit(backend, msgs, 256)
            old.append((time.perf_counter() - t) * 1000)
        rows.append({"turns": turns, "new_ms": round(statistics.median(new), 2), "old_ms": round(statistics.median(old), 2),
                     "window_tokens": len(window.tokens), "dropped": len(window.dropped_ids)})
        print(json.dumps(rows[-1]), flush=True)
    return rows


def _ttft(backend: LlamaBackend, messages: list[ChatMessage], seed: int) -> tuple[float, str]:
    req = GenerationRequest(seed, tuple(messages), SamplingParams(max_tokens=50, seed=seed, ignore_eos=True))
    t = time.perf_counter()
    first = None
    pieces = []
    gen = backend.generate(req, CancelEvent())
    try:
        while True:
            pieces.append(next(gen))
            if first is None:
                first = time.perf_counter() - t
    except StopIteration:
        pass
    return (first or 0.0) * 1000, "".join(pieces)


def bench_turns(backend: LlamaBackend, turns: int, reps: int) -> dict[str, Any]:
    # ~110-token questions and 50-token replies: past 3,000 tokens of history by turn 20.
    texts = sample_messages(turns * 4)
    questions = [("Please comment on this: " + " ".join(texts[2 * i + 1].split()))[:450] for i in range(turns)]
    per_mode: dict[str, list[list[float]]] = {"reuse": [], "reset": []}
    history_tokens = []
    for r in range(reps):
        for mode in ("reuse", "reset"):
            backend._llm.reset()
            messages = [ChatMessage("system", DEFAULT_SYSTEM_PROMPT)]
            ttfts = []
            for i in range(turns):
                messages.append(ChatMessage("user", questions[i], id=f"u{i}"))
                if mode == "reset":
                    backend._llm.reset()
                ttft, reply = _ttft(backend, messages, 100 * r + i)
                ttfts.append(ttft)
                messages.append(ChatMessage("assistant", reply, id=f"a{i}"))
                if r == 0 and mode == "reuse":
                    history_tokens.append(backend.last_prompt_tokens)
            per_mode[mode].append(ttfts)
            print(json.dumps({"rep": r, "mode": mode, "ttft_ms": [round(x, 1) for x in ttfts]}), flush=True)
    out: dict[str, Any] = {"history_tokens_by_turn": history_tokens}
    for mode, runs in per_mode.items():
        med = [statistics.median(run[i] for run in runs) for i in range(turns)]
        out[mode] = {"ttft_ms_by_turn": [round(x, 1) for x in med],
                     "turn1_ms": round(med[0], 1), "last_turn_ms": round(med[-1], 1),
                     "ratio_last_to_first": round(med[-1] / med[0], 2) if med[0] else None}
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--out", default="bench-out")
    args = ap.parse_args(argv)
    backend = LlamaBackend(package_model_path())
    backend.load()
    result = {
        "prompt_building": bench_prompt_building(backend, [10, 100, 1000], 3 if args.quick else 7),
        "turns": bench_turns(backend, 20, 1 if args.quick else 3),
        "n_ctx": backend.n_ctx,
    }
    backend.close()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "context.json").write_text(json.dumps(result, indent=1))
    print(json.dumps({k: v for k, v in result.items() if k != "turns"} | {"turns": {m: result["turns"][m] for m in ("reuse", "reset")}}))


if __name__ == "__main__":
    main()
