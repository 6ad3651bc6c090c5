"""Search every conversation (Ctrl+K): a query field over a list of matches.

``SearchDialog`` is a non-modal popup: typing searches as you type (debounced
by ``DEBOUNCE_MS``) through ``StoreService.read``, so the query runs on the
store thread (``Store.search``: SQLite FTS5, see ``app.core.store.search``) and the
GUI thread only lays out at most ``LIMIT`` rows. Up/Down/PageUp/PageDown move
in the list while the field keeps the focus; Enter (or a click) emits
``result_activated(conversation_id, message_id, query)`` and closes the
popup; Esc closes it.

Stale answers: one query is on the store thread at a time. A query typed
while one runs waits, and the older answer is dropped when it comes (it no
longer matches the field); clearing the field drops whatever is running. So
an older query answering late never replaces a newer one, and fast typing
never piles searches up in the store queue.

Each row shows the conversation's title, who wrote the message (You / Rill),
its date and a snippet with the matches highlighted. The snippet is the
store's plain text with each match between ``\\x02`` and ``\\x03``: it is
HTML-escaped first, then the markers become highlight markup
(``snippet_html``), so a message containing ``<script>`` shows it literally.
The delegate keeps one ``QTextDocument`` per row at the current width.

Threading rule: GUI thread only.
"""

from __future__ import annotations

import html
import logging
from typing import Any, Protocol

from PyQt6.QtCore import (
    QAbstractListModel,
    QCoreApplication,
    QDate,
    QDateTime,
    QEvent,
    QLocale,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QRect,
    QSize,
    Qt,
    QTimer,
    pyqtSignal,
)
from PyQt6.QtGui import (
    QAbstractTextDocumentLayout,
    QColor,
    QFont,
    QFontMetrics,
    QGuiApplication,
    QHideEvent,
    QKeyEvent,
    QPainter,
    QPalette,
    QTextDocument,
)
from PyQt6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QDialog,
    QLabel,
    QLineEdit,
    QListView,
    QStackedWidget,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QVBoxLayout,
    QWidget,
)

from app.core.store.search import SearchHit, parse_query
from app.ui.misc import theme
from app.ui.misc.theme import set_tone

log = logging.getLogger(__name__)

#: Typing pauses this long before a search runs.
DEBOUNCE_MS = 150
#: At most this many matches are shown (the newest).
LIMIT = 50
HIT_ROLE = Qt.ItemDataRole.UserRole + 1
HTML_ROLE = Qt.ItemDataRole.UserRole + 2
#: Lines of snippet shown per row.
SNIPPET_LINES = 2
PAD = 8
def match_style() -> str:
    """Inline style of a matched word in a snippet (the current theme's colours)."""
    return f"background-color:{theme.current().colors['match_bg']}; color:{theme.current().colors['text']}; font-weight:600;"


class ReadService(Protocol):
    """What the dialog needs of ``StoreService``."""

    def read(self, fn: Any, callback: Any) -> None: ...


def snippet_html(snippet: str) -> str:
    """The store's snippet as rich text: everything escaped, each
    ``\\x02``…``\\x03`` match in a highlight span (unbalanced markers are
    closed or dropped)."""
    out: list[str] = []
    open_span = False
    pos = 0
    for i, ch in enumerate(snippet):
        if ch not in "\x02\x03":
            continue
        out.append(html.escape(snippet[pos:i], quote=False))
        pos = i + 1
        if ch == "\x02" and not open_span:
            out.append(f'<span style="{match_style()}">')
            open_span = True
        elif ch == "\x03" and open_span:
            out.append("</span>")
            open_span = False
    out.append(html.escape(snippet[pos:], quote=False))
    if open_span:
        out.append("</span>")
    return "".join(out)


def plain_snippet(snippet: str) -> str:
    return snippet.replace("\x02", "").replace("\x03", "")


def highlight_text(query: str, content: str) -> str:
    """What to highlight in the opened message: the longest term of
    ``query`` that occurs in ``content`` (terms are ANDed, so the whole query
    is rarely in the text as typed), else the query itself."""
    terms = sorted(parse_query(query).terms, key=len, reverse=True)
    folded = content.casefold()
    for term in terms:
        if term.casefold() in folded:
            return term
    return terms[0] if terms else query.strip()


class SearchResultsModel(QAbstractListModel):
    """The matches of the last query, newest first."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._hits: list[SearchHit] = []
        self._html: list[str] = []
        self._text: list[str] = []

    def set_hits(self, hits: list[SearchHit], role_name: Any, date_text: Any) -> None:
        self.beginResetModel()
        self._hits = list(hits)
        self._html = [snippet_html(h.snippet) for h in self._hits]
        # Read aloud for a row: title, who, date, snippet.
        template = self.tr("{title}, {who}, {date}: {snippet}")
        self._text = [
            template.format(
                title=h.conversation_title or "—", who=role_name(h.role), date=date_text(h.created_at),
                snippet=plain_snippet(h.snippet),
            )
            for h in self._hits
        ]
        self.endResetModel()

    def hits(self) -> list[SearchHit]:
        return list(self._hits)

    def rowCount(self, parent: QModelIndex | None = None) -> int:  # noqa: N802 (Qt API)
        if parent is not None and parent.isValid():
            return 0
        return len(self._hits)

    def data(self, index: QModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._hits):
            return None
        row = index.row()
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.AccessibleTextRole):
            return self._text[row]
        if role == Qt.ItemDataRole.ToolTipRole:
            return plain_snippet(self._hits[row].snippet)
        if role == HIT_ROLE:
            return self._hits[row]
        if role == HTML_ROLE:
            return self._html[row]
        return None


class _ResultDelegate(QStyledItemDelegate):
    """Row: title (bold, elided) with "who · date" on the right; below it up
    to ``SNIPPET_LINES`` lines of highlighted snippet."""

    def __init__(self, dialog: SearchDialog) -> None:
        super().__init__(dialog)
        self._dialog = dialog
        self._docs: dict[int, QTextDocument] = {}
        self._width = -1

    def clear(self) -> None:
        self._docs.clear()

    def _doc(self, index: QModelIndex, font: QFont, width: int) -> QTextDocument:
        if width != self._width:
            self._docs.clear()
            self._width = width
        doc = self._docs.get(index.row())
        if doc is None:
            doc = QTextDocument(self)
            doc.setDocumentMargin(0)
            doc.setDefaultFont(font)
            doc.setHtml(str(index.data(HTML_ROLE) or ""))
            doc.setTextWidth(width)
            self._docs[index.row()] = doc
        return doc

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex) -> QSize:  # noqa: N802 (Qt API)
        line = QFontMetrics(option.font).lineSpacing()
        return QSize(200, 2 * PAD + line + 4 + SNIPPET_LINES * line)

    def paint(self, painter: QPainter | None, option: QStyleOptionViewItem, index: QModelIndex) -> None:
        if painter is None:
            return
        hit = index.data(HIT_ROLE)
        if hit is None:
            return
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        opt.text = ""
        widget = opt.widget
        style = widget.style() if widget is not None else QApplication.style()
        if style is not None:
            style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, widget)
        selected = bool(opt.state & QStyle.StateFlag.State_Selected)
        fg = opt.palette.color(QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text)
        muted = QColor(fg)
        muted.setAlphaF(0.7)
        rect = opt.rect.adjusted(PAD, PAD, -PAD, -PAD)
        fm = QFontMetrics(opt.font)
        line = fm.lineSpacing()
        meta = f"{self._dialog.role_name(hit.role)} · {self._dialog.date_text(hit.created_at)}"
        meta_w = fm.horizontalAdvance(meta)
        bold = QFont(opt.font)
        bold.setBold(True)
        untitled = QCoreApplication.translate("SearchDialog", "Untitled")
        title = QFontMetrics(bold).elidedText(
            hit.conversation_title or untitled, Qt.TextElideMode.ElideRight, max(0, rect.width() - meta_w - 12),
        )
        align = Qt.AlignmentFlag.AlignVCenter
        painter.save()
        painter.setFont(bold)
        painter.setPen(fg)
        painter.drawText(QRect(rect.left(), rect.top(), rect.width(), line), int(align | Qt.AlignmentFlag.AlignLeft), title)
        painter.setFont(opt.font)
        painter.setPen(muted)
        painter.drawText(QRect(rect.left(), rect.top(), rect.width(), line), int(align | Qt.AlignmentFlag.AlignRight), meta)
        top = rect.top() + line + 4
        doc = self._doc(index, opt.font, max(10, rect.width()))
        painter.translate(rect.left(), top)
        clip = QRect(0, 0, rect.width(), min(rect.bottom() - top + 1, SNIPPET_LINES * line))
        painter.setClipRect(clip)
        ctx = QAbstractTextDocumentLayout.PaintContext()
        ctx.palette.setColor(QPalette.ColorRole.Text, fg)
        ctx.clip = clip.toRectF()
        layout = doc.documentLayout()
        if layout is not None:
            layout.draw(painter, ctx)
        painter.restore()


class SearchDialog(QDialog):
    """See the module docstring."""

    #: The user chose a match; args: conversation id, message id, the query typed.
    result_activated = pyqtSignal(str, str, str)
    #: New results are on screen; args: the query they answer, how many.
    results_shown = pyqtSignal(str, int)

    def __init__(self, store: ReadService, parent: QWidget | None = None, *, limit: int = LIMIT,
                 debounce_ms: int = DEBOUNCE_MS) -> None:
        super().__init__(parent)
        self.setObjectName("searchDialog")
        self.setWindowTitle(self.tr("Search All Conversations"))
        self.setModal(False)
        self.setWindowModality(Qt.WindowModality.NonModal)
        self.setSizeGripEnabled(True)
        self.resize(640, 440)
        self._store = store
        self.limit = limit
        self._serial = 0            # the query whose answer may be shown
        self._in_flight = False     # a search is on the store thread
        self._rerun = False         # the text changed while it was
        self._activate_when_ready = False
        self._shown_query = ""      # the query the rows on screen answer

        self.edit = QLineEdit()
        self.edit.setObjectName("searchField")
        self.edit.setPlaceholderText(self.tr("Search all conversations…"))
        self.edit.setAccessibleName(self.tr("Search all conversations"))
        self.edit.setAccessibleDescription(
            self.tr("Results appear as you type. Up and Down choose a result, Enter opens it, Esc closes.")
        )
        self.edit.setClearButtonEnabled(True)
        self.model = SearchResultsModel(self)
        self.list = QListView()
        self.list.setObjectName("searchResults")
        self.list.setAccessibleName(self.tr("Search results"))
        self.list.setModel(self.model)
        self.delegate = _ResultDelegate(self)
        self.list.setItemDelegate(self.delegate)
        self.list.setUniformItemSizes(True)
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.list.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.list.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.list.setMouseTracking(True)
        self.empty_label = QLabel()
        self.empty_label.setObjectName("searchEmpty")
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_label.setWordWrap(True)
        self.empty_label.setAccessibleName(self.tr("Search status"))
        set_tone(self.empty_label, "muted")
        self.stack = QStackedWidget()
        self.stack.addWidget(self.empty_label)
        self.stack.addWidget(self.list)
        self.count_label = QLabel()
        self.count_label.setObjectName("searchCount")
        self.count_label.setAccessibleName(self.tr("Number of results"))
        set_tone(self.count_label, "muted")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 10, 10, 8)
        layout.addWidget(self.edit)
        layout.addWidget(self.stack, 1)
        layout.addWidget(self.count_label)

        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(debounce_ms)
        self._timer.timeout.connect(self.search_now)
        self.edit.textChanged.connect(self._on_text_changed)
        self.edit.installEventFilter(self)
        self.list.installEventFilter(self)
        self.list.clicked.connect(self._activate)
        self._show_message(self.tr("Type to search all conversations"))

    # -- showing -------------------------------------------------------------------

    def open_search(self) -> None:
        """Show the popup over the top of its window, the field focused and
        its text selected (results are refreshed: the history may have
        changed since)."""
        parent = self.parentWidget()
        if parent is not None and not self.isVisible():
            geo = parent.frameGeometry()
            width = min(max(480, geo.width() * 2 // 3), 760)
            self.resize(width, self.height())
            self.move(geo.x() + (geo.width() - width) // 2, geo.y() + min(80, geo.height() // 8))
        self.show()
        if QGuiApplication.platformName() not in ("offscreen", "minimal"):  # nothing to raise there (Qt warns)
            self.raise_()
        self.activateWindow()
        self.edit.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.edit.selectAll()
        if self.edit.text().strip():
            self.search_now()

    def hideEvent(self, event: QHideEvent | None) -> None:  # noqa: N802 (Qt API)
        """Give the keyboard back to the window (some window managers do not)."""
        super().hideEvent(event)
        parent = self.parentWidget()
        if parent is not None and parent.isVisible() and QApplication.activeWindow() in (self, None):
            window = parent.window()
            assert window is not None
            window.activateWindow()

    # -- searching -----------------------------------------------------------------

    def _on_text_changed(self, text: str) -> None:
        self._activate_when_ready = False
        if not text.strip():
            self._timer.stop()
            self._serial += 1  # whatever is running now answers an old question
            self._rerun = False
            self._set_hits([], "")
            self._show_message(self.tr("Type to search all conversations"))
            return
        self._timer.start()

    def search_now(self) -> None:
        """Search for the field's text now (the debounce timer calls this)."""
        self._timer.stop()
        query = self.edit.text()
        if not query.strip():
            return
        if self._in_flight:
            self._rerun = True  # asked again when the running search answers
            return
        self._serial += 1
        serial, limit = self._serial, self.limit
        self._in_flight = True
        self._store.read(
            lambda store: store.search(query, limit),
            lambda hits: self._on_answer(serial, query, hits),
        )

    def is_searching(self) -> bool:
        return self._in_flight or self._timer.isActive()

    def _on_answer(self, serial: int, query: str, hits: list[SearchHit] | None) -> None:
        self._in_flight = False
        current = self.edit.text()
        fresh = serial == self._serial and query == current
        if self._rerun:
            self._rerun = False
            if not fresh and current.strip():
                self.search_now()
                return
        if not fresh:
            return  # an older query answering late: dropped
        if hits is None:
            self._set_hits([], query)
            unavailable = not getattr(self._store, "available", True)
            self._show_message(
                self.tr("Search is not available: the conversation history could not be opened.")
                if unavailable else self.tr("The search failed. Try again, or try other words.")
            )
            return
        self._set_hits(hits, query)
        if hits:
            self.stack.setCurrentWidget(self.list)
            self.list.setCurrentIndex(self.model.index(0, 0))
            self.list.scrollToTop()
            shown = len(hits)
            if shown >= self.limit:
                self.count_label.setText(self.tr("The %n newest matches", "", shown))
            elif shown == 1:
                self.count_label.setText(self.tr("1 match"))
            else:
                self.count_label.setText(self.tr("%n matches", "", shown))
        else:
            self._show_message(self.tr("No matches"))
        if self._activate_when_ready:
            self._activate_when_ready = False
            if hits:
                self._activate(self.model.index(0, 0))

    def _set_hits(self, hits: list[SearchHit], query: str) -> None:
        self._shown_query = query
        self.delegate.clear()
        self.model.set_hits(hits, self.role_name, self.date_text)
        self.results_shown.emit(query, len(hits))

    def _show_message(self, text: str) -> None:
        self.empty_label.setText(text)
        self.stack.setCurrentWidget(self.empty_label)
        self.count_label.setText("")

    def results(self) -> list[SearchHit]:
        """The matches on screen."""
        return self.model.hits()

    def message(self) -> str:
        """The empty-state text on screen ("" when results are shown)."""
        return self.empty_label.text() if self.stack.currentWidget() is self.empty_label else ""

    # -- choosing --------------------------------------------------------------------

    def _move(self, delta: int) -> None:
        rows = self.model.rowCount()
        if not rows:
            return
        current = self.list.currentIndex()
        row = current.row() if current.isValid() else -1
        row = max(0, min(rows - 1, row + delta))
        self.list.setCurrentIndex(self.model.index(row, 0))

    def _page(self) -> int:
        viewport = self.list.viewport()
        height = viewport.height() if viewport is not None else 0
        row_height = self.list.sizeHintForRow(0) if self.model.rowCount() else 0
        return max(1, height // row_height) if row_height > 0 else 5

    def eventFilter(self, obj: QObject | None, event: QEvent | None) -> bool:  # noqa: N802 (Qt API)
        if obj is self.edit and event is not None and event.type() == QEvent.Type.KeyPress:
            assert isinstance(event, QKeyEvent)
            key = event.key()
            if key == Qt.Key.Key_Down:
                self._move(1)
                return True
            if key == Qt.Key.Key_Up:
                self._move(-1)
                return True
            if key == Qt.Key.Key_PageDown:
                self._move(self._page())
                return True
            if key == Qt.Key.Key_PageUp:
                self._move(-self._page())
                return True
            if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                self._on_enter()
                return True
        if obj is self.list and event is not None and event.type() == QEvent.Type.KeyPress:
            assert isinstance(event, QKeyEvent)
            if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                self._activate(self.list.currentIndex())
                return True
            text = event.text()
            if text and text.isprintable() and not event.modifiers() & (
                Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier | Qt.KeyboardModifier.MetaModifier
            ):
                self.edit.setFocus()  # typing in the list goes on in the field
                self.edit.insert(text)
                return True
        return super().eventFilter(obj, event)

    def _on_enter(self) -> None:
        text = self.edit.text()
        if text.strip() and self._shown_query != text:
            # typed faster than the debounce: open the first match of what is typed now
            self._activate_when_ready = True
            self.search_now()
            return
        self._activate(self.list.currentIndex())

    def _activate(self, index: QModelIndex | QPersistentModelIndex | None = None) -> None:
        if index is None or not index.isValid():
            if not self.model.rowCount():
                return
            index = self.model.index(0, 0)
        hit = index.data(HIT_ROLE)
        if not isinstance(hit, SearchHit):
            return
        query = self.edit.text()
        self.hide()
        self.result_activated.emit(hit.conversation_id, hit.message_id, query)

    # -- words -------------------------------------------------------------------------

    def role_name(self, role: str) -> str:
        if role == "user":
            return self.tr("You")
        if role == "assistant":
            return self.tr("Rill")
        if role == "system":
            return self.tr("System")
        return role

    def date_text(self, created_at: float) -> str:
        when = QDateTime.fromMSecsSinceEpoch(int(created_at * 1000))
        locale = QLocale()
        if when.date() == QDate.currentDate():
            return locale.toString(when.time(), QLocale.FormatType.ShortFormat)
        return locale.toString(when.date(), QLocale.FormatType.ShortFormat)
