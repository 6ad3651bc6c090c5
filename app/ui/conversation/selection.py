"""The conversation view's text selection (``Selection``: two places,
painted per row, its text gathered only on Copy, in pieces for a large one).

Threading rule: GUI thread only.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterator

from PyQt6.QtGui import (
    QAbstractTextDocumentLayout,
    QColor,
    QPalette,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
)

from app.core.render import blocks
from app.ui.conversation.items import Item, ItemList, Pos, copy_source, is_table_piece, joined_unit_texts
from app.ui.misc.math_images import text_with_formulas

#: ``(doc, unit, start, stop, colour) -> selections drawing its formulas in colour``
SelectedFormulas = Callable[[QTextDocument, blocks.Unit, int, int, QColor], list[QAbstractTextDocumentLayout.Selection]]


class Selection:
    """From ``anchor`` (where the drag began) to ``cursor`` (where it is)."""

    def __init__(self, items: ItemList, palette: Callable[[], QPalette],
                 formulas: SelectedFormulas | None = None) -> None:
        self._list = items
        self._palette = palette
        self._formulas = formulas
        self.anchor: Pos | None = None
        self.cursor: Pos | None = None

    @property
    def active(self) -> bool:
        return self.anchor is not None and self.cursor is not None and self.anchor != self.cursor

    def clear(self) -> None:
        self.anchor = self.cursor = None

    def select_all(self) -> None:
        """From the first item's start to the last one's end: O(1)."""
        items = self._list.items
        if not items:
            return
        last = len(items) - 1
        item = items[last]
        n_units = len(item.units) + (1 if item.tail is not None else 0)
        self.anchor = Pos(0, -1, 0)
        self.cursor = Pos(last, max(0, n_units - 1), 1 << 30)

    def pins(self, index: int) -> bool:
        """An end of the selection is in item ``index``."""
        return any(p is not None and p.item == index for p in (self.anchor, self.cursor))

    def unit_ends(self, index: int) -> set[int]:
        """The units of item ``index`` holding an end of the selection."""
        return {p.unit for p in (self.anchor, self.cursor) if p is not None and p.item == index}

    def shift(self, k: int) -> None:
        """``k`` items were put in front: both ends move with their items."""
        a, c = self.anchor, self.cursor
        self.anchor = None if a is None else Pos(a.item + k, a.unit, a.char)
        self.cursor = None if c is None else Pos(c.item + k, c.unit, c.char)

    def items_removed(self, gone: list[int]) -> None:
        """The items at (sorted) indices ``gone`` were removed: the selection
        is cleared when an end was in one of them, else renumbered."""
        removed = set(gone)
        ends = (self.anchor, self.cursor)
        if any(p is not None and p.item in removed for p in ends):
            self.anchor = self.cursor = None
        else:
            self.anchor, self.cursor = (
                None if p is None else Pos(p.item - bisect.bisect_left(gone, p.item), p.unit, p.char) for p in ends
            )

    def ordered(self) -> tuple[Pos, Pos] | None:
        if not self.active:
            return None
        a, b = self.anchor, self.cursor
        assert a is not None and b is not None
        return (a, b) if a <= b else (b, a)

    def selections_for(self, index: int, n: int, doc: QTextDocument) -> list[QAbstractTextDocumentLayout.Selection]:
        """The text selection's part in row ``n`` of item ``index``."""
        out: list[QAbstractTextDocumentLayout.Selection] = []
        sel = self.ordered()
        if sel is not None:
            a, b = sel
            here = (index, n)
            if (a.item, a.unit) <= here <= (b.item, b.unit):
                end = doc.characterCount() - 1
                start = a.char if (a.item, a.unit) == here else 0
                stop = b.char if (b.item, b.unit) == here else end
                start, stop = max(0, min(start, end)), max(0, min(stop, end))
                if stop > start:
                    cursor = QTextCursor(doc)
                    cursor.setPosition(start)
                    cursor.setPosition(stop, QTextCursor.MoveMode.KeepAnchor)
                    s = QAbstractTextDocumentLayout.Selection()
                    s.cursor = cursor
                    fmt = QTextCharFormat()
                    fmt.setBackground(self._palette().color(QPalette.ColorRole.Highlight))
                    fmt.setForeground(self._palette().color(QPalette.ColorRole.HighlightedText))
                    s.format = fmt
                    out.append(s)
                    units = self._list.items[index].units
                    if self._formulas is not None and 0 <= n < len(units) and units[n].unit.math:
                        out += self._formulas(doc, units[n].unit, start, stop, fmt.foreground().color())
        return out

    def selected_text(self) -> str:
        """The selected text. Whole messages come as their Markdown source
        (cheap, and what a user pasting a reply wants), the answer only,
        without the thinking; partly selected ones as the text shown, a
        formula as its TeX with its delimiters
        (unfolded thoughts included when the selection starts in them)."""
        return "".join(self.selected_pieces())

    def selected_pieces(self) -> Iterator[str]:
        """``selected_text`` in pieces, made as they are asked for (a large
        selection is copied in work slices: ``LazyTextMime``). What only the
        documents know (the partly selected ends, notices) is read now; the
        whole messages between, later, from their ``Message``s, so a
        selection cleared or items gone meanwhile change nothing."""
        sel = self.ordered()
        if sel is None:
            return iter(())
        a, b = sel
        last = min(b.item, len(self._list.items) - 1)
        items = self._list.items[a.item : last + 1]
        read_now = {a.item, last} | {a.item + k for k, item in enumerate(items) if item.message is None}
        texts = {index: self._item_text(index, a, b) for index in read_now if a.item <= index <= last}
        return _joined(items, a.item, texts)

    def _item_text(self, index: int, a: Pos, b: Pos) -> str:
        """The selected part of item ``index`` (selection ``a``..``b``)."""
        item = self._list.items[index]
        n_units = len(item.units) + (1 if item.tail is not None and not item.tail.isEmpty() else 0)
        first = a.unit if index == a.item else 0
        last = b.unit if index == b.item else n_units - 1
        whole = (
            item.message is not None
            and (index != a.item or (a.unit <= 0 and a.char == 0))
            and (index != b.item or (b.unit >= n_units - 1 and b.char >= (1 << 29)))
        )
        if whole and item.message is not None:
            return copy_source(item.message)
        chunks: list[tuple[blocks.Unit | None, str]] = []
        for n in range(first, min(last, n_units - 1) + 1):
            unit = item.units[n].unit if 0 <= n < len(item.units) else None
            if n < 0:
                doc = self.doc_of(Pos(index, n, 0))
                if doc is None:
                    continue  # folded thoughts are not shown: not copied
            else:
                doc = item.units[n].doc if n < len(item.units) else item.tail
            start = a.char if (index, n) == (a.item, a.unit) else 0
            if doc is None:
                chunks.append((unit, blocks.units_plain_text([item.units[n].unit])))
                continue
            end = doc.characterCount() - 1
            stop = b.char if (index, n) == (b.item, b.unit) else end
            start, stop = max(0, min(start, end)), max(0, min(stop, end))
            if unit is not None and unit.math:  # formula images are copied as their TeX
                text = text_with_formulas(doc, start, stop, unit.math)
            else:
                cursor = QTextCursor(doc)
                cursor.setPosition(start)
                cursor.setPosition(stop, QTextCursor.MoveMode.KeepAnchor)
                text = cursor.selection().toPlainText()
            if unit is not None and is_table_piece(unit):
                text = text.removeprefix("\n")  # its empty first block (``collapse_leading_block``)
            chunks.append((unit, text))
        return joined_unit_texts(chunks)

    def doc_of(self, pos: Pos) -> QTextDocument | None:
        item = self._list.items[pos.item]
        if pos.unit < 0:
            think = item.think
            return think.doc if think is not None and think.ready else None
        if pos.unit < len(item.units):
            return item.units[pos.unit].doc
        return item.tail


def _joined(items: list[Item], first: int, texts: dict[int, str]) -> Iterator[str]:
    """The items' texts (``texts`` by index where read already, else the
    whole message's source), the non-empty ones with a blank line between."""
    sep = ""
    for k, item in enumerate(items):
        text = texts.get(first + k)
        if text is None:
            assert item.message is not None
            text = copy_source(item.message)
        if text:
            yield sep
            yield text
            sep = "\n\n"
