"""Rill's benchmark suite.

    python -m benchmarks [--quick] [--out DIR] [--only SUITE,...]

Writes DIR/results.json, DIR/report.md and PNG plots (default DIR:
bench-out/). Every measurement runs in a child process (the real window
offscreen, the naive renderers, the llama-cpp-python baselines); this
process only orchestrates, so it never competes with them for the GUI
thread. ``--quick`` takes about 6 minutes on a 2-core machine, the full run
about 30. Suites: tick_cost, ui_lag, lag_sources, actions, frames (issue
#18's own scenarios), throughput, stop, memory. ``--only`` re-runs some
suites and keeps the others' results from an existing DIR/results.json.
report.md starts with issue #18's frame budget, then the goals of issue #7,
each measured value and whether it was met.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks import actions, frames, report, throughput, ui_lag
from benchmarks.common import ChildFailed, load_average, log, machine_info, run_json, write_stream_text

SUITES = ("tick_cost", "ui_lag", "lag_sources", "actions", "frames", "throughput", "stop", "memory")
M = 1_000_000


@dataclass(frozen=True)
class Plan:
    quick: bool
    ui: ui_lag.Config
    throughput: throughput.Config
    stop_runs: int
    stalled_tokens: int
    cycles: int
    tick_levels: tuple[int, ...]
    tick_ticks: int
    lag_sources: tuple[tuple[int, int], ...]   # (rate, history)
    action_reps: int
    frame_reps: int
    history_positions: int


def plan(quick: bool) -> Plan:
    if quick:
        return Plan(
            quick=True,
            # 10 M of history at one rate only (Rill and naive_append: the
            # naive renderers take ~20 s to set up a 10 M-character document).
            ui=ui_lag.Config(reps=1, stream_s=1.5, cap_s=4.0,
                             rill_rates_at={10 * M: (5000,)}, naive_rates_at={10 * M: (5000,)},
                             naive_renderers_at={10 * M: ("naive_append",)}, content_reps=1),
            throughput=throughput.Config(lengths=(200, 400), reps={200: 1, 400: 1}),
            stop_runs=10, stalled_tokens=200_000, cycles=100,
            tick_levels=(0, 100_000, 1 * M, 10 * M), tick_ticks=60,
            lag_sources=((5000, 10 * M), (50000, 0)),
            action_reps=2, frame_reps=1, history_positions=20,
        )
    return Plan(
        quick=False,
        ui=ui_lag.Config(reps=3, stream_s=2.0, cap_s=10.0,
                         naive_rates_at={10 * M: (500, 5000)}, naive_reps_at={10 * M: 1}, content_reps=3),
        throughput=throughput.Config(lengths=(200, 2000), reps={200: 3, 2000: 3}),
        stop_runs=50, stalled_tokens=1_000_000, cycles=100,
        tick_levels=(0, 10_000, 100_000, 1 * M, 3 * M, 10 * M), tick_ticks=120,
        lag_sources=((5000, 1 * M), (5000, 10 * M), (50000, 0), (500, 0)),
        action_reps=5, frame_reps=3, history_positions=40,
    )


def suite_tick_cost(p: Plan, results: dict[str, Any], work: Path) -> None:
    data = run_json(["-m", "benchmarks.tick_cost", "--levels", ",".join(map(str, p.tick_levels)),
                     "--ticks", str(p.tick_ticks)]).data
    results["tick_cost"] = data["rows"]
    results["tick_cost_flatness"] = data.get("flatness")
    results["tick_cost_flatness_p99"] = data.get("flatness_p99")


def suite_ui_lag(p: Plan, results: dict[str, Any], work: Path) -> None:
    data = ui_lag.run(p.ui, work)
    results["ui_lag"] = data["rows"]
    results["ui_lag_ratios"] = data["ratios"]
    results["ui_lag_config"] = data["config"]
    results["ui_lag_runs"] = data["runs"]


def suite_lag_sources(p: Plan, results: dict[str, Any], work: Path) -> None:
    out = []
    for rate, history in p.lag_sources:
        text = write_stream_text(work / "texts", max(p.ui.min_tokens, int(rate * p.ui.stream_s)))
        try:
            out.append(run_json(["-m", "benchmarks.lag_sources", "--rate", str(rate),
                                 "--history-chars", str(history), "--text-file", str(text)]).data)
        except ChildFailed as exc:
            log(f"  lag_sources failed: {exc}")
    results["lag_sources"] = out


def suite_actions(p: Plan, results: dict[str, Any], work: Path) -> None:
    data = actions.run(list(actions.ACTIONS), p.action_reps, work)
    results["actions"] = data["rows"]
    results["actions_runs"] = data["runs"]
    results["actions_config"] = {"reps": data["reps"], "history_chars": data["history_chars"]}


def suite_frames(p: Plan, results: dict[str, Any], work: Path) -> None:
    results["frames"] = frames.run(list(frames.SCENARIOS), p.frame_reps, work)


def suite_throughput(p: Plan, results: dict[str, Any], work: Path) -> None:
    data = throughput.run(p.throughput)
    lengths = sorted(int(n) for n in p.throughput.lengths)
    by = {str(n): data.pop(str(n)) for n in lengths if str(n) in data}
    long_key = str(lengths[-1])
    long = by.get(long_key, {})
    results["throughput"] = {
        # The top-level figures are the longest reply's (the goal's); every
        # length is under by_length.
        "long_length": int(long_key),
        **{k: long.get(k) for k in ("rill_tok_s", "raw_loop_tok_s", "chat_completion_tok_s",
                                    "ratio_vs_raw", "ratio_vs_chat_completion", "backend_only_tok_s")},
        "by_length": by,
        **data,
    }


def suite_stop(p: Plan, results: dict[str, Any], work: Path) -> None:
    results["stop"] = run_json(["-m", "benchmarks.stop", "--runs", str(p.stop_runs)], timeout_s=1800).data


def suite_memory(p: Plan, results: dict[str, Any], work: Path) -> None:
    mem: dict[str, Any] = {}
    try:
        stalled = run_json(["-m", "benchmarks.memory", "stalled", "--tokens", str(p.stalled_tokens)]).data
        mem["stalled"] = stalled
        mem["stalled_rss_growth_mb"] = stalled.get("stalled_rss_growth_mb")
    except ChildFailed as exc:
        log(f"  memory stalled failed: {exc}")
    try:
        cycles = run_json(["-m", "benchmarks.memory", "cycles", "--cycles", str(p.cycles)]).data
        mem["cycles"] = cycles
        mem["cycles_rss_growth_mb"] = cycles.get("cycles_rss_growth_mb")
    except ChildFailed as exc:
        log(f"  memory cycles failed: {exc}")
    try:
        hist = run_json(["-m", "benchmarks.memory", "history", "--chars", str(10 * M),
                         "--positions", str(p.history_positions)]).data
        mem["history"] = hist
        mem["history_rss_growth_mb"] = hist.get("history_rss_growth_mb")
    except ChildFailed as exc:
        log(f"  memory history failed: {exc}")
    results["memory"] = mem


RUNNERS: dict[str, Callable[[Plan, dict[str, Any], Path], None]] = {
    "tick_cost": suite_tick_cost,
    "ui_lag": suite_ui_lag,
    "lag_sources": suite_lag_sources,
    "actions": suite_actions,
    "frames": suite_frames,
    "throughput": suite_throughput,
    "stop": suite_stop,
    "memory": suite_memory,
}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="fewer repetitions and shorter runs (~6 min)")
    ap.add_argument("--out", default="bench-out", help="output folder (default: bench-out)")
    ap.add_argument("--only", default="", help=f"comma-separated subset of {','.join(SUITES)}")
    args = ap.parse_args(argv)
    only = [s for s in args.only.split(",") if s] or list(SUITES)
    unknown = set(only) - set(SUITES)
    if unknown:
        ap.error(f"unknown suite(s): {', '.join(sorted(unknown))}")

    out = Path(args.out).resolve()
    work = out / "work"
    work.mkdir(parents=True, exist_ok=True)
    results_path = out / "results.json"
    p = plan(args.quick)
    results: dict[str, Any] = {}
    if args.only and results_path.exists():
        results = json.loads(results_path.read_text(encoding="utf-8"))
    results.update({
        "mode": "quick" if args.quick else "full",
        "started": time.strftime("%Y-%m-%d %H:%M:%S"),
        "load_before": [round(x, 2) for x in load_average()],
        "machine": machine_info(),
    })
    timing: dict[str, float] = dict(results.get("timing") or {})
    t_all = time.monotonic()
    log(f"benchmarks ({results['mode']}) -> {out}; load {results['load_before']}")
    for name in SUITES:
        if name not in only:
            continue
        log(f"suite {name} ...")
        t0 = time.monotonic()
        try:
            RUNNERS[name](p, results, work)
        except ChildFailed as exc:
            log(f"suite {name} failed: {exc}")
            results.setdefault("errors", {})[name] = str(exc)[:2000]
        timing[name] = round(time.monotonic() - t0, 1)
        log(f"suite {name} done in {timing[name]:.0f} s")
        results["timing"] = timing
        results_path.write_text(json.dumps(results, indent=1), encoding="utf-8")
    timing["total_s"] = round(time.monotonic() - t_all, 1)
    results["timing"] = timing
    results["load_after"] = [round(x, 2) for x in load_average()]
    report.write(results, out)
    results_path.write_text(json.dumps(results, indent=1), encoding="utf-8")
    log(f"wrote {results_path}, {out / 'report.md'} in {timing['total_s']:.0f} s")
    for g in results.get("goals", []):
        mark = "n/a   " if g["met"] is None else ("MET   " if g["met"] else "MISSED")
        log(f"  {mark} {g['goal']}: {g['measured']} (target {g['target']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
