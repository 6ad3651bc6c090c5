"""Small statistics helpers shared by the doctor, the stream-health view and benchmarks."""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

from app.core.base.i18n import translate


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


class RateMeter:
    """Rate of a growing counter over a sliding time window (O(1) amortised)."""

    def __init__(self, window_s: float = 1.0) -> None:
        self.window_s = window_s
        self._samples: deque[tuple[float, int]] = deque()

    def sample(self, now: float, count: int) -> float:
        """Record ``count`` at ``now``; returns the rate per second over the window."""
        self._samples.append((now, count))
        while len(self._samples) > 2 and now - self._samples[1][0] >= self.window_s:
            self._samples.popleft()
        t0, c0 = self._samples[0]
        return (count - c0) / (now - t0) if now > t0 else 0.0

    def reset(self) -> None:
        self._samples.clear()


@dataclass(frozen=True)
class HealthSnapshot:
    """What the stream-health view shows (all numbers from counters the pipeline keeps anyway)."""

    generating: bool
    produced_tok_s: float
    displayed_tok_s: float
    ttft_ms: float | None
    buffer_chars: int
    buffer_max_chars: int
    gui_lag_ms: float           # worst heartbeat lateness over the last second
    render_ms: float | None     # duration of the last render pass
    tokens_shown: int
    producer_blocked_ms: float

    def status_line(self) -> str:
        """Compact, for the status bar: shown/made tok/s, TTFT, buffer, GUI lag."""
        ttft = f"{self.ttft_ms:.0f} ms" if self.ttft_ms is not None else "…"
        return translate(
            "HealthSnapshot", "{shown:.0f}/{made:.0f} tok/s · TTFT {ttft} · buf {buffer} · lag {lag:.0f} ms"
        ).format(shown=self.displayed_tok_s, made=self.produced_tok_s, ttft=ttft, buffer=self.buffer_chars,
                 lag=self.gui_lag_ms)


class Reservoir:
    """An evenly spread sample of a stream of values, in bounded memory:
    percentiles of a million token latencies.

    Every ``stride``-th value is kept; when twice ``size`` are held, every
    other one is dropped and the stride doubles, so ``size`` to ``2 * size``
    values spread evenly over the whole stream stay. A batch costs Python
    work only for the values it keeps (a slice picks them), not per value:
    the window adds every shown token's latency, 50,000 a second at the
    fastest rates."""

    def __init__(self, size: int = 20000) -> None:
        self.size = max(1, size)
        self.count = 0
        self.values: list[float] = []
        self._stride = 1
        self._next = 0  # the stream index of the next value kept

    def add(self, value: float) -> None:
        self.extend((value,))

    def extend(self, values: Sequence[float]) -> None:
        self._take(values[self._next - self.count :: self._stride], len(values))

    def add_offsets(self, origin: float, times: Sequence[float]) -> None:
        """Add ``origin - t`` for each ``t`` in ``times``, computing only the values kept."""
        kept = times[self._next - self.count :: self._stride]
        self._take([origin - t for t in kept], len(times))

    def _take(self, kept: Sequence[float], n: int) -> None:
        if kept:
            self.values.extend(kept)
            self._next += len(kept) * self._stride
        self.count += n
        while len(self.values) >= 2 * self.size:
            last = self._next - self._stride  # the stream index of the last value held
            held = len(self.values)
            self.values = self.values[::2]
            self._stride *= 2
            if held % 2 == 0:  # the last one was dropped: the one before it is now the last
                last -= self._stride // 2
            self._next = last + self._stride
