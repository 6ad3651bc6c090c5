"""Hostile servers against the real window (issue #17's goals): for each,
``rill doctor --backend openai`` (the real window, offscreen, a fresh
profile) against a server on 127.0.0.1 that misbehaves one way, measured
from outside.

    python -m benchmarks.hostile [--out DIR] [--only NAME,...]

Per server: the doctor's peak RSS (``wait4``'s ``ru_maxrss`` of that
process), the GUI heartbeat's p99 and max lateness (the doctor's
``ui_lag_ms``, from Enter to the end), the worst stall and what the GUI
thread was doing then, the wall time until the reply ended, and the message
the user saw. Goals: RSS <= 400 MB, max stall <= 16 ms, a clear message
within the stall timeout (5 s here), the app usable afterwards (the doctor
ends cleanly, exit status 0 or 1 with a JSON report).

Writes DIR/hostile.json and DIR/hostile.md.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.helpers.hostile_server import Exchange, HostileServer, endless_sse_event, endless_sse_line, gzip_zeros

SSE = [("Content-Type", "text/event-stream")]
JSON_TYPE = [("Content-Type", "application/json")]
STALL_S = 5.0


def _event(obj: object) -> bytes:
    return b"data: " + json.dumps(obj).encode() + b"\n\n"


def _delta(text: str) -> bytes:
    return _event({"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}]})


def _models_ok(ex: Exchange) -> None:
    body = b'{"data": [{"id": "m"}]}'
    ex.head(200, JSON_TYPE + [("Content-Length", str(len(body)))])
    ex.send(body)


def _models_endless(ex: Exchange) -> None:
    ex.head(200, JSON_TYPE, chunked=True)
    ex.chunk(b'{"data": [')
    while True:
        ex.chunk(b'{"id": "m"},' * 4096)


def _models_gzip_bomb(ex: Exchange) -> None:
    ex.head(200, JSON_TYPE + [("Content-Encoding", "gzip")], chunked=True)
    for piece in gzip_zeros():
        ex.chunk(piece)


def _models_200000(ex: Exchange) -> None:
    body = json.dumps({"data": [{"id": f"m{k:06d}"} for k in range(200_000)]}).encode()
    ex.head(200, JSON_TYPE + [("Content-Length", str(len(body)))])
    ex.send(body)


def _chat_ok(ex: Exchange) -> None:
    ex.head(200, SSE, chunked=True)
    for word in ("Hello", " from", " a", " fine", " server."):
        ex.chunk(_delta(word))
    ex.chunk(b"data: [DONE]\n\n")
    ex.chunk(b"")


_chat_endless_line = endless_sse_line
_chat_endless_event = endless_sse_event(_delta("hello "))


def _chat_gzip_bomb(ex: Exchange) -> None:
    ex.head(200, SSE + [("Content-Encoding", "gzip")], chunked=True)
    for piece in gzip_zeros():
        ex.chunk(piece)


def _chat_pings(ex: Exchange) -> None:
    ex.head(200, SSE, chunked=True)
    ex.chunk(_delta("a"))
    for _ in range(150):
        ex.chunk(b": ping\n\n")
        ex.wait(0.2)
    ex.chunk(b"")


def _chat_one_huge_delta(ex: Exchange) -> None:
    """20 MB in one delta (the reply cap is 4 M characters)."""
    ex.head(200, SSE, chunked=True)
    ex.chunk(_delta("z" * 20_000_000))
    ex.chunk(b"data: [DONE]\n\n")
    ex.chunk(b"")


def _chat_short_lines(ex: Exchange) -> None:
    """1 MB of short lines, as fast as the socket takes them."""
    ex.head(200, SSE, chunked=True)
    batch = b"".join(_delta(f"line {k:06d}\n") for k in range(1000))
    for _ in range(80):
        ex.chunk(batch)
    ex.chunk(b"data: [DONE]\n\n")
    ex.chunk(b"")


def _chat_surrogate(ex: Exchange) -> None:
    ex.head(200, SSE, chunked=True)
    ex.chunk(_delta("before "))
    ex.chunk(b'data: {"choices": [{"index": 0, "delta": {"content": "\\ud800 after"}}]}\n\n')
    ex.chunk(b"data: [DONE]\n\n")
    ex.chunk(b"")


def _chat_redirect(ex: Exchange) -> None:
    ex.head(307, [("Location", "http://203.0.113.9/v1/chat/completions"), ("Content-Length", "0")],
            reason="Temporary Redirect")


SCENARIOS: dict[str, tuple[str, Callable[[Exchange], None], Callable[[Exchange], None]]] = {
    "a well-behaved server (control)": ("five deltas, then [DONE]", _models_ok, _chat_ok),
    "model list: endless body": ("GET /v1/models never ends", _models_endless, _chat_ok),
    "model list: gzip bomb": ("GET /v1/models is a gzip bomb", _models_gzip_bomb, _chat_ok),
    "model list: 200,000 models": ("GET /v1/models lists 200,000", _models_200000, _chat_ok),
    "stream: endless line": ("one data: line that never ends", _models_ok, _chat_endless_line),
    "stream: endless event": ("data: lines, never a blank line", _models_ok, _chat_endless_event),
    "stream: gzip bomb": ("a gzip-compressed endless stream", _models_ok, _chat_gzip_bomb),
    "stream: keep-alives only": ("': ping' every 0.2 s for 30 s", _models_ok, _chat_pings),
    "stream: 20 MB in one delta": ("one delta of 20,000,000 characters", _models_ok, _chat_one_huge_delta),
    "stream: 1 MB of short lines": ("80,000 deltas of one short line", _models_ok, _chat_short_lines),
    "stream: lone surrogate": ('"\\ud800" in valid JSON', _models_ok, _chat_surrogate),
    "chat request redirected": ("307 to another host", _models_ok, _chat_redirect),
}


def _router(models: Callable[[Exchange], None], chat: Callable[[Exchange], None]) -> Callable[[Exchange], None]:
    def handler(ex: Exchange) -> None:
        (models if ex.request.method == "GET" else chat)(ex)
    return handler


def run_one(name: str, timeout_s: float = 90.0, tree: str = "") -> dict[str, Any]:
    _what, models, chat = SCENARIOS[name]
    with HostileServer(_router(models, chat)) as server, tempfile.TemporaryDirectory() as home:
        env = dict(os.environ, QT_QPA_PLATFORM="offscreen", XDG_CONFIG_HOME=f"{home}/config",
                   XDG_DATA_HOME=f"{home}/data")
        cmd = [sys.executable, "-m", "app", "doctor", "--backend", "openai", "--base-url", server.url,
               "--api-model", "m", "--stall-timeout", str(STALL_S), "--prompt", "hello",
               "--timeout-s", str(timeout_s)]
        t0 = time.monotonic()
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=tree or None)
        out, err = proc.communicate(timeout=timeout_s + 60)
        wall = time.monotonic() - t0
    try:
        data = json.loads(out.decode("utf-8", errors="replace") or "{}")
    except json.JSONDecodeError:
        data = {}
    lag = data.get("ui_lag_ms") or {}
    stalls = data.get("stalls") or []
    worst = max(stalls, key=lambda s: s["late_ms"], default=None)
    return {
        "name": name,
        "exit": proc.returncode,
        "wall_s": round(wall, 2),
        "rss_end_mb": data.get("rss_mb"),
        "lag_p99_ms": lag.get("p99"),
        "lag_max_ms": lag.get("max"),
        "worst_stall": worst,
        "error": data.get("error", ""),
        "finish_reason": data.get("finish_reason"),
        "reply_chars": len(data.get("reply_text") or ""),
        "stderr_tail": err.decode("utf-8", errors="replace")[-400:] if proc.returncode not in (0, 1) else "",
    }


def with_peak_rss(name: str, timeout_s: float = 90.0, tree: str = "") -> dict[str, Any]:
    """``run_one`` in a child of a fresh process, so that ``RUSAGE_CHILDREN``'s
    peak (``peak_rss_mb``) is this doctor's own."""
    code = (
        "import json, resource, sys; from benchmarks.hostile import run_one; "
        f"r = run_one({name!r}, {timeout_s}, {tree!r}); "
        "r['peak_rss_mb'] = round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, 1); "
        "print(json.dumps(r))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout_s + 120,
                          cwd=Path(__file__).resolve().parents[1])
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def report(results: list[dict[str, Any]]) -> str:
    lines = [
        "# Hostile servers against the real window",
        "",
        f"`rill doctor --backend openai --stall-timeout {STALL_S:g}` against each server (offscreen, fresh profile).",
        "Goals: peak RSS <= 400 MB, GUI max lateness <= 16 ms, a clear message within the stall timeout.",
        "",
        "| server | peak RSS (MB) | GUI p99 / max (ms) | worst stall: doing | ended after (s) | what the user saw |",
        "|---|---|---|---|---|---|",
    ]
    for r in results:
        worst = r.get("worst_stall")
        doing = "" if not worst else ", ".join(f"{k} {v:.0f}" for k, v in worst["doing"][:2])
        said = (r["error"] or f"reply of {r['reply_chars']:,} characters ({r['finish_reason']})").replace("|", "/")
        lines.append(
            f"| {r['name']} | {r['peak_rss_mb']:.0f} | {r['lag_p99_ms']} / {r['lag_max_ms']} | {doing} | "
            f"{r['wall_s']:.1f} | {said[:160]} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs/perf"))
    parser.add_argument("--only", default="", help="comma-separated scenario names")
    parser.add_argument("--tree", default="", help="the checkout whose app the doctor runs (default: this one)")
    args = parser.parse_args(argv)
    names = [n for n in SCENARIOS if not args.only or n in args.only.split(",")]
    results = []
    for name in names:
        result = with_peak_rss(name, tree=args.tree)
        results.append(result)
        print(f"{name}: peak {result['peak_rss_mb']} MB, max lag {result['lag_max_ms']} ms, "
              f"{result['wall_s']} s, {result['error'][:100] or result['finish_reason']}", flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "hostile.json").write_text(json.dumps(results, indent=1))
    (args.out / "hostile.md").write_text(report(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
