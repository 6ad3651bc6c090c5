"""UI responsiveness under a scripted producer: Rill vs two naive renderers,
plus hard content.

Grid: for every rate (tok/s) and history size (characters of earlier
conversation already open) each renderer streams the same Markdown text, one
process per run:

* ``rill``: ``rill doctor --backend scripted --rate R --history-chars H
  --text-file F``, run in-process by ``python -m benchmarks.inproc`` (the
  doctor's own parser, window and measurement; it adds the lag split by phase:
  opening the history, streaming, final render);
* ``naive_append`` / ``naive_rerender``: ``python -m benchmarks.naive``, with
  the same history (rendered into its one QTextEdit).

Content rows (Rill only, no history, 1,000 tok/s): a 20,000-character
unbroken line ('A's, and base64), a 100,000-character CJK paragraph, an 8 KB
fenced code block and a 50-row table, each written to a file and streamed by
the doctor; the text shown must hold every character (``text_intact``).

Runs alternate renderers (rill, naive_append, naive_rerender, rill, ...) and
repeat the whole sweep, so drift on a shared machine hits every side. Each
row reports the median over repetitions, with min-max in ``spread``.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks import stalls
from benchmarks.common import (
    CONTENT_KINDS,
    ChildFailed,
    content_text,
    log,
    ratio,
    run_json,
    spread,
    text_intact,
    write_content_text,
    write_stream_text,
)

RENDERERS = ("rill", "naive_append", "naive_rerender")
RATES = (50, 500, 5000, 50000)
HISTORIES = (0, 1_000_000, 10_000_000)
METRICS = ("p50", "p99", "max", "stream_p99", "stream_max", "open_max", "final_max", "t2s_p50", "t2s_p95",
           "display_ratio", "backlog_end", "produce_tok_s", "display_tok_s", "history_open_ms",
           "view_slice_max_ms", "send_ms", "idle_p99", "idle_max")
#: Rill runs: the window idles this long first, with the same heartbeat (the
#: idle floor, ``rill doctor --idle-ms``), so every row has its own floor.
IDLE_MS = 1000


@dataclass(frozen=True)
class Config:
    rates: Sequence[int] = RATES
    histories: Sequence[int] = HISTORIES
    reps: int = 3
    stream_s: float = 2.0       # how long each stream lasts at its rate
    cap_s: float = 10.0         # naive runs: stop waiting this long after the producer finished
    min_tokens: int = 100
    #: history -> the rates Rill runs at with it (default: every rate)
    rill_rates_at: Mapping[int, Sequence[int]] = field(default_factory=dict)
    #: history -> the rates the naive renderers run at (default: every rate)
    naive_rates_at: Mapping[int, Sequence[int]] = field(default_factory=dict)
    #: history -> the naive renderers run with it (default: both)
    naive_renderers_at: Mapping[int, Sequence[str]] = field(default_factory=dict)
    #: history -> repetitions of the naive runs (default: reps)
    naive_reps_at: Mapping[int, int] = field(default_factory=dict)
    content: Sequence[str] = CONTENT_KINDS
    content_rate: int = 1000
    content_reps: int = 1

    def runs_workload(self, renderer: str, rate: int, history: int, rep: int) -> bool:
        if renderer == "rill":
            return rate in self.rill_rates_at.get(history, self.rates) and rep < self.reps
        if renderer not in self.naive_renderers_at.get(history, RENDERERS[1:]):
            return False
        return rate in self.naive_rates_at.get(history, self.rates) and rep < self.naive_reps_at.get(history, self.reps)


def _tokens_for(rate: int, cfg: Config) -> int:
    return max(cfg.min_tokens, int(rate * cfg.stream_s))


def _row(renderer: str, rate: int, history: int, data: dict[str, Any], content: str = "") -> dict[str, Any]:
    lag = data.get("ui_lag_ms") or {}
    t2s = data.get("token_to_screen_ms") or {}
    phases = data.get("lag_phases") or {}
    shown, produced = data.get("tokens"), data.get("tokens_produced")
    send_ms = data.get("send_ms") or []
    idle = (data.get("idle") or {}).get("ui_lag_ms") or {}
    return {
        "renderer": renderer,
        "rate": rate,
        "history_chars": history,
        "content": content,
        "p50": lag.get("p50"),
        "p99": lag.get("p99"),
        "max": lag.get("max"),
        "stream_p99": (phases.get("stream") or {}).get("p99"),
        "stream_max": (phases.get("stream") or {}).get("max"),
        "open_max": (phases.get("open") or {}).get("max"),
        "final_max": (phases.get("final") or {}).get("max"),
        "t2s_p50": t2s.get("p50"),
        "t2s_p95": t2s.get("p95"),
        "display_ratio": data.get("display_ratio"),
        "backlog_end": data.get("backlog_end"),
        "produce_tok_s": data.get("produce_tok_s"),
        "display_tok_s": data.get("display_tok_s"),
        "tokens_produced": produced,
        "tokens_shown": shown,
        "all_shown": shown is not None and shown == produced,
        "fffd": (data.get("reply_text") or "").count("\ufffd") if renderer == "rill" else None,
        "heartbeats": data.get("heartbeats"),
        "ok": bool(data.get("ok")),
        "capped": bool(data.get("capped", False)),
        "producer_finished": data.get("producer_finished", True),
        "unshown": data.get("unshown", 0),
        "error": data.get("error", ""),
        "history_open_ms": data.get("history_open_ms"),
        "history_messages": data.get("history_messages"),
        "view_slice_max_ms": data.get("view_slice_max_ms"),
        "send_ms": max(send_ms) if send_ms else None,
        "buffer_max_depth": data.get("buffer_max_depth"),
        "producer_blocked_ms": data.get("producer_blocked_ms"),
        "idle_p99": idle.get("p99"),
        "idle_max": idle.get("max"),
        # every heartbeat over 8 ms and what the GUI thread did (Rill only)
        "stalls": stalls.summarize(data.get("stalls") or []) if renderer == "rill" else None,
    }


def run_one(renderer: str, rate: int, history: int, text_file: Path, cfg: Config, workdir: Path,
            content: str = "") -> dict[str, Any]:
    if renderer == "rill":
        args = ["-m", "benchmarks.inproc", "--backend", "scripted", "--rate", str(rate),
                "--history-chars", str(history), "--text-file", str(text_file),
                "--prompt", "Write a reply in Markdown.", "--timeout-s", "600", "--idle-ms", str(IDLE_MS)]
    else:
        args = ["-m", "benchmarks.naive", "--mode", renderer.removeprefix("naive_"),
                "--rate", str(rate), "--history-chars", str(history),
                "--text-file", str(text_file), "--cap-s", str(cfg.cap_s),
                "--cache-dir", str(workdir / "cache")]
    try:
        result = run_json(args, timeout_s=900)
    except ChildFailed as exc:
        log(f"  {renderer} failed: {exc}")
        return _row(renderer, rate, history, {"ok": False, "error": str(exc)[:500]}, content)
    row = _row(renderer, rate, history, result.data, content)
    if content:
        row["text_intact"] = text_intact(content, content_text(content), result.data.get("reply_text") or "")
    row["wall_s"] = round(result.wall_s, 1)
    return row


def _key(r: dict[str, Any]) -> tuple[str, int, int, str]:
    return (r["renderer"], r["rate"], r["history_chars"], r.get("content", ""))


def aggregate(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per (renderer, rate, history, content): medians, plus min-max in ``spread``."""
    keys = sorted({_key(r) for r in runs},
                  key=lambda k: (k[3] != "", k[3], k[2], k[1], RENDERERS.index(k[0])))
    out = []
    for key in keys:
        renderer, rate, history, content = key
        group = [r for r in runs if _key(r) == key]
        row: dict[str, Any] = {"renderer": renderer, "rate": rate, "history_chars": history, "content": content}
        spreads = {m: spread(r.get(m) for r in group) for m in METRICS}
        row.update({m: s["median"] for m, s in spreads.items()})
        row["spread"] = {m: [s["min"], s["max"]] for m, s in spreads.items()}
        row["reps"] = len(group)
        row["ok_runs"] = sum(1 for r in group if r["ok"])
        row["all_shown_runs"] = sum(1 for r in group if r.get("all_shown"))
        row["capped_runs"] = sum(1 for r in group if r["capped"])
        row["unshown_max"] = max((r.get("unshown") or 0) for r in group)
        fffd = [r["fffd"] for r in group if r.get("fffd") is not None]
        row["fffd_max"] = max(fffd) if fffd else None
        if content:
            row["text_intact_runs"] = sum(1 for r in group if r.get("text_intact"))
        row["history_messages"] = group[0].get("history_messages")
        judged = stalls.median_run(group)
        row["stalls"] = judged.get("stalls") if judged else None   # the run the median max describes
        errors = sorted({r["error"] for r in group if r.get("error")})
        if errors:
            row["errors"] = errors
        out.append(row)
    return out


def ratios(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rill / naive for every grid workload (lag and latency: < 1 is better for
    Rill; display_ratio and display_tok_s: > 1 is better). display_tok_s
    matters where a naive renderer starved its own producer: its
    display_ratio then looks fine while it shows a fraction of the target rate."""
    by = {(r["renderer"], r["rate"], r["history_chars"]): r for r in rows if not r.get("content")}
    out = []
    for (renderer, rate, history), rill in by.items():
        if renderer != "rill":
            continue
        for naive in RENDERERS[1:]:
            other = by.get((naive, rate, history))
            if other is None:
                continue
            out.append({
                "vs": naive, "rate": rate, "history_chars": history,
                **{f"{m}_ratio": ratio(rill.get(m), other.get(m))
                   for m in ("p50", "p99", "max", "t2s_p50", "t2s_p95", "display_ratio", "display_tok_s")},
            })
    return out


def _log_row(i: int, total: int, row: dict[str, Any]) -> None:
    what = row["content"] or f"hist {row['history_chars']:>8}"
    extra = ""
    if row["renderer"] == "rill":
        extra = f", stream p99 {row['stream_p99']} max {row['stream_max']}, open max {row['open_max']}"
    if row.get("content"):
        extra += f", intact {row.get('text_intact')}"
    log(f"  ui_lag {i}/{total} {row['renderer']:15s} {row['rate']:>6} tok/s {what}: "
        f"lag p99 {row['p99']} max {row['max']} ms{extra}, display {row['display_ratio']}, "
        f"shown {row['tokens_shown']}/{row['tokens_produced']}"
        f"{' CAPPED' if row['capped'] else ''} ({row.get('wall_s')} s)")


def run(cfg: Config, workdir: Path) -> dict[str, Any]:
    texts = {rate: write_stream_text(workdir / "texts", _tokens_for(rate, cfg)) for rate in cfg.rates}
    plan: list[tuple[str, int, int, int]] = []
    for rep in range(cfg.reps):
        for history in cfg.histories:
            for rate in cfg.rates:
                for renderer in RENDERERS:
                    if cfg.runs_workload(renderer, rate, history, rep):
                        plan.append((renderer, rate, history, rep))
    content_plan = [(kind, rep) for rep in range(cfg.content_reps) for kind in cfg.content]
    total = len(plan) + len(content_plan)
    runs: list[dict[str, Any]] = []
    i = 0
    for renderer, rate, history, rep in plan:
        i += 1
        row = run_one(renderer, rate, history, texts[rate], cfg, workdir)
        row["rep"] = rep
        runs.append(row)
        _log_row(i, total, row)
    for kind, rep in content_plan:
        i += 1
        path = write_content_text(workdir / "texts", kind)
        row = run_one("rill", cfg.content_rate, 0, path, cfg, workdir, content=kind)
        row["rep"] = rep
        runs.append(row)
        _log_row(i, total, row)
    rows = aggregate(runs)
    return {
        "config": {"rates": list(cfg.rates), "histories": list(cfg.histories), "reps": cfg.reps,
                   "stream_s": cfg.stream_s, "naive_cap_s": cfg.cap_s,
                   "rill_rates_at": {str(k): list(v) for k, v in cfg.rill_rates_at.items()},
                   "naive_rates_at": {str(k): list(v) for k, v in cfg.naive_rates_at.items()},
                   "naive_renderers_at": {str(k): list(v) for k, v in cfg.naive_renderers_at.items()},
                   "naive_reps_at": {str(k): v for k, v in cfg.naive_reps_at.items()},
                   "content": list(cfg.content), "content_rate": cfg.content_rate,
                   "content_reps": cfg.content_reps},
        "rows": rows,
        "ratios": ratios(rows),
        "runs": runs,
    }


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=1)
    ap.add_argument("--rates", default=",".join(map(str, RATES)))
    ap.add_argument("--histories", default=",".join(map(str, HISTORIES)))
    ap.add_argument("--content", default=",".join(CONTENT_KINDS), help="content rows ('' for none)")
    ap.add_argument("--stream-s", type=float, default=2.0)
    ap.add_argument("--cap-s", type=float, default=10.0)
    ap.add_argument("--workdir", default="bench-out/work")
    args = ap.parse_args(argv)
    cfg = Config(
        rates=[int(x) for x in args.rates.split(",")],
        histories=[int(x) for x in args.histories.split(",")],
        reps=args.reps, stream_s=args.stream_s, cap_s=args.cap_s,
        content=[c for c in args.content.split(",") if c],
    )
    out = run(cfg, Path(args.workdir))
    out.pop("runs")
    print(json.dumps(out))


if __name__ == "__main__":
    main()
