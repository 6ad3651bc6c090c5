"""Remote backends (issue #9): Rill against a bare client, on real and
synthetic OpenAI-compatible servers.

    python -m benchmarks.remote [--quick] [--out DIR] [--phases 1,2,3,4]

Writes DIR/remote.json and DIR/remote.md (the goals, measured values side by
side, met or not). Four parts:

1. **Throughput and TTFT through llama_cpp.server** (one server for the
   whole suite: ``tests.helpers.llama_server.LlamaServer``, SmolLM2-135M,
   n_threads 1 so the client side has the other core,
   ``interrupt_requests=False``). Rill = ``python -m app doctor --backend
   openai --base-url URL --api-model ID --max-tokens N --seed S --prompt P``
   (the real window, offscreen, in a fresh profile). Bare = httpx +
   httpx-sse in this process, sending the SAME JSON: the payload is built by
   ``OpenAIBackend._chat_request`` from the request the doctor makes (Rill's
   system prompt + the prompt, ``SamplingParams(max_tokens=N, seed=S)``) and
   checked byte for byte against what the doctor really sends (one doctor
   run against the synthetic server, which records the body). Both do
   ``GET /v1/models`` first (Rill's load), so both send the chat request on
   a warm keep-alive connection. tok/s = (n - 1) / (t_last - t_first content
   delta); TTFT = t_first content delta - t_request sent (the doctor: from
   the reply's start in the window, prompt building included; its
   ``send_ms``, the whole Enter handling on the GUI thread, is reported
   too). One warm-up each, then reps alternating bare, Rill.
2. **50,000 tok/s from a synthetic server** (``benchmarks.remote_server``,
   its own process): the doctor against it vs the doctor with the scripted
   backend at the same rate and the same tokens, alternating. Every token
   shown, the produce rate, the GUI heartbeat, the text intact (rendered text
   == source text, whitespace removed; no U+FFFD).
3. **Stop -> connection closed** (in this process, no Qt): a raw-socket
   server records when its blocking ``recv`` on the client's connection
   returns (the client shut the socket), in three phases: reading the prompt
   (no headers sent), silent mid-stream (headers + 5 events, then nothing),
   streaming (1,000 tok/s from one thread, ``recv`` in another). t0 =
   just before ``cancel.set()``.
4. **The next request is served without waiting** (llama_cpp.server queues
   requests): a long request (max_tokens 1500, ``logit_bias`` against EOS)
   stopped after 20 tokens, then at once a short one (max_tokens 8); the
   short one's TTFT after (i) Rill's Stop, (ii) a naive Stop that keeps the
   response open and drains it in the background, (iii) an idle server.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import socket
import statistics
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from httpx_sse import EventSource

from benchmarks.common import PYTHON, ROOT, ChildFailed, child_env, load_average, log, machine_info, ratio, run_json, spread

# SmolLM2-135M with Rill's system prompt writes well over 600 tokens for this
# prompt and seed through llama_cpp.server's sampling (checked: see the
# token counts in remote.json).
PROMPT = (
    "Write a very long, detailed story about a lighthouse keeper who finds a "
    "message in a bottle. Describe every day of the week in detail."
)
SEED = 2
LONG_PROMPT = PROMPT
SHORT_PROMPT = "Say hello to the river."
NO_EOS_BIAS = {"0": -100, "2": -100}  # SmolLM2: <|endoftext|>, <|im_end|>
SYNTH_RATE = 50_000
STOP_PHASES = ("reading_prompt", "silent_mid_stream", "streaming")

GOAL_TOK_RATIO = 0.98
GOAL_TTFT_DIFF_MS = 5.0
GOAL_LAG_P99_MS = 4.0
GOAL_STOP_MS = 20.0
#: (i) "≈" (iii): Rill's Stop may cost the server at most one more token
#: (it notices the disconnect at its next token) plus noise.
GOAL_QUEUE_SLACK_MS = 50.0


@dataclass(frozen=True)
class Plan:
    quick: bool
    lengths: tuple[int, ...]
    reps: int
    synth_tokens: int
    synth_reps: int
    stop_reps: int
    queue_reps: int
    trace_reps: int


def plan(quick: bool) -> Plan:
    if quick:
        return Plan(True, (200,), 3, 40_000, 1, 10, 2, 2)
    return Plan(False, (200, 600), 5, 100_000, 3, 30, 3, 5)


def _median(values: list[float]) -> float | None:
    vals = [v for v in values if v is not None]
    return round(statistics.median(vals), 3) if vals else None


def _p95(values: list[float]) -> float | None:
    from app.core.pipeline.metrics import percentile

    vals = [v for v in values if v is not None]
    return round(percentile(vals, 95), 3) if vals else None


# ------------------------------------------------------------------ requests


def _messages(prompt: str) -> tuple[Any, ...]:
    from app.core.backends.base import ChatMessage
    from app.core.conversation.model import DEFAULT_SYSTEM_PROMPT

    return (ChatMessage("system", DEFAULT_SYSTEM_PROMPT), ChatMessage("user", prompt))


def _server_cfg(url: str) -> Any:
    from app.core.backends.remote.servers import ServerConfig

    return ServerConfig("bench", "openai", url)


def _no_eos_backend_class() -> type:
    from app.core.backends.remote.openai import OpenAIBackend

    class NoEosBackend(OpenAIBackend):
        """Rill's OpenAI backend, with a logit_bias so SmolLM2 cannot stop early."""

        def _chat_request(self, request):
            url, payload = super()._chat_request(request)
            payload["logit_bias"] = dict(NO_EOS_BIAS)
            return url, payload

    return NoEosBackend


def rill_request(url: str, model: str, prompt: str, max_tokens: int, seed: int | None = SEED,
                 no_eos: bool = False) -> tuple[str, dict[str, Any]]:
    """The (url, payload) Rill sends for ``prompt`` from a new chat."""
    from app.core.backends.base import GenerationRequest, SamplingParams
    from app.core.backends.remote.openai import OpenAIBackend

    cls = _no_eos_backend_class() if no_eos else OpenAIBackend
    backend = cls(_server_cfg(url), model)
    try:
        return backend._chat_request(GenerationRequest(1, _messages(prompt),
                                                       SamplingParams(max_tokens=max_tokens, seed=seed)))
    finally:
        backend.close()


def _bare_client() -> httpx.Client:
    # The same headers as Rill's client (no gzip for a stream).
    return httpx.Client(headers={"Accept-Encoding": "identity"}, timeout=httpx.Timeout(300.0, connect=15.0),
                        trust_env=False)


def _content_events(response: httpx.Response) -> Iterator[tuple[str, str | None]]:
    """(content, finish_reason) per SSE event until [DONE]."""
    for event in EventSource(response).iter_sse():
        data = event.data.strip()
        if not data:
            continue
        if data == "[DONE]":
            return
        obj = json.loads(data)
        for choice in (obj.get("choices") or [])[:1]:
            delta = choice.get("delta") or {}
            content = delta.get("content")
            yield (content if isinstance(content, str) else ""), choice.get("finish_reason")


def bare_stream(chat_url: str, payload: dict[str, Any], models_url: str | None = None,
                client: httpx.Client | None = None,
                on_token: Callable[[int], None] | None = None) -> dict[str, Any]:
    """Send ``payload`` and read its SSE reply; times from time.monotonic()."""
    own = client is None
    client = client or _bare_client()
    try:
        if models_url:
            client.get(models_url).raise_for_status()  # as Rill's load: a warm connection
        n = 0
        chars = 0
        parts: list[str] = []
        first = last = None
        finish = None
        t_sent = time.monotonic()
        with client.stream("POST", chat_url, json=payload) as response:
            t_headers = time.monotonic()
            response.raise_for_status()
            for content, fr in _content_events(response):
                if content:
                    now = time.monotonic()
                    n += 1
                    chars += len(content)
                    parts.append(content)
                    if first is None:
                        first = now
                    last = now
                    if on_token is not None:
                        on_token(n)
                if fr:
                    finish = fr
        t_end = time.monotonic()
    finally:
        if own:
            client.close()
    span = (last - first) if (first is not None and last is not None) else 0.0
    return {
        "tokens": n, "chars": chars, "text": "".join(parts), "finish_reason": finish,
        "ttft_ms": round((first - t_sent) * 1000, 2) if first is not None else None,
        "tok_s": round((n - 1) / span, 2) if n > 1 and span > 0 else None,
        "headers_ms": round((t_headers - t_sent) * 1000, 2),
        "t_sent": t_sent, "t_first": first, "t_end": t_end,
    }


# ------------------------------------------------------------------ synthetic server


_PARAS = (
    "The river carried small boats past the old mill while the town prepared for the autumn market, "
    "and the children counted the geese on the bank 🦢 before the bells rang at noon.",
    "流式输出让界面保持响应，模型每生成一个词元，窗口就立刻显示出来，而不是等整段回答结束。"
    "上下文窗口是模型一次能看到的词元数量，对话太长时，较早的内容只能被删去或者概括。",
    "Emoji travel in four bytes each: 😀 🚀 👩‍💻 ✅ 🌊 🎉 🧭 and a flag 🇫🇷 that is two of them, "
    "next to accents such as café, naïve, Ångström and Zürich.",
    "量化用更少的位数存储权重，四位量化的文件只有原来的四分之一大小 🧮 在处理器上也能流畅运行。"
    "Mixed lines switch scripts mid sentence: 温度控制随机性 then back to plain words again.",
)


def synthetic_text(n_tokens: int) -> str:
    """Exactly ``n_tokens`` tokens (tokenize_text) of plain paragraphs mixing
    ASCII words, CJK and emoji; no Markdown syntax, so the rendered reply
    must equal it once whitespace is removed."""
    from app.core.backends.scripted import tokenize_text

    paras: list[str] = []
    tokens: list[bytes] = []
    while len(tokens) < n_tokens:
        for _ in range(max(1, (n_tokens - len(tokens)) // 30 + 1)):
            i = len(paras)
            paras.append(f"Part {i}: {_PARAS[i % len(_PARAS)]}\n\n")
        tokens = tokenize_text("".join(paras))
    return b"".join(tokens[:n_tokens]).decode("utf-8")


def _squash(text: str) -> str:
    return "".join(text.split())


class SyntheticServer:
    """``benchmarks.remote_server`` in its own process (no GIL shared)."""

    def __init__(self, text_file: Path, rate: float) -> None:
        self.proc = subprocess.Popen(
            [PYTHON, "-m", "benchmarks.remote_server", "--text-file", str(text_file), "--rate", str(rate)],
            cwd=ROOT, env=child_env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line.strip():
            self.close()
            raise RuntimeError("the synthetic server did not start")
        info = json.loads(line)
        self.port = int(info["port"])
        self.tokens = int(info["tokens"])
        self.url = f"http://127.0.0.1:{self.port}"

    def stats(self) -> dict[str, Any]:
        with httpx.Client(trust_env=False, timeout=10) as c:
            return c.get(self.url + "/stats").json()

    def close(self) -> None:
        proc = self.proc
        if proc.stdin is not None:
            try:
                proc.stdin.close()  # the server exits when its stdin closes
            except OSError:
                pass
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


# ------------------------------------------------------------------ 1. throughput / TTFT


def doctor_remote(url: str, model: str, n: int, seed: int, prompt: str,
                  extra: tuple[str, ...] = ()) -> dict[str, Any]:
    args = ["-m", "app", "doctor", "--backend", "openai", "--base-url", url, "--api-model", model,
            "--max-tokens", str(n), "--seed", str(seed), "--prompt", prompt, "--timeout-s", "300", *extra]
    return run_json(args, timeout_s=420).data


def check_payload(model: str, n: int) -> dict[str, Any]:
    """Run the doctor once against the synthetic server (which records the
    body it gets) and compare with the payload the bare client sends."""
    work = Path(tempfile.mkdtemp(prefix="rill-remote-payload-"))
    text = work / "tiny.txt"
    text.write_text("Just a few words.", encoding="utf-8")
    server = SyntheticServer(text, 1000)
    try:
        d = doctor_remote(server.url, model, n, SEED, PROMPT)
        got = server.stats().get("last_body", "")
    finally:
        server.close()
        shutil.rmtree(work, ignore_errors=True)
    url, payload = rill_request(server.url, model, PROMPT, n)
    ours = httpx.Request("POST", url, json=payload).content.decode("utf-8")
    return {"doctor_ok": bool(d.get("ok")), "identical_bytes": got == ours,
            "identical_json": _safe_json(got) == payload, "doctor_body": got, "bare_body": ours}


def _safe_json(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None


def phase_throughput(p: Plan, server: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"prompt": PROMPT, "seed": SEED, "server_threads": server.n_threads,
                           "model": server.model_id,
                           "metric": "decode tok/s = (n - 1) / (t_last - t_first content delta); "
                                     "TTFT = first content delta - request sent"}
    out["payload_check"] = check_payload(server.model_id, p.lengths[0])
    pc = out["payload_check"]
    log(f"  payload check: doctor body identical to the bare client's: {pc['identical_bytes']}")
    models_url = server.url + "/v1/models"
    for n in p.lengths:
        chat_url, payload = rill_request(server.url, server.model_id, PROMPT, n)
        runs: list[dict[str, Any]] = []

        def bare() -> dict[str, Any]:
            r = bare_stream(chat_url, payload, models_url)
            return {"path": "bare", "ok": True, "tok_s": r["tok_s"], "ttft_ms": r["ttft_ms"], "headers_ms": r["headers_ms"],
                    "tokens": r["tokens"], "finish_reason": r["finish_reason"], "chars": r["chars"]}

        def rill() -> dict[str, Any]:
            d = doctor_remote(server.url, server.model_id, n, SEED, PROMPT)
            send = d.get("send_ms") or []
            return {"path": "rill", "ok": bool(d.get("ok")), "tok_s": d.get("tokens_per_s"),
                    "ttft_ms": d.get("ttft_ms"), "tokens": d.get("tokens"),
                    "tokens_produced": d.get("tokens_produced"), "finish_reason": d.get("finish_reason"),
                    "send_ms": send[0] if send else None, "ui_lag_ms": d.get("ui_lag_ms"),
                    "error": d.get("error", "")}

        def backend() -> dict[str, Any]:
            r = backend_stream(server.url, server.model_id, PROMPT, n)
            return {"path": "backend", "ok": r["reason"] in ("stop", "length"), "tok_s": r["tok_s"],
                    "ttft_ms": r["ttft_ms"], "tokens": r["tokens"], "finish_reason": r["reason"]}

        warm = [bare(), rill()]
        log(f"  throughput {n}: warm-up bare {warm[0]['tokens']} tokens, rill {warm[1]['tokens']} tokens")
        for rep in range(p.reps):
            for fn in (bare, rill, backend):
                offset = len(server.log_text())
                try:
                    r = fn()
                except (ChildFailed, httpx.HTTPError) as exc:
                    log(f"  throughput {n} failed: {exc}")
                    continue
                time.sleep(0.2)  # the server prints its timings after the reply
                r.update(server_perf(server.log_text()[offset:]))
                r["rep"] = rep
                runs.append(r)
                log(f"  throughput {n} rep {rep}: {r['path']} {r['tok_s']} tok/s, ttft {r['ttft_ms']} ms, "
                    f"{r['tokens']} tokens ({r['finish_reason']})")
        traces: list[dict[str, Any]] = []
        if n == p.lengths[0]:
            # Diagnostic: where the doctor's TTFT goes (bare's headers_ms for comparison).
            for _rep in range(p.trace_reps):
                try:
                    tr = run_json(["-m", "benchmarks.remote", "ttft-trace", "--backend", "openai",
                                   "--base-url", server.url, "--api-model", server.model_id, "--max-tokens", str(n),
                                   "--seed", str(SEED), "--prompt", PROMPT, "--timeout-s", "300"], timeout_s=420).data
                    b = bare()
                except (ChildFailed, httpx.HTTPError) as exc:
                    log(f"  ttft trace failed: {exc}")
                    continue
                tr["bare_ttft_ms"], tr["bare_headers_ms"] = b["ttft_ms"], b["headers_ms"]
                traces.append(tr)
                log(f"  ttft trace: {tr}")
        by = {k: [r for r in runs if r["path"] == k] for k in ("bare", "rill", "backend")}
        pairs = []
        for rep in range(p.reps):
            b = next((r for r in by["bare"] if r["rep"] == rep), None)
            r = next((r for r in by["rill"] if r["rep"] == rep), None)
            if b and r:
                pairs.append({"rep": rep, "bare_tokens": b["tokens"], "rill_tokens": r["tokens"],
                              "match": b["tokens"] == r["tokens"],
                              "tok_s_ratio": ratio(r["tok_s"], b["tok_s"]),
                              "ttft_diff_ms": round(r["ttft_ms"] - b["ttft_ms"], 2)
                              if r["ttft_ms"] is not None and b["ttft_ms"] is not None else None})
        s = {k: spread(r["tok_s"] for r in v) for k, v in by.items()}
        t = {k: spread(r["ttft_ms"] for r in v) for k, v in by.items()}
        ttft_diff = (round(t["rill"]["median"] - t["bare"]["median"], 2)
                     if t["rill"]["median"] is not None and t["bare"]["median"] is not None else None)
        out[str(n)] = {
            "max_tokens": n,
            "bare_tok_s": s["bare"], "rill_tok_s": s["rill"],
            "ratio_of_medians": ratio(s["rill"]["median"], s["bare"]["median"]),
            "median_pair_ratio": _median([x["tok_s_ratio"] for x in pairs]),
            "bare_ttft_ms": t["bare"], "rill_ttft_ms": t["rill"],
            "ttft_diff_ms": ttft_diff,
            "median_pair_ttft_diff_ms": _median([x["ttft_diff_ms"] for x in pairs]),
            "backend_tok_s": s["backend"], "backend_ttft_ms": t["backend"],
            "backend_ratio": ratio(s["backend"]["median"], s["bare"]["median"]),
            "backend_ttft_diff_ms": (round(t["backend"]["median"] - t["bare"]["median"], 2)
                                     if t["backend"]["median"] is not None and t["bare"]["median"] is not None else None),
            "server_decode_ms_per_token": {k: spread(r.get("server_decode_ms_per_token") for r in v) for k, v in by.items()},
            "rill_send_ms": spread(r.get("send_ms") for r in by["rill"]),
            "rill_ui_lag_p99_ms": spread((r.get("ui_lag_ms") or {}).get("p99") for r in by["rill"]),
            "tokens_match_every_rep": bool(pairs) and all(x["match"] for x in pairs),
            "token_counts": sorted({r["tokens"] for r in runs} | {w["tokens"] for w in warm}),
            "rill_all_ok": all(r["ok"] for r in by["rill"]),
            "bare_headers_ms": spread(r.get("headers_ms") for r in by["bare"]),
            "ttft_trace": {k: spread(t.get(k) for t in traces) for k in (
                "ttft_ms", "to_generate_ms", "generate_to_written_ms", "generate_to_headers_ms", "headers_to_first_ms",
                "bare_ttft_ms", "bare_headers_ms")} if traces else None,
            "ttft_traces": traces,
            "pairs": pairs, "warmup": warm, "runs": runs,
        }
    return out


def backend_stream(url: str, model: str, prompt: str, n: int) -> dict[str, Any]:
    """Diagnostic: Rill's OpenAIBackend driven directly in this process (no
    window, no Qt): load (GET /v1/models), then generate, timed as bare."""
    from app.core.backends.base import CancelEvent, GenerationRequest, SamplingParams
    from app.core.backends.remote.openai import OpenAIBackend

    backend = OpenAIBackend(_server_cfg(url), model)
    try:
        backend.load()
        request = GenerationRequest(1, _messages(prompt), SamplingParams(max_tokens=n, seed=SEED))
        k = 0
        first = last = None
        reason = None
        t_sent = time.monotonic()
        gen = backend.generate(request, CancelEvent())
        try:
            while True:
                next(gen)
                now = time.monotonic()
                k += 1
                if first is None:
                    first = now
                last = now
        except StopIteration as stop:
            reason = stop.value
    finally:
        backend.close()
    span = (last - first) if first is not None and last is not None else 0.0
    return {"tokens": k, "reason": getattr(reason, "value", reason),
            "ttft_ms": round((first - t_sent) * 1000, 2) if first is not None else None,
            "tok_s": round((k - 1) / span, 2) if k > 1 and span > 0 else None}


_EVAL_RE = re.compile(r"^llama_perf_context_print:\s+eval time =\s+([\d.]+) ms /\s+(\d+) runs", re.M)
_TOTAL_RE = re.compile(r"^llama_perf_context_print:\s+total time =\s+([\d.]+) ms", re.M)


def server_perf(log_text: str) -> dict[str, Any]:
    """The server's own timings of the request whose log is ``log_text``."""
    out: dict[str, Any] = {}
    m = _EVAL_RE.findall(log_text)
    if m:
        ms, runs = float(m[-1][0]), int(m[-1][1])
        out["server_decode_ms_per_token"] = round(ms / runs, 3) if runs else None
    t = _TOTAL_RE.findall(log_text)
    if t:
        out["server_total_ms"] = float(t[-1])
    return out


# ------------------------------------------------------------------ 2. 50,000 tok/s


def _synth_row(kind: str, d: dict[str, Any], source: str, n: int) -> dict[str, Any]:
    reply = d.get("reply_text") or ""
    lag = d.get("ui_lag_ms") or {}
    return {
        "path": kind, "ok": bool(d.get("ok")), "error": d.get("error", ""),
        "finish_reason": d.get("finish_reason"),
        "tokens": d.get("tokens"), "tokens_produced": d.get("tokens_produced"),
        "every_token_shown": d.get("tokens") == d.get("tokens_produced") == n,
        "produce_tok_s": d.get("produce_tok_s"), "display_tok_s": d.get("display_tok_s"),
        "display_ratio": d.get("display_ratio"),
        "lag_p50_ms": lag.get("p50"), "lag_p99_ms": lag.get("p99"), "lag_max_ms": lag.get("max"),
        "heartbeats": d.get("heartbeats"),
        "text_exact": _squash(reply) == _squash(source),
        "replacement_chars": reply.count("\ufffd"),
        "reply_chars": len(reply), "source_chars": len(source),
        "producer_blocked_ms": d.get("producer_blocked_ms"), "backlog_end": d.get("backlog_end"),
        "buffer_max_depth": d.get("buffer_max_depth"), "ticks": d.get("ticks"),
        "view_slice_max_ms": d.get("view_slice_max_ms"), "ttft_ms": d.get("ttft_ms"),
        "token_to_screen_ms": d.get("token_to_screen_ms"),
    }


def lag_sources_child(doctor_argv: list[str]) -> None:
    """``python -m benchmarks.remote lag-sources <doctor options>``: the
    doctor in this process with benchmarks.lag_sources' timers on the GUI
    thread's units of work (any backend; lag_sources itself runs only the
    scripted one). Prints one JSON line."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from benchmarks.inproc import Recorder, lag_phases, run_doctor
    from benchmarks.lag_sources import LATE_S, _patch, analyse, recording_heartbeat

    rec = Recorder()
    _patch(rec)

    heartbeat = recording_heartbeat(rec)

    out = run_doctor(doctor_argv, heartbeat)
    res = out.result
    print(json.dumps({
        "ok": res.get("ok"), "tokens": res.get("tokens"), "tokens_produced": res.get("tokens_produced"),
        "ui_lag_ms": res.get("ui_lag_ms"), "produce_tok_s": res.get("produce_tok_s"),
        "lag_phases": lag_phases(out), "heartbeats": res.get("heartbeats"),
        "late_beats": sum(1 for _f, late in out.beats if late > LATE_S),
        "sources": analyse(rec.spans, out.beats),
    }))


def ttft_trace_child(doctor_argv: list[str]) -> None:
    """``python -m benchmarks.remote ttft-trace <doctor options>``: the doctor
    in this process (benchmarks.inproc) with Rill's remote backend wrapped to
    time where its TTFT goes: the reply's start in the window -> the worker
    calls ``generate`` (Qt hand-off, prompt building) -> response headers
    (request out; llama_cpp.server answers with headers before evaluating)
    -> the first content delta parsed (the server's first token). Prints
    one JSON line."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from app.core.backends.remote.base import RemoteBackend
    from app.core.backends.remote.openai import OpenAIBackend
    from benchmarks.inproc import run_doctor

    marks: dict[str, float] = {}
    orig_generate = RemoteBackend.generate
    orig_batches = OpenAIBackend._delta_batches

    def generate(self, request, cancel):
        marks.setdefault("generate", time.monotonic())
        return orig_generate(self, request, cancel)

    def delta_batches(self, response):
        marks.setdefault("headers", time.monotonic())
        for batch in orig_batches(self, response):
            if any(delta.content for delta in batch):
                marks.setdefault("first_content", time.monotonic())
            yield batch

    import httpcore._backends.sync as hsync

    from app.core.backends.remote import http as rhttp

    orig_write = hsync.SyncStream.write
    orig_connect = rhttp._RecordingBackend.connect_tcp

    def write(self, buffer, timeout=None):
        if "generate" in marks:
            marks.setdefault("written", time.monotonic())
        return orig_write(self, buffer, timeout)

    def connect_tcp(self, *args, **kwargs):
        if "generate" in marks:
            marks.setdefault("connected", time.monotonic())
        return orig_connect(self, *args, **kwargs)

    # GUI-thread work around the send: ChatController.send and ChatView.paintEvent spans.
    from app.ui.conversation.controller import ChatController
    from app.ui.conversation.view import ChatView

    spans: list[tuple[str, float, float]] = []

    def span(label: str, fn: Any) -> Any:
        def wrapped(*a: Any, **k: Any) -> Any:
            t0 = time.monotonic()
            try:
                return fn(*a, **k)
            finally:
                if len(spans) < 200:
                    spans.append((label, t0, time.monotonic()))
        return wrapped

    ChatController.send = span("send", ChatController.send)
    ChatView.paintEvent = span("paint", ChatView.paintEvent)
    hsync.SyncStream.write = write
    rhttp._RecordingBackend.connect_tcp = connect_tcp
    RemoteBackend.generate = generate
    OpenAIBackend._delta_batches = delta_batches
    res = run_doctor(doctor_argv).result
    ttft = res.get("ttft_ms")
    out: dict[str, Any] = {"ok": res.get("ok"), "ttft_ms": ttft, "send_ms": (res.get("send_ms") or [None])[0]}
    if ttft is not None and {"generate", "headers", "first_content"} <= marks.keys():
        sent = marks["first_content"] - ttft / 1000  # the worker's first token ≈ the first content delta
        out.update({
            "to_generate_ms": round((marks["generate"] - sent) * 1000, 2),
            "generate_to_headers_ms": round((marks["headers"] - marks["generate"]) * 1000, 2),
            "generate_to_written_ms": round((marks["written"] - marks["generate"]) * 1000, 2) if "written" in marks else None,
            "new_connection": "connected" in marks,
            # GUI-thread spans overlapping [generate, headers], ms relative to generate.
            "gui_spans": [(lab, round((a - marks["generate"]) * 1000, 2), round((b - marks["generate"]) * 1000, 2))
                          for lab, a, b in spans if b >= marks["generate"] and a <= marks["headers"]],
            "headers_to_first_ms": round((marks["first_content"] - marks["headers"]) * 1000, 2),
        })
    print(json.dumps(out))


def worker_cost(text_file: Path, n: int) -> dict[str, Any]:
    """Diagnostic: the producer's CPU per token with nothing else running,
    unpaced: Rill's OpenAIBackend reading the synthetic server (as fast as
    it sends) vs the scripted backend, both in this process."""
    from app.core.backends.base import CancelEvent, GenerationRequest, SamplingParams
    from app.core.backends.remote.openai import OpenAIBackend
    from app.core.backends.scripted import ScriptedBackend

    request = GenerationRequest(1, _messages("Stream the text."), SamplingParams(max_tokens=n + 100))
    out: dict[str, Any] = {}
    server = SyntheticServer(text_file, 1e9)
    try:
        for kind in ("remote", "scripted"):
            if kind == "remote":
                backend: Any = OpenAIBackend(_server_cfg(server.url), "synthetic")
            else:
                backend = ScriptedBackend.from_file(text_file, rate=0)
            k = 0
            cpu0, t0 = time.thread_time(), time.monotonic()
            for piece in backend.generate(request, CancelEvent()):
                k += getattr(piece, "n_tokens", 1)  # a TokenRun carries several (app.core.backends.base)
            cpu, wall = time.thread_time() - cpu0, time.monotonic() - t0
            backend.close()
            out[kind] = {"tokens": k, "tok_s": round(k / wall, 0) if wall else None,
                         "cpu_us_per_token": round(cpu / k * 1e6, 2) if k else None,
                         "cpu_share_at_rate": round(cpu / k * SYNTH_RATE, 3) if k else None}
    finally:
        server.close()
    return out


def phase_synthetic(p: Plan, work: Path) -> dict[str, Any]:
    n = p.synth_tokens
    text = synthetic_text(n)
    text_file = work / f"synthetic-{n}.txt"
    text_file.write_text(text, encoding="utf-8")
    server = SyntheticServer(text_file, SYNTH_RATE)
    runs: list[dict[str, Any]] = []
    try:
        if server.tokens != n:
            raise RuntimeError(f"the synthetic server has {server.tokens} tokens, not {n}")
        common = ["--max-tokens", str(n + 100), "--prompt", "Stream the text.", "--timeout-s", "300"]
        for rep in range(p.synth_reps):
            for kind in ("remote", "scripted"):
                if kind == "remote":
                    args = ["-m", "app", "doctor", "--backend", "openai", "--base-url", server.url,
                            "--api-model", "synthetic", *common]
                else:
                    args = ["-m", "app", "doctor", "--backend", "scripted", "--rate", str(SYNTH_RATE),
                            "--text-file", str(text_file), *common]
                try:
                    d = run_json(args, timeout_s=420).data
                except ChildFailed as exc:
                    log(f"  synthetic {kind} failed: {exc}")
                    continue
                row = _synth_row(kind, d, text, n)
                row["rep"] = rep
                if kind == "remote":
                    st = server.stats()
                    row["server"] = {k: v for k, v in st.items() if k != "last_body"}
                runs.append(row)
                log(f"  synthetic {kind} rep {rep}: {row['tokens']}/{row['tokens_produced']} shown, "
                    f"produce {row['produce_tok_s']} tok/s, lag p99 {row['lag_p99_ms']} max {row['lag_max_ms']} ms, "
                    f"text exact {row['text_exact']}")
        # Diagnostics (once each): where the GUI thread's lag comes from.
        lag_src: dict[str, Any] = {}
        for kind in ("remote", "scripted"):
            if kind == "remote":
                dargs = ["--backend", "openai", "--base-url", server.url, "--api-model", "synthetic", *common]
            else:
                dargs = ["--backend", "scripted", "--rate", str(SYNTH_RATE), "--text-file", str(text_file), *common]
            try:
                lag_src[kind] = run_json(["-m", "benchmarks.remote", "lag-sources", *dargs], timeout_s=420).data
            except ChildFailed as exc:
                log(f"  lag sources {kind} failed: {exc}")
    finally:
        server.close()
    out: dict[str, Any] = {"tokens": n, "rate": SYNTH_RATE, "text_chars": len(text),
                           "text_bytes": len(text.encode("utf-8"))}
    out["lag_sources"] = lag_src
    try:
        out["worker_cost"] = worker_cost(text_file, n)
    except (RuntimeError, OSError, httpx.HTTPError) as exc:
        log(f"  worker cost failed: {exc}")
    for kind in ("remote", "scripted"):
        rs = [r for r in runs if r["path"] == kind]
        out[kind] = {
            "reps": len(rs),
            "every_token_shown": bool(rs) and all(r["every_token_shown"] for r in rs),
            "text_exact": bool(rs) and all(r["text_exact"] for r in rs),
            "replacement_chars": sum(r["replacement_chars"] for r in rs),
            "produce_tok_s": spread(r["produce_tok_s"] for r in rs),
            "display_tok_s": spread(r["display_tok_s"] for r in rs),
            "lag_p50_ms": spread(r["lag_p50_ms"] for r in rs),
            "lag_p99_ms": spread(r["lag_p99_ms"] for r in rs),
            "lag_max_ms": spread(r["lag_max_ms"] for r in rs),
        }
    out["server_send_tok_s"] = spread((r.get("server") or {}).get("send_tok_s") for r in runs if r["path"] == "remote")
    out["server_split_writes"] = [(r.get("server") or {}).get("writes_splitting_a_character")
                                  for r in runs if r["path"] == "remote"]
    out["server_writes"] = [(r.get("server") or {}).get("writes") for r in runs if r["path"] == "remote"]
    out["runs"] = runs
    return out


# ------------------------------------------------------------------ 3. stop -> closed


HEAD_SSE = (b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
            b"Cache-Control: no-cache\r\nConnection: close\r\n\r\n")


def _ev(obj: Any) -> bytes:
    return b"data: " + json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode() + b"\n\n"


_ROLE_EVENT = _ev({"choices": [{"delta": {"role": "assistant", "content": None}}]})
_TOKEN_EVENTS = [_ev({"choices": [{"index": 0, "delta": {"content": f" w{i}"}}]}) for i in range(1024)]


class StopServer:
    """Raw sockets: serves one mode at a time and records when the client
    closed the connection (its blocking ``recv`` returned)."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.mode = STOP_PHASES[0]
        self.ready = threading.Event()
        self.closed = threading.Event()
        self.closed_at: float | None = None
        self.close_kind = ""
        self.sent_tokens = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def reset(self, mode: str) -> None:
        self.mode = mode
        self.ready.clear()
        self.closed.clear()
        self.closed_at = None
        self.close_kind = ""
        self.sent_tokens = 0

    def close(self) -> None:
        self.sock.close()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn, self.mode), daemon=True).start()

    @staticmethod
    def _read_request(conn: socket.socket) -> None:
        buf = b""
        while b"\r\n\r\n" not in buf:
            data = conn.recv(65536)
            if not data:
                raise ConnectionError("closed early")
            buf += data
        head, _, body = buf.partition(b"\r\n\r\n")
        length = 0
        for line in head.decode("latin-1").split("\r\n")[1:]:
            name, _, value = line.partition(":")
            if name.strip().lower() == "content-length":
                length = int(value)
        while len(body) < length:
            data = conn.recv(65536)
            if not data:
                raise ConnectionError("closed early")
            body += data

    def _serve(self, conn: socket.socket, mode: str) -> None:
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        stop_sending = threading.Event()
        sender = None
        try:
            self._read_request(conn)
            if mode == "silent_mid_stream":
                conn.sendall(HEAD_SSE + _ROLE_EVENT + b"".join(_TOKEN_EVENTS[:4]))  # 5 events
                self.sent_tokens = 4
            elif mode == "streaming":
                conn.sendall(HEAD_SSE + _ROLE_EVENT)
                sender = threading.Thread(target=self._send_loop, args=(conn, stop_sending), daemon=True)
                sender.start()
            self.ready.set()
            kind = "eof"
            try:
                while True:
                    if not conn.recv(65536):
                        break
            except OSError as exc:
                kind = type(exc).__name__
            self.closed_at = time.monotonic()
            self.close_kind = kind
            self.closed.set()
        except OSError:
            pass
        finally:
            stop_sending.set()
            if sender is not None:
                sender.join(2)
            conn.close()

    def _send_loop(self, conn: socket.socket, stop: threading.Event) -> None:
        """1,000 tok/s: every ~1 ms, the events due in one sendall."""
        start = time.monotonic()
        i = 0
        m = len(_TOKEN_EVENTS)
        try:
            while not stop.is_set():
                due = int((time.monotonic() - start) * 1000) + 1
                if due > i:
                    conn.sendall(b"".join(_TOKEN_EVENTS[k % m] for k in range(i, due)))
                    i = due
                    self.sent_tokens = i
                time.sleep(0.001)
        except OSError:
            pass


def phase_stop(p: Plan) -> dict[str, Any]:
    from app.core.backends.base import CancelEvent, FinishReason, GenerationRequest, SamplingParams
    from app.core.backends.remote.openai import OpenAIBackend

    server = StopServer()
    rnd = random.Random(9)
    need = {"reading_prompt": 0, "silent_mid_stream": 4, "streaming": 30}
    out: dict[str, Any] = {"reps": p.stop_reps,
                           "t0": "time.monotonic() just before cancel.set() (on the measuring thread)"}
    request = GenerationRequest(1, _messages(SHORT_PROMPT), SamplingParams(max_tokens=100_000, seed=SEED))
    try:
        for phase in STOP_PHASES:
            backend = OpenAIBackend(_server_cfg(server.url), "synthetic")  # one per phase, reused as Rill does
            rows: list[dict[str, Any]] = []
            for rep in range(p.stop_reps):
                server.reset(phase)
                cancel = CancelEvent()
                got = threading.Event()
                res: dict[str, Any] = {}

                def consume(backend: Any = backend, cancel: Any = cancel, got: threading.Event = got,
                            res: dict[str, Any] = res, k: int = need[phase]) -> None:
                    n = 0
                    gen = backend.generate(request, cancel)
                    try:
                        while True:
                            next(gen)
                            n += 1
                            if n >= k:
                                got.set()
                    except StopIteration as stop:
                        res["reason"] = stop.value
                    except Exception as exc:  # noqa: BLE001 - a result to report
                        res["error"] = repr(exc)
                    res["returned_at"] = time.monotonic()
                    res["tokens"] = n

                th = threading.Thread(target=consume, daemon=True)
                th.start()
                if not server.ready.wait(10) or (need[phase] and not got.wait(10)):
                    log(f"  stop {phase} rep {rep}: the phase was not reached")
                    cancel.set()
                    th.join(5)
                    continue
                # Let the client block in its read (and, streaming, land anywhere between tokens).
                time.sleep(0.02 + rnd.random() * 0.01)
                t0 = time.monotonic()
                cancel.set()
                server.closed.wait(5)
                th.join(5)
                closed_ms = round((server.closed_at - t0) * 1000, 3) if server.closed_at else None
                exit_ms = round((res["returned_at"] - t0) * 1000, 3) if "returned_at" in res else None
                rows.append({"rep": rep, "closed_ms": closed_ms, "worker_exit_ms": exit_ms,
                             "close_kind": server.close_kind, "tokens": res.get("tokens"),
                             "reason": getattr(res.get("reason"), "value", res.get("reason")),
                             "error": res.get("error", "")})
            backend.close()
            closed = [r["closed_ms"] for r in rows]
            exits = [r["worker_exit_ms"] for r in rows]
            out[phase] = {
                "closed_ms": {"median": _median(closed), "p95": _p95(closed), "max": max((c for c in closed if c is not None), default=None)},
                "worker_exit_ms": {"median": _median(exits), "p95": _p95(exits), "max": max((e for e in exits if e is not None), default=None)},
                "all_cancelled": bool(rows) and all(r["reason"] == FinishReason.CANCELLED.value for r in rows),
                "all_closed": len(rows) == p.stop_reps and all(c is not None for c in closed),
                "close_kinds": sorted({r["close_kind"] for r in rows}),
                "runs": rows,
            }
            log(f"  stop {phase}: closed median {out[phase]['closed_ms']['median']} p95 {out[phase]['closed_ms']['p95']} ms, "
                f"worker exit median {out[phase]['worker_exit_ms']['median']} p95 {out[phase]['worker_exit_ms']['p95']} ms")
    finally:
        server.close()
    return out


# ------------------------------------------------------------------ 4. the next request


def _disconnects(server: Any) -> int:
    return server.log_text().count("Disconnected from client")


def phase_queue(p: Plan, server: Any) -> dict[str, Any]:
    from app.core.backends.base import CancelEvent, GenerationRequest, SamplingParams

    cfg = _server_cfg(server.url)
    model = server.model_id
    long_url, long_payload = rill_request(server.url, model, LONG_PROMPT, 1500, no_eos=True)
    short_url, short_payload = rill_request(server.url, model, SHORT_PROMPT, 8)
    prime_url, prime_payload = rill_request(server.url, model, LONG_PROMPT, 20, no_eos=True)
    NoEos = _no_eos_backend_class()
    long_request = GenerationRequest(1, _messages(LONG_PROMPT), SamplingParams(max_tokens=1500, seed=SEED))

    def short() -> dict[str, Any]:
        return bare_stream(short_url, short_payload)

    def case_rill() -> dict[str, Any]:
        backend = NoEos(cfg, model)
        before = _disconnects(server)
        cancel = CancelEvent()
        n = 0
        t_stop = t_ret = None
        reason = None
        gen = backend.generate(long_request, cancel)
        try:
            while True:
                next(gen)
                n += 1
                if n == 20:
                    t_stop = time.monotonic()
                    cancel.set()
        except StopIteration as stop:
            reason = stop.value
        t_ret = time.monotonic()
        s = short()
        backend.close()
        time.sleep(0.2)
        return {"case": "rill_stop", "long_tokens": n, "long_reason": getattr(reason, "value", reason),
                "stop_to_return_ms": round((t_ret - t_stop) * 1000, 2) if t_stop else None,
                "short_ttft_ms": s["ttft_ms"], "short_tokens": s["tokens"],
                "server_logged_disconnect": _disconnects(server) > before}

    def case_naive() -> dict[str, Any]:
        got20 = threading.Event()
        res: dict[str, Any] = {}

        def drain() -> None:
            def on_token(k: int) -> None:
                if k == 20:
                    got20.set()  # the naive client stops showing text here, and reads on
            try:
                r = bare_stream(long_url, long_payload, on_token=on_token)
                res.update(r)
            except httpx.HTTPError as exc:
                res["error"] = repr(exc)
            got20.set()

        th = threading.Thread(target=drain, daemon=True)
        th.start()
        got20.wait(300)
        s = short()
        th.join(600)
        return {"case": "naive_stop", "long_tokens": res.get("tokens"), "long_finish": res.get("finish_reason"),
                "short_ttft_ms": s["ttft_ms"], "short_tokens": s["tokens"],
                "short_first_after_long_end_ms": round((s["t_first"] - res["t_end"]) * 1000, 1)
                if s.get("t_first") and res.get("t_end") else None,
                "long_reply_s": round(res["t_end"] - res["t_sent"], 2) if res.get("t_end") else None}

    def case_idle() -> dict[str, Any]:
        # The server in the same state as after a stopped long reply (its KV
        # cache holds the long prompt and 20 tokens), but idle.
        prime = bare_stream(prime_url, prime_payload)
        time.sleep(0.2)
        s = short()
        return {"case": "idle", "prime_tokens": prime["tokens"], "short_ttft_ms": s["ttft_ms"],
                "short_tokens": s["tokens"]}

    runs: list[dict[str, Any]] = []
    bare_stream(short_url, short_payload)  # warm-up
    for rep in range(p.queue_reps):
        for fn in (case_rill, case_naive, case_idle):
            try:
                r = fn()
            except httpx.HTTPError as exc:
                log(f"  queue {fn.__name__} failed: {exc}")
                continue
            r["rep"] = rep
            runs.append(r)
            log(f"  queue rep {rep}: {r['case']} short TTFT {r['short_ttft_ms']} ms "
                + (f"(long reply {r.get('long_reply_s')} s, {r.get('long_tokens')} tokens, {r.get('long_finish')})"
                   if r["case"] == "naive_stop" else ""))
            time.sleep(0.3)
    by = {c: [r for r in runs if r["case"] == c] for c in ("rill_stop", "naive_stop", "idle")}
    return {
        "long_max_tokens": 1500, "logit_bias": NO_EOS_BIAS, "stopped_after_tokens": 20, "short_max_tokens": 8,
        "short_ttft_ms": {c: spread(r["short_ttft_ms"] for r in rs) for c, rs in by.items()},
        "rill_minus_idle_ms": (round(spread(r["short_ttft_ms"] for r in by["rill_stop"])["median"]
                                     - spread(r["short_ttft_ms"] for r in by["idle"])["median"], 2)
                               if by["rill_stop"] and by["idle"] else None),
        "naive_long_reply_s": spread(r.get("long_reply_s") for r in by["naive_stop"]),
        "naive_long_tokens": [r.get("long_tokens") for r in by["naive_stop"]],
        "naive_short_waited_for_long": bool(by["naive_stop"]) and all(
            (r.get("short_first_after_long_end_ms") or -1) >= 0 for r in by["naive_stop"]),
        "rill_server_logged_disconnect": bool(by["rill_stop"]) and all(r["server_logged_disconnect"] for r in by["rill_stop"]),
        "runs": runs,
    }


# ------------------------------------------------------------------ report


def _fmt(v: Any, nd: int = 2) -> str:
    if v is None:
        return "n/a"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return f"{v:,.{nd}f}"
    if isinstance(v, int):
        return f"{v:,}"
    return str(v)


def span_vs_server(runs: list[dict[str, Any]], path: str) -> float | None:
    """Median over ``path``'s runs of the client-seen first -> last token span
    divided by the server's own total generation time (its llama_perf log):
    ~1 when the client reads every token as soon as the server makes it (the
    span misses only the first token's time), whatever the server's speed."""
    vals = [((r["tokens"] - 1) / r["tok_s"] * 1000) / r["server_total_ms"] for r in runs
            if r.get("path") == path and r.get("tok_s") and r.get("server_total_ms") and r.get("tokens")]
    return round(statistics.median(vals), 4) if vals else None


def goals(res: dict[str, Any]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []

    def add(goal: str, target: str, measured: str, met: bool | None) -> None:
        out.append({"goal": goal, "target": target, "measured": measured, "met": met})

    tp = res.get("throughput") or {}
    for key in [k for k in tp if k.isdigit()]:
        r = tp[key]
        rt = r["ratio_of_medians"]
        add(f"Decode tok/s through llama_cpp.server, {key} tokens", f"Rill >= {GOAL_TOK_RATIO}x bare",
            f"Rill {_fmt(r['rill_tok_s']['median'])} vs bare {_fmt(r['bare_tok_s']['median'])} tok/s "
            f"= {_fmt(rt, 3)}x (median of per-rep ratios {_fmt(r['median_pair_ratio'], 3)}x); the server's own "
            f"decode ms/token meanwhile: bare {_fmt(r['server_decode_ms_per_token']['bare']['median'], 2)}, "
            f"Rill {_fmt(r['server_decode_ms_per_token']['rill']['median'], 2)}; client span / server generation time: "
            f"bare {_fmt(span_vs_server(r['runs'], 'bare'), 4)}, Rill {_fmt(span_vs_server(r['runs'], 'rill'), 4)}",
            None if rt is None else rt >= GOAL_TOK_RATIO)
        d = r["ttft_diff_ms"]
        add(f"TTFT through llama_cpp.server, {key} tokens", f"Rill - bare <= {GOAL_TTFT_DIFF_MS:g} ms",
            f"Rill {_fmt(r['rill_ttft_ms']['median'])} vs bare {_fmt(r['bare_ttft_ms']['median'])} ms "
            f"= {_fmt(d)} ms (doctor send_ms {_fmt(r['rill_send_ms']['median'])})",
            None if d is None else d <= GOAL_TTFT_DIFF_MS)
        add(f"Same tokens, {key} tokens", "token counts equal every rep",
            f"counts {r['token_counts']}; every rep equal: {_fmt(r['tokens_match_every_rep'])}",
            r["tokens_match_every_rep"])
    if tp.get("payload_check"):
        pc = tp["payload_check"]
        add("Same request", "the doctor's JSON body == the bare client's", f"identical bytes: {_fmt(pc['identical_bytes'])}",
            pc["identical_bytes"])
    sy = res.get("synthetic")
    if sy:
        rm, sc = sy["remote"], sy["scripted"]
        add(f"{SYNTH_RATE:,} tok/s from a server: every token shown", "tokens shown == produced == sent, every rep",
            f"remote {_fmt(rm['every_token_shown'])} ({rm['reps']} reps), scripted {_fmt(sc['every_token_shown'])}",
            rm["every_token_shown"])
        add(f"{SYNTH_RATE:,} tok/s from a server: text intact", "rendered == source (whitespace removed), no U+FFFD",
            f"remote exact {_fmt(rm['text_exact'])}, U+FFFD {rm['replacement_chars']}; scripted exact {_fmt(sc['text_exact'])}",
            rm["text_exact"] and rm["replacement_chars"] == 0)
        p99 = rm["lag_p99_ms"]["median"]
        add(f"{SYNTH_RATE:,} tok/s from a server: heartbeat", f"p99 <= {GOAL_LAG_P99_MS:g} ms",
            f"remote p99 {_fmt(p99)} (max {_fmt(rm['lag_max_ms']['median'])}) ms at {_fmt(rm['produce_tok_s']['median'], 0)} tok/s; "
            f"scripted p99 {_fmt(sc['lag_p99_ms']['median'])} (max {_fmt(sc['lag_max_ms']['median'])}) ms",
            None if p99 is None else p99 <= GOAL_LAG_P99_MS)
    st = res.get("stop")
    if st:
        for phase in STOP_PHASES:
            r = st.get(phase)
            if not r:
                continue
            c, e = r["closed_ms"], r["worker_exit_ms"]
            met = r["all_closed"] and c["p95"] is not None and c["p95"] <= GOAL_STOP_MS and \
                e["p95"] is not None and e["p95"] <= GOAL_STOP_MS
            add(f"Stop -> connection closed, {phase.replace('_', ' ')}", f"p95 <= {GOAL_STOP_MS:g} ms (closed and worker exit)",
                f"closed median {_fmt(c['median'], 3)} / p95 {_fmt(c['p95'], 3)} ms; "
                f"worker exit median {_fmt(e['median'], 3)} / p95 {_fmt(e['p95'], 3)} ms",
                met)
    q = res.get("queue")
    if q:
        t = q["short_ttft_ms"]
        diff = q["rill_minus_idle_ms"]
        met = diff is not None and diff <= GOAL_QUEUE_SLACK_MS and q["naive_short_waited_for_long"]
        add("Next request after Stop (llama_cpp.server queues)",
            f"(i) Rill - (iii) idle <= {GOAL_QUEUE_SLACK_MS:g} ms; (ii) naive waits for the long reply",
            f"short TTFT: (i) Rill {_fmt(t['rill_stop']['median'])}, (ii) naive {_fmt(t['naive_stop']['median'])}, "
            f"(iii) idle {_fmt(t['idle']['median'])} ms; (i)-(iii) {_fmt(diff)} ms; naive waited: {_fmt(q['naive_short_waited_for_long'])}",
            met)
    return out


def write_report(res: dict[str, Any], out: Path) -> None:
    res["goals"] = goals(res)
    L: list[str] = []
    L.append("# Remote backends: benchmark (issue #9)")
    L.append("")
    m = res.get("machine", {})
    L.append(f"{res['mode']} run, {res['started']}, {m.get('cores')} cores ({m.get('cpu_model')}), "
             f"Python {m.get('python')}, llama-cpp-python {m.get('versions', {}).get('llama_cpp_python')}, "
             f"commit {m.get('git_commit')} (+{m.get('git_dirty_files')} changed files); load before "
             f"{res.get('load_before')}, after {res.get('load_after')}; {res.get('timing', {}).get('total_s')} s.")
    L.append("")
    L.append("| Goal | Target | Measured | Met |")
    L.append("|---|---|---|---|")
    for g in res["goals"]:
        met = "n/a" if g["met"] is None else ("yes" if g["met"] else "**no**")
        L.append(f"| {g['goal']} | {g['target']} | {g['measured']} | {met} |")
    tp = res.get("throughput")
    if tp:
        L += ["", "## 1. Throughput and TTFT through llama_cpp.server", "",
              f"Model {tp['model']}, server n_threads {tp['server_threads']}, prompt {tp['prompt']!r}, seed {tp['seed']}. "
              "Rill: the doctor (real window, offscreen); bare: httpx + httpx-sse, the same JSON body "
              f"(checked byte for byte: {_fmt(tp['payload_check']['identical_bytes'])}). "
              "Medians [min-max]; reps alternate bare, Rill after one warm-up each.", "",
              "| max_tokens | tokens | bare tok/s | Rill tok/s | ratio | bare TTFT ms | Rill TTFT ms | diff ms | Rill send_ms | Rill heartbeat p99 ms |",
              "|---|---|---|---|---|---|---|---|---|---|"]
        for key in [k for k in tp if k.isdigit()]:
            r = tp[key]
            b, rl, bt, rt = r["bare_tok_s"], r["rill_tok_s"], r["bare_ttft_ms"], r["rill_ttft_ms"]
            L.append(f"| {key} | {r['token_counts']} | {_fmt(b['median'])} [{_fmt(b['min'])}-{_fmt(b['max'])}] | "
                     f"{_fmt(rl['median'])} [{_fmt(rl['min'])}-{_fmt(rl['max'])}] | {_fmt(r['ratio_of_medians'], 3)} | "
                     f"{_fmt(bt['median'])} [{_fmt(bt['min'])}-{_fmt(bt['max'])}] | "
                     f"{_fmt(rt['median'])} [{_fmt(rt['min'])}-{_fmt(rt['max'])}] | {_fmt(r['ttft_diff_ms'])} | "
                     f"{_fmt(r['rill_send_ms']['median'])} | {_fmt(r['rill_ui_lag_p99_ms']['median'])} |")
        L += ["", "Diagnostics: `backend` = Rill's OpenAIBackend driven directly in the benchmark process "
              "(no window, no Qt), timed like bare; server decode = the server's own ms per generated token "
              "(its llama_perf log) during each path's requests; span / server = the client-seen first -> last "
              "token time over the server's own total generation time (~1: every token read as soon as it "
              "is made, so tok/s differences are the server's speed).", "",
              "| max_tokens | backend tok/s | backend/bare | backend TTFT ms | backend - bare TTFT ms | "
              "server decode ms/token: bare / Rill / backend | span / server: bare / Rill / backend |",
              "|---|---|---|---|---|---|---|"]
        for key in [k for k in tp if k.isdigit()]:
            r = tp[key]
            sd = r["server_decode_ms_per_token"]
            L.append(f"| {key} | {_fmt(r['backend_tok_s']['median'])} | {_fmt(r['backend_ratio'], 3)} | "
                     f"{_fmt(r['backend_ttft_ms']['median'])} | {_fmt(r['backend_ttft_diff_ms'])} | "
                     f"{_fmt(sd['bare']['median'], 3)} / {_fmt(sd['rill']['median'], 3)} / {_fmt(sd['backend']['median'], 3)} | "
                     + " / ".join(_fmt(span_vs_server(r["runs"], k), 4) for k in ("bare", "rill", "backend")) + " |")
        for key in [k for k in tp if k.isdigit()]:
            tt = tp[key].get("ttft_trace")
            if tt:
                L += ["", f"Diagnostic, where the doctor's TTFT goes ({key} tokens; {tt['ttft_ms']['n']} traced doctor runs "
                      "in-process with Rill's remote backend wrapped, each followed by a bare run; medians): "
                      f"doctor TTFT {_fmt(tt['ttft_ms']['median'])} ms = reply start -> worker calls generate "
                      f"{_fmt(tt['to_generate_ms']['median'])} + generate -> response headers "
                      f"{_fmt(tt['generate_to_headers_ms']['median'])} (of which generate -> request written "
                      f"{_fmt(tt['generate_to_written_ms']['median'])}) + headers -> first content delta "
                      f"{_fmt(tt['headers_to_first_ms']['median'])}; bare TTFT {_fmt(tt['bare_ttft_ms']['median'])} ms "
                      f"(request -> headers {_fmt(tt['bare_headers_ms']['median'])}). GUI-thread spans (Enter, paint) "
                      "between generate and the headers, ms from generate: "
                      + "; ".join(", ".join(f"{lab} {a}-{b}" for lab, a, b in t.get("gui_spans") or [])
                                  + f" | headers {t.get('generate_to_headers_ms')}" for t in tp[key]["ttft_traces"]) + "."]
        L += ["", "Per rep (bare, Rill): tokens, tok/s ratio, TTFT difference:", ""]
        for key in [k for k in tp if k.isdigit()]:
            for x in tp[key]["pairs"]:
                L.append(f"- {key} rep {x['rep']}: tokens {x['bare_tokens']} / {x['rill_tokens']} "
                         f"({'match' if x['match'] else 'MISMATCH'}), ratio {_fmt(x['tok_s_ratio'], 3)}, "
                         f"TTFT diff {_fmt(x['ttft_diff_ms'])} ms")
    sy = res.get("synthetic")
    if sy:
        L += ["", f"## 2. {SYNTH_RATE:,} tok/s from a synthetic server", "",
              f"{sy['tokens']:,} tokens ({sy['text_chars']:,} characters, {sy['text_bytes']:,} UTF-8 bytes: ASCII, CJK, emoji) "
              f"at {SYNTH_RATE:,} tok/s. The server (its own process) writes every ~1 ms all the events due in one "
              f"sendall; writes per run {sy['server_writes']}, of which ending inside a multi-byte character "
              f"{sy['server_split_writes']}; server send rate {_fmt(sy['server_send_tok_s']['median'], 0)} tok/s. "
              "Scripted = the same tokens from Rill's scripted backend at the same rate (no network). Medians [min-max].", "",
              "| path | reps | every token shown | text exact | U+FFFD | produce tok/s | display tok/s | heartbeat p50 ms | p99 ms | max ms |",
              "|---|---|---|---|---|---|---|---|---|---|"]
        for kind in ("remote", "scripted"):
            r = sy[kind]
            L.append(f"| {kind} | {r['reps']} | {_fmt(r['every_token_shown'])} | {_fmt(r['text_exact'])} | {r['replacement_chars']} | "
                     f"{_fmt(r['produce_tok_s']['median'], 0)} | {_fmt(r['display_tok_s']['median'], 0)} | "
                     f"{_fmt(r['lag_p50_ms']['median'])} | {_fmt(r['lag_p99_ms']['median'])} "
                     f"[{_fmt(r['lag_p99_ms']['min'])}-{_fmt(r['lag_p99_ms']['max'])}] | "
                     f"{_fmt(r['lag_max_ms']['median'])} [{_fmt(r['lag_max_ms']['min'])}-{_fmt(r['lag_max_ms']['max'])}] |")
        wc = sy.get("worker_cost") or {}
        if wc:
            L += ["", "Diagnostic, the producer alone (unpaced, in the benchmark process, no window): "
                  + "; ".join(f"{k}: {_fmt(v['tok_s'], 0)} tok/s, {_fmt(v['cpu_us_per_token'])} µs CPU per token "
                              f"(= {_fmt(v['cpu_share_at_rate'], 3)} of a core at {SYNTH_RATE:,} tok/s)"
                              for k, v in wc.items()) + "."]
        ls = sy.get("lag_sources") or {}
        if ls:
            L += ["", "Diagnostic, one run each with the GUI thread's units of work timed "
                  "(benchmarks.lag_sources' timers; late beat = heartbeat > 2 ms late, blamed on the work that "
                  "overlapped it most):", "",
                  "| path | lag p99 / max ms | stream p99 / max | final p99 / max | source: late beats, lateness ms, call max ms |",
                  "|---|---|---|---|---|"]
            for kind, d in ls.items():
                ph = d.get("lag_phases") or {}
                srcs = "; ".join(f"{name}: {v.get('late_beats')}, {_fmt(v.get('late_ms'), 1)}"
                                 + (f", max {_fmt(v.get('ms_max'), 1)}" if v.get("ms_max") is not None else "")
                                 for name, v in list((d.get("sources") or {}).items())[:4])
                lag = d.get("ui_lag_ms") or {}
                L.append(f"| {kind} | {_fmt(lag.get('p99'))} / {_fmt(lag.get('max'))} | "
                         f"{_fmt((ph.get('stream') or {}).get('p99'))} / {_fmt((ph.get('stream') or {}).get('max'))} | "
                         f"{_fmt((ph.get('final') or {}).get('p99'))} / {_fmt((ph.get('final') or {}).get('max'))} | {srcs} |")
    st = res.get("stop")
    if st:
        L += ["", "## 3. Stop -> connection closed (core level, no Qt)", "",
              f"{st['reps']} reps per phase; t0 = {st['t0']}. closed = the server's blocking recv() returned; "
              "worker exit = the generator returned (FinishReason.CANCELLED).", "",
              "| phase | closed median ms | closed p95 | closed max | worker exit median ms | p95 | max | all cancelled | close seen as |",
              "|---|---|---|---|---|---|---|---|---|"]
        for phase in STOP_PHASES:
            r = st.get(phase)
            if r:
                c, e = r["closed_ms"], r["worker_exit_ms"]
                L.append(f"| {phase.replace('_', ' ')} | {_fmt(c['median'], 3)} | {_fmt(c['p95'], 3)} | {_fmt(c['max'], 3)} | "
                         f"{_fmt(e['median'], 3)} | {_fmt(e['p95'], 3)} | {_fmt(e['max'], 3)} | {_fmt(r['all_cancelled'])} | "
                         f"{', '.join(r['close_kinds'])} |")
    q = res.get("queue")
    if q:
        t = q["short_ttft_ms"]
        L += ["", "## 4. The next request after Stop (llama_cpp.server, interrupt_requests=False)", "",
              f"Long request: max_tokens {q['long_max_tokens']}, logit_bias {q['logit_bias']} (no early EOS), "
              f"stopped after {q['stopped_after_tokens']} tokens; then at once a short request (max_tokens "
              f"{q['short_max_tokens']}), its TTFT measured by the same bare client in every case. Idle: the long "
              "prompt is first run for 20 tokens to the end (same cache state), then the short request. Medians [min-max].", "",
              "| case | short TTFT ms | notes |", "|---|---|---|",
              f"| (i) Rill's Stop (cancel.set()) | {_fmt(t['rill_stop']['median'])} [{_fmt(t['rill_stop']['min'])}-{_fmt(t['rill_stop']['max'])}] | "
              f"server logged the disconnect every time: {_fmt(q['rill_server_logged_disconnect'])} |",
              f"| (ii) naive Stop (drains in background) | {_fmt(t['naive_stop']['median'])} [{_fmt(t['naive_stop']['min'])}-{_fmt(t['naive_stop']['max'])}] | "
              f"long reply {_fmt(q['naive_long_reply_s']['median'])} s, tokens {q['naive_long_tokens']}; short's first token after the long reply ended: {_fmt(q['naive_short_waited_for_long'])} |",
              f"| (iii) idle server | {_fmt(t['idle']['median'])} [{_fmt(t['idle']['min'])}-{_fmt(t['idle']['max'])}] | |"]
    L += ["", "Command: `python -m benchmarks.remote" + (" --quick" if res["mode"] == "quick" else "") + " --out DIR`", ""]
    (out / "remote.md").write_text("\n".join(L), encoding="utf-8")


# ------------------------------------------------------------------ main


def main(argv: list[str] | None = None) -> int:
    import sys

    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["lag-sources"]:
        lag_sources_child(argv[1:])
        return 0
    if argv[:1] == ["ttft-trace"]:
        ttft_trace_child(argv[1:])
        return 0
    ap = argparse.ArgumentParser(prog="python -m benchmarks.remote", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="fewer reps, shorter runs (~6 min; full ~15)")
    ap.add_argument("--out", default="bench-out")
    ap.add_argument("--phases", default="1,2,3,4", help="a subset of 1,2,3,4")
    ap.add_argument("--report-only", action="store_true", help="rewrite DIR/remote.md from DIR/remote.json")
    args = ap.parse_args(argv)
    if args.report_only:
        out = Path(args.out).resolve()
        res = json.loads((out / "remote.json").read_text(encoding="utf-8"))
        write_report(res, out)
        (out / "remote.json").write_text(json.dumps(res, indent=1, ensure_ascii=False), encoding="utf-8")
        log(f"rewrote {out / 'remote.md'}")
        return 0
    phases = {int(x) for x in args.phases.split(",") if x}
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    p = plan(args.quick)
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="rill-remote-"))
    res: dict[str, Any] = {"mode": "quick" if args.quick else "full", "started": time.strftime("%Y-%m-%d %H:%M:%S"),
                           "load_before": [round(x, 2) for x in load_average()], "machine": machine_info(),
                           "plan": p.__dict__, "timing": {}}
    t_all = time.monotonic()
    log(f"remote benchmark ({res['mode']}) -> {out}; load {res['load_before']}")
    llama = None
    try:
        if phases & {1, 4}:
            from tests.helpers.llama_server import LlamaServer

            llama = LlamaServer(interrupt_requests=False, n_threads=1).start()
            log(f"llama_cpp.server at {llama.url}, model {llama.model_id}")
        for num, name, fn in ((1, "throughput", lambda: phase_throughput(p, llama)),
                              (2, "synthetic", lambda: phase_synthetic(p, work)),
                              (3, "stop", lambda: phase_stop(p)),
                              (4, "queue", lambda: phase_queue(p, llama))):
            if num not in phases:
                continue
            log(f"phase {num}: {name} ...")
            t0 = time.monotonic()
            try:
                res[name] = fn()
                res[name]["load_after"] = [round(x, 2) for x in load_average()]
            except (ChildFailed, RuntimeError, httpx.HTTPError, OSError) as exc:
                log(f"phase {name} failed: {exc}")
                res.setdefault("errors", {})[name] = str(exc)[:2000]
            res["timing"][name] = round(time.monotonic() - t0, 1)
            log(f"phase {name} done in {res['timing'][name]:.0f} s")
    finally:
        if llama is not None:
            res["llama_server_log_tail"] = llama.log_tail(15)
            llama.cleanup()
        shutil.rmtree(work, ignore_errors=True)
    res["timing"]["total_s"] = round(time.monotonic() - t_all, 1)
    res["load_after"] = [round(x, 2) for x in load_average()]
    write_report(res, out)
    (out / "remote.json").write_text(json.dumps(res, indent=1, ensure_ascii=False), encoding="utf-8")
    log(f"wrote {out / 'remote.json'}, {out / 'remote.md'} in {res['timing']['total_s']:.0f} s")
    for g in res["goals"]:
        mark = "n/a   " if g["met"] is None else ("MET   " if g["met"] else "MISSED")
        log(f"  {mark} {g['goal']}: {g['measured']} (target {g['target']})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
