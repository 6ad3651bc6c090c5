"""The view's geometry: fonts and line heights at the current zoom, and
the height of an item, measured or estimated from its text (``Metrics``).

Estimates are plain arithmetic (no Qt layout), so that a conversation of
thousands of messages gets its heights at once; an item's real height
replaces its estimate when it is laid out near the viewport.

Threading rule: GUI thread only.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import operator
from collections.abc import Callable, Iterator

from PyQt6.QtCore import QRectF, Qt
from PyQt6.QtGui import QFont, QFontMetricsF, QTextDocument

from app.core.render.blocks import Unit
from app.ui.conversation.items import (
    BUBBLE_PAD,
    CHAR_W,
    COLUMN_CHARS,
    FOOTER_GAP,
    HEADER_GAP,
    PAD_X,
    PAD_Y,
    SMALL_PX,
    SOURCES_GAP,
    TEXT_PX,
    UNIT_GAP,
    Item,
    ItemList,
    ThoughtsState,
    UnitSlot,
    gap_after,
)


class Metrics:
    """Fonts, line heights, the reading column and height estimates;
    ``viewport_width`` gives the viewport's width now.

    The reading column: the text is at most ``column_chars`` average
    characters wide (at the current zoom, so it grows with the text) and
    centred in the viewport (``text_x``); 0 lets it take the whole width."""

    def __init__(self, base: QFont, viewport_width: Callable[[], int]) -> None:
        self._viewport_width = viewport_width
        self.column_chars = COLUMN_CHARS
        self._line_heights: dict[str, float] = {}
        self._own_heights: dict[int, float] = {}  # id of font, small, bold -> line height (no font.key() per call)
        self.zoom = 1.0
        self.font = self.small = self.bold = QFont()
        self.set_fonts(base)

    def set_fonts(self, base: QFont) -> None:
        """Fonts from the widget's ``base`` font at the current zoom."""
        self.font = QFont(base)
        self.font.setPixelSize(round(TEXT_PX * self.zoom))
        self.small = QFont(base)
        self.small.setPixelSize(round(SMALL_PX * self.zoom))
        self.bold = QFont(self.font)
        self.bold.setWeight(QFont.Weight.Bold)
        self._own_heights = {id(f): QFontMetricsF(f).height() for f in (self.font, self.small, self.bold)}

    def frame_height(self) -> float:
        """Padding, header and footer of a message item."""
        return 2 * PAD_Y + self.line_height(self.bold) + HEADER_GAP + self.line_height(self.small) + FOOTER_GAP

    def content_width(self) -> float:
        """The text's width: the viewport's less its margins, at most the column's."""
        width = self._viewport_width() - 2 * PAD_X
        if self.column_chars > 0:
            width = min(width, float(round(self.column_chars * CHAR_W * self.zoom)))
        return max(120.0, width)

    def text_x(self) -> float:
        """The viewport x where the text starts (the column centred, whole pixels)."""
        return float(max(PAD_X, (self._viewport_width() - self.content_width()) // 2))

    def bubble_rect(self, top: float, height: float) -> QRectF:
        """A user message's tinted bubble: around the column's text."""
        x = self.text_x()
        pad = min(BUBBLE_PAD, x - 4.0)
        return QRectF(x - pad, top, self.content_width() + 2 * pad, height)

    def line_height(self, font: QFont | None = None) -> float:
        font = font or self.font
        own = self._own_heights.get(id(font))
        if own is not None and (font is self.font or font is self.small or font is self.bold):
            return own  # one of the view's own fonts (called per unit: font.key() costs ~7 us)
        key = font.key()
        height = self._line_heights.get(key)
        if height is None:
            height = self._line_heights[key] = QFontMetricsF(font).height()
        return height

    def header_height(self, item: Item) -> float:
        return 0.0 if item.kind == "notice" else self.line_height(self.bold) + HEADER_GAP

    def think_header_height(self, item: Item) -> float:
        """The "▸ Thinking…" row (none without thinking)."""
        return 0.0 if item.think is None else self.line_height(self.small) + HEADER_GAP

    def thoughts_height(self, think: ThoughtsState, width: float) -> float:
        """Height of the unfolded thoughts' row: measured, or estimated while
        their document is not built (or being filled)."""
        if think.ready or think.measured_width == width:
            return think.height
        return self.estimate_text(think.end - think.start, 0, width)

    def footer_height(self, item: Item) -> float:
        if item.kind == "notice":
            return 0.0
        line = self.line_height(self.small)
        return line + FOOTER_GAP + (line + SOURCES_GAP if item.sources else 0.0)

    def estimate_unit(self, unit: Unit, width: float) -> float:
        return _estimate(unit, max(10, int(width / (CHAR_W * self.zoom))), self.line_height())

    def estimate_text(self, text_len: int, newlines: int, width: float) -> float:
        per_line = max(10, int(width / (CHAR_W * self.zoom)))
        return (text_len // per_line + newlines + 1) * self.line_height() + 12.0

    def estimate_key(self) -> tuple[float, float, float]:
        """What a unit's estimated height is made for (``UnitSlot.estimated_for``)."""
        return (self.content_width(), self.zoom, self.line_height())

    def item_height(self, item: Item) -> float:
        units = item.units
        key = self.estimate_key()
        width, _zoom, line = key
        # A long message has thousands of units (a 4 MB prompt: 4,389): the
        # estimates are made in one loop with what they share read once, and
        # the sums are taken at C speed.
        stale = [u for u in units if u.estimated_for != key and u.doc is None and u.measured_width != width]
        if stale:
            per_line = max(10, int(width / (CHAR_W * self.zoom)))
            for u in stale:
                u.height = _estimate(u.unit, per_line, line)
                u.estimated_for = key
        body = functools.reduce(operator.add, map(_HEIGHT, units), 0.0)  # in order, as a loop adds (sum() may not)
        continued = sum(map(_CONT, map(_UNIT, units)))  # units that go on a code block (no gap before them)
        if units:
            if units[0].unit.cont:
                continued -= 1
            body += UNIT_GAP * (len(units) - 1 - continued)  # = the sum of gap_after over all but the last
        think = item.think
        if item.rendered_len < 0 and not item.units and item.message is not None:
            content = item.message.content
            start = think.answer if think is not None and think.answer >= 0 else 0
            body = self.estimate_text(len(content) - start, content.count("\n", start, start + 20000), width)
        if item.tail is not None and not item.tail.isEmpty():
            body += (UNIT_GAP if item.units else 0.0) + item.tail_height
        if think is not None:
            body += self.think_header_height(item)
            if think.expanded:
                body += self.thoughts_height(think, width) + UNIT_GAP
        return PAD_Y + self.header_height(item) + body + self.footer_height(item) + PAD_Y


_HEIGHT = operator.attrgetter("height")
_UNIT = operator.attrgetter("unit")
_CONT = operator.attrgetter("cont")


def _estimate(unit: Unit, per_line: int, line: float) -> float:
    """A unit's height before its document is laid out: its lines at
    ``per_line`` characters each, ``line`` px a line, plus its margins."""
    kind = unit.kind
    if kind == "html":
        return (int(len(unit.body) * 0.7) // per_line + 1) * line + 12.0
    lines = unit.body.count("\n") + (len(unit.copy) if kind == "code" else len(unit.body)) // per_line + 1
    return lines * line + (8.0 if kind == "code" else 12.0)


def unit_tops(units: list[UnitSlot], y: float) -> list[float]:
    """The y of each of ``units``, the first at ``y``, as ``ItemLayout.rows``
    places them: a running sum at C speed, no Python call per unit."""
    steps = [u.height + (0.0 if nxt.unit.cont else UNIT_GAP) for u, nxt in itertools.pairwise(units)]
    return list(itertools.accumulate(steps, initial=y))


#: Messages with more units than this skip the rows above a painted band (``ItemLayout.rows``).
SKIP_ROWS_MIN = 64

#: A row of an item's body: (unit index, document, height, unit or None for the
#: tail and the thoughts, top y). Unit index -1 is the unfolded thoughts,
#: len(units) the streaming tail.
Row = tuple[int, QTextDocument | None, float, UnitSlot | None, float]


class ItemLayout:
    """Where each part of an item is, in content coordinates: its body's
    rows, its thinking header, its footer pieces, its code Copy buttons.
    Shared by the painter, the hit tester and the probe."""

    def __init__(
        self,
        items: ItemList,
        metrics: Metrics,
        think_label: Callable[[Item], str],
        actions: Callable[[Item], list[tuple[str, str]]],
    ) -> None:
        self._list = items
        self._metrics = metrics
        self._think_label = think_label
        self._actions = actions

    def text_x(self) -> float:
        """The viewport x where the column's text starts."""
        return self._metrics.text_x()

    def rows(self, item: Item, y: float, units: list[UnitSlot] | None = None,
             skip_to: float | None = None) -> Iterator[Row]:
        """Each part of ``item``'s body, the first at ``y``: the unfolded
        thoughts (no document while being built), the units (``units``
        instead of the item's own: where they would be), the tail.
        ``skip_to``: leave out the units that end above that y (a long
        message painted near its end: their heights are summed at C speed,
        with no row made for each)."""
        think = item.think
        thoughts = self._thoughts_height(item)
        if think is not None and thoughts is not None:
            yield -1, (think.doc if think.ready else None), thoughts, None, y
            y += thoughts + UNIT_GAP
        if units is None:
            units = item.units
        start = 0
        if skip_to is not None and len(units) > SKIP_ROWS_MIN and skip_to > y:
            tops = unit_tops(units, y)
            start = max(0, bisect.bisect_right(tops, skip_to) - 1)
            y = tops[start]
        for n in range(start, len(units)):
            u = units[n]
            yield n, u.doc, u.height, u, y
            y += u.height + gap_after(units, n)
        if item.tail is not None and not item.tail.isEmpty():
            if units:
                y += UNIT_GAP - gap_after(units, len(units) - 1)
            yield len(units), item.tail, item.tail_height, None, y

    def _thoughts_height(self, item: Item) -> float | None:
        """The unfolded thoughts' height above the units (None: none shown)."""
        think = item.think
        if think is None or not think.expanded:
            return None
        return self._metrics.thoughts_height(think, self._metrics.content_width())

    def body_top(self, index: int) -> float:
        """Content y of the first row (thoughts or unit) of item ``index``."""
        item = self._list.items[index]
        m = self._metrics
        return self._list.top(index) + PAD_Y + m.header_height(item) + m.think_header_height(item)

    def unit_top(self, index: int, n: int) -> float:
        """Content y of unit ``n`` of item ``index`` as ``rows`` places it;
        ``n`` = len(units): where a tail after them begins."""
        item = self._list.items[index]
        y = self.body_top(index)
        thoughts = self._thoughts_height(item)
        if thoughts is not None:
            y += thoughts + UNIT_GAP
        units = item.units
        if n <= 0 or not units:
            return y
        if n >= len(units):
            return unit_tops(units, y)[-1] + units[-1].height + UNIT_GAP
        return unit_tops(units[: n + 1], y)[n]

    def footer_top(self, index: int) -> float:
        item = self._list.items[index]
        return self._list.top(index) + item.height - PAD_Y - self._metrics.line_height(self._metrics.small)

    def copy_button_rect(self, unit_top: float) -> QRectF:
        """A code block's Copy button, at its top right (viewport x)."""
        m = self._metrics
        return QRectF(m.text_x() + m.content_width() - 58, unit_top + 4, 52, 20)

    def action_box(self) -> float:
        """The side of a footer action's square (its icon and a margin)."""
        return float(round(self._metrics.line_height(self._metrics.small) + 8))

    def footer_layout(self, item: Item, y: float) -> list[tuple[str, str, QRectF]]:
        """(kind, text, rect) of each footer piece: the note, the actions
        (icon squares, their text the tooltip and accessible name; the
        branch switcher's "2/3" as text), then the facts, at the column's
        right end when they fit there."""
        fm = QFontMetricsF(self._metrics.small)
        h = fm.height()
        x = self._metrics.text_x()
        box = self.action_box()
        out: list[tuple[str, str, QRectF]] = []
        if item.note:
            w = fm.horizontalAdvance(item.note)
            out.append(("note", item.note, QRectF(x, y, w, h)))
            x += w + 12
        for action, label in self._actions(item):
            if action == "branch":
                w = fm.horizontalAdvance(label)
                out.append((f"action:{action}", label, QRectF(x, y, w, h)))
                x += w + 2
            elif action == "sources":
                # the line above the footer's, cut with "…" to the column (the tooltip has it whole)
                shown = fm.elidedText(label, Qt.TextElideMode.ElideRight, self._metrics.content_width())
                top = y - self._metrics.line_height(self._metrics.small) - SOURCES_GAP
                out.append((f"action:{action}", shown, QRectF(self._metrics.text_x(), top, fm.horizontalAdvance(shown), h)))
            else:
                out.append((f"action:{action}", label, QRectF(x, y + (h - box) / 2, box, box)))
                x += box + 2
        if item.facts:
            w = fm.horizontalAdvance(item.facts)
            right = self._metrics.text_x() + self._metrics.content_width() - w
            out.append(("facts", item.facts, QRectF(max(x + 10, right), y, w, h)))
        return out

    def think_header_rect(self, index: int) -> QRectF | None:
        """The thinking header's clickable rect (None: no thinking)."""
        item = self._list.items[index]
        if item.think is None:
            return None
        fm = QFontMetricsF(self._metrics.small)
        y = self._list.top(index) + PAD_Y + self._metrics.header_height(item)
        return QRectF(self._metrics.text_x(), y, fm.horizontalAdvance(self._think_label(item)) + 8, fm.height())
