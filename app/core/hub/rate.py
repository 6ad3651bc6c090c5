"""How fast a download goes (Qt-free): the speed over the last few seconds,
and whether a server is trickling (``RateWatch``)."""

from __future__ import annotations

from collections import deque

__all__ = ["SPEED_WINDOW_S", "RateWatch"]

#: The speed shown is over this many seconds.
SPEED_WINDOW_S = 5.0


class RateWatch:
    """Samples of (time, bytes so far) for one request. ``too_slow`` is True
    once ``window_s`` has passed and less than ``min_rate`` bytes a second
    arrived over the last ``window_s``. One thread."""

    def __init__(self, min_rate: float, window_s: float) -> None:
        self.min_rate = min_rate
        self.window_s = window_s
        self._samples: deque[tuple[float, int]] = deque()
        self._start = 0.0

    def start(self, now: float, done: int) -> None:
        self._samples.clear()
        self._samples.append((now, done))
        self._start = now

    def add(self, now: float, done: int) -> None:
        samples = self._samples
        samples.append((now, done))
        while len(samples) > 2 and now - samples[1][0] >= max(self.window_s, SPEED_WINDOW_S):
            samples.popleft()

    def too_slow(self, now: float, done: int) -> bool:
        if now - self._start < self.window_s or not self._samples:
            return False
        # the bytes of the last window (the newest sample at or before its start)
        base = next(((t, n) for t, n in reversed(self._samples) if now - t >= self.window_s), self._samples[0])
        return done - base[1] < self.min_rate * self.window_s

    def speed(self, now: float, done: int) -> float:
        """Bytes a second over the last SPEED_WINDOW_S (0 before two samples)."""
        if len(self._samples) < 2:
            return 0.0
        t0, n0 = next(((t, n) for t, n in self._samples if now - t <= SPEED_WINDOW_S), self._samples[0])
        return (done - n0) / (now - t0) if now > t0 else 0.0
