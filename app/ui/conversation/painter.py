"""Painting the conversation view's items (``ItemPainter``): the header,
the thinking row, each row's document with the selection and the find
matches, the code Copy buttons, the footer.

Find matches are only read from ``FindHighlighter``'s cache: in a plain
document (tail, thoughts, notices) they are painted as rectangles behind the
text (cached per block), in rich ones as selections; never searched here.

Threading rule: GUI thread only.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterator

from PyQt6.QtCore import QCoreApplication, QPointF, QRectF, Qt
from PyQt6.QtGui import (
    QAbstractTextDocumentLayout,
    QColor,
    QFont,
    QFontMetricsF,
    QPainter,
    QPalette,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
)

from app.ui.conversation.find import FindHighlighter
from app.ui.conversation.footer import ActionsShown
from app.ui.conversation.geometry import ItemLayout, Metrics
from app.ui.conversation.items import PAD_Y, Item, ItemList, layout_of
from app.ui.conversation.waiting import WaitingRows
from app.ui.misc import icons, theme

#: The footer actions drawn as icons (``footer.footer_actions``; "branch" and "sources" are text).
FOOTER_ICONS = ("copy", "edit", "regenerate", "continue", "delete", "previous", "next")

_NOTE_KINDS = ("error", "warning", "info")
BUBBLE_RADIUS = 12.0  # a user message's bubble's corners

#: ``selections(index, row, doc) -> the text selection's part in that row``
Selections = Callable[[int, int, QTextDocument], list[QAbstractTextDocumentLayout.Selection]]


def note_color(kind: str) -> QColor:
    """A notice's or footer note's colour in the current theme."""
    return theme.color(kind if kind in _NOTE_KINDS else "info")


class ItemPainter:
    """Paints items at viewport coordinates."""

    def __init__(
        self,
        items: ItemList,
        layout: ItemLayout,
        metrics: Metrics,
        find: FindHighlighter,
        think_label: Callable[[Item], str],
        hidden_thought_matches: Callable[[Item], int],
        selections: Selections,
        palette: Callable[[], QPalette],
        shown: ActionsShown | None = None,
        waiting: WaitingRows | None = None,
    ) -> None:
        self._list = items
        self._layout = layout
        self._metrics = metrics
        self._find = find
        self._think_label = think_label
        self._hidden = hidden_thought_matches
        self._selections = selections
        self._palette = palette
        self._shown = shown if shown is not None else ActionsShown()
        self._waiting = waiting

    def paint(self, painter: QPainter, rows: range, offset: float, width: float, vh: float,
              band: tuple[float, float] | None = None) -> None:
        """Paint items ``rows`` with the view scrolled to ``offset``; only what
        meets ``band`` = (top, bottom) of the viewport (default: all of it): a
        partial repaint (the new lines of a streaming tail) lays out nothing else."""
        c0, c1 = band if band is not None else (0.0, vh)
        for index in rows:
            top = self._list.top(index) - offset
            if top > c1:
                break
            item = self._list.items[index]
            if top + item.height < c0:
                continue
            self._paint_item(painter, index, item, top, width, (c0, c1))

    def paint_bands(self, painter: QPainter, rows: range, offset: float, width: float, vh: float,
                    bands: list[tuple[float, float]]) -> None:
        """``paint`` band by band (``damage.bands`` of a paint event); with
        more than one, each clipped to itself, so that an item two bands
        meet is not drawn over itself."""
        for band in bands:
            if len(bands) > 1:
                painter.setClipRect(QRectF(0.0, band[0], width, band[1] - band[0]))
            self.paint(painter, rows, offset, width, vh, band)

    def _paint_ctx(self) -> QAbstractTextDocumentLayout.PaintContext:
        ctx = QAbstractTextDocumentLayout.PaintContext()
        palette = self._palette()
        ctx.palette = QPalette(palette)
        ctx.palette.setColor(QPalette.ColorRole.Text, palette.color(QPalette.ColorRole.Text))
        return ctx

    def muted_text(self) -> QColor:
        """The thoughts' colour: the palette's placeholder text colour."""
        return self._palette().color(QPalette.ColorRole.PlaceholderText)

    def _paint_item(self, painter: QPainter, index: int, item: Item, top: float, width: float,
                    band: tuple[float, float]) -> None:
        c0, c1 = band
        m = self._metrics
        x = m.text_x()
        if item.kind == "user":
            painter.save()
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(theme.color("user_bg"))
            painter.drawRoundedRect(m.bubble_rect(top, item.height), BUBBLE_RADIUS, BUBBLE_RADIUS)
            painter.restore()
        y = top + PAD_Y
        if item.kind != "notice":
            painter.setFont(m.bold)
            painter.setPen(theme.color("user" if item.kind == "user" else "assistant"))
            painter.drawText(QPointF(x, y + QFontMetricsF(m.bold).ascent()), item.label)
            y += m.header_height(item)
        if item.think is not None:
            painter.setFont(m.small)
            painter.setPen(self.muted_text())
            painter.drawText(QPointF(x, y + QFontMetricsF(m.small).ascent()), self._think_label(item))
            y += m.think_header_height(item)
        if self._waiting is not None and self._waiting.waiting(item):
            self._waiting.paint(painter, item, x, y, m.content_width())
        for n, doc, height, unit, uy in self._layout.rows(item, y, skip_to=c0):
            if uy > c1:
                break
            if uy + height >= c0 and doc is not None:
                painter.save()
                painter.translate(x, uy)
                ctx = self._paint_ctx()
                if item.kind == "notice":
                    ctx.palette.setColor(QPalette.ColorRole.Text, note_color(item.note_kind))
                elif n < 0:  # the thoughts: muted, with a rule at their left
                    muted = self.muted_text()
                    ctx.palette.setColor(QPalette.ColorRole.Text, muted)
                    painter.fillRect(QRectF(-8, 0, 2, height), muted)
                ctx.clip = QRectF(0, c0 - uy, width, c1 - c0)
                selections = self._selections(index, n, doc)
                if self._find.active:
                    # Plain text (the tail, thoughts, notices) gets its find matches
                    # as rectangles behind the text: as many selections would
                    # cost the layout tens of ms in a long paragraph.
                    matches = self._visible_matches(index, n, doc, c0 - uy, c1 - uy)
                    if unit is None or unit.unit.kind == "plain":
                        self._paint_find_rects(painter, doc, matches)
                    else:
                        selections.extend(self._find_selection(doc, *match) for match in matches)
                ctx.selections = selections
                layout_of(doc).draw(painter, ctx)
                painter.restore()
                if unit is not None and unit.unit.kind == "code" and unit.unit.copy:
                    self._paint_copy_button(painter, self._layout.copy_button_rect(uy))
        if item.kind != "notice":
            self._paint_footer(painter, item, top + item.height - PAD_Y - m.line_height(m.small))

    def _paint_copy_button(self, painter: QPainter, rect: QRectF) -> None:
        painter.save()
        painter.setPen(theme.color("copy_border"))
        painter.setBrush(theme.color("copy_bg"))
        painter.drawRoundedRect(rect, 4, 4)
        painter.setFont(self._metrics.small)
        painter.setPen(theme.color("muted"))
        painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, QCoreApplication.translate("ChatView", "Copy"))
        painter.restore()

    def _paint_footer(self, painter: QPainter, item: Item, y: float) -> None:
        painter.setFont(self._metrics.small)
        fm = QFontMetricsF(self._metrics.small)
        shown = self._shown.shows(item)
        device = painter.device()
        ratio = device.devicePixelRatioF() if device is not None else 1.0
        for kind, text, rect in self._layout.footer_layout(item, y):
            if kind == "note":
                painter.setPen(note_color(item.note_kind))
            elif kind in ("facts", "action:branch"):
                painter.setPen(theme.color("muted"))
            elif kind == "action:sources":  # always shown: a link-coloured line, underlined under the pointer
                hovered = self._shown.hover_id == item.id and self._shown.hover_action == "sources"
                font = QFont(self._metrics.small)
                font.setUnderline(hovered)
                painter.setFont(font)
                painter.setPen(theme.color("link"))
                painter.drawText(QPointF(rect.x(), rect.y() + fm.ascent()), text)
                painter.setFont(self._metrics.small)
                continue
            else:
                if shown:
                    self._paint_action(painter, item, kind.removeprefix("action:"), rect, ratio)
                continue
            painter.drawText(QPointF(rect.x(), rect.y() + fm.ascent()), text)

    def warm_up_icons(self, ratio: float) -> Iterator[None]:
        """Draw the footer actions' icons once, muted and hovered, at the
        current size (yielding after each): the first footers painted find
        them cached (reading and drawing the SVGs took ~5 ms an icon in the
        first paint of a history's footers)."""
        side = round(self._layout.action_box() - 6)
        for action in FOOTER_ICONS:
            for colour in ("muted", "text"):
                icons.pixmap(action, theme.color(colour), side, ratio)
                yield

    def _paint_action(self, painter: QPainter, item: Item, action: str, rect: QRectF, ratio: float) -> None:
        """An action's icon button: muted, on a tinted square with the
        text's colour under the pointer."""
        hovered = self._shown.hover_id == item.id and self._shown.hover_action == action
        if hovered:
            painter.save()
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(theme.color("midlight"))
            painter.drawRoundedRect(rect, 5, 5)
            painter.restore()
        side = round(rect.height() - 6)
        image = icons.pixmap(action, theme.color("text" if hovered else "muted"), side, ratio)
        painter.drawPixmap(QPointF(rect.x() + (rect.width() - side) / 2, rect.y() + (rect.height() - side) / 2), image)

    # ------------------------------------------------------------------ find matches

    def _visible_matches(
        self, index: int, n: int, doc: QTextDocument, y0: float, y1: float
    ) -> Iterator[tuple[int, int, bool]]:
        """(start, length, current?) of the cached matches of ``doc`` between
        its y0 and y1 (the part on screen); none while still being found."""
        starts = self._find.ranges(doc)
        if not starts:
            return
        item = self._list.items[index]
        current_nth = -1
        current = self._find.current
        if current is not None and current[0] == item.id:
            before = self._hidden(item)
            for m, other, _h, _u, _y in self._layout.rows(item, 0.0):
                if m == n:
                    break
                if other is not None:
                    before += len(self._find.ranges(other) or ())
            current_nth = current[1] - before
        layout = layout_of(doc)
        first = max(0, bisect.bisect_left(starts, layout.hitTest(QPointF(0, y0), Qt.HitTestAccuracy.FuzzyHit)) - 1)
        last = bisect.bisect_right(starts, max(0, layout.hitTest(QPointF(1e6, y1), Qt.HitTestAccuracy.FuzzyHit)))
        size = len(self._find.text)
        end = doc.characterCount() - 1
        for k in range(first, min(last + 1, len(starts))):
            yield starts[k], min(size, end - starts[k]), k == current_nth

    @staticmethod
    def _find_selection(doc: QTextDocument, start: int, size: int, current: bool) -> QAbstractTextDocumentLayout.Selection:
        cursor = QTextCursor(doc)
        cursor.setPosition(start)
        cursor.setPosition(start + size, QTextCursor.MoveMode.KeepAnchor)
        s = QAbstractTextDocumentLayout.Selection()
        s.cursor = cursor
        fmt = QTextCharFormat()
        fmt.setBackground(theme.color("find_current" if current else "find"))
        s.format = fmt
        return s

    def _paint_find_rects(self, painter: QPainter, doc: QTextDocument, matches: Iterator[tuple[int, int, bool]]) -> None:
        """Find matches of a plain document as rectangles behind its text."""
        layout = layout_of(doc)
        found, current_color = theme.color("find"), theme.color("find_current")
        block_rects: dict[int, QRectF] = {}
        shapes = self._find.shapes(doc)  # match geometry within its block, kept while the block is unchanged
        width = doc.textWidth()
        for start, size, current in matches:
            block = doc.findBlock(start)
            key = block.position()
            rect = block_rects.get(key)
            if rect is None:
                rect = block_rects[key] = layout.blockBoundingRect(block)
            a = start - key
            shape_key = (key, block.length(), width, a, size)
            shape = shapes.get(shape_key)
            if shape is None:
                text_layout = block.layout()
                assert text_layout is not None
                line = text_layout.lineForTextPosition(a)
                if not line.isValid():
                    continue
                end_line = text_layout.lineForTextPosition(a + size)
                x1 = line.cursorToX(a)[0]
                same = end_line.isValid() and end_line.lineNumber() == line.lineNumber()
                x2 = line.cursorToX(a + size)[0] if same else line.naturalTextWidth()
                shape = shapes[shape_key] = QRectF(x1, line.y(), max(1.0, x2 - x1), line.height())
            painter.fillRect(shape.translated(rect.x(), rect.y()), current_color if current else found)
