"""What is under a point of the conversation view (``HitTester``): one
pass per mouse event finds the item, the row (thoughts, unit, tail) and the
point in its document, and from those the link, footer action, code Copy
button or thinking header there.

Threading rule: GUI thread only.
"""

from __future__ import annotations

from dataclasses import dataclass

from PyQt6.QtCore import QPointF, Qt
from PyQt6.QtGui import QTextDocument

from app.ui.conversation.geometry import ItemLayout
from app.ui.conversation.items import ItemList, Pos, layout_of


@dataclass(slots=True)
class Hit:
    """What is under a point (content coordinates known to the tester)."""

    index: int                     # the item
    unit: int                      # the row: -1 thoughts, len(units) the tail
    doc: QTextDocument | None      # the row's document (None: not built, or no rows)
    at: QPointF                    # the point in that document
    in_body: bool = True           # the point is above the end of the item's last row
    href: str = ""                 # a link there
    action: str = ""               # a footer action there
    code: str | None = None        # the code a Copy button there copies
    thinking: bool = False         # the thinking header is there

    @property
    def clickable(self) -> bool:
        return bool(self.href or self.action or self.code is not None or self.thinking)

    def pos(self) -> Pos | None:
        """The place in the text under the point (None: below the last row)."""
        if not self.in_body:
            return None
        if self.doc is None:
            return Pos(self.index, self.unit, 0)
        char = layout_of(self.doc).hitTest(self.at, Qt.HitTestAccuracy.FuzzyHit)
        return Pos(self.index, self.unit, max(0, char))


class HitTester:
    """Answers "what is at this viewport point" from the items and their layout."""

    def __init__(self, items: ItemList, layout: ItemLayout) -> None:
        self._list = items
        self._layout = layout

    def at(self, point: QPointF, scroll: float, width: float, details: bool = True) -> Hit | None:
        """The hit at viewport ``point`` with the view scrolled to ``scroll``
        (``width``: the viewport's). ``details``: also look for the link,
        action, Copy button and thinking header there."""
        items = self._list.items
        if not items:
            return None
        y = point.y() + scroll
        index = self._list.at_y(y)
        item = items[index]
        layout = self._layout
        left = layout.text_x()
        rows = list(layout.rows(item, layout.body_top(index)))
        hit = Hit(index, 0, None, QPointF())
        if rows:
            hit.in_body = False
            for k, (n, doc, _height, _unit, uy) in enumerate(rows):
                below = rows[k + 1][4] if k + 1 < len(rows) else float("inf")
                if y < below:
                    hit = Hit(index, n, doc, QPointF(point.x() - left, y - uy))
                    break
        if not details:
            return hit
        content = QPointF(point.x(), y)
        header = layout.think_header_rect(index)
        if header is not None and header.adjusted(-3, -3, 3, 3).contains(content):
            hit.thinking = True
        for kind, _text, rect in layout.footer_layout(item, layout.footer_top(index)):
            if kind.startswith("action:") and rect.adjusted(-3, -3, 3, 3).contains(content):
                hit.action = kind.removeprefix("action:")
                break
        if hit.in_body and 0 <= hit.unit < len(item.units):
            unit = item.units[hit.unit].unit
            button = layout.copy_button_rect(0)
            if unit.kind == "code" and unit.copy and button.contains(QPointF(hit.at.x() + left, hit.at.y())):
                hit.code = unit.copy
        if hit.in_body and hit.doc is not None:
            hit.href = layout_of(hit.doc).anchorAt(hit.at)
        return hit
