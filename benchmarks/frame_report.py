"""The report's section for issue #18 (the frame budget): each goal, Rill and
the naive per-token append side by side where both ran, the idle floor
(the same heartbeat with nothing going on, measured in the same process just
before: ``rill doctor --idle-ms``) and, for every row, the stall report of
the run the median describes (``benchmarks.stalls``), so that every miss is
explained by data.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from benchmarks.stalls import explain

M = 1_000_000
RATES = (50, 500, 5000)
HISTORIES = (0, M, 10 * M)
FAST_RATE = 50_000
MAX_MS = 8.0            # heartbeat max, every grid and content row
FAST_P99_MS, FAST_MAX_MS = 8.0, 16.0
ACTION_MS = 16.0
PASTE_MAX_MS, PASTE_RSS_MB = 16.0, 150.0
OPEN_10M_MS = 150.0
HISTORY_2000_P99_MS = 4.0
FLOOR_MARGIN_MS = 1.0
THROUGHPUT_RATIO = 0.98


def _f(v: Any, nd: int = 2) -> str:
    if v is None:
        return "–"
    if isinstance(v, float):
        return f"{v:,.{nd}f}".rstrip("0").rstrip(".") if nd else f"{v:,.0f}"
    return f"{v:,}" if isinstance(v, int) else str(v)


def _le(v: float | None, limit: float | None) -> bool:
    return v is not None and limit is not None and v <= limit


def _hist(h: int) -> str:
    return "no history" if h == 0 else f"{h // M} M"


def _row(results: dict[str, Any], renderer: str, rate: int, history: int, content: str = "") -> dict[str, Any] | None:
    for r in results.get("ui_lag") or []:
        if (r["renderer"], r["rate"], r["history_chars"], r.get("content") or "") == (renderer, rate, history, content):
            return r
    return None


def _floor(r: dict[str, Any] | None) -> str:
    if r is None or r.get("idle_p99") is None:
        return "–"
    return f"{_f(r['idle_p99'])} / {_f(r.get('idle_max'))}"


def _line(what: str, rill: str, naive: str, floor: str, target: str, met: bool | None, why: str) -> dict[str, Any]:
    return {"goal": what, "rill": rill, "naive": naive, "floor": floor, "target": target, "met": met, "stalls": why}


def lag_rows(results: dict[str, Any]) -> list[dict[str, Any]]:
    """The grid (rates x histories), the content rows and 50,000 tok/s."""
    out = []
    for hist in HISTORIES:
        for rate in (*RATES, FAST_RATE):
            r = _row(results, "rill", rate, hist)
            if r is None:
                continue
            naive = _row(results, "naive_append", rate, hist)
            n99 = naive.get("p99") if naive else None
            reps = r.get("reps") or 1
            rill = f"p99 {_f(r.get('p99'))}, max {_f(r.get('max'))}" + (f" (median of {reps})" if reps > 1 else "")
            if rate == FAST_RATE:
                shown = r.get("all_shown_runs") == r.get("reps")
                met = shown and _le(r.get("p99"), FAST_P99_MS) and _le(r.get("max"), FAST_MAX_MS)
                target = f"every token shown, p99 <= {FAST_P99_MS:g}, max <= {FAST_MAX_MS:g}"
                rill += f"; every token shown in {r.get('all_shown_runs')}/{r.get('reps')}"
            else:
                met = _le(r.get("max"), MAX_MS) and (n99 is None or _le(r.get("p99"), n99))
                target = f"p99 <= naive's, max <= {MAX_MS:g}"
            out.append(_line(f"{rate:,} tok/s, {_hist(hist)}", rill,
                             f"p99 {_f(n99)}, max {_f(naive.get('max'))}" if naive else "not run",
                             _floor(r), target, met, explain(r.get("stalls"))))
    for r in results.get("ui_lag") or []:
        if r["renderer"] != "rill" or not r.get("content"):
            continue
        out.append(_line(f"content: {r['content']} ({r['rate']:,} tok/s)",
                         f"p99 {_f(r.get('p99'))}, max {_f(r.get('max'))}", "not run", _floor(r),
                         f"max <= {MAX_MS:g}", _le(r.get("max"), MAX_MS), explain(r.get("stalls"))))
    return out


def _action_label(r: dict[str, Any]) -> str:
    from benchmarks.report import _action_label as label

    return label(r)


def action_rows(results: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for r in results.get("actions") or []:
        if r.get("skipped") or r.get("diagnostic"):
            continue
        out.append(_line(f"action: {_action_label(r)}",
                         f"{_f(r.get('lag_max_ms'))} ms (call {_f(r.get('call_ms'))})", "",
                         f"– / {_f(r.get('baseline_max_ms'))}", f"<= {ACTION_MS:g} ms",
                         _le(r.get("lag_max_ms"), ACTION_MS), explain(r.get("stalls"))))
    return out


def _frames(results: dict[str, Any], name: str) -> dict[str, Any] | None:
    return next((r for r in (results.get("frames") or {}).get("rows") or [] if r["scenario"] == name), None)


def scenario_rows(results: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    p = _frames(results, "paste_4mb")
    if p:
        out.append(_line("a 4 MB pasted prompt, a second turn as the reply ends (`--rate 0 --turns 2`)",
                         f"max {_f(p.get('max'))} ms, p99 {_f(p.get('p99'))}; peak RSS {_f(p.get('peak_rss_mb'), 0)} MB "
                         f"(paste {_f(p.get('paste_ms'))} ms, Enter {_f(p.get('send_ms'))} ms)", "",
                         f"{_f(p.get('idle_p99'))} / {_f(p.get('idle_max'))}",
                         f"max <= {PASTE_MAX_MS:g} ms, RSS <= {PASTE_RSS_MB:g} MB",
                         _le(p.get("max"), PASTE_MAX_MS) and _le(p.get("peak_rss_mb"), PASTE_RSS_MB),
                         explain(p.get("stalls"))))
    opens = [r for r in results.get("ui_lag") or [] if r["renderer"] == "rill" and r["history_chars"] == 10 * M
             and r.get("history_open_ms") is not None]
    if opens:
        worst = max(opens, key=lambda r: r["history_open_ms"])
        out.append(_line("history_open_ms with 10 M characters",
                         f"{_f(worst['history_open_ms'])} ms (worst row's median, {worst['rate']:,} tok/s)", "", "",
                         f"<= {OPEN_10M_MS:g} ms", _le(worst["history_open_ms"], OPEN_10M_MS),
                         f"open phase max {_f(worst.get('open_max'))} ms"))
    h = _frames(results, "history_2000")
    if h:
        out.append(_line("2,000 earlier messages, 500 tok/s", f"p99 {_f(h.get('p99'))}, max {_f(h.get('max'))}", "",
                         f"{_f(h.get('idle_p99'))} / {_f(h.get('idle_max'))}", f"p99 <= {HISTORY_2000_P99_MS:g} ms",
                         _le(h.get("p99"), HISTORY_2000_P99_MS), explain(h.get("stalls"))))
    m = _frames(results, "real_model")
    if m:
        limit = m["idle_p99"] + FLOOR_MARGIN_MS if m.get("idle_p99") is not None else None
        out.append(_line("SmolLM2 (llama-cpp-python), 200 tokens", f"p99 {_f(m.get('p99'))}, max {_f(m.get('max'))}",
                         "", f"{_f(m.get('idle_p99'))} / {_f(m.get('idle_max'))}",
                         f"p99 <= idle floor's p99 + {FLOOR_MARGIN_MS:g} ms", _le(m.get("p99"), limit),
                         explain(m.get("stalls"))))
    tp = results.get("throughput") or {}
    if tp.get("ratio_vs_raw") is not None:
        out.append(_line(f"tokens/s, {tp.get('long_length')}-token reply vs the raw `Llama.generate()` loop",
                         f"{tp['ratio_vs_raw']}x ({_f(tp.get('rill_tok_s'))} vs {_f(tp.get('raw_loop_tok_s'))} tok/s)",
                         "", "", f">= {THROUGHPUT_RATIO:g}x", tp["ratio_vs_raw"] >= THROUGHPUT_RATIO, ""))
    return out


def rows(results: dict[str, Any]) -> list[dict[str, Any]]:
    return lag_rows(results) + action_rows(results) + scenario_rows(results)


def _table(headers: Sequence[str], body: Sequence[Sequence[str]]) -> list[str]:
    return ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|",
            *("| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in body)]


def markdown(results: dict[str, Any]) -> list[str]:
    """The section's lines (empty when nothing behind it ran)."""
    body = rows(results)
    if not body:
        return []
    met = sum(1 for r in body if r["met"])
    judged = sum(1 for r in body if r["met"] is not None)
    out = ["## Issue #18: the frame budget", "",
           f"{met} of {judged} rows met. Lag: the 5 ms heartbeat's lateness (ms) over the whole doctor run; "
           "naive: the per-token `insertPlainText` renderer in the same run; idle floor: p99 / max of the same "
           "heartbeat while the same window idled just before (actions: the max over 200 ms of idling before "
           "the action). Stalls: every beat over 8 ms in the run the median describes, its worst, and where "
           "the GUI thread's time went (\"other\": no traced span: Qt's own event handling, layout, or waiting "
           "for the GIL).", "",
           *_table(["row", "Rill", "naive append", "idle floor p99 / max", "target", "met", "stalls"],
                   [[r["goal"], r["rill"], r["naive"], r["floor"], r["target"],
                     "n/a" if r["met"] is None else ("yes" if r["met"] else "**no**"), r["stalls"]] for r in body]),
           ""]
    return out
