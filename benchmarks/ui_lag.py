"""UI responsiveness under a scripted producer: Rill vs two naive renderers.

For every rate (tok/s) and history size (characters already in the
transcript) each renderer streams the same Markdown text, one process per
run:

* ``rill``: ``python -m app doctor --backend scripted --rate R
  --history-chars H --text-file F`` (the real window, its real pipeline);
* ``naive_append`` / ``naive_rerender``: ``python -m benchmarks.naive``.

Runs alternate renderers (rill, naive_append, naive_rerender, rill, ...) and
repeat the whole sweep, so drift on a shared machine hits every side. Each
row reports the median over repetitions, with min-max in ``spread``.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.common import ChildFailed, log, ratio, run_json, spread, write_stream_text

RENDERERS = ("rill", "naive_append", "naive_rerender")
RATES = (50, 500, 5000, 50000)
HISTORIES = (0, 1_000_000)
METRICS = ("p50", "p99", "max", "t2s_p50", "t2s_p95", "display_ratio", "backlog_end",
           "produce_tok_s", "display_tok_s")


@dataclass(frozen=True)
class Config:
    rates: Sequence[int] = RATES
    histories: Sequence[int] = HISTORIES
    reps: int = 3
    stream_s: float = 2.0       # how long each stream lasts at its rate
    cap_s: float = 10.0         # naive runs: stop waiting this long after the producer finished
    min_tokens: int = 100


def _tokens_for(rate: int, cfg: Config) -> int:
    return max(cfg.min_tokens, int(rate * cfg.stream_s))


def _row(renderer: str, rate: int, history: int, data: dict[str, Any]) -> dict[str, Any]:
    lag = data.get("ui_lag_ms") or {}
    t2s = data.get("token_to_screen_ms") or {}
    return {
        "renderer": renderer,
        "rate": rate,
        "history_chars": history,
        "p50": lag.get("p50"),
        "p99": lag.get("p99"),
        "max": lag.get("max"),
        "t2s_p50": t2s.get("p50"),
        "t2s_p95": t2s.get("p95"),
        "display_ratio": data.get("display_ratio"),
        "backlog_end": data.get("backlog_end"),
        "produce_tok_s": data.get("produce_tok_s"),
        "display_tok_s": data.get("display_tok_s"),
        "tokens_produced": data.get("tokens_produced"),
        "tokens_shown": data.get("tokens"),
        "heartbeats": data.get("heartbeats"),
        "ok": bool(data.get("ok")),
        "capped": bool(data.get("capped", False)),
        "producer_finished": data.get("producer_finished", True),
        "unshown": data.get("unshown", 0),
        "error": data.get("error", ""),
        "render_passes": data.get("render_passes"),
        "render_pass_max_ms": data.get("render_pass_max_ms"),
        "buffer_max_depth": data.get("buffer_max_depth"),
        "producer_blocked_ms": data.get("producer_blocked_ms"),
    }


def run_one(renderer: str, rate: int, history: int, text_file: Path, cfg: Config) -> dict[str, Any]:
    if renderer == "rill":
        args = ["-m", "app", "doctor", "--backend", "scripted", "--rate", str(rate),
                "--history-chars", str(history), "--text-file", str(text_file),
                "--timeout-s", "600"]
    else:
        args = ["-m", "benchmarks.naive", "--mode", renderer.removeprefix("naive_"),
                "--rate", str(rate), "--history-chars", str(history),
                "--text-file", str(text_file), "--cap-s", str(cfg.cap_s)]
    try:
        result = run_json(args, timeout_s=900)
    except ChildFailed as exc:
        log(f"  {renderer} failed: {exc}")
        return _row(renderer, rate, history, {"ok": False, "error": str(exc)[:500]})
    row = _row(renderer, rate, history, result.data)
    row["wall_s"] = round(result.wall_s, 1)
    return row


def aggregate(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per (renderer, rate, history): medians, plus min-max in ``spread``."""
    keys = sorted({(r["renderer"], r["rate"], r["history_chars"]) for r in runs},
                  key=lambda k: (k[2], k[1], RENDERERS.index(k[0])))
    out = []
    for renderer, rate, history in keys:
        group = [r for r in runs if (r["renderer"], r["rate"], r["history_chars"]) == (renderer, rate, history)]
        row: dict[str, Any] = {"renderer": renderer, "rate": rate, "history_chars": history}
        spreads = {m: spread(r.get(m) for r in group) for m in METRICS}
        row.update({m: s["median"] for m, s in spreads.items()})
        row["spread"] = {m: [s["min"], s["max"]] for m, s in spreads.items()}
        row["reps"] = len(group)
        row["ok_runs"] = sum(1 for r in group if r["ok"])
        row["capped_runs"] = sum(1 for r in group if r["capped"])
        row["unshown_max"] = max((r.get("unshown") or 0) for r in group)
        errors = sorted({r["error"] for r in group if r.get("error")})
        if errors:
            row["errors"] = errors
        out.append(row)
    return out


def ratios(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rill / naive for every workload (lag and latency: < 1 is better for
    Rill; display_ratio and display_tok_s: > 1 is better). display_tok_s
    matters where a naive renderer starved its own producer: its
    display_ratio then looks fine while it shows a fraction of the target rate."""
    by = {(r["renderer"], r["rate"], r["history_chars"]): r for r in rows}
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


def run(cfg: Config, workdir: Path) -> dict[str, Any]:
    texts = {rate: write_stream_text(workdir / "texts", _tokens_for(rate, cfg)) for rate in cfg.rates}
    runs: list[dict[str, Any]] = []
    total = cfg.reps * len(cfg.rates) * len(cfg.histories) * len(RENDERERS)
    i = 0
    for rep in range(cfg.reps):
        for history in cfg.histories:
            for rate in cfg.rates:
                for renderer in RENDERERS:
                    i += 1
                    row = run_one(renderer, rate, history, texts[rate], cfg)
                    row["rep"] = rep
                    runs.append(row)
                    log(f"  ui_lag {i}/{total} {renderer:15s} {rate:>6} tok/s hist {history:>8}: "
                        f"lag p99 {row['p99']} max {row['max']} ms, t2s p95 {row['t2s_p95']} ms, "
                        f"display {row['display_ratio']}, backlog {row['backlog_end']}"
                        f"{' CAPPED' if row['capped'] else ''} ({row.get('wall_s')} s)")
    rows = aggregate(runs)
    return {
        "config": {"rates": list(cfg.rates), "histories": list(cfg.histories), "reps": cfg.reps,
                   "stream_s": cfg.stream_s, "naive_cap_s": cfg.cap_s},
        "rows": rows,
        "ratios": ratios(rows),
        "runs": runs,
    }


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=1)
    ap.add_argument("--rates", default=",".join(map(str, RATES)))
    ap.add_argument("--histories", default=",".join(map(str, HISTORIES)))
    ap.add_argument("--stream-s", type=float, default=2.0)
    ap.add_argument("--cap-s", type=float, default=10.0)
    ap.add_argument("--workdir", default="bench-out/work")
    args = ap.parse_args(argv)
    cfg = Config(
        rates=[int(x) for x in args.rates.split(",")],
        histories=[int(x) for x in args.histories.split(",")],
        reps=args.reps, stream_s=args.stream_s, cap_s=args.cap_s,
    )
    out = run(cfg, Path(args.workdir))
    out.pop("runs")
    print(json.dumps(out))


if __name__ == "__main__":
    main()
