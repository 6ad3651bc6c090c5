"""The conversation list: newest first, pinned on top, grouped by day.

``ConversationListModel`` fetches pages from the store lazily (Qt's
``canFetchMore``/``fetchMore``), so 10,000 conversations cost one page at
start-up. The delegate draws a group header (Pinned, Today, Yesterday,
Previous 7 days, Older) above the first row of each group.

Threading rule: GUI thread only.
"""

from __future__ import annotations

import datetime as dt
import time
from dataclasses import dataclass, replace
from typing import Any

from PyQt6.QtCore import (
    QT_TRANSLATE_NOOP,
    QAbstractListModel,
    QCoreApplication,
    QModelIndex,
    QPoint,
    QRect,
    QSize,
    Qt,
    pyqtSignal,
)
from PyQt6.QtGui import QAction, QFont, QFontMetrics, QPainter, QShortcut
from PyQt6.QtWidgets import (
    QAbstractItemView,
    QListView,
    QMenu,
    QPushButton,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QVBoxLayout,
    QWidget,
)

from app.core.text.display import isolated, without_controls
from app.ui.misc import theme
from app.ui.misc.shortcuts import bind_shortcut
from app.ui.services.library import ConversationLibrary

PAGE = 200
ID_ROLE = Qt.ItemDataRole.UserRole + 1
GROUP_ROLE = Qt.ItemDataRole.UserRole + 2
FIRST_IN_GROUP_ROLE = Qt.ItemDataRole.UserRole + 3
PINNED_ROLE = Qt.ItemDataRole.UserRole + 4


@dataclass(frozen=True)
class Row:
    id: str
    title: str
    updated_at: float
    pinned: bool = False


# The group headers (English keys; shown through ``group_label``).
PINNED = QT_TRANSLATE_NOOP("ConversationListModel", "Pinned")
TODAY = QT_TRANSLATE_NOOP("ConversationListModel", "Today")
YESTERDAY = QT_TRANSLATE_NOOP("ConversationListModel", "Yesterday")
PREVIOUS_7_DAYS = QT_TRANSLATE_NOOP("ConversationListModel", "Previous 7 days")
OLDER = QT_TRANSLATE_NOOP("ConversationListModel", "Older")


def group_of(row: Row, now: float | None = None) -> str:
    """The row's group, as an English key (``group_label`` translates it)."""
    if row.pinned:
        return PINNED
    today = dt.date.fromtimestamp(now if now is not None else time.time())
    day = dt.date.fromtimestamp(row.updated_at)
    if day >= today:
        return TODAY
    if day == today - dt.timedelta(days=1):
        return YESTERDAY
    if day > today - dt.timedelta(days=7):
        return PREVIOUS_7_DAYS
    return OLDER


def group_label(group: str) -> str:
    """A group key from ``group_of`` in the user's language."""
    return QCoreApplication.translate("ConversationListModel", group)


class ConversationListModel(QAbstractListModel):
    """Rows of conversations, fetched from the library page by page."""

    #: A page arrived (the first one tells the window what to open at start).
    page_loaded = pyqtSignal(int)

    def __init__(self, library: ConversationLibrary, parent: Any = None) -> None:
        super().__init__(parent)
        self._library = library
        self._rows: list[Row] = []
        self._total: int | None = None
        self._fetching = False
        self._hidden: set[str] = set()   # deleted, undo still possible

    # -- Qt model API -------------------------------------------------------------------

    def rowCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: N802, B008 (Qt API)
        return 0 if parent.isValid() else len(self._rows)

    def data(self, index: QModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        row = self._rows[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:   # a bidi isolate: a U+202E in a title reverses nothing else
            return isolated(row.title) or self.tr("New chat")
        if role == Qt.ItemDataRole.EditRole:
            return without_controls(row.title) or self.tr("New chat")
        if role == Qt.ItemDataRole.ToolTipRole:
            return isolated(row.title)
        if role == ID_ROLE:
            return row.id
        if role == PINNED_ROLE:
            return row.pinned
        if role == GROUP_ROLE:
            return group_label(group_of(row))
        if role == FIRST_IN_GROUP_ROLE:
            return index.row() == 0 or group_of(self._rows[index.row() - 1]) != group_of(row)
        if role == Qt.ItemDataRole.AccessibleTextRole:
            return self.tr("{title}, {group}").format(
                title=without_controls(row.title) or self.tr("New chat"), group=group_label(group_of(row))
            )
        return None

    def flags(self, index: QModelIndex) -> Qt.ItemFlag:
        base = super().flags(index)
        return base | Qt.ItemFlag.ItemIsEditable if index.isValid() else base

    def setData(self, index: QModelIndex, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:  # noqa: N802 (Qt API)
        if role != Qt.ItemDataRole.EditRole or not index.isValid():
            return False
        title = " ".join(str(value).split())[:200]
        if not title:
            return False
        row = self._rows[index.row()]
        self._rows[index.row()] = replace(row, title=title)
        self.dataChanged.emit(index, index)
        self._library.rename(row.id, title)
        return True

    def canFetchMore(self, parent: QModelIndex = QModelIndex()) -> bool:  # noqa: N802, B008 (Qt API)
        if parent.isValid():
            return False
        return self._total is None or len(self._rows) + len(self._hidden) < self._total

    def fetchMore(self, parent: QModelIndex = QModelIndex()) -> None:  # noqa: N802, B008 (Qt API)
        if parent.isValid() or self._fetching:
            return
        self._fetching = True
        if self._total is None:
            self._library.count(self._on_count)
        self._library.page(len(self._rows) + len(self._hidden), PAGE, self._on_page)

    def _on_count(self, total: int) -> None:
        self._total = total

    def _on_page(self, infos: list[Any]) -> None:
        self._fetching = False
        known = {r.id for r in self._rows}
        fresh = [
            Row(i.id, i.title or "", float(i.updated_at or 0.0), bool(i.pinned))
            for i in infos
            if i.id not in known and i.id not in self._hidden
        ]
        if fresh:
            self.beginInsertRows(QModelIndex(), len(self._rows), len(self._rows) + len(fresh) - 1)
            self._rows.extend(fresh)
            self.endInsertRows()
        if not infos:
            self._total = len(self._rows) + len(self._hidden)
        self.page_loaded.emit(len(infos))

    # -- changes ---------------------------------------------------------------------------

    def row_of(self, conversation_id: str) -> int:
        for n, row in enumerate(self._rows):
            if row.id == conversation_id:
                return n
        return -1

    def upsert(self, conversation_id: str, title: str, updated_at: float, pinned: bool) -> None:
        """A conversation was created or changed: put it where it belongs
        (pinned first, then newest first)."""
        n = self.row_of(conversation_id)
        row = Row(conversation_id, title, updated_at, pinned)
        if n >= 0 and self._in_place(n, row):
            # Already where it belongs (the usual case: the conversation being
            # written in is on top): change the row, never re-lay out the list.
            self._rows[n] = row
            self.dataChanged.emit(self.index(n), self.index(n))
            return
        if n >= 0:
            self.beginRemoveRows(QModelIndex(), n, n)
            del self._rows[n]
            self.endRemoveRows()
        elif self._total is not None:
            self._total += 1
        at = 0
        while at < len(self._rows) and (
            (self._rows[at].pinned and not pinned)
            or (self._rows[at].pinned == pinned and self._rows[at].updated_at > updated_at)
        ):
            at += 1
        self.beginInsertRows(QModelIndex(), at, at)
        self._rows.insert(at, row)
        self.endInsertRows()

    def set_pinned(self, conversation_id: str, pinned: bool) -> None:
        n = self.row_of(conversation_id)
        if n >= 0:
            row = self._rows[n]
            self.upsert(row.id, row.title, row.updated_at, pinned)

    def reset_rows(self) -> None:
        """Forget every row and fetch again (after an import)."""
        self.beginResetModel()
        self._rows = []
        self._total = None
        self._fetching = False
        self.endResetModel()
        self.fetchMore()

    def _in_place(self, n: int, row: Row) -> bool:
        """Would ``row`` at position n keep the order (pinned first, newest first)?"""
        def before(a: Row, b: Row) -> bool:  # a may stand before b
            return (a.pinned and not b.pinned) or (a.pinned == b.pinned and a.updated_at >= b.updated_at)

        prev_ok = n == 0 or before(self._rows[n - 1], row)
        next_ok = n + 1 >= len(self._rows) or before(row, self._rows[n + 1])
        return prev_ok and next_ok and group_of(row) == group_of(self._rows[n])

    def hide(self, conversation_id: str) -> Row | None:
        """Take a row out (deleted, undo still possible)."""
        n = self.row_of(conversation_id)
        if n < 0:
            return None
        row = self._rows[n]
        self.beginRemoveRows(QModelIndex(), n, n)
        del self._rows[n]
        self.endRemoveRows()
        self._hidden.add(conversation_id)
        return row

    def unhide(self, row: Row) -> None:
        self._hidden.discard(row.id)
        self.upsert(row.id, row.title, row.updated_at, row.pinned)

    def forget(self, conversation_id: str) -> None:
        """The deletion is final."""
        if conversation_id in self._hidden:
            self._hidden.discard(conversation_id)
            if self._total is not None:
                self._total -= 1

    def rows(self) -> list[Row]:
        return list(self._rows)


class _Delegate(QStyledItemDelegate):
    """Draws a group header above the first row of each group."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._sizes: dict[tuple[str, bool], QSize] = {}

    def _header_height(self, option: QStyleOptionViewItem) -> int:
        return QFontMetrics(option.font).height() + 12

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex) -> QSize:  # noqa: N802 (Qt API)
        """Rows have one height (two with a group header), cached per font:
        the list re-measures every row after a change, so this must be cheap."""
        first = bool(index.data(FIRST_IN_GROUP_ROLE))
        key = (option.font.key(), first)
        size = self._sizes.get(key)
        if size is None:
            base = super().sizeHint(option, index)
            height = max(base.height(), QFontMetrics(option.font).height() + 12)
            if first:
                height += self._header_height(option)
            size = self._sizes[key] = QSize(40, height)
        return QSize(size)

    def paint(self, painter: QPainter | None, option: QStyleOptionViewItem, index: QModelIndex) -> None:
        if painter is None:
            return
        rect = QRect(option.rect)
        if index.data(FIRST_IN_GROUP_ROLE):
            header = QRect(rect.x() + 8, rect.y() + 4, rect.width() - 16, self._header_height(option) - 4)
            painter.save()
            font = QFont(option.font)
            font.setPointSizeF(max(6.0, font.pointSizeF() * 0.85))
            font.setBold(True)
            painter.setFont(font)
            painter.setPen(theme.color("muted"))
            painter.drawText(header, int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), str(index.data(GROUP_ROLE)))
            painter.restore()
            rect.setTop(rect.top() + self._header_height(option))
        opt = QStyleOptionViewItem(option)
        opt.rect = rect
        opt.textElideMode = Qt.TextElideMode.ElideRight
        if index.data(PINNED_ROLE):
            opt.text = "📌 " + str(index.data())
        super().paint(painter, opt, index)

    def initStyleOption(self, option: QStyleOptionViewItem | None, index: QModelIndex) -> None:  # noqa: N802 (Qt API)
        super().initStyleOption(option, index)
        if option is not None and index.data(PINNED_ROLE):
            option.text = "📌 " + str(index.data())

    def updateEditorGeometry(self, editor: QWidget | None, option: QStyleOptionViewItem, index: QModelIndex) -> None:  # noqa: N802 (Qt API)
        if editor is None:
            return
        rect = QRect(option.rect)
        if index.data(FIRST_IN_GROUP_ROLE):
            rect.setTop(rect.top() + self._header_height(option))
        editor.setGeometry(rect)


class Sidebar(QWidget):
    """New Chat, and the list of conversations."""

    #: The user chose a conversation; arg: its id.
    conversation_activated = pyqtSignal(str)
    #: Delete was asked for (Del); arg: the conversation id.
    delete_requested = pyqtSignal(str)
    #: New Chat was clicked.
    new_chat_requested = pyqtSignal()
    #: Pin or unpin was asked for; args: conversation id, pinned.
    pin_requested = pyqtSignal(str, bool)
    #: Export was asked for; arg: conversation id.
    export_requested = pyqtSignal(str)
    #: Conversation Settings… was asked for; arg: conversation id.
    settings_requested = pyqtSignal(str)

    def __init__(self, library: ConversationLibrary, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("sidebar")
        self.model = ConversationListModel(library, self)
        self.new_button = QPushButton(self.tr("New Chat"))
        self.new_button.setObjectName("newChat")
        self.new_button.setToolTip(self.tr("Start a new conversation (Ctrl+N)"))
        self.new_button.setAccessibleName(self.tr("New chat"))
        self.list = QListView()
        self.list.setObjectName("conversations")
        self.list.setAccessibleName(self.tr("Conversations"))
        self.list.setAccessibleDescription(
            self.tr("Your conversations, newest first. Enter opens one, F2 renames it, Delete deletes it.")
        )
        self.list.setModel(self.model)
        self.list.setItemDelegate(_Delegate(self.list))
        self.list.setUniformItemSizes(False)
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        # PyQt makes the selection model's wrapper and enums on first use
        # (~1 ms): here, not in the first ``select``, which is part of an Enter.
        self.list.selectionModel()
        self.list.setEditTriggers(QAbstractItemView.EditTrigger.EditKeyPressed)
        self.list.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.list.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.new_button)
        layout.addWidget(self.list, 1)
        self._delete_shortcut = bind_shortcut(QShortcut(self.list), "delete_chat")
        self._delete_shortcut.setContext(Qt.ShortcutContext.WidgetShortcut)
        self.setMinimumWidth(180)
        self._connect_signals()

    def _connect_signals(self) -> None:
        self.list.clicked.connect(self._on_clicked)
        self.list.activated.connect(self._on_clicked)
        self.new_button.clicked.connect(self.new_chat_requested)
        self._delete_shortcut.activated.connect(self._on_delete_shortcut)
        self.list.customContextMenuRequested.connect(self._on_context_menu_requested)

    def _on_context_menu_requested(self, pos: QPoint) -> None:
        index = self.list.indexAt(pos)
        if not index.isValid():
            return
        conversation_id = str(index.data(ID_ROLE))
        pinned = bool(index.data(PINNED_ROLE))
        menu = QMenu(self)

        def add_action(text: str) -> QAction:
            action = menu.addAction(text)
            assert action is not None
            return action

        pin = add_action(self.tr("Unpin") if pinned else self.tr("Pin to Top"))
        rename = add_action(self.tr("Rename\tF2"))
        export = add_action(self.tr("Export…"))
        conversation_settings = add_action(self.tr("Conversation Settings…"))
        menu.addSeparator()
        delete = add_action(self.tr("Delete\tDel"))
        pin.triggered.connect(lambda: self.pin_requested.emit(conversation_id, not pinned))
        rename.triggered.connect(lambda: self.list.edit(index))
        export.triggered.connect(lambda: self.export_requested.emit(conversation_id))
        conversation_settings.triggered.connect(lambda: self.settings_requested.emit(conversation_id))
        delete.triggered.connect(lambda: self.delete_requested.emit(conversation_id))
        viewport = self.list.viewport()
        assert viewport is not None
        menu.popup(viewport.mapToGlobal(pos))

    def _on_clicked(self, index: QModelIndex) -> None:
        conversation_id = index.data(ID_ROLE)
        if conversation_id:
            self.conversation_activated.emit(str(conversation_id))

    def _on_delete_shortcut(self) -> None:
        index = self.list.currentIndex()
        if index.isValid():
            self.delete_requested.emit(str(index.data(ID_ROLE)))

    def select(self, conversation_id: str) -> None:
        n = self.model.row_of(conversation_id)
        if n >= 0:
            index = self.model.index(n)
            selection = self.list.selectionModel()
            if self.list.currentIndex() == index and selection is not None and selection.isSelected(index):
                return   # already shown as current (every message of the open chat asks again)
            self.list.setCurrentIndex(index)
        else:
            self.list.clearSelection()

    def activate_neighbour(self, step: int) -> None:
        """Open the conversation ``step`` rows below the current one (above
        when negative; Ctrl+PgDown / Ctrl+PgUp), stopping at either end."""
        n = self.model.rowCount()
        if n == 0:
            return
        current = self.list.currentIndex()
        row = max(0, min(n - 1, current.row() + step if current.isValid() else 0))
        index = self.model.index(row)
        self.list.setCurrentIndex(index)
        self.list.scrollTo(index)
        self._on_clicked(index)

    def rename_current(self) -> None:
        index = self.list.currentIndex()
        if index.isValid():
            self.list.edit(index)
