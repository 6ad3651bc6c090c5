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
        self._pin: tuple[int, int] | None = None   # (viewport y, dy) of a scroll that leaves the rows below y
        self._pinned = False

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

    def strip(self, top: float, bottom: float) -> None:
        """Paint again the viewport rows from ``top`` to ``bottom`` (clipped to it)."""
        if self._full:
            return
        y0, y1 = max(0, int(top)), min(self._vp.height(), int(bottom) + 1)
        if y1 <= y0:
            return
        rect = QRect(0, y0, self._vp.width(), y1 - y0)
        self._rects.append(rect)
        self.partial += 1
        self._vp.update(rect)

    def pin(self, y: int, dy: int) -> None:
        """The next scroll, if it is by ``dy`` and nothing is pending, moves
        only the pixels above viewport row ``y``: those below stay. (Blocks
        at the front of a tail that follows the bottom were swapped for
        their units: the rest of the tail and the footer stay where they are
        on screen, the content above moves.) ``unpin`` says whether it did."""
        self._pin, self._pinned = (y, dy), False

    def unpin(self) -> bool:
        """Forget the pin; True if a scroll was done the pinned way."""
        pinned = self._pinned
        self._pin, self._pinned = None, False
        return pinned

    def work_drained(self, kinds: frozenset[str]) -> None:
        """Time-sliced work of these kinds ran: paint everything again unless
        each kind paints what it changed itself."""
        if not kinds <= SELF_PAINTING_WORK:
            self.all()

    def scrolled(self, dy: int) -> None:
        """The content moved by ``dy`` pixels (negative: up) and nothing else changed."""
        if dy == 0:
            return
        pin, self._pin = self._pin, None
        if pin is not None and pin[1] == dy and not self._full and not self._rects:
            y = min(pin[0], self._vp.height())
            if y > 0:  # Qt paints again what the move uncovers inside the rect
                self._vp.scroll(0, dy, QRect(0, 0, self._vp.width(), y))
                self.blits += 1
            self._pinned = True
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
