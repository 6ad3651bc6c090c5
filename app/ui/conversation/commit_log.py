"""When a streaming reply's text arrived and when it was shown rendered (``CommitLog``).

A streamed reply is shown plain in its tail and swapped for rendered units
(formulas typeset, code highlighted) block by block. The log keeps, for the
last few streaming messages, how much of the answer had arrived at each
append and how much of it was shown rendered at each swap, with the times,
so that the doctor can say how long a formula waited between its closing
delimiter and its image (``delays_ms``). A few tuples per tick; bounded.

Threading rule: GUI thread only.
"""

from __future__ import annotations

import bisect
import time
from collections import OrderedDict

__all__ = ["CommitLog"]

#: Messages remembered (the newest).
_MESSAGES = 4
#: Entries kept per message and kind (the first ones: a reply longer than this is not measured to its end).
_ENTRIES = 200_000


class _Track:
    def __init__(self) -> None:
        self.arrived_ends: list[int] = []
        self.arrived_at: list[float] = []
        self.shown_ends: list[int] = []
        self.shown_at: list[float] = []


class CommitLog:
    """See the module docstring."""

    def __init__(self) -> None:
        self._tracks: OrderedDict[str, _Track] = OrderedDict()

    def _track(self, message_id: str) -> _Track:
        track = self._tracks.get(message_id)
        if track is None:
            track = self._tracks[message_id] = _Track()
            while len(self._tracks) > _MESSAGES:
                self._tracks.popitem(last=False)
        return track

    def arrived(self, message_id: str, added: int) -> None:
        """``added`` more characters of the answer reached the tail."""
        track = self._track(message_id)
        if added > 0 and len(track.arrived_ends) < _ENTRIES:
            end = (track.arrived_ends[-1] if track.arrived_ends else 0) + added
            track.arrived_ends.append(end)
            track.arrived_at.append(time.monotonic())

    def shown(self, message_id: str, end: int) -> None:
        """The answer's first ``end`` characters are shown rendered."""
        track = self._tracks.get(message_id)
        if track is not None and len(track.shown_ends) < _ENTRIES:
            if not track.shown_ends or end > track.shown_ends[-1]:
                track.shown_ends.append(end)
                track.shown_at.append(time.monotonic())

    def finished(self, message_id: str) -> None:
        """The final render is in place: all of the answer is shown rendered."""
        track = self._tracks.get(message_id)
        if track is not None and track.arrived_ends:
            self.shown(message_id, max(track.arrived_ends[-1], track.shown_ends[-1] if track.shown_ends else 0))

    def delays_ms(self, message_id: str, ends: list[int]) -> list[float]:
        """For each answer offset in ``ends`` (a formula's end), the time from
        its arrival to its being shown rendered (offsets never shown are left out)."""
        track = self._tracks.get(message_id)
        if track is None:
            return []
        out: list[float] = []
        for end in ends:
            a = bisect.bisect_left(track.arrived_ends, end)
            s = bisect.bisect_left(track.shown_ends, end)
            if a < len(track.arrived_ends) and s < len(track.shown_ends):
                out.append(max(0.0, (track.shown_at[s] - track.arrived_at[a]) * 1000))
        return out
