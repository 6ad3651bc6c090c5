"""The conversation view: every message its own item, painted from small
per-unit documents, virtualized.

Structure
---------
The view is a list of items keyed by message id (``Item``): a header, the
message body and a footer (status, facts, actions). A body is a list of
*units* (``app.core.render.blocks.Unit``: one top-level Markdown block each, already
rendered to HTML by the render thread) plus, while a reply streams, a plain
*tail* holding the text whose block is not complete yet. Each unit is laid out
in its own small ``QTextDocument`` and painted with ``drawContents``; nothing
is ever inserted into one big document, so no cost grows with the
conversation.

Virtualization: only items near the viewport (one screen above, two below)
hold documents. Every other item keeps its units (strings) and a height,
measured when it was last laid out or estimated from its text. When an item
above the viewport changes height, the scroll position moves with it, so what
the user looks at never jumps. Building documents happens in time-boxed slices
on a single-shot timer (``SLICE_BUDGET_S``), never in one go.

Streaming: ``append_stream`` appends plain text to the tail document through a
private cursor (O(len(text))) with display-only breaks from
``app.core.text.textbreak`` (no tail paragraph outgrows ``BREAK_LIMIT``, whatever
its characters). When Markdown blocks complete, the view asks the render
thread for them; the ready units are built and swapped in, replacing the same
text at the start of the tail. The final render of the whole message does the
same, and reuses every document whose HTML did not change.

Thinking: an assistant message whose content starts with ``<think>…</think>``
(``app.core.text.thinking``) shows one header row above its answer, "▸ Thinking…
· N words" while the model thinks, "▸ Thought for N words" after; clicking it
(or the context menu's Show/Hide Thoughts, or ``toggle_thoughts``) unfolds
the thoughts as escaped PLAIN text in a muted colour, in one more document
of the item (row index -1, before the units; never Markdown or HTML).
Folded by default; the state is kept per message id (``ThoughtsFold.open``), so
it survives the item leaving the virtualized window and coming back, or the
conversation being shown again. While a reply streams, each piece goes
through a per-message ``ThinkingSplitter``: thoughts only bump the word count
(and are appended to the thoughts document when unfolded), the answer goes to
the tail as before, with every tail/commit offset in content coordinates
starting at the answer. A reply without thinking drops its splitter on its
first non-space character (no cost after that). Only the answer is ever sent
to the render thread.

Copying: "Copy message" and whole-message selections copy the ANSWER's
Markdown source, without the thinking; a selection starting inside unfolded
thoughts copies the text shown. Find: the bar and the view use one rule over
the text shown (``find.py``); matches are cached per document and found in
time slices, never while painting; a match inside folded thoughts is counted
from their text, and selecting it unfolds them.

Collaborators (each owns its state; none holds the view): ``items.ItemList``
(items, id index, Fenwick heights), ``geometry`` (``Metrics``, ``ItemLayout``),
``scrolling.ScrollKeeper`` (the scroll bar over the heights),
``rows.ItemRows`` (adding, history, removing, clearing),
``documents.DocumentFactory``, ``render_results.RenderResults`` (render
results swapped in), ``streaming.StreamingTail`` and ``stream_flow.StreamFlow``
(a streaming message's course), ``thoughts.ThoughtsFold`` and
``unfolding.ThoughtsUnfolder`` (folding and unfolding), ``virtualizer.LiveWindow``
and ``live_items.LiveItems`` (building what it plans), ``history.HistoryLoader``,
``styling.ItemStyler`` (zoom, theme, width), ``footer``, ``painter.ItemPainter``,
``hittest.HitTester`` (one hit test per mouse event), ``gestures.PointerGestures``
(the mouse), ``view_actions.ViewActions`` (clipboard, links, footer actions),
``selection.Selection``,
``find.FindHighlighter`` and ``find_reveal.FindReveal`` (the current match
brought on screen), ``menu``, ``app.ui.services.slicer.TimeSlicer`` (the work
queue); ``probe.ChatViewProbe`` reads back what is shown (tests, the doctor).
The view keeps the Qt overrides and a facade over them.

Removing messages (``remove_messages``) and adding them (``add_messages``)
never move what the reader looks at (following the bottom keeps following).

Safety: unit documents never load a resource; links open only through
``view_actions.ViewActions.open_link`` with an http(s) allow-list.

Threading rule: GUI thread only.
"""

from __future__ import annotations

import logging

from PyQt6.QtCore import QEvent, QPointF, QRect, QSize, Qt, QTimer, QUrl, pyqtSignal
from PyQt6.QtGui import (
    QContextMenuEvent,
    QFocusEvent,
    QHelpEvent,
    QKeyEvent,
    QKeySequence,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QResizeEvent,
    QShowEvent,
)
from PyQt6.QtWidgets import QAbstractScrollArea, QMenu, QScrollBar, QToolTip, QWidget

from app.core.conversation.model import Message
from app.ui.conversation.damage import ViewportDamage, bands
from app.ui.conversation.documents import DocumentFactory
from app.ui.conversation.find import FindHighlighter
from app.ui.conversation.find_reveal import FindReveal
from app.ui.conversation.footer import (
    ActionsShown,
    Decorator,
    SourcedIds,
    SourcesLabel,
    SourcesLines,
    footer_actions,
)
from app.ui.conversation.geometry import ItemLayout, Metrics
from app.ui.conversation.gestures import PointerGestures
from app.ui.conversation.glide import BottomGlide
from app.ui.conversation.history import EarlierHistory, HistoryLoader
from app.ui.conversation.hittest import HitTester
from app.ui.conversation.items import (
    BREAK_LIMIT,
    SLICE_BUDGET_S,
    SYNC_HISTORY,
    Item,
    ItemList,
)
from app.ui.conversation.live_items import LiveItems
from app.ui.conversation.menu import build_context_menu
from app.ui.conversation.painter import ItemPainter
from app.ui.conversation.probe import ChatViewProbe
from app.ui.conversation.render_results import RenderResults
from app.ui.conversation.rows import ItemRows
from app.ui.conversation.scrolling import ScrollKeeper
from app.ui.conversation.selection import Selection
from app.ui.conversation.stream_flow import StreamFlow
from app.ui.conversation.streaming import StreamingTail
from app.ui.conversation.styling import ItemStyler
from app.ui.conversation.thoughts import ThoughtsFold
from app.ui.conversation.unfolding import ThoughtsUnfolder
from app.ui.conversation.unit_window import UnitWindow
from app.ui.conversation.view_actions import ViewActions
from app.ui.conversation.virtualizer import LiveWindow
from app.ui.conversation.waiting import WaitingRows
from app.ui.misc import shortcuts
from app.ui.misc.math_images import formula_at, formula_tip
from app.ui.services.activity import traced
from app.ui.services.render import RenderResult, RenderService
from app.ui.services.slicer import TimeSlicer

__all__ = ["BREAK_LIMIT", "SYNC_HISTORY", "ChatView"]  # the constants tests of the view use

log = logging.getLogger(__name__)


class ChatView(QAbstractScrollArea):
    """Rill's conversation view (see the module docstring)."""

    #: An allowed link was opened; arg: QUrl.
    link_opened = pyqtSignal(QUrl)
    #: A clicked link was not allowed (javascript:, file:...); arg: QUrl.
    link_blocked = pyqtSignal(QUrl)
    #: Something went to the clipboard; args: what ("selection", "message", "code"), the text.
    copied = pyqtSignal(str, str)
    #: A message's final render is on screen (or stored, when off screen); arg: message id.
    message_settled = pyqtSignal(str)
    #: A footer action was clicked; args: action name, message id.
    message_action_requested = pyqtSignal(str, str)
    #: A message's thoughts were unfolded (True) or folded (False); args: message id, unfolded.
    thoughts_toggled = pyqtSignal(str, bool)
    #: The items near the viewport have all their documents built.
    viewport_ready = pyqtSignal()
    #: Every message given to add_messages is in the view (long histories
    #: complete in the background).
    history_completed = pyqtSignal()

    def __init__(self, render_service: RenderService | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("chatView")
        self.setAccessibleName(self.tr("Conversation"))
        self.setAccessibleDescription(
            self.tr("The messages of this conversation. Each message's actions (Copy, Edit, Regenerate, Delete…) "
                    "show as buttons under it; the menu key (Shift+F10) lists them by name for the message last "
                    "clicked, or for the last message.")
        )
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setMouseTracking(True)
        self._vp().setMouseTracking(True)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOn)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self._vp().setAutoFillBackground(True)
        self._bar().setSingleStep(24)
        self._render = render_service if render_service is not None else RenderService(self)
        self._list = ItemList()
        self._window = LiveWindow(self._list, lambda: (self._bar().value(), self._vp().height()))
        self._history = HistoryLoader(self)
        self._decorator: Decorator | None = None
        self._sources = SourcesLines()
        self._slicer = TimeSlicer(SLICE_BUDGET_S, self)
        queue = self._slicer.queue
        self._visibility_timer = QTimer(self)
        self._visibility_timer.setSingleShot(True)
        self._probe: ChatViewProbe | None = None
        self._damage = ViewportDamage(self._vp())
        self._scroll_value = 0   # the bar's value at the last scroll (how far the pixels move)
        repaint = self._damage.all
        self._find = FindHighlighter(self._slicer, repaint)
        self._thoughts = ThoughtsFold(self._find)
        self._metrics = Metrics(self.font(), lambda: self._vp().width())
        self._docs = DocumentFactory(self, self._metrics)
        self._sel = Selection(self._list, self.palette, self._docs.selected_formulas)
        self._scroll = ScrollKeeper(self._list, self._bar(), lambda: self._vp().height())
        set_height = self._scroll.set_height
        self._glide = BottomGlide(self._bar(), self.isVisible, self)
        self._stream = StreamingTail(self._docs, self._metrics, self._thoughts, self._find, self._render)
        self._layout = ItemLayout(self._list, self._metrics, self._thoughts.label, self._actions)
        self._unit_window = UnitWindow(
            self._list, self._layout, self._metrics, lambda: (self._bar().value(), self._vp().height())
        )
        self._results = RenderResults(
            self._list, self._docs, self._metrics, self._stream, queue, set_height,
            lambda item: self._flow.tail_changed(item, swapped=True), self._on_settled, self._schedule_visibility,
            self._unit_window,
        )
        self._hits = HitTester(self._list, self._layout)
        self._unfold = ThoughtsUnfolder(
            self._list, self._thoughts, self._docs, self._metrics, queue, self._sel, set_height,
            self._schedule_visibility, repaint, self.thoughts_toggled.emit,
        )
        self._reveal = FindReveal(
            self._list, self._find, self._layout, self._unfold, self._scroll, self.scroll_to_message, repaint
        )
        self._live = LiveItems(
            self._list, self._window, self._docs, self._metrics, self._render, queue, self._thoughts,
            self._unfold, self._reveal, self._sel, set_height, repaint, self.viewport_ready.emit,
            self._unit_window,
        )
        self._flow = StreamFlow(
            self._list, self._stream, self._thoughts, self._unfold, self._results, self._metrics, self._render,
            self._window, set_height, repaint, self._damage, lambda: self._bar().value(),
            lambda index: self._find.active or self._sel.pins(index),
        )
        self._styler = ItemStyler(
            self._list, self._metrics, self._docs, self._window, self._results, self._scroll, queue, self.font,
            self._schedule_visibility, repaint,
        )
        self._rows = ItemRows(
            self._list, self._scroll, self._metrics, self._flow, self._unfold, self._live, self._results,
            self._render, self._history, self._slicer, self._sel, self._reveal, self._schedule_visibility,
            repaint, self.history_completed.emit,
        )
        self._out = ViewActions(
            self._list, self._sel, self.copied.emit, self.link_opened.emit, self.link_blocked.emit,
            self.message_action_requested.emit,
        )
        self._shown = ActionsShown()
        self._waiting = WaitingRows(self._list, self._metrics, self._repaint_item, self.isVisible, self)
        self._pointer = PointerGestures(
            self._list, self._hits, self._scroll, lambda: self._vp().width(), self._sel, self._out, self._actions,
            self.toggle_thoughts, self._vp().setCursor, self.setToolTip, repaint, self._on_hovered,
        )
        self._painter = ItemPainter(
            self._list, self._layout, self._metrics, self._find, self._thoughts.label,
            self._reveal.hidden_thought_matches, self._sel.selections_for, self.palette, self._shown,
            self._waiting,
        )
        self._connect_signals()

    def _bar(self) -> QScrollBar:
        bar = self.verticalScrollBar()
        assert bar is not None
        return bar

    def _vp(self) -> QWidget:
        viewport = self.viewport()
        assert viewport is not None
        return viewport

    def _connect_signals(self) -> None:
        self._visibility_timer.timeout.connect(self._update_live_items)
        self._render.rendered.connect(self._on_rendered)
        self._history.loaded.connect(self._on_history_ready)
        self._slicer.drained.connect(self._on_work_drained)
        self._bar().valueChanged.connect(self._on_scrolled)

    # ------------------------------------------------------------------ scrolling

    def total_height(self) -> float:
        return self._list.total()

    def at_bottom(self) -> bool:
        return self._scroll.at_bottom()

    def scroll_to_bottom(self) -> None:
        self._glide.stop()
        self._scroll.to_bottom()

    @property
    def gliding(self) -> bool:
        """True while the glide after a send moves the view down to the bottom."""
        return self._glide.active

    def glide_to_bottom(self) -> None:
        """Scroll to the bottom smoothly (after a send; ``glide.BottomGlide``)."""
        self._glide.start()

    def scroll_to_message(self, message_id: str) -> None:
        index = self._list.index.get(message_id)
        if index is None:
            return
        self._bar().setValue(int(self._list.top(index)))
        self._schedule_visibility()

    # ------------------------------------------------------------------ items (``ItemRows``)

    def add_message(self, message: Message, label: str = "") -> None:
        """Show a message (finished, or streaming: then use append_stream;
        until its first text it shows typing dots, or the prompt's progress:
        ``set_prompt_progress``)."""
        self._rows.add_message(message, label)
        item = self._list.get(message.id)
        if item is not None and WaitingRows.waiting(item):
            self._waiting.start()

    def set_prompt_progress(self, message_id: str, done: int, total: int) -> None:
        """``done`` of the prompt's ``total`` tokens were read for the reply
        ``message_id``: shown on it (with a bar and the time left) until its
        first text. O(1): one item repainted."""
        self._waiting.set_progress(message_id, done, total)
        self._waiting.start()

    def _repaint_item(self, index: int) -> None:
        item = self._list.items[index]
        top = int(self._list.top(index) - self._bar().value())
        self._vp().update(QRect(0, top, self._vp().width(), int(item.height) + 2))

    def add_messages(self, messages: list[Message]) -> None:
        """Show many finished messages at once (history), below any already
        shown. O(n) plain Python arithmetic (an estimated height each), no Qt
        call per message; only what comes on screen is rendered and laid out,
        later. Beyond SYNC_HISTORY messages, the last SYNC_HISTORY are shown
        at once and the earlier ones are prepared in time-sliced steps (pure
        Python), then put in front in one step (``history_completed``).
        (``SYNC_HISTORY`` is read from this module, so a test can lower it.)"""
        self._rows.add_messages(messages, SYNC_HISTORY)

    def _on_history_ready(self, older: EarlierHistory, owner: int) -> None:
        self._rows.prepend_history(older, owner)

    def add_notice(self, text: str, kind: str = "info", notice_id: str = "") -> str:
        """A line outside the conversation (errors, warnings): its own item."""
        return self._rows.add_notice(text, kind, notice_id)

    def remove_messages(self, ids: list[str]) -> None:
        """Remove these items (messages or notices), their documents, folds
        and find state, without moving what the reader sees. A selection
        touching a removed item is cleared, another one is kept."""
        self._rows.remove(ids)

    def clear(self) -> None:
        """Forget every item (New Chat): O(1) now; the old items are freed
        in later slices, a few thousand at a time."""
        self._rows.clear()

    def message_ids(self) -> list[str]:
        return [i.id for i in self._list.items if i.kind != "notice"]

    def item_count(self) -> int:
        return len(self._list.items)

    def has_item(self, item_id: str) -> bool:
        return item_id in self._list.index

    def _item(self, item_id: str) -> Item | None:
        return self._list.get(item_id)

    # ------------------------------------------------------------------ footer

    def _actions(self, item: Item) -> list[tuple[str, str]]:
        return footer_actions(item, self._decorator)

    def _on_hovered(self, item_id: str, action: str) -> None:
        if self._shown.hover(item_id, action):
            self._damage.all()

    def actions_shown(self, message_id: str) -> bool:
        """A message's action buttons are shown (pointer, keyboard focus or the last reply)."""
        item = self._list.get(message_id)
        self._shown.find_last_reply(self._list.items)
        return item is not None and self._shown.shows(item)

    def set_sources_label(self, sources: SourcesLabel | None, sourced: SourcedIds | None = None) -> None:
        """``sources(message_id) -> "Sources: …"`` ("" for none): the line a
        finished reply lists its passages with, above its footer (clicking
        it asks for the action "sources"); asked again at ``footers_changed``.
        ``sourced()`` names the replies that have passages: then only those
        are asked (without it: every reply)."""
        self._sources.label = sources
        self._sources.sourced = sourced
        self.footers_changed()

    def footers_changed(self) -> None:
        """What the decorator or the sources label answer may have changed:
        each finished reply takes its sources line (a reply whose line came
        or went changes height; with ``sourced``, O(replies with sources))."""
        self._sources.refresh(self._list, self._scroll.set_height, self._metrics.item_height)
        self._damage.all()

    def set_decorator(self, decorator: Decorator | None) -> None:
        """``decorator(message_id) -> ((k, n) or None, actions)``: asked only
        for the footers laid out (on screen), so it costs O(visible)."""
        self._decorator = decorator
        self._damage.all()

    # ------------------------------------------------------------------ streaming (``StreamFlow``)

    def append_stream(self, message_id: str, text: str) -> None:
        """Append streamed text (already appended to the Message) to the tail:
        O(len(text)); asks for a render when a Markdown block completed."""
        self._flow.append(message_id, text)

    def finish_stream(self, message_id: str) -> None:
        """The message's text is complete: render it whole (off the GUI
        thread), then swap the result in; ``message_settled`` follows."""
        self._flow.finish(message_id)
        self._waiting.forget(message_id)

    @traced("render result")
    def _on_rendered(self, result: RenderResult) -> None:
        self._results.on_rendered(result)

    def _on_settled(self, message_id: str, first: int | None = None) -> None:
        """A final render is in place: what changed is from its ``first``
        changed unit down (the tail it replaced, the footer's actions)."""
        index = self._list.index.get(message_id)
        if first is None or index is None or self._find.active or not self._window.is_visible(index):
            self._damage.all()
        else:
            self._damage.below(self._layout.unit_top(index, first) - self._bar().value())
        self.message_settled.emit(message_id)

    # ------------------------------------------------------------------ thoughts (``ThoughtsUnfolder``)

    def set_thoughts_expanded(self, message_id: str, expanded: bool) -> None:
        """Unfold (True) or fold a message's thoughts. Remembered per message
        id, also for a message not shown (yet)."""
        self._unfold.set_expanded_by_id(message_id, expanded)

    def toggle_thoughts(self, message_id: str) -> None:
        """Fold or unfold a message's thoughts (what clicking its header does)."""
        self._unfold.toggle(message_id)

    def thoughts_expanded(self, message_id: str) -> bool:
        return self._unfold.is_open(message_id)

    # ------------------------------------------------------------------ time-sliced work

    def _on_work_drained(self) -> None:
        self._damage.work_drained(self._slicer.drained_kinds)
        self._live.check_ready()

    @property
    def slices(self) -> int:
        """Work slices run (benchmarks, stream health)."""
        return self._slicer.slices

    @property
    def max_slice_s(self) -> float:
        return self._slicer.max_slice_s

    @property
    def last_slice_s(self) -> float:
        return self._slicer.last_slice_s

    def reset_slice_stats(self) -> None:
        """Start measuring the longest slice afresh (benchmarks)."""
        self._slicer.max_slice_s = 0.0

    @property
    def busy(self) -> bool:
        """True while documents are being built or renders are awaited."""
        return self._slicer.busy or bool(self._results.finalizing) or self._history.pending > 0

    # ------------------------------------------------------------------ virtualization (``LiveItems``)

    def _schedule_visibility(self) -> None:
        if not self._visibility_timer.isActive():
            self._visibility_timer.start(0)

    def _on_scrolled(self, value: int) -> None:
        self._schedule_visibility()
        before, self._scroll_value = self._scroll_value, value
        # A reply growing at the bottom, or the glide down to it after a send
        # (nothing else moves meanwhile): move the pixels, paint the new strip.
        if self._scroll.following or self._glide.active:
            self._damage.scrolled(before - value)
        else:
            self._damage.all()

    @traced("visibility update")
    def _update_live_items(self) -> None:
        """Build documents for items near the viewport, drop far ones."""
        self._live.update()

    # ------------------------------------------------------------------ theme, zoom, size (``ItemStyler``)

    @property
    def zoom(self) -> float:
        return self._metrics.zoom

    def set_zoom(self, factor: float) -> None:
        """Show the text at ``factor`` times its base size. Every item's
        height is scaled at once (O(n) arithmetic, no Qt call per message);
        documents near the viewport take the new font in work slices and are
        measured then, the others when they come into view, as on a resize."""
        self._styler.set_zoom(factor)

    def restyle(self) -> None:
        """Take the current theme (``app.ui.misc.theme``). Everything but rendered
        code is painted with the theme's colours as it is drawn; code blocks
        near the viewport get new documents in work slices (same heights), the
        others when they are next built."""
        self._styler.restyle()

    @property
    def column_chars(self) -> int:
        """The reading column's width in average characters (0: the whole viewport)."""
        return self._metrics.column_chars

    def set_column_chars(self, chars: int) -> None:
        """Keep the text within a centred column about ``chars`` characters
        wide at the current zoom (0: use the whole viewport). Re-laid out
        like a resize: O(n) arithmetic, Qt work only near the viewport."""
        self._styler.set_column(chars)

    def scrollContentsBy(self, dx: int, dy: int) -> None:
        """Nothing: ``_on_scrolled`` moves the pixels or repaints (Qt's default
        repaints the whole viewport at every scroll, a reply's growth included)."""

    @traced("resize")
    def resizeEvent(self, event: QResizeEvent | None) -> None:
        super().resizeEvent(event)
        self._styler.resized()

    @traced("paint")
    def paintEvent(self, event: QPaintEvent | None) -> None:
        viewport = self._vp()
        strips = bands(event.region()) if event is not None else [(0.0, float(viewport.height()))]
        self._damage.painted(strips)
        self._shown.find_last_reply(self._list.items)
        painter = QPainter(viewport)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        self._painter.paint_bands(
            painter, self._window.visible_range(), self._bar().value(), viewport.width(), viewport.height(), strips
        )
        painter.end()

    # ------------------------------------------------------------------ mouse and keys (``PointerGestures``)

    def viewportEvent(self, event: QEvent | None) -> bool:
        if isinstance(event, QHelpEvent) and event.type() == QEvent.Type.ToolTip:
            tip = self.tooltip_at(QPointF(event.pos()))
            if tip:
                QToolTip.showText(event.globalPos(), tip, self._vp())
            else:
                QToolTip.hideText()
            return True
        return super().viewportEvent(event)

    def tooltip_at(self, point: QPointF) -> str:
        """The tooltip at viewport ``point``: over a footer action, its name;
        over a formula shown as its source, why it could not be typeset;
        over a formula, its TeX."""
        hit = self._hits.at(point, self._bar().value(), self._vp().width(), details=True)
        if hit is not None and hit.action:
            labels = dict(self._actions(self._list.items[hit.index]))
            return labels.get(hit.action, "")
        if hit is None or hit.doc is None or not 0 <= hit.unit < len(self._list.items[hit.index].units):
            return ""
        formula = formula_at(hit.doc, hit.at, self._list.items[hit.index].units[hit.unit].unit.math)
        return "" if formula is None else formula_tip(formula)

    def showEvent(self, event: QShowEvent | None) -> None:
        super().showEvent(event)
        self._waiting.start()  # (stops at its next step when no reply waits)

    def leaveEvent(self, event: QEvent | None) -> None:
        super().leaveEvent(event)
        self._on_hovered("", "")

    def focusInEvent(self, event: QFocusEvent | None) -> None:
        """The keyboard came to the view: the actions of the message last
        clicked (else of the last message) show, as on hover."""
        super().focusInEvent(event)
        cursor = self._sel.cursor
        self._shown.focus(self._list.items, None if cursor is None else cursor.item)
        self._damage.all()

    def focusOutEvent(self, event: QFocusEvent | None) -> None:
        super().focusOutEvent(event)
        self._shown.focus_id = ""
        self._damage.all()

    def mousePressEvent(self, event: QMouseEvent | None) -> None:
        if event is None or event.button() != Qt.MouseButton.LeftButton:
            return
        self.setFocus()
        self._pointer.press(event.position(), bool(event.modifiers() & Qt.KeyboardModifier.ShiftModifier))
        cursor = self._sel.cursor
        if cursor is not None:
            self._shown.focus(self._list.items, cursor.item)  # the keyboard is on the message clicked

    def mouseMoveEvent(self, event: QMouseEvent | None) -> None:
        if event is not None:
            self._pointer.move(event.position(), bool(event.buttons() & Qt.MouseButton.LeftButton))

    def mouseReleaseEvent(self, event: QMouseEvent | None) -> None:
        if event is not None and event.button() == Qt.MouseButton.LeftButton:
            self._pointer.release(event.position())

    def mouseDoubleClickEvent(self, event: QMouseEvent | None) -> None:
        if event is not None:
            self._pointer.double_click(event.position())

    def keyPressEvent(self, event: QKeyEvent | None) -> None:
        if event is None:
            return
        if event.matches(QKeySequence.StandardKey.Copy):
            self.copy_selection()
        elif event.matches(QKeySequence.StandardKey.SelectAll):
            self.select_all()
        elif shortcuts.matches(event, "top"):
            self._bar().setValue(0)
        elif shortcuts.matches(event, "bottom"):
            self.scroll_to_bottom()
        else:
            super().keyPressEvent(event)

    def contextMenuEvent(self, event: QContextMenuEvent | None) -> None:
        if event is None:
            return
        keyboard = event.reason() == event.Reason.Keyboard
        menu = self.make_context_menu(QPointF(event.pos()), keyboard)
        if keyboard:
            menu.setActiveAction(menu.actions()[0])
        menu.popup(event.globalPos())

    def make_context_menu(self, point: QPointF, keyboard: bool = False) -> QMenu:
        """Copy, the message's own actions (the footer's: edit, regenerate,
        other versions...) and Select All. From the keyboard (the menu key,
        Shift+F10) it is about the message last clicked, else the last one."""
        return build_context_menu(
            self, self.has_selection(), self._pointer.menu_target(point, keyboard), self.copy_selection,
            self.select_all, self._out.footer_action, self.toggle_thoughts,
        )

    # ------------------------------------------------------------------ selection

    def has_selection(self) -> bool:
        return self._sel.active

    def selected_text(self) -> str:
        """The selected text (see ``Selection.selected_text``)."""
        return self._sel.selected_text()

    def select_all(self) -> None:
        """Select everything: O(1) (the text is gathered only on Copy)."""
        if not self._list.items:
            return
        self._sel.select_all()
        self._damage.all()

    def copy_selection(self) -> None:
        """Copy the selection. A large one (many messages) goes to the
        clipboard as data made when it is pasted, so Copy itself costs
        nothing whatever the selection's size."""
        self._out.copy_selection()

    # ------------------------------------------------------------------ find (``FindReveal``)

    def set_find(self, text: str, current: tuple[str, int] | None = None, reveal: bool = True) -> None:
        """Highlight every match of ``text`` in the documents on screen;
        ``current`` = (message id, n-th match in that message) gets its own
        colour and, with ``reveal``, is scrolled into view (once its message
        is laid out).
        Matches are found in later slices (``FindHighlighter``), never while
        painting."""
        self._reveal.set_find(text, current, reveal)

    # ------------------------------------------------------------------ reading back

    @property
    def probe(self) -> ChatViewProbe:
        """What the view shows, read back (tests, the doctor, accessibility)."""
        if self._probe is None:
            self._probe = ChatViewProbe(self)
        return self._probe

    def shutdown(self, timeout_ms: int = 5000) -> bool:
        """Stop building and rendering; joins the render thread up to ``timeout_ms``."""
        self._slicer.stop()
        return self._render.shutdown(timeout_ms)

    def request_shutdown(self) -> None:
        """Stop building and rendering without waiting (see RenderService.request_stop)."""
        self._slicer.stop()
        self._render.request_stop()

    @property
    def render_service(self) -> RenderService:
        return self._render

    def sizeHint(self) -> QSize:
        return QSize(600, 400)

    def warm_up(self, sample_markdown: str) -> None:
        """Lay out throw-away documents with the view's fonts, so the first
        reply does not pay for font loading and glyph fallback (CJK, emoji,
        monospace: tens of ms, once), and draw the footers' icons in work
        slices. Call at start-up idle."""
        self._docs.warm_up(sample_markdown)
        self._slicer.queue("warm:icons", lambda: self._painter.warm_up_icons(self.devicePixelRatioF()))
