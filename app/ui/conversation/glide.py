"""Scrolling to the bottom smoothly (``BottomGlide``): after a send, the
view glides down to the new message instead of jumping.

The glide eases out over about ``GLIDE_MS`` on a 16 ms timer: each step
moves a third of the way left to the bar's bottom as it is then (the reply
may be growing meanwhile), so it ends at the bottom and following takes over
from there. More than ``MAX_PAGES`` pages away, it jumps to one page above
the bottom first. It stops at once when the reader moves the bar (any value
it did not set), when the view is hidden, or when asked to jump; each step
costs one ``setValue`` (the view repaints what moved).

Threading rule: GUI thread only.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from PyQt6.QtCore import QObject, QTimer
from PyQt6.QtWidgets import QScrollBar

__all__ = ["GLIDE_MS", "MAX_PAGES", "BottomGlide"]

#: About how long a glide takes.
GLIDE_MS = 180
#: Further than this many pages, the glide starts one page above the bottom.
MAX_PAGES = 2
_STEP_MS = 16
_FRACTION = 0.34  # of the distance left, per step


class BottomGlide(QObject):
    """Glides ``bar`` to its maximum (see the module docstring); ``visible()``
    says whether the view is shown."""

    def __init__(self, bar: QScrollBar, visible: Callable[[], bool], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._bar = bar
        self._visible = visible
        self._timer = QTimer(self)
        self._timer.setInterval(_STEP_MS)
        self._timer.timeout.connect(self._on_step)
        self._set = -1  # the value this glide set last
        self._steps = 0

    @property
    def active(self) -> bool:
        return self._timer.isActive()

    def start(self) -> None:
        """Glide to the bottom (at once when the view is hidden or already there)."""
        bar = self._bar
        if not self._visible() or bar.value() >= bar.maximum():
            self.stop(jump=True)
            return
        page = max(1, bar.pageStep())
        if bar.maximum() - bar.value() > MAX_PAGES * page:
            bar.setValue(bar.maximum() - page)
        self._set = bar.value()
        self._steps = 0
        self._timer.start()

    def stop(self, jump: bool = False) -> None:
        """Stop gliding; ``jump``: to the bottom at once."""
        self._timer.stop()
        if jump:
            self._bar.setValue(self._bar.maximum())

    def _on_step(self) -> None:
        bar = self._bar
        if bar.value() != self._set:  # the reader moved it (or the view was reset): theirs now
            self._timer.stop()
            return
        if not self._visible():
            self.stop(jump=True)
            return
        self._steps += 1
        left = bar.maximum() - bar.value()
        if left <= 1 or self._steps * _STEP_MS >= 2 * GLIDE_MS:
            self.stop(jump=True)
            return
        bar.setValue(bar.value() + max(1, math.ceil(left * _FRACTION)))
        self._set = bar.value()
