"""The mouse on the conversation view (``PointerGestures``): a press starts
a selection (Shift extends it), a drag moves its end, a double click selects
a word, a click without a drag acts on what is under it (the thinking
header folds or unfolds, a footer action runs, a code block's Copy copies,
a link opens through ``ViewActions``), hovering shows a pointing hand over
what is clickable and a link's address as the tooltip, and tells which
message and footer action the pointer is over (``hovered``); and which message a
context menu is about (``menu_target``). One hit test per event
(``HitTester``).

Threading rule: GUI thread only.
"""

from __future__ import annotations

from collections.abc import Callable

from PyQt6.QtCore import QPointF, Qt, QUrl
from PyQt6.QtGui import QCursor, QTextCursor

from app.ui.conversation.hittest import Hit, HitTester
from app.ui.conversation.items import Item, ItemList, Pos
from app.ui.conversation.menu import MenuTarget
from app.ui.conversation.scrolling import ScrollKeeper
from app.ui.conversation.selection import Selection
from app.ui.conversation.view_actions import ViewActions


class PointerGestures:
    """Mouse events in viewport coordinates (see the module docstring);
    ``set_cursor`` and ``set_tooltip`` change the viewport's cursor and the
    view's tooltip."""

    def __init__(
        self,
        items: ItemList,
        hits: HitTester,
        scroll: ScrollKeeper,
        width: Callable[[], int],
        selection: Selection,
        actions: ViewActions,
        footer_actions: Callable[[Item], list[tuple[str, str]]],
        toggle_thoughts: Callable[[str], None],
        set_cursor: Callable[[QCursor], None],
        set_tooltip: Callable[[str], None],
        repaint: Callable[[], None],
        hovered: Callable[[str, str], None] | None = None,
    ) -> None:
        self._list = items
        self._hits = hits
        self._scroll = scroll
        self._width = width
        self._sel = selection
        self._actions = actions
        self._footer_actions = footer_actions
        self._toggle_thoughts = toggle_thoughts
        self._set_cursor = set_cursor
        self._set_tooltip = set_tooltip
        self._repaint = repaint
        self._hovered = hovered
        self._press_at: QPointF | None = None
        self._dragging = False
        self._hover_href = ""

    def hit(self, point: QPointF, details: bool = False) -> Hit | None:
        """What is under viewport ``point`` (one pass: see ``HitTester``)."""
        return self._hits.at(point, self._scroll.value, self._width(), details)

    def _pos_at(self, point: QPointF) -> Pos | None:
        hit = self.hit(point)
        return None if hit is None else hit.pos()

    def press(self, point: QPointF, extend: bool) -> None:
        """The left button went down (``extend``: with Shift)."""
        self._press_at = point
        self._dragging = False
        pos = self._pos_at(point)
        if extend and self._sel.anchor is not None:
            self._sel.cursor = pos
        else:
            self._sel.anchor = self._sel.cursor = pos
        self._repaint()

    def move(self, point: QPointF, left_held: bool) -> None:
        if left_held and self._press_at is not None:
            self._dragging = True
            pos = self._pos_at(point)
            if pos is not None:
                self._sel.cursor = pos
                self._repaint()
            return
        hit = self.hit(point, details=True)
        href = "" if hit is None else hit.href
        if self._hovered is not None:
            self._hovered("" if hit is None else self._list.items[hit.index].id, "" if hit is None else hit.action)
        clickable = hit is not None and hit.clickable
        self._set_cursor(QCursor(Qt.CursorShape.PointingHandCursor if clickable else Qt.CursorShape.IBeamCursor))
        if href != self._hover_href:
            self._hover_href = href
            self._set_tooltip(href)

    def release(self, point: QPointF) -> None:
        """The left button went up: a click when there was no drag."""
        clicked = not self._dragging
        self._press_at = None
        self._dragging = False
        if not clicked:
            return
        hit = self.hit(point, details=True)
        if hit is None:
            return
        item_id = self._list.items[hit.index].id
        if hit.thinking:
            self._toggle_thoughts(item_id)
        elif hit.action:
            self._actions.footer_action(hit.action, item_id)
        elif hit.code is not None:
            self._actions.set_clipboard(hit.code, "code")
        elif hit.href:
            self._actions.open_link(QUrl(hit.href))

    def double_click(self, point: QPointF) -> None:
        """Select the word under ``point``."""
        pos = self._pos_at(point)
        if pos is None:
            return
        doc = self._sel.doc_of(pos)
        if doc is None:
            return
        cursor = QTextCursor(doc)
        cursor.setPosition(min(pos.char, doc.characterCount() - 1))
        cursor.select(QTextCursor.SelectionType.WordUnderCursor)
        self._sel.anchor = Pos(pos.item, pos.unit, cursor.selectionStart())
        self._sel.cursor = Pos(pos.item, pos.unit, cursor.selectionEnd())
        self._repaint()

    def menu_target(self, point: QPointF, keyboard: bool) -> MenuTarget | None:
        """The message a context menu at ``point`` is about; from the keyboard
        the message last clicked, else the last one (never a notice)."""
        hit = self.hit(point)
        index = None if hit is None or not hit.in_body else hit.index
        items = self._list.items
        if keyboard:
            if self._sel.cursor is not None:
                index = self._sel.cursor.item  # the message last clicked
            else:
                index = next((i for i in range(len(items) - 1, -1, -1) if items[i].kind != "notice"), None)
        if index is None or items[index].kind == "notice":
            return None
        item = items[index]
        thoughts = None if item.think is None else item.think.expanded
        return MenuTarget(item.id, thoughts, self._footer_actions(item))
