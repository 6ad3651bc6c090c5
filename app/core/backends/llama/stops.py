"""Stop strings (only used with the fallback template)."""

from __future__ import annotations

from collections.abc import Sequence


class StopStrings:
    """Holds back text that may be the start of a stop string; reports a hit."""

    def __init__(self, stops: Sequence[str]) -> None:
        self._stops = tuple(s for s in stops if s)
        self._pending = ""

    def feed(self, text: str) -> tuple[str, bool]:
        if not self._stops:
            return text, False
        self._pending += text
        hits = [i for i in (self._pending.find(s) for s in self._stops) if i >= 0]
        if hits:
            out = self._pending[: min(hits)]
            self._pending = ""
            return out, True
        hold = 0
        for stop in self._stops:
            for k in range(min(len(stop) - 1, len(self._pending)), 0, -1):
                if self._pending.endswith(stop[:k]):
                    hold = max(hold, k)
                    break
        out = self._pending[: len(self._pending) - hold]
        self._pending = self._pending[len(out):]
        return out, False

    def flush(self) -> str:
        out, self._pending = self._pending, ""
        return out


