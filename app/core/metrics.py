"""Small statistics helpers shared by the doctor, the stream-health view and benchmarks."""

from __future__ import annotations

import math
from collections.abc import Sequence


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100); 0.0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100.0 * len(ordered)))
    return float(ordered[min(rank, len(ordered)) - 1])


def summarize_ms(values_s: Sequence[float], qs: Sequence[float] = (50, 99)) -> dict[str, float]:
    """Seconds in, a {p50, p99, max} dict in milliseconds (rounded to 0.01) out."""
    out = {f"p{q:g}": round(percentile(values_s, q) * 1000, 2) for q in qs}
    out["max"] = round(max(values_s, default=0.0) * 1000, 2)
    return out
