"""What of the conversation view's viewport must be painted again (``ViewportDamage``).

Every repaint the view asks for goes through here, so that the one hot path
can be cheap: a reply streaming at the bottom. There the content above the
tail only moves up, so the pixels are moved (``QWidget.scroll``, a copy in
the backing store) and only the strip from the tail's old last line down is
painted again, instead of laying out and drawing the whole viewport at every
tick. Anything else (a height changed above the reader, a theme, a zoom...)
is a full repaint, as before, and so is time-sliced work that does not
paint its own change (``work_drained``).

A partial repaint asked for and not yet painted when the pixels move is moved
with them (``scrolled``), whatever Qt does with its own pending region; a
full one pending makes a scroll a full repaint too.

Threading rule: GUI thread only.
"""

from __future__ import annotations

from PyQt6.QtCore import QRect
from PyQt6.QtGui import QRegion
from PyQt6.QtWidgets import QWidget

#: Time-sliced work (``TimeSlicer`` key kinds) that asks for its own repaint
#: (blocks streamed into units: ``StreamFlow.tail_changed``; a final render
#: swapped in: the view's settle, from the first unit that changed) or
#: changes no pixel (freeing far documents, warming caches).
SELF_PAINTING_WORK = frozenset({"stream", "final", "free", "warm"})

#: Pixels: the rows a paint region's strips are found in (``bands``).
BAND_STEP = 8


def bands(region: QRegion) -> list[tuple[float, float]]:
    """The viewport y ranges (top, bottom), top to bottom, that ``region``
    meets, in rows of ``BAND_STEP`` pixels. A block swapped for a shorter
    rendered unit while following scrolls the content down: the paint then
    holds the strip exposed at the top and the tail's part at the bottom,
    and its bounding rect is the whole viewport. Painted band by band, the
    rows between are neither laid out nor drawn."""
    box = region.boundingRect()
    if region.rectCount() <= 1:
        return [(float(box.top()), float(box.bottom() + 1))] if not box.isEmpty() else []
    out: list[tuple[float, float]] = []
    start: int | None = None
    end = box.bottom() + 1
    for y in range(box.top(), end, BAND_STEP):
        if region.intersects(QRect(box.left(), y, box.width(), min(BAND_STEP, end - y))):
            if start is None:
                start = y
        elif start is not None:
            out.append((float(start), float(y)))
            start = None
    if start is not None:
        out.append((float(start), float(end)))
    return out


class ViewportDamage:
    """The viewport's pending repaints (see the module docstring)."""

    def __init__(self, viewport: QWidget) -> None:
        self._vp = viewport
        self._full = False
        self._rects: list[QRect] = []
        self.blits = 0            # scrolls done by moving pixels (tests, the doctor)
        self.partial = 0          # partial repaints asked for
        self.full_paints = 0      # paint events of the whole viewport (the doctor)
        self.partial_paints = 0   # paint events of a part of it

    @property
    def pending(self) -> bool:
        """A repaint was asked for and not painted yet."""
        return self._full or bool(self._rects)

    @property
    def pending_rects(self) -> list[QRect]:
        """The partial repaints asked for and not painted yet."""
        return [QRect(r) for r in self._rects]

    def all(self) -> None:
        """Paint everything again."""
        self._full = True
        self._rects.clear()
        self._vp.update()

    def below(self, y: float) -> None:
        """Paint again from viewport y ``y`` down (what a growing tail changed)."""
        if self._full:
            return
        top = max(0, int(y))
        if top >= self._vp.height():
            return
        rect = QRect(0, top, self._vp.width(), self._vp.height() - top)
        self._rects.append(rect)
        self.partial += 1
        self._vp.update(rect)

    def work_drained(self, kinds: frozenset[str]) -> None:
        """Time-sliced work of these kinds ran: paint everything again unless
        each kind paints what it changed itself."""
        if not kinds <= SELF_PAINTING_WORK:
            self.all()

    def scrolled(self, dy: int) -> None:
        """The content moved by ``dy`` pixels (negative: up) and nothing else changed."""
        if dy == 0:
            return
        if self._full or abs(dy) >= self._vp.height():
            self.all()
            return
        self._vp.scroll(0, dy)
        self.blits += 1
        self._rects = [r.translated(0, dy) for r in self._rects]
        for rect in self._rects:
            self._vp.update(rect)

    def painted(self, strips: list[tuple[float, float]]) -> None:
        """A paint event of these viewport y ranges (``bands``) consumed what was pending."""
        if sum(bottom - top for top, bottom in strips) >= self._vp.height():
            self.full_paints += 1
        else:
            self.partial_paints += 1
        self._full = False
        self._rects.clear()
