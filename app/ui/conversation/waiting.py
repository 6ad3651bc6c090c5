"""What a reply shows before its first text (``WaitingRows``): while the
model reads the prompt, how much it has read ("Reading your message… 1,024
of 4,096 tokens · about 12 s left") over a thin bar, the time left from
the speed measured so far; before any word of progress (a backend that
does not tell), three typing dots.

The dots move on one timer (``DOTS_MS``) that runs only while a waiting
reply is at the end of the list and the view is shown; each step repaints
that reply's rectangle only. Progress is kept per message id and dropped
when its first text arrives (or the reply is removed).

Threading rule: GUI thread only.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from PyQt6.QtCore import QCoreApplication, QObject, QPointF, QRectF, Qt, QTimer
from PyQt6.QtGui import QFontMetricsF, QPainter

from app.ui.conversation.geometry import Metrics
from app.ui.conversation.items import Item, ItemList
from app.ui.misc import theme

__all__ = ["DOTS_MS", "WaitingRows", "format_left"]

DOTS_MS = 160           # one step of the typing dots
BAR_MAX_PX = 320.0      # the progress bar's longest length at zoom 1
BAR_H = 4.0
ESTIMATE_AFTER_S = 0.3  # no time left is guessed from less than this much reading
LOOK_BACK = 4           # the waiting reply is among the last few items


@dataclass(slots=True)
class _Progress:
    done: int
    total: int
    first_done: int
    first_at: float
    at: float


def format_left(seconds: float) -> str:
    """"about 12 s left", "about 3 min left" (rounded up)."""
    if seconds < 60:
        return QCoreApplication.translate("ChatView", "about {n} s left").format(n=max(1, round(seconds)))
    return QCoreApplication.translate("ChatView", "about {n} min left").format(n=max(1, round(seconds / 60)))


class WaitingRows(QObject):
    """The waiting replies' row (see the module docstring); ``repaint(index)``
    repaints one item, ``shown()`` says whether the view is on screen."""

    def __init__(self, items: ItemList, metrics: Metrics, repaint: Callable[[int], None],
                 shown: Callable[[], bool], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._list = items
        self._metrics = metrics
        self._repaint = repaint
        self._shown = shown
        self._progress: dict[str, _Progress] = {}
        self.phase = 0
        self._timer = QTimer(self)
        self._timer.setInterval(DOTS_MS)
        self._connect_signals()

    def _connect_signals(self) -> None:
        self._timer.timeout.connect(self._on_step)

    # ------------------------------------------------------------------ state

    @staticmethod
    def waiting(item: Item) -> bool:
        """``item`` is a reply that has shown nothing yet."""
        return (item.streaming and item.kind == "assistant" and item.think is None
                and (item.message is None or not item.message.content))

    def set_progress(self, message_id: str, done: int, total: int, now: float | None = None) -> None:
        """``done`` of the prompt's ``total`` tokens read (at ``now``, monotonic)."""
        now = time.monotonic() if now is None else now
        old = self._progress.get(message_id)
        if old is None:
            self._progress[message_id] = _Progress(done, total, done, now, now)
        else:
            old.done, old.total, old.at = done, total, now
        index = self._list.index.get(message_id)
        if index is not None:
            self._repaint(index)

    def forget(self, message_id: str) -> None:
        self._progress.pop(message_id, None)

    def fraction(self, message_id: str) -> float | None:
        """How much of the prompt was read (None: not told)."""
        p = self._progress.get(message_id)
        return None if p is None or p.total <= 0 else min(1.0, p.done / p.total)

    def text(self, message_id: str) -> str:
        """The row's words ("" before any progress: the dots show then)."""
        p = self._progress.get(message_id)
        if p is None:
            return ""
        words = QCoreApplication.translate("ChatView", "Reading your message… {done} of {total} tokens").format(
            done=f"{p.done:,}", total=f"{p.total:,}")
        elapsed = p.at - p.first_at
        if elapsed >= ESTIMATE_AFTER_S and p.done > p.first_done and p.done < p.total:
            rate = (p.done - p.first_done) / elapsed
            words += " · " + format_left((p.total - p.done) / rate)
        return words

    # ------------------------------------------------------------------ the dots' timer

    def start(self) -> None:
        """A reply began waiting: move the dots (if the view is shown)."""
        if not self._timer.isActive() and self._shown():
            self._timer.start()

    @property
    def animating(self) -> bool:
        return self._timer.isActive()

    def _waiting_index(self) -> int | None:
        items = self._list.items
        for n in range(len(items) - 1, max(-1, len(items) - 1 - LOOK_BACK), -1):
            if self.waiting(items[n]):
                return n
        return None

    def _on_step(self) -> None:
        index = self._waiting_index()
        if index is None or not self._shown():
            self._timer.stop()
            for key in [k for k in self._progress if (i := self._list.get(k)) is None or not self.waiting(i)]:
                del self._progress[key]
            return
        self.phase = (self.phase + 1) % 3
        if self._list.items[index].id not in self._progress:
            self._repaint(index)

    # ------------------------------------------------------------------ painting

    def paint(self, painter: QPainter, item: Item, x: float, y: float, width: float) -> None:
        """The row at (x, y), at most ``width`` wide: the progress, else the dots."""
        m = self._metrics
        muted = theme.color("muted")
        words = self.text(item.id)
        painter.save()
        if not words:
            r = 3.0 * m.zoom
            painter.setPen(Qt.PenStyle.NoPen)
            cy = y + m.line_height() / 2
            for k in range(3):
                dot = QRectF(x + k * 4 * r, cy - r, 2 * r, 2 * r)
                color = theme.color("muted")
                color.setAlphaF(1.0 if k == self.phase else 0.35)
                painter.setBrush(color)
                painter.drawEllipse(dot)
            painter.restore()
            return
        painter.setFont(m.small)
        painter.setPen(muted)
        fm = QFontMetricsF(m.small)
        painter.drawText(QPointF(x, y + fm.ascent()), words)
        length = min(width, BAR_MAX_PX * m.zoom)
        top = y + fm.height() + 4
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(theme.color("mid"))
        painter.drawRoundedRect(QRectF(x, top, length, BAR_H), BAR_H / 2, BAR_H / 2)
        fraction = self.fraction(item.id) or 0.0
        if fraction > 0:
            painter.setBrush(theme.color("focus"))
            painter.drawRoundedRect(QRectF(x, top, max(BAR_H, length * fraction), BAR_H), BAR_H / 2, BAR_H / 2)
        painter.restore()
