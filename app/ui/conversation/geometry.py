"""The view's geometry: fonts and line heights at the current zoom, and
the height of an item, measured or estimated from its text (``Metrics``).

Estimates are plain arithmetic (no Qt layout), so that a conversation of
thousands of messages gets its heights at once; an item's real height
replaces its estimate when it is laid out near the viewport.

Threading rule: GUI thread only.
"""

from __future__ import annotations

from collections.abc import Callable

from PyQt6.QtGui import QFont, QFontMetricsF

from app.core.render.blocks import Unit
from app.ui.conversation.items import (
    CHAR_W,
    FOOTER_GAP,
    HEADER_GAP,
    PAD_X,
    PAD_Y,
    SMALL_PX,
    TEXT_PX,
    UNIT_GAP,
    Item,
    ThoughtsState,
    gap_after,
)


class Metrics:
    """Fonts, line heights and height estimates; ``viewport_width`` gives
    the viewport's width now."""

    def __init__(self, base: QFont, viewport_width: Callable[[], int]) -> None:
        self._viewport_width = viewport_width
        self._line_heights: dict[str, float] = {}
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

    def frame_height(self) -> float:
        """Padding, header and footer of a message item."""
        return 2 * PAD_Y + self.line_height(self.bold) + HEADER_GAP + self.line_height(self.small) + FOOTER_GAP

    def content_width(self) -> float:
        return max(120.0, self._viewport_width() - 2 * PAD_X)

    def line_height(self, font: QFont | None = None) -> float:
        font = font or self.font
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
        return self.line_height(self.small) + FOOTER_GAP

    def estimate_unit(self, unit: Unit, width: float) -> float:
        text_len = len(unit.copy) if unit.kind == "code" else len(unit.body)
        if unit.kind == "html":
            text_len = int(text_len * 0.7)
        char_w = CHAR_W * self.zoom
        per_line = max(10, int(width / char_w))
        lines = unit.body.count("\n") if unit.kind != "html" else 0
        lines += text_len // per_line + 1
        extra = 8.0 if unit.kind == "code" else 12.0
        return lines * self.line_height() + extra

    def estimate_text(self, text_len: int, newlines: int, width: float) -> float:
        per_line = max(10, int(width / (CHAR_W * self.zoom)))
        return (text_len // per_line + newlines + 1) * self.line_height() + 12.0

    def item_height(self, item: Item) -> float:
        width = self.content_width()
        body = 0.0
        for n, u in enumerate(item.units):
            if u.doc is None and u.measured_width != width:
                u.height = self.estimate_unit(u.unit, width)
            body += u.height + gap_after(item.units, n)
        if item.units:
            body -= gap_after(item.units, len(item.units) - 1)
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
