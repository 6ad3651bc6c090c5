"""The frame budget's own scenarios (issue #18), each a ``rill doctor`` run in
its own process (``python -m benchmarks.inproc``: the doctor's window and
heartbeat, plus the lag by phase and the process's peak RSS):

* ``paste_4mb``: a 4 MB pasted prompt, then a second turn the moment the
  200 KB-scale reply ends (``--prompt-file F --turns 2 --rate 0``): the
  heartbeat's max (goal <= 16 ms) and the RSS (goal <= 150 MB);
* ``history_2000``: 2,000 earlier messages open, 500 tok/s
  (``--history-messages 2000``): p99 (goal <= 4 ms);
* ``real_model``: SmolLM2 through llama-cpp-python (the doctor's default
  model), 200 tokens: the heartbeat's p99 against the idle floor measured
  in the same process just before (goal: within 1 ms).

Every run first idles ``IDLE_MS`` with the same heartbeat (``--idle-ms``):
the idle floor, reported beside each scenario. Runs alternate scenarios and
each row is the median of ``reps`` runs, with the stall report of the run
whose max is that median (``benchmarks.stalls``).

    python -m benchmarks.frames [--reps N] [--only NAME,...] [--workdir D]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from benchmarks import stalls
from benchmarks.common import ChildFailed, log, run_json, spread

IDLE_MS = 1000
PASTE_BYTES = 4 * 2**20
SCENARIOS = ("paste_4mb", "history_2000", "real_model")


def _paste_file(workdir: Path) -> Path:
    from benchmarks.actions import paste_text

    path = workdir / "texts" / "paste-4mb.txt"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(paste_text(PASTE_BYTES), encoding="utf-8")
    return path


def doctor_args(name: str, workdir: Path) -> list[str]:
    common = ["-m", "benchmarks.inproc", "--idle-ms", str(IDLE_MS), "--timeout-s", "600"]
    if name == "paste_4mb":
        return [*common, "--backend", "scripted", "--rate", "0", "--prompt-file", str(_paste_file(workdir)),
                "--turns", "2"]
    if name == "history_2000":
        return [*common, "--backend", "scripted", "--rate", "500", "--history-messages", "2000"]
    if name == "real_model":
        return [*common, "--max-tokens", "200", "--seed", "7", "--ignore-eos",
                "--prompt", "Write a long story about a lighthouse keeper."]
    raise ValueError(name)


def run_one(name: str, workdir: Path) -> dict[str, Any]:
    try:
        res = run_json(doctor_args(name, workdir), timeout_s=900)
    except ChildFailed as exc:
        return {"scenario": name, "ok": False, "error": str(exc)[:800]}
    d = res.data
    lag = d.get("ui_lag_ms") or {}
    idle = (d.get("idle") or {}).get("ui_lag_ms") or {}
    return {
        "scenario": name, "ok": bool(d.get("ok")), "error": d.get("error", ""),
        "p50": lag.get("p50"), "p99": lag.get("p99"), "max": lag.get("max"),
        "idle_p99": idle.get("p99"), "idle_max": idle.get("max"),
        "rss_start_mb": d.get("rss_start_mb"), "rss_mb": d.get("rss_mb"), "peak_rss_mb": d.get("peak_rss_mb"),
        "send_ms": max(d.get("send_ms") or [0.0]), "paste_ms": max(d.get("paste_ms") or [0.0]),
        "tokens_per_s": d.get("tokens_per_s"), "tokens": d.get("tokens"),
        "history_open_ms": d.get("history_open_ms"),
        "stalls": stalls.summarize(d.get("stalls") or []),
        "idle_stalls": stalls.summarize((d.get("idle") or {}).get("stalls") or []),
        "wall_s": round(res.wall_s, 1),
    }


METRICS = ("p50", "p99", "max", "idle_p99", "idle_max", "rss_mb", "peak_rss_mb", "send_ms", "paste_ms",
           "tokens_per_s", "history_open_ms")


def run(names: list[str], reps: int, workdir: Path) -> dict[str, Any]:
    runs: list[dict[str, Any]] = []
    for rep in range(reps):
        for name in names:
            r = run_one(name, workdir)
            r["rep"] = rep
            runs.append(r)
            log(f"  frames {name} {rep + 1}/{reps}: p99 {r.get('p99')} max {r.get('max')} ms "
                f"(idle p99 {r.get('idle_p99')} max {r.get('idle_max')}), RSS {r.get('rss_mb')} MB, "
                f"{stalls.explain(r.get('stalls'))} {r.get('error', '')[:200]}")
    rows = []
    for name in names:
        group = [r for r in runs if r["scenario"] == name]
        row: dict[str, Any] = {"scenario": name, "reps": len(group), "ok_runs": sum(1 for r in group if r["ok"])}
        for m in METRICS:
            s = spread(r.get(m) for r in group)
            row[m] = s["median"]
            row[f"{m}_range"] = [s["min"], s["max"]]
        judged = stalls.median_run(group)
        row["stalls"] = judged.get("stalls") if judged else None
        row["idle_stalls"] = judged.get("idle_stalls") if judged else None
        errors = sorted({r["error"] for r in group if r.get("error")})
        if errors:
            row["errors"] = errors
        rows.append(row)
    return {"rows": rows, "runs": runs, "reps": reps, "idle_ms": IDLE_MS}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--only", default="", help=f"comma-separated subset of {','.join(SCENARIOS)}")
    ap.add_argument("--workdir", default="bench-out/work")
    args = ap.parse_args(argv)
    names = [n for n in args.only.split(",") if n] or list(SCENARIOS)
    print(json.dumps(run(names, args.reps, Path(args.workdir))))


if __name__ == "__main__":
    main()
