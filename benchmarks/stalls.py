"""The stall report in the benchmarks (issue #18, item 5).

The doctor's JSON and every action measure carry ``stalls``: each heartbeat
later than 8 ms with what the GUI thread was doing meanwhile, as
``{"at_ms", "late_ms", "doing": [[label, ms], ...]}`` (``app.doctor.Heartbeat``
and ``app.ui.services.activity``). Here they are summed up for a row of the
report, so that a missed goal is explained by data: how many stalls, the
worst one and what it was, and which kind of work the stalls spent their time
in overall.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

#: The catch-all label of ``ActivityLog.blame`` (time in no traced span).
OTHER = "other (event loop, layout, Qt, the GIL)"


def summarize(stalls: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """``count``; ``worst_ms`` and ``worst`` (its two largest parts) of the
    latest heartbeat; ``by_doing``: ms per label summed over every stall,
    largest first."""
    items = list(stalls)
    by: dict[str, float] = {}
    for s in items:
        for label, ms in s.get("doing") or []:
            by[label] = by.get(label, 0.0) + float(ms)
    worst = max(items, key=lambda s: s.get("late_ms") or 0.0, default=None)
    return {
        "count": len(items),
        "worst_ms": worst.get("late_ms") if worst else None,
        "worst_at_ms": worst.get("at_ms") if worst else None,
        "worst": [[label, ms] for label, ms in (worst.get("doing") or [])[:2]] if worst else [],
        "by_doing": {k: round(v, 2) for k, v in sorted(by.items(), key=lambda kv: -kv[1])},
    }


def _short(label: str) -> str:
    return "other" if label == OTHER else label


def explain(summary: dict[str, Any] | None) -> str:
    """One line for a report: "3 stalls over 8 ms; worst 12.8 ms at 888 ms
    (paint 11.7, other 1.0); in all: paint 20.1, other 9.0"."""
    if not summary or not summary.get("count"):
        return "no stall over 8 ms"
    n = summary["count"]
    worst = ", ".join(f"{_short(label)} {ms:g}" for label, ms in summary.get("worst") or [])
    total = ", ".join(f"{_short(label)} {ms:g}" for label, ms in list((summary.get("by_doing") or {}).items())[:3])
    at = summary.get("worst_at_ms")
    where = f" at {at:,.0f} ms" if at is not None else ""
    return (f"{n} stall{'s' if n != 1 else ''} over 8 ms; worst {summary['worst_ms']:g} ms{where} ({worst})"
            + (f"; in all: {total}" if n > 1 else ""))


def median_run(runs: Sequence[dict[str, Any]], key: str = "max") -> dict[str, Any] | None:
    """The run whose ``key`` is the median of the runs' (the one a median row
    describes; the upper median for an even count)."""
    judged = sorted((r for r in runs if r.get(key) is not None), key=lambda r: r[key])
    return judged[len(judged) // 2] if judged else None
