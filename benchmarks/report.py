"""report.md (tables), PNG plots and the goal check, from results.json.

    python -m benchmarks.report bench-out/results.json   # re-render only
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchmarks import frame_report

RENDERER_COLORS = {"rill": "#8250df", "naive_append": "#d4a72c", "naive_rerender": "#cf222e"}
RENDERERS = ("rill", "naive_append", "naive_rerender")


# --------------------------------------------------------------------- goals
#
# The goals of issue #7 (the new message view) plus the wave-1 guarantees.
# ``goals()`` gives one row per goal (the summary at the top of report.md);
# ``goal_details()`` one row per workload or action behind them.

M = 1_000_000
LAG_RATES = (50, 500, 5000)
LAG_HISTORIES = (0, M, 10 * M)
P99_LIMIT_MS = 4.0
MAX_LIMIT_MS = 16.0
FAST_RATE = 50000
FAST_P99_LIMIT_MS = 16.0
ACTION_LIMIT_MS = 16.0
OPEN_LIMIT_MS = 150.0
RSS_LIMIT_MB = 250.0
FLAT_TOLERANCE = 0.20


def _ui_row(results: dict[str, Any], renderer: str, rate: int, history: int, content: str = "") -> dict[str, Any] | None:
    for r in results.get("ui_lag") or []:
        if (r["renderer"], r["rate"], r["history_chars"], r.get("content", "")) == (renderer, rate, history, content):
            return r
    return None


def _content_rows(results: dict[str, Any]) -> list[dict[str, Any]]:
    return [r for r in results.get("ui_lag") or [] if r.get("content")]


def _goal(name: str, target: str, measured: Any, met: bool | None) -> dict[str, Any]:
    return {"goal": name, "target": target, "measured": measured, "met": met}


def _hist(h: int) -> str:
    return "no history" if h == 0 else (f"{h // M} M" if h % M == 0 else f"{h:,}")


def _lag_text(row: dict[str, Any]) -> str:
    text = f"p99 {_f(row['p99'])}, max {_f(row['max'])}"
    extra = []
    if row.get("stream_max") is not None and row["max"] is not None and row["stream_max"] < row["max"]:
        extra.append(f"streaming only: p99 {_f(row.get('stream_p99'))}, max {_f(row['stream_max'])}")
    if row.get("open_max") is not None and row["max"] is not None and row["open_max"] >= row["max"] - 0.01 and row["history_chars"]:
        extra.append(f"max while opening the history ({_f(row['open_max'])})")
    return text + (f" ({'; '.join(extra)})" if extra else "")


def _lag_met(row: dict[str, Any] | None) -> bool | None:
    if row is None or row.get("p99") is None:
        return None
    return _le(row["p99"], P99_LIMIT_MS) and _le(row["max"], MAX_LIMIT_MS)


def _action_measures(results: dict[str, Any]) -> list[dict[str, Any]]:
    """The measured user actions (not skipped ones, not diagnostics)."""
    return [r for r in results.get("actions") or [] if not r.get("skipped") and not r.get("diagnostic")]


def _action_label(r: dict[str, Any]) -> str:
    labels = {
        ("enter_after_reply", "enter"): "Enter right after a ~200 KB reply (until its final render)",
        ("enter_after_reply", "long_reply_stream"): "(diagnostic) the ~200 KB reply streaming at 50,000 tok/s",
        ("enter_10m", "enter"): "Enter with 10 M characters of conversation (until the reply settled)",
        ("new_chat", "new_chat"): "New Chat with 10 M characters",
        ("close_idle", "close_idle"): "close (idle)",
        ("close_streaming", "close_streaming"): "close while streaming",
        ("close_loading", "close_loading"): "close during a slow model load",
        ("paste_1mb", "paste"): "paste a 1 MB prompt",
        ("paste_1mb", "send"): "Enter with the 1 MB prompt",
        ("paste_4mb", "paste"): "paste a 4 MB prompt",
        ("paste_4mb", "send"): "Enter with the 4 MB prompt",
        ("open_2000", "open_2000"): "open 2,000 messages / 2 M characters",
        ("open_10m", "open_10m"): "open 10 M characters (26,554 messages)",
        ("resize", "resize_once"): "resize once (10 M characters)",
        ("resize", "resize_drag"): "resize drag, 25 steps (10 M characters)",
        ("select_all_copy", "select_all"): "Select All (10 M characters)",
        ("select_all_copy", "copy"): "Copy (10 M characters)",
        ("select_all_copy", "clipboard_served"): "the copied 10 M characters pasted elsewhere (served)",
        ("select_all_copy", "copy_conversation"): "Copy Conversation as Markdown (10 M)",
        ("select_all_copy", "conversation_served"): "the conversation's Markdown pasted elsewhere (served)",
    }
    return labels.get((r["action"], r["measure"]), f"{r['action']}: {r['measure']}")


def goal_details(results: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per workload / action / facet behind the goals."""
    out: list[dict[str, Any]] = []
    for rate in LAG_RATES:
        for hist in LAG_HISTORIES:
            row = _ui_row(results, "rill", rate, hist)
            out.append(_goal(f"lag, {rate:,} tok/s, {_hist(hist)}", "p99 <= 4 ms, max <= 16 ms",
                             _lag_text(row) if row else "not run", _lag_met(row)))
    for row in _content_rows(results):
        out.append(_goal(f"lag, content: {row['content']} ({row['rate']:,} tok/s)", "p99 <= 4 ms, max <= 16 ms",
                         _lag_text(row), _lag_met(row)))
    for hist in LAG_HISTORIES:
        row = _ui_row(results, "rill", FAST_RATE, hist)
        if row is None:
            continue
        all_shown = row.get("all_shown_runs") == row.get("reps")
        out.append(_goal(f"lag, {FAST_RATE:,} tok/s, {_hist(hist)}", "p99 <= 16 ms, every token shown",
                         f"p99 {_f(row['p99'])} (max {_f(row['max'])}); every token shown: "
                         f"{'yes' if all_shown else 'no'}; display ratio {_f(row.get('display_ratio'), 3)}",
                         _le(row["p99"], FAST_P99_LIMIT_MS) and all_shown))
    for r in sorted(results.get("ui_lag_ratios") or [], key=lambda x: (x["vs"], x["history_chars"], x["rate"])):
        rill = _ui_row(results, "rill", r["rate"], r["history_chars"])
        naive = _ui_row(results, r["vs"], r["rate"], r["history_chars"])
        if rill is None or naive is None:
            continue
        out.append(_goal(f"Rill vs {r['vs']}, {r['rate']:,} tok/s, {_hist(r['history_chars'])}",
                         "Rill p99 <= naive p99",
                         f"{_f(rill['p99'])} vs {_f(naive['p99'])} ms ({_f(r['p99_ratio'], 3)}x)",
                         _le(rill["p99"], naive["p99"]) if naive.get("p99") is not None else None))
    for r in results.get("actions") or []:
        if r.get("diagnostic"):
            continue
        if r.get("skipped"):
            out.append(_goal(f"action: {_action_label(r)}", "GUI block <= 16 ms", f"skipped: {r['skipped']}", None))
            continue
        out.append(_goal(f"action: {_action_label(r)}", "GUI block <= 16 ms",
                         f"max lag {_f(r['lag_max_ms'])} ms (median of {r['reps']}; worst {_f(r['lag_max_ms_max'])}); "
                         f"the call itself {_f(r['call_ms'])} ms",
                         _le(r["lag_max_ms"], ACTION_LIMIT_MS)))
        if r.get("history_open_ms") is not None:
            out.append(_goal(f"first paint: {_action_label(r)}", "<= 150 ms",
                             f"{_f(r['history_open_ms'])} ms (worst {_f(r.get('history_open_ms_max'))}); "
                             f"viewport_ready {_f(r.get('viewport_ready_ms'))} ms",
                             _le(r["history_open_ms"], OPEN_LIMIT_MS)))
    return out


def goals(results: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per goal of issue #7 and per wave-1 guarantee."""
    out: list[dict[str, Any]] = []
    details = goal_details(results)

    def summary(prefix: str) -> tuple[list[dict[str, Any]], bool | None]:
        rows = [d for d in details if d["goal"].startswith(prefix)]
        judged = [d for d in rows if d["met"] is not None]
        if not judged:
            return rows, None
        return rows, all(d["met"] for d in judged)

    # 1. lag at 50-5,000 tok/s with 0 / 1 M / 10 M history, and the content rows
    rows, met = summary("lag, ")
    grid = [d for d in rows if "content" not in d["goal"] and f"{FAST_RATE:,}" not in d["goal"]]
    content = [d for d in rows if "content" in d["goal"]]
    judged = [d for d in grid + content if d["met"] is not None]
    missing = [d["goal"].removeprefix("lag, ") for d in grid if d["met"] is None]
    if judged:
        misses = [d for d in judged if not d["met"]]
        worst_p99 = max((r["p99"] or 0, r["rate"], r["history_chars"], r.get("content", ""))
                        for r in results.get("ui_lag") or []
                        if r["renderer"] == "rill" and (r.get("content") or r["rate"] in LAG_RATES))
        worst_max = max((r["max"] or 0, r["rate"], r["history_chars"], r.get("content", ""))
                        for r in results.get("ui_lag") or []
                        if r["renderer"] == "rill" and (r.get("content") or r["rate"] in LAG_RATES))

        def where(w: tuple[Any, ...]) -> str:
            return w[3] if w[3] else f"{w[1]:,} tok/s, {_hist(w[2])}"

        text = (f"{len(judged) - len(misses)} of {len(judged)} workloads met; worst p99 {_f(worst_p99[0])} ms "
                f"({where(worst_p99)}), worst max {_f(worst_max[0])} ms ({where(worst_max)})")
        if misses:
            text += "; missed: " + "; ".join(d["goal"].removeprefix("lag, ") for d in misses)
        if missing:
            text += "; not run in this mode: " + "; ".join(missing)
        out.append(_goal("Heartbeat lag at 50, 500 and 5,000 tok/s with 0, 1 M and 10 M characters of history, "
                         "and for every content row (long line, CJK, 8 KB code, 50-row table)",
                         "p99 <= 4 ms and max <= 16 ms (whole doctor run)", text,
                         all(d["met"] for d in judged)))
    # 2. 50,000 tok/s
    fast = [d for d in rows if f"{FAST_RATE:,}" in d["goal"]]
    if fast:
        rs = [_ui_row(results, "rill", FAST_RATE, h) for h in LAG_HISTORIES]
        rs = [r for r in rs if r]
        worst = max(rs, key=lambda r: r["p99"] or 0)
        out.append(_goal("Heartbeat lag at 50,000 tok/s, every token shown", "p99 <= 16 ms",
                         f"worst p99 {_f(worst['p99'])} ms ({_hist(worst['history_chars'])}); "
                         + "; ".join(f"{_hist(r['history_chars'])}: p99 {_f(r['p99'])}, "
                                     f"{r.get('all_shown_runs')}/{r.get('reps')} runs every token shown"
                                     for r in rs),
                         all(d["met"] for d in fast)))
    # 3. Rill vs naive per-token
    vs = [d for d in details if d["goal"].startswith("Rill vs naive_append")]
    if vs:
        ratios_ = [r for r in results.get("ui_lag_ratios") or [] if r["vs"] == "naive_append" and r.get("p99_ratio") is not None]
        worst = max(ratios_, key=lambda r: r["p99_ratio"]) if ratios_ else None
        misses = [d["goal"].removeprefix("Rill vs naive_append, ") for d in vs if d["met"] is False]
        rer = [r for r in results.get("ui_lag_ratios") or [] if r["vs"] == "naive_rerender" and r.get("p99_ratio") is not None]
        text = (f"worst Rill/naive_append p99 ratio {_f(worst['p99_ratio'], 3)} ({worst['rate']:,} tok/s, "
                f"{_hist(worst['history_chars'])})" if worst else "")
        if misses:
            text += "; Rill worse at: " + "; ".join(misses)
        if rer:
            text += f"; vs naive_rerender: worst ratio {_f(max(r['p99_ratio'] for r in rer), 3)}"
        out.append(_goal("Rill's p99 <= the naive per-token renderer's p99 at every rate (and history run)",
                         "ratio <= 1 vs naive_append (per-token insertPlainText)", text,
                         all(d["met"] for d in vs if d["met"] is not None)))
    # 4. tick cost
    flat = results.get("tick_cost_flatness") or {}
    tc = results.get("tick_cost") or []
    if tc and flat.get("ratios"):
        lo, hi = flat.get("min_ratio"), flat.get("max_ratio")
        p99 = results.get("tick_cost_flatness_p99") or {}
        text = (f"append_stream p50 {_f(tc[0]['tick_ms_p50'], 3)} ms at {_hist(tc[0]['history_chars'])} -> "
                f"{_f(tc[-1]['tick_ms_p50'], 3)} ms at {_hist(tc[-1]['history_chars'])}; every level "
                f"{_f(lo, 2)}-{_f(hi, 2)}x the first (p99: {_f(p99.get('min_ratio'), 2)}-{_f(p99.get('max_ratio'), 2)}x)")
        out.append(_goal("Per-tick cost flat from 0 to 10 M characters of history", "within +-20 % (p50)", text,
                         lo is not None and hi is not None and lo >= 1 - FLAT_TOLERANCE and hi <= 1 + FLAT_TOLERANCE))
    # 5. actions
    acts = [d for d in details if d["goal"].startswith("action: ")]
    if acts:
        judged = [d for d in acts if d["met"] is not None]
        misses = [r for r in _action_measures(results) if not _le(r["lag_max_ms"], ACTION_LIMIT_MS)]
        skipped = [d["goal"].removeprefix("action: ") for d in acts if d["met"] is None]
        text = f"{len(judged) - len(misses)} of {len(judged)} met"
        if misses:
            text += "; over: " + "; ".join(f"{_action_label(r)} {_f(r['lag_max_ms'])} ms" for r in misses)
        if skipped:
            text += "; skipped: " + "; ".join(skipped)
        out.append(_goal("Every user action: GUI-thread block (max heartbeat lag over the action, median of runs)",
                         "<= 16 ms", text, not misses and bool(judged)))
    # 6. open 2,000 messages
    op = next((r for r in _action_measures(results) if r["action"] == "open_2000"), None)
    if op and op.get("history_open_ms") is not None:
        out.append(_goal("Opening a 2,000-message, 2 M-character conversation: first paint", "<= 150 ms",
                         f"{_f(op['history_open_ms'])} ms (median; worst {_f(op.get('history_open_ms_max'))}); "
                         f"{_f(op.get('chars'))} characters",
                         _le(op["history_open_ms"], OPEN_LIMIT_MS)))
    # 7. memory
    mem = results.get("memory") or {}
    hist = mem.get("history") or {}
    if mem.get("history_rss_growth_mb") is not None:
        rss = hist.get("rss_mb") or {}
        out.append(_goal("RSS with 10 M characters of history, above an empty window", "<= 250 MB",
                         f"+{_f(mem['history_rss_growth_mb'])} MB (worst state: {hist.get('history_rss_growth_at')}; "
                         f"empty {_f(rss.get('empty'))} MB, opened {_f(rss.get('history_open'))}, after a reply "
                         f"{_f(rss.get('after_reply'))}, after scrolling {_f(rss.get('after_scrolling'))})",
                         mem["history_rss_growth_mb"] <= RSS_LIMIT_MB))
    # 8. exact text
    rill_rows = [r for r in results.get("ui_lag") or [] if r["renderer"] == "rill"]
    if rill_rows:
        runs = sum(r.get("reps") or 0 for r in rill_rows)
        shown = sum(r.get("all_shown_runs") or 0 for r in rill_rows)
        fffd = max((r.get("fffd_max") or 0) for r in rill_rows)
        crow = [r for r in rill_rows if r.get("content")]
        intact = sum(r.get("text_intact_runs") or 0 for r in crow)
        crun = sum(r.get("reps") or 0 for r in crow)
        out.append(_goal("Exact text (wave 1): every token shown, no U+FFFD, content rows intact",
                         "0 drops, 0 U+FFFD",
                         f"every token shown in {shown}/{runs} Rill runs; max U+FFFD in a reply {fffd}; "
                         f"content text intact in {intact}/{crun} runs",
                         shown == runs and fffd == 0 and intact == crun))
    # 9. Stop
    st = results.get("stop") or {}
    if st.get("idle_ms_max") is not None:
        limit = round(st["token_ms_p50"] + 20, 1) if st.get("token_ms_p50") is not None else None
        ok = (_le(st["idle_ms_max"], 16) and _le(st.get("click_ms_max"), 16)
              and (limit is None or _le(st.get("worker_ms_max"), limit))
              and (st.get("prefill_worker_ms_max") is None or st["prefill_worker_ms_max"] <= 100))
        out.append(_goal("Stop bounds (wave 1)",
                         "UI idle <= 16 ms; worker exit <= one token + 20 ms; <= 100 ms in prompt evaluation",
                         f"UI idle max {_f(st['idle_ms_max'])} ms (click {_f(st.get('click_ms_max'))}); worker exit max "
                         f"{_f(st.get('worker_ms_max'))} ms (limit {_f(limit)}); in prompt evaluation max "
                         f"{_f(st.get('prefill_worker_ms_max'))} ms", ok))
    # 10. throughput
    tp = results.get("throughput") or {}
    if tp.get("ratio_vs_raw") is not None:
        n = tp.get("long_length")
        out.append(_goal(f"Throughput vs a raw Llama.generate() loop ({n}-token reply, wave 1)", ">= 0.98x",
                         f"{tp['ratio_vs_raw']}x ({tp['rill_tok_s']} vs {tp['raw_loop_tok_s']} tok/s)",
                         tp["ratio_vs_raw"] >= 0.98))
    return out


def _le(v: float | None, limit: float) -> bool:
    return v is not None and v <= limit


def _mm(row: dict[str, Any], key: str) -> str:
    lo, hi = (row.get("spread") or {}).get(key, [None, None])
    return f"{_f(lo)}-{_f(hi)}"


def _f(v: Any, nd: int = 2) -> str:
    if v is None:
        return "–"
    if isinstance(v, float):
        if abs(v) >= 1000:
            return f"{v:,.0f}"
        return f"{v:.{nd}f}".rstrip("0").rstrip(".") if nd else f"{v:.0f}"
    if isinstance(v, int):
        return f"{v:,}"
    return str(v)


# --------------------------------------------------------------------- plots


def _plt() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update({"figure.dpi": 110, "font.size": 9, "axes.grid": True, "grid.alpha": 0.3})
    return plt


def plot_ui(results: dict[str, Any], out: Path) -> list[str]:
    rows = [r for r in results.get("ui_lag") or [] if not r.get("content")]
    if not rows:
        return []
    plt = _plt()
    rates = sorted({r["rate"] for r in rows})
    histories = sorted({r["history_chars"] for r in rows})
    files = []
    specs = [
        ("ui_lag.png", "GUI heartbeat lag (5 ms timer lateness): p99 bars, max markers", "p99", "max", "ms", True),
        ("token_to_screen.png", "Token-to-screen latency: p95 bars, p50 markers", "t2s_p95", "t2s_p50", "ms", True),
        ("display_ratio.png", "Display rate / achieved production rate (bars); shown per s / requested rate (markers)",
         "display_ratio", "shown_vs_target", "ratio", False),
    ]
    for fname, title, key, key2, unit, logy in specs:
        fig, axes = plt.subplots(1, len(histories), figsize=(5.2 * len(histories), 3.6), sharey=True)
        axes = axes if len(histories) > 1 else [axes]
        width = 0.26
        for ax, hist in zip(axes, histories, strict=False):
            for j, renderer in enumerate(RENDERERS):
                xs, ys, lo, hi, ys2 = [], [], [], [], []
                for i, rate in enumerate(rates):
                    r = _ui_row(results, renderer, rate, hist)
                    if r is None or r.get(key) is None:
                        continue
                    xs.append(i + (j - 1) * width)
                    ys.append(max(r[key], 0.01) if logy else r[key])
                    sp = (r.get("spread") or {}).get(key, [r[key], r[key]])
                    lo.append(max(0.0, ys[-1] - (sp[0] if sp[0] is not None else ys[-1])))
                    hi.append(max(0.0, (sp[1] if sp[1] is not None else ys[-1]) - ys[-1]))
                    if key2 == "shown_vs_target":
                        ys2.append((r.get("display_tok_s") or 0) / rate)
                    else:
                        ys2.append(r.get(key2) if key2 else None)
                ax.bar(xs, ys, width, color=RENDERER_COLORS[renderer], label=renderer,
                       yerr=[lo, hi], capsize=2, error_kw={"elinewidth": 0.8})
                if key2:
                    ax.scatter(xs, [max(v or 0.0, 0.01 if logy else 0.0) for v in ys2], marker="_", s=120,
                               color="black", zorder=3)
            ax.set_xticks(range(len(rates)), [f"{r:,}" for r in rates])
            ax.set_xlabel("producer rate (tok/s)")
            ax.set_title(f"history {hist:,} chars")
            if logy:
                ax.set_yscale("log")
            if key == "p99":
                ax.axhline(4, color="grey", ls="--", lw=0.8)
                ax.axhline(16, color="grey", ls=":", lw=0.8)
            if key == "display_ratio":
                ax.axhline(0.95, color="grey", ls="--", lw=0.8)
                ax.set_ylim(0, 1.2)
        axes[0].set_ylabel(unit)
        handles, labels = axes[0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="lower center", ncol=3, fontsize=8, frameon=False)
        fig.suptitle(title)
        fig.tight_layout(rect=(0, 0.07, 1, 1))
        fig.savefig(out / fname)
        plt.close(fig)
        files.append(fname)
    return files


def plot_throughput(results: dict[str, Any], out: Path) -> list[str]:
    tp = results.get("throughput") or {}
    by = tp.get("by_length") or {}
    if not by:
        return []
    plt = _plt()
    paths = [("rill_tok_s", "rill (window)", "rill"), ("raw_loop_tok_s", "raw generate() loop", "raw"),
             ("chat_completion_tok_s", "create_chat_completion(stream)", "chat"),
             ("backend_only_tok_s", "Rill backend, no window", "backend")]
    colors = ["#8250df", "#57606a", "#cf222e", "#b392f0"]
    fig, ax = plt.subplots(figsize=(6.5, 4.0))
    lengths = sorted(by, key=int)
    width = 0.2
    for j, (key, label, sp_key) in enumerate(paths):
        xs, ys, lo, hi = [], [], [], []
        for i, n in enumerate(lengths):
            v = by[n].get(key)
            if v is None:
                continue
            sp = (by[n].get("spread") or {}).get(sp_key, [v, v])
            xs.append(i + (j - 1.5) * width)
            ys.append(v)
            lo.append(max(0.0, v - (sp[0] or v)))
            hi.append(max(0.0, (sp[1] or v) - v))
        ax.bar(xs, ys, width, label=label, color=colors[j], yerr=[lo, hi], capsize=2)
    ax.set_xticks(range(len(lengths)), [f"{int(n):,}-token reply" for n in lengths])
    ax.set_ylabel("decode tokens/s")
    ax.set_title(f"Throughput, SmolLM2-135M, {tp.get('n_threads')} thread(s)")
    fig.legend(*ax.get_legend_handles_labels(), loc="lower center", ncol=2, fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, 0.12, 1, 1))
    fig.savefig(out / "throughput.png")
    plt.close(fig)
    return ["throughput.png"]


def plot_stop(results: dict[str, Any], out: Path) -> list[str]:
    st = results.get("stop") or {}
    rows = st.get("rows") or []
    if not rows:
        return []
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.5, 3.4))
    groups = [
        ("stop -> UI idle", [r["idle_ms"] for r in rows if r.get("idle_ms") is not None]),
        ("stop -> worker exit\n(generating)",
         [r["worker_ms"] for r in rows if r["kind"] == "generation" and r.get("stopped") and not r.get("during_prefill")]),
        ("stop -> worker exit\n(prompt evaluation)",
         [r["worker_ms"] for r in rows if r["kind"] == "prefill" and r.get("stopped") and r.get("during_prefill")]),
    ]
    import random

    rnd = random.Random(0)
    for i, (_label, vals) in enumerate(groups):
        ax.scatter([i + rnd.uniform(-0.15, 0.15) for _ in vals], vals, s=10, alpha=0.6, color="#8250df")
        if vals:
            ax.hlines(sorted(vals)[len(vals) // 2], i - 0.25, i + 0.25, color="black")
    ax.set_xticks(range(len(groups)), [g[0] for g in groups])
    ax.set_ylabel("ms")
    if st.get("token_ms_p50"):
        ax.axhline(st["token_ms_p50"] + 20, color="grey", ls="--", lw=0.8, label="one token + 20 ms")
    ax.axhline(16, color="grey", ls=":", lw=0.8, label="16 ms")
    ax.axhline(100, color="grey", ls="-.", lw=0.8, label="100 ms")
    ax.set_yscale("symlog", linthresh=1)
    ax.legend(fontsize=7, loc="upper left")
    ax.set_title(f"Stop latency, real model ({len(rows)} runs, lines: medians)")
    fig.tight_layout()
    fig.savefig(out / "stop.png")
    plt.close(fig)
    return ["stop.png"]


def plot_memory(results: dict[str, Any], out: Path) -> list[str]:
    mem = results.get("memory") or {}
    stalled, cycles, hist = mem.get("stalled") or {}, mem.get("cycles") or {}, mem.get("history") or {}
    if not stalled.get("timeline") and not cycles.get("rss_mb") and not hist.get("rss_mb"):
        return []
    plt = _plt()
    fig, (a1, a2, a3) = plt.subplots(1, 3, figsize=(14, 3.4))
    tl = stalled.get("timeline") or []
    if tl:
        t = [p[0] for p in tl]
        a1.plot(t, [p[1] for p in tl], color="#8250df", label="RSS (MB)")
        a1.set_xlabel("seconds into the stall")
        a1.set_ylabel("RSS (MB)")
        lo = min(p[1] for p in tl)
        a1.set_ylim(lo - 2, lo + 12)
        b = a1.twinx()
        b.plot(t, [p[2] / 1024 for p in tl], color="#57606a", ls="--", label="buffer (K chars)")
        b.set_ylabel("buffer depth (K chars)")
        b.grid(False)
        a1.set_title(f"GUI stalled {stalled.get('stall_s')} s, producer asked for "
                     f"{stalled.get('tokens_requested', 0):,} tokens", fontsize=8)
    rss = cycles.get("rss_mb") or []
    if rss:
        a2.plot(range(1, len(rss) + 1), rss, color="#8250df", marker=".", ms=3)
        a2.set_xlabel("send / stop / new chat cycle")
        a2.set_ylabel("RSS (MB)")
        a2.set_title(f"{len(rss)} cycles, real model: {cycles.get('slope_kb_per_cycle')} KB/cycle", fontsize=8)
    hr = hist.get("rss_mb") or {}
    if hr:
        names = list(hr)
        a3.bar(range(len(names)), [hr[n] for n in names], color="#8250df")
        a3.axhline(hr.get("empty", 0) + RSS_LIMIT_MB, color="grey", ls="--", lw=0.8, label="empty + 250 MB")
        a3.set_xticks(range(len(names)), [n.replace("_", "\n") for n in names], fontsize=7)
        a3.set_ylabel("RSS (MB)")
        a3.legend(fontsize=7)
        a3.set_title(f"{hist.get('history_chars', 0):,} characters of history "
                     f"({hist.get('history_messages', 0):,} messages)", fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "memory.png")
    plt.close(fig)
    return ["memory.png"]


def plot_tick(results: dict[str, Any], out: Path) -> list[str]:
    rows = results.get("tick_cost") or []
    if not rows:
        return []
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.5, 3.6))
    xs = [max(r["history_chars"], 1_000) for r in rows]
    ax.plot(xs, [r["tick_ms_p50"] for r in rows], marker="o", color="#8250df", label="append_stream p50")
    ax.plot(xs, [r["tick_ms_p99"] for r in rows], marker="o", ls="--", color="#8250df", label="append_stream p99")
    ax.plot(xs, [r["between_ms_p50"] for r in rows], marker="s", color="#57606a",
            label="rest of the tick's GUI work p50")
    ax.plot(xs, [r["between_ms_p99"] for r in rows], marker="s", ls="--", color="#57606a",
            label="rest of the tick's GUI work p99")
    base = rows[0]["tick_ms_p50"]
    ax.fill_between(xs, [base * (1 - FLAT_TOLERANCE)] * len(xs), [base * (1 + FLAT_TOLERANCE)] * len(xs),
                    color="#8250df", alpha=0.1, label="+-20 % of the first p50")
    ax.set_xscale("log")
    ax.set_xlabel("history in the conversation (characters; 0 drawn at 1,000)")
    ax.set_ylabel("ms per tick")
    ax.set_title(f"Per-tick cost vs conversation length (~{rows[0].get('tick_chars')} chars per tick)")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out / "tick_cost.png")
    plt.close(fig)
    return ["tick_cost.png"]


def plot_actions(results: dict[str, Any], out: Path) -> list[str]:
    rows = _action_measures(results)
    if not rows:
        return []
    plt = _plt()
    fig, ax = plt.subplots(figsize=(7.5, 0.32 * len(rows) + 1.2))
    ys = range(len(rows))
    vals = [max(r["lag_max_ms"] or 0, 0.05) for r in rows]
    worst = [max(r.get("lag_max_ms_max") or 0, 0.05) for r in rows]
    ax.barh(ys, vals, color=["#8250df" if v <= ACTION_LIMIT_MS else "#cf222e" for v in vals])
    ax.scatter(worst, ys, marker="|", s=120, color="black", zorder=3, label="worst run")
    ax.axvline(ACTION_LIMIT_MS, color="grey", ls="--", lw=0.8, label="16 ms")
    ax.set_yticks(list(ys), [_action_label(r) for r in rows], fontsize=7)
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.set_xlabel("max heartbeat lag over the action (ms, median of runs)")
    ax.legend(fontsize=7, loc="lower right")
    ax.set_title("User actions: GUI-thread block")
    fig.tight_layout()
    fig.savefig(out / "actions.png")
    plt.close(fig)
    return ["actions.png"]


def plots(results: dict[str, Any], out: Path) -> list[str]:
    files: list[str] = []
    for fn in (plot_ui, plot_actions, plot_tick, plot_memory, plot_throughput, plot_stop):
        try:
            files += fn(results, out)
        except Exception as exc:  # noqa: BLE001 - a plot must not lose the results
            print(f"plot {fn.__name__} failed: {exc}", file=sys.stderr)
    return files


# -------------------------------------------------------------------- tables


def _table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    lines += ["| " + " | ".join(_f(c) if not isinstance(c, str) else c for c in row) + " |" for row in rows]
    return "\n".join(lines)


def _met(v: bool | None) -> str:
    return "n/a" if v is None else ("yes" if v else "**no**")


def _sp(row: dict[str, Any], key: str) -> str:
    """'median [min-max]' when there were several repetitions."""
    if (row.get("reps") or 1) <= 1:
        return _f(row.get(key))
    return f"{_f(row.get(key))} [{_mm(row, key)}]"


def markdown(results: dict[str, Any], images: Sequence[str] = ()) -> str:
    m = results.get("machine") or {}
    parts = [f"# Rill benchmark report ({results.get('mode', '?')} run)", ""]
    parts.append(
        f"{m.get('cores')} cores, {m.get('cpu_model')}, {m.get('memory_gb')} GB; Python {m.get('python')}, "
        f"PyQt6 {m.get('versions', {}).get('PyQt6')} (Qt {m.get('versions', {}).get('Qt')}), "
        f"llama-cpp-python {m.get('versions', {}).get('llama_cpp_python')}; Rill {m.get('versions', {}).get('rill')} "
        f"at {m.get('git_commit')} (+{m.get('git_dirty_files')} changed files); QT_QPA_PLATFORM={m.get('qt_platform')}. "
        f"Load average before: {results.get('load_before')}, after: {results.get('load_after')}. "
        f"Started {results.get('started')}, took {_f(results.get('timing', {}).get('total_s'), 0)} s."
    )
    parts.append("")
    parts += frame_report.markdown(results)
    g = results.get("goals") or goals(results)
    cfg = results.get("ui_lag_config") or {}
    acfg = results.get("actions_config") or {}
    if g:
        parts += ["## Goals (issue #7, and the wave-1 guarantees)", "",
                  f"Lag: the doctor's 5 ms GUI heartbeat over the whole run (opening the history, Enter, "
                  f"streaming, final render), median over {cfg.get('reps', '?')} repetition(s). Actions: the "
                  f"maximum heartbeat lateness from the action until its effects settled, median over "
                  f"{acfg.get('reps', '?')} run(s) (each in its own process). Details below.", "",
                  _table(["goal", "target", "measured", "met"],
                         [[x["goal"], x["target"], x["measured"], _met(x["met"])] for x in g]), ""]
    details = results.get("goal_details") or goal_details(results)
    if details:
        parts += ["### Goal details", "",
                  _table(["workload / action", "target", "measured", "met"],
                         [[x["goal"], x["target"], x["measured"], _met(x["met"])] for x in details]), ""]
    rows = [r for r in results.get("ui_lag") or [] if not r.get("content")]
    if rows:
        parts += ["## UI responsiveness (scripted producer)", "",
                  f"Medians over {cfg.get('reps')} repetition(s), min-max in brackets; each stream lasts "
                  f"~{cfg.get('stream_s')} s at its rate; naive runs are cut {cfg.get('naive_cap_s')} s after the "
                  "producer finished (capped). Lag: lateness of a 5 ms GUI PreciseTimer (ms), for Rill over the "
                  "whole doctor run (history open, Enter, streaming, final render); \"streaming\": Rill's lag "
                  "from Enter to the last token only (naive runs measure only that part). t2s: token produced -> "
                  "appended (ms). display: tokens shown per s / produced per s. shown: runs in which every token "
                  "produced was shown. backlog: tokens produced but not shown when the producer finished. "
                  "produced/s: the rate the producer achieved (a naive GUI thread flooded with per-token signals "
                  "starves its producer of the GIL); shown/s: tokens appended per second. Capped naive runs: t2s "
                  "counts unshown tokens with their wait so far (a lower bound).", ""]
        for hist in sorted({r["history_chars"] for r in rows}):
            parts += [f"### History {hist:,} characters", ""]
            table = []
            for r in sorted((r for r in rows if r["history_chars"] == hist),
                            key=lambda r: (r["rate"], RENDERERS.index(r["renderer"]))):
                note = f" ({r['capped_runs']} capped)" if r.get("capped_runs") else ""
                rill = r["renderer"] == "rill"
                table.append([f"{r['rate']:,}", r["renderer"] + note, _f(r["p50"]), _sp(r, "p99"), _sp(r, "max"),
                              f"{_f(r.get('stream_p99'))} / {_f(r.get('stream_max'))}" if rill else "",
                              _f(r["t2s_p50"]), _f(r["t2s_p95"]), _f(r["display_ratio"], 3),
                              f"{r.get('all_shown_runs')}/{r.get('reps')}",
                              _f(r["backlog_end"], 0), _f(r.get("produce_tok_s"), 0),
                              _f(r.get("display_tok_s"), 0)])
            parts += [_table(["tok/s", "renderer", "lag p50", "lag p99", "lag max", "streaming p99 / max",
                              "t2s p50", "t2s p95", "display", "shown", "backlog", "produced/s", "shown/s"],
                             table), ""]
            rill_hist = [r for r in rows if r["history_chars"] == hist and r["renderer"] == "rill"]
            if hist and rill_hist:
                r0 = rill_hist[0]
                parts += [f"Rill with this history: {_f(r0.get('history_messages'))} messages; opening them "
                          f"(doctor's history_open_ms, to viewport_ready) {_f(r0.get('history_open_ms'))} ms; "
                          f"max lag while opening {_f(r0.get('open_max'))} ms; Enter (send_ms) {_f(r0.get('send_ms'))} ms.", ""]
    crows = _content_rows(results)
    if crows:
        parts += ["### Content rows (Rill, no history)", "",
                  "Each text written to a file and streamed by `rill doctor --backend scripted --text-file F "
                  f"--rate {cfg.get('content_rate', 1000)}`. intact: the text shown holds every character of the "
                  "source a reader must see (whitespace aside; a block over the render limit shows its source).", "",
                  _table(["content", "tok/s", "lag p50", "lag p99", "lag max", "streaming max", "final-render max",
                          "display", "tokens shown / produced", "U+FFFD", "intact"],
                         [[r["content"], f"{r['rate']:,}", _f(r["p50"]), _sp(r, "p99"), _sp(r, "max"),
                           _f(r.get("stream_max")), _f(r.get("final_max")), _f(r.get("display_ratio"), 3),
                           f"{r.get('all_shown_runs')}/{r.get('reps')} runs all", _f(r.get("fffd_max")),
                           f"{r.get('text_intact_runs')}/{r.get('reps')}"] for r in crows]), ""]
    rat = results.get("ui_lag_ratios") or []
    if rat:
        parts += ["### Rill / naive", "",
                  "Below 1 means Rill is better for lag and latency; above 1 for display ratio and shown/s "
                  "(tokens appended per second: where a naive renderer starved its own producer its display "
                  "ratio looks fine while it shows a fraction of the requested rate).", ""]
        parts += [_table(["vs", "tok/s", "history", "lag p99", "lag max", "t2s p95", "display ratio",
                          "shown/s"],
                         [[x["vs"], f"{x['rate']:,}", f"{x['history_chars']:,}", _f(x["p99_ratio"], 3),
                           _f(x["max_ratio"], 3), _f(x["t2s_p95_ratio"], 4), _f(x["display_ratio_ratio"], 2),
                           _f(x.get("display_tok_s_ratio"), 2)]
                          for x in sorted(rat, key=lambda x: (x["vs"], x["history_chars"], x["rate"]))]), ""]
    acts = results.get("actions") or []
    if acts:
        parts += ["## User actions", "",
                  f"`python -m benchmarks.actions --action NAME`, one process per run, {acfg.get('reps')} run(s) "
                  "each; the state an action needs is set up and settled first (not measured). lag max: the "
                  "largest heartbeat lateness from the action until its effects settled (median [min-max] over "
                  "runs); call: the synchronous call itself (median / worst); window: how long the action's "
                  "effects took to settle; baseline: the heartbeat's max over 200 ms of idling just before.", "",
                  _table(["action", "measure", "lag max", "call (median / worst)", "window", "first paint",
                          "other", "baseline", "runs ok"],
                         [[r["action"], r["measure"],
                           "skipped" if r.get("skipped") else
                           f"{_f(r['lag_max_ms'])} [{_f(r['lag_max_ms_min'])}-{_f(r['lag_max_ms_max'])}]",
                           "" if r.get("skipped") else f"{_f(r['call_ms'])} / {_f(r['call_ms_max'])}",
                           _f(r.get("window_ms"), 0) if not r.get("skipped") else "",
                           _f(r.get("history_open_ms")) if r.get("history_open_ms") is not None else "",
                           r.get("skipped") or _action_other(r),
                           _f(r.get("baseline_max_ms")), f"{r.get('ok_runs', 0)}/{r.get('reps', 0)}"]
                          for r in acts]), ""]
    ls = results.get("lag_sources") or []
    if ls:
        parts += ["## Where Rill's GUI-thread time goes (diagnostic)", "",
                  "`python -m benchmarks.lag_sources`: the doctor in-process with the GUI thread's units of work "
                  "timed; each late heartbeat (> 2 ms) blamed on the unit that overlapped it most. Lag by phase: "
                  "before Enter (opening the history), streaming, final render.", ""]
        for d in ls:
            ph = d.get("lag_phases") or {}
            phase_text = "; ".join(f"{k}: p99 {_f(v.get('p99'))}, max {_f(v.get('max'))} ms ({v.get('beats')} beats)"
                                   for k, v in ph.items())
            lag = d.get("ui_lag_ms") or {}
            parts += [f"### {d['rate']:,.0f} tok/s, history {d['history_chars']:,} (lag p50 {_f(lag.get('p50'))}, "
                      f"p99 {_f(lag.get('p99'))}, max {_f(lag.get('max'))} ms)", "",
                      phase_text, ""]
            parts += [_table(["source", "calls", "ms p50", "ms p99", "ms max", "ms total", "late beats",
                              "lateness ms"],
                             [[k, v.get("calls", "–"), v.get("ms_p50", "–"), v.get("ms_p99", "–"),
                               v.get("ms_max", "–"), v.get("ms_total", "–"), v["late_beats"], v["late_ms"]]
                              for k, v in d["sources"].items()]), ""]
    tc = results.get("tick_cost") or []
    if tc:
        flat = results.get("tick_cost_flatness") or {}
        parts += ["## Tick cost vs conversation length", "",
                  "`ChatView.append_stream` (+ `Message.append`) of one tick's text (25 ms at 5,000 tok/s) into a "
                  "streaming reply below the history, per call (ms); \"rest of the tick\": the GUI thread's other "
                  "work for the reply until the next tick is due (render results, work slices, paint). History: "
                  "`view.add_messages(history_of_chars(n))`, waited for with `viewport_ready`.", "",
                  _table(["history chars", "messages", "append p50", "append p99", "append max", "p50 vs first",
                          "rest p50", "rest p99", "slice max", "final settle", "add_messages", "viewport_ready"],
                         [[f"{r['history_chars']:,}", _f(r.get("history_messages")), _f(r["tick_ms_p50"], 3),
                           _f(r["tick_ms_p99"], 3), _f(r["tick_ms_max"], 3),
                           _f((flat.get("ratios") or {}).get(str(r["history_chars"])), 3),
                           _f(r["between_ms_p50"], 3), _f(r["between_ms_p99"], 3), _f(r.get("view_slice_max_ms"), 3),
                           _f(r.get("final_settle_ms"), 1), _f(r.get("add_messages_ms"), 1),
                           _f(r.get("viewport_ready_ms"), 1)] for r in tc]), ""]
    tp = results.get("throughput") or {}
    if tp.get("by_length"):
        parts += ["## Throughput, real model", "",
                  f"{tp.get('metric')}. Prompt: \"{tp.get('prompt')}\" (after Rill's system prompt), seed "
                  f"{tp.get('seed')}, {tp.get('n_threads')} thread(s). The doctor's `--ignore-eos`: "
                  f"{'used' if tp.get('doctor_ignore_eos') else 'not available; the raw loop ran for exactly the tokens Rill produced'}.",
                  ""]
        table = []
        for n, d in sorted(tp["by_length"].items(), key=lambda kv: int(kv[0])):
            sp = d.get("spread") or {}
            table.append([f"{int(n):,}", f"{_f(d['rill_tok_s'])} [{_f(sp.get('rill', [None])[0])}-{_f(sp.get('rill', [None, None])[1])}]",
                          f"{_f(d['raw_loop_tok_s'])} [{_f(sp.get('raw', [None])[0])}-{_f(sp.get('raw', [None, None])[1])}]",
                          f"{_f(d['chat_completion_tok_s'])} [{_f(sp.get('chat', [None])[0])}-{_f(sp.get('chat', [None, None])[1])}]",
                          _f(d.get("backend_only_tok_s")), _f(d["ratio_vs_raw"], 3), _f(d["ratio_vs_chat_completion"], 3),
                          f"{_f(d.get('rill_tokens'), 0)} / {_f(d.get('raw_tokens'), 0)} / {_f(d.get('chat_tokens'), 0)}",
                          d.get("reps")])
        parts += [_table(["reply", "rill tok/s", "raw loop", "chat completion", "backend only", "rill/raw",
                          "rill/chat", "tokens rill/raw/chat", "reps"], table), ""]
    st = results.get("stop") or {}
    if st.get("runs"):
        parts += ["## Stop, real model", "",
                  _table(["measure", "p50", "p95", "max", "runs"], [
                      ["stop -> UI idle (ms)", _f(st.get("idle_ms_p50"), 3), "", _f(st.get("idle_ms_max"), 3), st["runs"]],
                      ["whole Stop click() on the GUI thread (ms)", _f(st.get("click_ms_p50"), 3), "",
                       _f(st.get("click_ms_max"), 3), st["runs"]],
                      ["stop -> worker exit, generating (ms)", _f(st.get("worker_ms_p50")), _f(st.get("worker_ms_p95")),
                       _f(st.get("worker_ms_max")), st.get("generation_runs")],
                      ["time per token then (ms)", _f(st.get("token_ms_p50")), "", _f(st.get("token_ms_max")), ""],
                      ["stop -> worker exit, prompt evaluation (ms)", _f(st.get("prefill_worker_ms_p50")),
                       _f(st.get("prefill_worker_ms_p95")), _f(st.get("prefill_worker_ms_max")), st.get("prefill_runs")],
                  ]), "",
                  f"Prompt evaluation runs: ~{_f(st.get('prefill_prompt_tokens'), 0)}-token prompt; "
                  f"{st.get('prefill_runs_missed', 0)} run(s) where the first token came before Stop were left out. "
                  f"{st.get('worker_over_token_plus_20ms', 0)} generation run(s) exceeded their own token time + 20 ms.", ""]
    mem = results.get("memory") or {}
    if mem:
        s, c, h = mem.get("stalled") or {}, mem.get("cycles") or {}, mem.get("history") or {}
        parts += ["## Memory", ""]
        if h.get("rss_mb"):
            rss = h["rss_mb"]
            parts += [f"10 M characters of history (`memory.py history`: {_f(h.get('history_chars'))} characters, "
                      f"{_f(h.get('history_messages'))} messages), RSS in MB (growth above the empty window):", "",
                      _table(["state", "RSS MB", "growth MB"],
                             [[k, _f(v), _f((h.get("growth_mb") or {}).get(k)) if k != "empty" else ""]
                              for k, v in rss.items()]), "",
                      f"Documents alive: at most {h.get('live_documents_max_while_scrolling')} while jumping to "
                      f"{h.get('positions')} places, {h.get('live_documents_after_scrolling')} after.", ""]
        if s:
            parts += [f"Stalled GUI: a {s.get('rate', 0):,.0f} tok/s producer asked for {s.get('tokens_requested', 0):,} "
                      f"tokens while the GUI thread was blocked for {s.get('stall_s')} s: RSS {s.get('rss_start_mb')} -> "
                      f"max {s.get('rss_max_mb')} MB (**+{s.get('stalled_rss_growth_mb')} MB**); the producer made "
                      f"{_f(s.get('tokens_produced_during_stall'))} tokens then waited "
                      f"{_f(s.get('producer_blocked_ms'), 0)} ms ({_f((s.get('producer_blocked_share') or 0) * 100, 0)}% "
                      f"of the stall); buffer high-water {_f(s.get('buffer_max_depth_chars'))} of "
                      f"{_f(s.get('buffer_capacity_chars'))} characters.", ""]
        if c:
            parts += [f"Send / Stop / New Chat, real model, {c.get('cycles')} cycles: RSS after cycle 1 "
                      f"{(c.get('rss_mb') or [None])[0]} MB -> after the last {(c.get('rss_mb') or [None])[-1]} MB "
                      f"(**+{c.get('cycles_rss_growth_mb')} MB**, {c.get('slope_kb_per_cycle')} KB per cycle; "
                      f"+{c.get('rss_growth_from_start_mb')} MB from before the first).", ""]
    t = results.get("timing") or {}
    if t:
        parts += ["## Where the time goes", "", _table(["suite", "seconds"], [[k, _f(v, 0)] for k, v in t.items()]), ""]
        walls: list[list[Any]] = []
        uruns = results.get("ui_lag_runs") or []
        for renderer in RENDERERS:
            rs = [r for r in uruns if r["renderer"] == renderer and not r.get("content")]
            if rs:
                walls.append([f"ui_lag {renderer} (grid)", len(rs), _f(sum(r.get("wall_s") or 0 for r in rs), 0),
                              _f(max(r.get("wall_s") or 0 for r in rs), 0)])
        cr = [r for r in uruns if r.get("content")]
        if cr:
            walls.append(["ui_lag content rows", len(cr), _f(sum(r.get("wall_s") or 0 for r in cr), 0),
                          _f(max(r.get("wall_s") or 0 for r in cr), 0)])
        aruns = results.get("actions_runs") or []
        if aruns:
            walls.append(["actions", len(aruns), _f(sum(r.get("wall_s") or 0 for r in aruns), 0),
                          _f(max(r.get("wall_s") or 0 for r in aruns), 0)])
        if walls:
            parts += ["Child processes:", "", _table(["runs", "count", "seconds", "longest"], walls), ""]
    if images:
        parts += ["## Plots", ""] + [f"![{name}]({name})" for name in images] + [""]
    return "\n".join(parts)


def _action_other(r: dict[str, Any]) -> str:
    bits = []
    for key, label in (("viewport_ready_ms", "viewport_ready"), ("all_items_ms", "all messages in"),
                       ("final_render_ms", "final render"),
                       ("settled_ms", "reply settled"), ("hidden_ms", "hidden"), ("threads_ms", "thread ended"),
                       ("idle_ms", "idle")):
        if r.get(key) is not None:
            bits.append(f"{label} {_f(r[key])} ms")
    if r.get("blockers"):
        bits.append("worst beat: " + "; ".join(sorted(set(r["blockers"]))[:3]))
    for key, label in (("chars", "chars"), ("messages", "messages"), ("attachments", "attachments"),
                       ("copied_chars", "copied chars"), ("reply_chars", "reply chars"),
                       ("was_loading", "was loading"), ("was_streaming", "was streaming")):
        if r.get(key) is not None:
            bits.append(f"{label} {_f(r[key])}")
    if r.get("errors"):
        bits.append("errors: " + "; ".join(e.splitlines()[0] for e in r["errors"]))
    return ", ".join(bits)


def write(results: dict[str, Any], out: Path) -> list[str]:
    if results.get("ui_lag"):
        from benchmarks.ui_lag import ratios

        results["ui_lag_ratios"] = ratios(results["ui_lag"])
    results["goals"] = goals(results)
    results["goal_details"] = goal_details(results)
    images = plots(results, out)
    (out / "report.md").write_text(markdown(results, images), encoding="utf-8")
    return images


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    path = Path(argv[0] if argv else "bench-out/results.json")
    results = json.loads(path.read_text(encoding="utf-8"))
    write(results, path.parent)
    path.write_text(json.dumps(results, indent=1), encoding="utf-8")
    print(path.parent / "report.md")


if __name__ == "__main__":
    main()
