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
``documents.DocumentFactory``, ``render_results.RenderResults`` (render
results swapped in), ``streaming.StreamingTail``,
``thoughts.ThoughtsFold``, ``virtualizer.LiveWindow``, ``history.HistoryLoader``,
``footer``, ``painter.ItemPainter``, ``hittest.HitTester`` (one hit test per
mouse event), ``selection.Selection``, ``find.FindHighlighter``, ``menu``,
``app.ui.services.slicer.TimeSlicer`` (the work queue); ``probe.ChatViewProbe``
reads back what is shown (tests, the doctor).

Removing messages (``remove_messages``) and adding them (``add_messages``)
never move what the reader looks at (following the bottom keeps following).

Safety: unit documents never load a resource; links open only through
``_on_link_clicked`` with an http(s) allow-list.

Threading rule: GUI thread only.
"""

from __future__ import annotations

import bisect
import itertools
import logging
import time
from collections.abc import Callable, Iterator

from PyQt6.QtCore import QPointF, QSize, Qt, QTimer, QUrl, pyqtSignal
from PyQt6.QtGui import (
    QContextMenuEvent,
    QCursor,
    QDesktopServices,
    QGuiApplication,
    QKeyEvent,
    QKeySequence,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QResizeEvent,
    QTextCursor,
    QTextDocument,
)
from PyQt6.QtWidgets import QAbstractScrollArea, QMenu, QScrollBar, QWidget

from app.core.conversation.model import Message, MessageStatus, Role, new_id
from app.core.render import blocks
from app.core.render.blocks import Unit
from app.core.text.textbreak import DisplayBreaker
from app.core.text.thinking import (
    ThinkingSpans,
    ThinkingSplitter,
    thinking_spans,
)
from app.ui.conversation.documents import DocumentFactory
from app.ui.conversation.find import FindHighlighter
from app.ui.conversation.footer import (
    Decorator,
    footer_actions,
    footer_words,
    set_footer_from_status,
)
from app.ui.conversation.geometry import ItemLayout, Metrics
from app.ui.conversation.history import HistoryLoader, HistoryParams, make_history_items
from app.ui.conversation.hittest import Hit, HitTester
from app.ui.conversation.items import (
    ALLOWED_LINK_SCHEMES,
    BREAK_LIMIT,
    CHAR_W,
    COMMIT_SCAN_S,
    HEADER_GAP,
    ITEM_GAP,
    LAZY_COPY_ITEMS,
    SLICE_BUDGET_S,
    SYNC_HISTORY,
    THOUGHTS_PIECE,
    Item,
    ItemIndex,
    ItemList,
    Pos,
    ThoughtsState,
    UnitSlot,
    copy_source,
    layout_of,
)
from app.ui.conversation.menu import MenuTarget, build_context_menu
from app.ui.conversation.painter import ItemPainter
from app.ui.conversation.probe import ChatViewProbe
from app.ui.conversation.render_results import RenderResults
from app.ui.conversation.selection import LazyTextMime, Selection
from app.ui.conversation.streaming import StreamingTail
from app.ui.conversation.thoughts import ThoughtsFold
from app.ui.conversation.virtualizer import LiveWindow
from app.ui.misc import shortcuts
from app.ui.services.render import (
    PRIORITY_NOW,
    RenderJob,
    RenderResult,
    RenderService,
)
from app.ui.services.slicer import TimeSlicer

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
            self.tr("The messages of this conversation. The menu key (Shift+F10) opens the actions of the message "
                    "last clicked, or of the last message.")
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
        self._generation = 0          # bumped by clear(): late results of before are dropped
        self._width = -1.0
        self._slicer = TimeSlicer(SLICE_BUDGET_S, self)
        self._visibility_timer = QTimer(self)
        self._visibility_timer.setSingleShot(True)
        self._visibility_timer.timeout.connect(self._update_live_items)
        self._sel = Selection(self._list, self.palette)
        self._press_at: QPointF | None = None
        self._dragging = False
        self._hover_href = ""
        self._probe: ChatViewProbe | None = None
        self._find = FindHighlighter(self._slicer, self._vp().update)
        self._thoughts = ThoughtsFold(self._find)
        self._reveal: tuple[str, int] | None = None        # a find match to scroll to
        self._metrics = Metrics(self.font(), lambda: self._vp().width())
        self._docs = DocumentFactory(self, self._metrics)
        self._stream = StreamingTail(self._docs, self._metrics, self._thoughts, self._find, self._render)
        self._results = RenderResults(
            self._list, self._docs, self._metrics, self._stream, self._queue, self._set_height,
            self._tail_changed, self._on_settled, self._schedule_visibility,
        )
        self._layout = ItemLayout(self._list, self._metrics, self._thoughts.label, self._actions)
        self._hits = HitTester(self._list, self._layout)
        self._painter = ItemPainter(
            self._list, self._layout, self._metrics, self._find, self._thoughts.label,
            self._hidden_thought_matches, self._sel.selections_for, self.palette,
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
        self._render.rendered.connect(self._on_rendered)
        self._history.loaded.connect(self._on_history_ready)
        self._slicer.drained.connect(self._on_work_drained)
        self._bar().valueChanged.connect(self._on_scrolled)

    # ------------------------------------------------------------------ geometry

    def _top(self, index: int) -> float:
        """Content y of item ``index``: O(log n)."""
        return self._list.heights.prefix(index)

    def total_height(self) -> float:
        return self._list.heights.total()

    def _item_at_y(self, y: float) -> int:
        """Index of the item covering content y (clamped): O(log n)."""
        return self._list.heights.find(y)

    def _set_height(self, index: int, height: float) -> None:
        """Change an item's height, keeping the content under the viewport still."""
        item = self._list.items[index]
        delta = height - item.height
        if abs(delta) < 0.01:
            return
        sb = self._bar()
        stick = self.at_bottom()
        above = self._top(index) + item.height <= sb.value() + 0.5
        item.height = height
        self._list.heights.set(index, height + ITEM_GAP)
        self._update_scrollbar()
        if stick:
            sb.setValue(sb.maximum())
        elif above:
            sb.setValue(round(sb.value() + delta))

    def _update_scrollbar(self) -> None:
        sb = self._bar()
        page = self._vp().height()
        sb.setPageStep(max(1, page))
        sb.setRange(0, max(0, int(self.total_height()) - page))

    def at_bottom(self) -> bool:
        sb = self._bar()
        return sb.value() >= sb.maximum() - 4

    def scroll_to_bottom(self) -> None:
        sb = self._bar()
        sb.setValue(sb.maximum())

    def scroll_to_message(self, message_id: str) -> None:
        index = self._list.index.get(message_id)
        if index is None:
            return
        self._bar().setValue(int(self._top(index)))
        self._schedule_visibility()

    # ------------------------------------------------------------------ items

    def _append_item(self, item: Item) -> int:
        stick = self.at_bottom()
        index = len(self._list.items)
        self._list.items.append(item)
        self._list.index[item.id] = index
        item.height = self._metrics.item_height(item)
        self._list.heights.append(item.height + ITEM_GAP)
        self._update_scrollbar()
        if stick:
            self.scroll_to_bottom()
        self._schedule_visibility()
        self._vp().update()
        return index

    def add_message(self, message: Message, label: str = "") -> None:
        """Show a message (finished, or streaming: then use append_stream)."""
        kind = "user" if message.role == Role.USER.value else "assistant"
        item = Item(message.id, kind, message, label or (self.tr("You") if kind == "user" else self.tr("Rill")))
        if message.status == MessageStatus.STREAMING:
            item.streaming = True
            item.rendered_len = 0
            self._stream.new_tail(item)
            if kind == "assistant":
                item.splitter = ThinkingSplitter()
            if len(message):  # shown again after another conversation was: its text so far
                self._stream.stream_text(item, message.content)
                item.tail_height = item.tail.size().height() if item.tail is not None else 0.0
        else:
            if kind == "assistant":
                self._set_think(item, thinking_spans(message.content))
            cached = message.rendered
            if cached is not None:
                item.units = [UnitSlot(u) for u in cached]
                item.rendered_len = len(message)
            elif kind == "user" and len(message) <= blocks.RENDER_LIMIT:
                units = blocks.user_units(message.content)  # cheap: escaped text, no Markdown
                message.rendered = units
                item.units = [UnitSlot(u) for u in units]
                item.rendered_len = len(message)
            self._set_footer_from_status(item)
        self._append_item(item)
        if item.streaming and len(message):
            think = item.think
            if think is not None and think.expanded and think.doc is None:
                self._start_fill(item)
                self._set_height(self._list.index[item.id], self._metrics.item_height(item))
            self._stream.maybe_commit(item)

    def add_messages(self, messages: list[Message]) -> None:
        """Show many finished messages at once (history), below any already
        shown. O(n) plain Python arithmetic (an estimated height each), no Qt
        call per message; only what comes on screen is rendered and laid out,
        later. Beyond SYNC_HISTORY messages, the last SYNC_HISTORY are shown
        at once and the earlier ones are prepared on a helper thread (pure
        Python), then put in front in one step (``history_completed``)."""
        if len(messages) > SYNC_HISTORY and not self._list.items:
            head, tail = messages[:-SYNC_HISTORY], messages[-SYNC_HISTORY:]
            params = self._history_params()
            self._append_history(make_history_items(tail, params))
            self._history.load(head, params, self._generation)
            return
        self._append_history(make_history_items(messages, self._history_params()))
        self.history_completed.emit()

    def _history_params(self) -> HistoryParams:
        width = self._metrics.content_width()
        small = self._metrics.line_height(self._metrics.small)
        frame = self._metrics.frame_height()
        return HistoryParams(
            max(10, int(width / (CHAR_W * self._metrics.zoom))), self._metrics.line_height(), frame, small + HEADER_GAP,
            self.tr("You"), self.tr("Rill"), footer_words(),
        )

    def _mark_open_thoughts(self, items: list[Item]) -> None:
        """Items made off the GUI thread learn which thoughts are unfolded."""
        if self._thoughts.open:
            for item in items:
                if item.think is not None and item.id in self._thoughts.open:
                    item.think.expanded = True

    def _append_history(self, new: list[Item]) -> None:
        self._mark_open_thoughts(new)
        stick = self.at_bottom()
        items, index = self._list.items, self._list.index
        for item in new:
            index[item.id] = len(items)
            items.append(item)
        self._list.heights.rebuild(itertools.chain(self._list.heights.values(), (i.height + ITEM_GAP for i in new)))
        self._update_scrollbar()
        if stick:
            self.scroll_to_bottom()
        self._schedule_visibility()
        self._vp().update()

    def _on_history_ready(self, older: list[Item], owner: int) -> None:
        """Earlier messages prepared off the GUI thread: put them in front,
        keeping what is on screen where it is."""
        if owner != self._generation or not older:
            return  # the view was cleared meanwhile
        self._mark_open_thoughts(older)
        k = len(older)
        added = sum(i.height for i in older) + k * ITEM_GAP
        sb = self._bar()
        value = sb.value()
        self._list.items[0:0] = older
        self._list.index.prepend([item.id for item in older])
        self._list.heights.rebuild([i.height + ITEM_GAP for i in older] + self._list.heights.values())
        anchor = self._sel.anchor
        self._sel.anchor = None if anchor is None else Pos(anchor.item + k, anchor.unit, anchor.char)
        self._sel.cursor = (
            None if self._sel.cursor is None else Pos(self._sel.cursor.item + k, self._sel.cursor.unit, self._sel.cursor.char)
        )
        self._update_scrollbar()
        sb.setValue(round(value + added))
        self._schedule_visibility()
        self._vp().update()
        self.history_completed.emit()

    def add_notice(self, text: str, kind: str = "info", notice_id: str = "") -> str:
        """A line outside the conversation (errors, warnings): its own item."""
        nid = notice_id or new_id()
        item = Item(nid, "notice", None, note_kind=kind)
        item.units = [UnitSlot(Unit("plain", text))]
        item.rendered_len = len(text)
        self._append_item(item)
        return nid

    def remove_messages(self, ids: list[str]) -> None:
        """Remove these items (messages or notices), their documents, folds
        and find state, without moving what the reader sees: the scroll
        value stays when the removed items start below the viewport's top,
        else the view stays anchored to the first remaining item at or above
        it. A selection touching a removed item is cleared, another one is
        kept. O(n) arithmetic."""
        gone = sorted({i for i in (self._list.index.get(k) for k in ids) if i is not None})
        if not gone:
            return
        sb = self._bar()
        value = sb.value()
        old_tops = (
            [0.0, *itertools.accumulate(self._list.heights.values())][:-1] if gone[0] <= self._item_at_y(value) else None
        )
        removed = set(gone)
        for index in gone:
            item = self._list.items[index]
            self._render.cancel(item.id)
            self._drop_documents(item)
            if item.tail is not None:
                item.tail.deleteLater()
            item.tail = item.tail_cursor = None
            self._results.finalizing.discard(item.id)
            self._thoughts.open.discard(item.id)
        ids_gone = {self._list.items[i].id for i in gone}
        if self._reveal is not None and self._reveal[0] in ids_gone:
            self._reveal = None
        self._find.forget(ids_gone)
        # the selection: cleared when an end is in a removed item, else renumbered
        ends = (self._sel.anchor, self._sel.cursor)
        if any(p is not None and p.item in removed for p in ends):
            self._sel.anchor = self._sel.cursor = None
        else:
            self._sel.anchor, self._sel.cursor = (
                None if p is None else Pos(p.item - bisect.bisect_left(gone, p.item), p.unit, p.char) for p in ends
            )
        kept = [(n, it) for n, it in enumerate(self._list.items) if n not in removed]
        self._list.items = [it for _n, it in kept]
        self._list.index = ItemIndex()
        for n, it in enumerate(self._list.items):
            self._list.index[it.id] = n
        self._list.heights.rebuild(it.height + ITEM_GAP for it in self._list.items)
        self._update_scrollbar()
        if old_tops is not None:
            # The removed items reach the viewport's top: keep the first
            # remaining item at or above it where it was.
            top_index = bisect.bisect_right(old_tops, value) - 1  # old index of the item at the top
            anchor = next((k for k in range(len(kept) - 1, -1, -1) if kept[k][0] <= top_index), None)
            if anchor is None:
                sb.setValue(0)
            else:
                old = kept[anchor][0]
                offset = value - old_tops[old]
                if old < top_index:  # the reader looked at removed items: show what follows the anchor
                    offset = min(offset, kept[anchor][1].height + ITEM_GAP)
                sb.setValue(round(self._top(anchor) + offset))
        else:
            sb.setValue(value)
        self._schedule_visibility()
        self._vp().update()

    def clear(self) -> None:
        """Forget every item (New Chat): O(1) now; the old items are freed
        in later slices, a few thousand at a time."""
        old = self._list.items
        self._generation += 1
        self._render.cancel_all()
        self._list.reset()
        self._window.live = set()
        self._results.finalizing.clear()
        self._history.cancel()
        self._slicer.clear()
        self._sel.anchor = self._sel.cursor = None
        self._find.clear()
        self._reveal = None
        self._update_scrollbar()
        self._vp().update()
        if old:
            self._queue(f"free:{id(old)}", lambda: self._free_items(old))

    def _free_items(self, items: list[Item]) -> Iterator[None]:
        while items:
            chunk = items[-2000:]
            del items[-2000:]
            for item in chunk:
                self._drop_documents(item)
                item.tail = item.tail_cursor = None
            del chunk
            yield

    def message_ids(self) -> list[str]:
        return [i.id for i in self._list.items if i.kind != "notice"]

    def item_count(self) -> int:
        return len(self._list.items)

    def has_item(self, item_id: str) -> bool:
        return item_id in self._list.index

    def _item(self, item_id: str) -> Item | None:
        index = self._list.index.get(item_id)
        return None if index is None else self._list.items[index]

    # ------------------------------------------------------------------ footer

    def _set_footer_from_status(self, item: Item) -> None:
        set_footer_from_status(item, footer_words())

    def _actions(self, item: Item) -> list[tuple[str, str]]:
        return footer_actions(item, self._decorator)

    def set_decorator(
        self, decorator: Decorator | None
    ) -> None:
        """``decorator(message_id) -> ((k, n) or None, actions)``: asked only
        for the footers laid out (on screen), so it costs O(visible)."""
        self._decorator = decorator
        self._vp().update()

    # ------------------------------------------------------------------ streaming

    def append_stream(self, message_id: str, text: str) -> None:
        """Append streamed text (already appended to the Message) to the tail:
        O(len(text)); asks for a render when a Markdown block completed."""
        item = self._item(message_id)
        if item is None or not item.streaming or not text:
            return
        if item.tail is None:
            self._stream.new_tail(item)
        answer = self._stream.stream_text(item, text)
        think = item.think
        if think is not None and think.expanded and think.doc is None:
            self._start_fill(item)
        self._tail_changed(item)
        now = time.monotonic()
        if "\n" in answer and now - item.last_scan >= COMMIT_SCAN_S:
            item.last_scan = now
            self._stream.maybe_commit(item)

    def _tail_changed(self, item: Item) -> None:
        assert item.tail is not None
        width = self._metrics.content_width()
        if item.tail.textWidth() != width:
            item.tail.setTextWidth(width)
        item.tail_height = item.tail.size().height()
        think = item.think
        if think is not None and think.ready:
            assert think.doc is not None
            if think.doc.textWidth() != width:
                think.doc.setTextWidth(width)
            think.height, think.measured_width = think.doc.size().height(), width
        index = self._list.index[item.id]
        self._set_height(index, self._metrics.item_height(item))
        if self._is_visible(index):
            self._vp().update()

    def finish_stream(self, message_id: str) -> None:
        """The message's text is complete: render it whole (off the GUI
        thread), then swap the result in; ``message_settled`` follows."""
        item = self._item(message_id)
        if item is None or item.message is None:
            return
        item.streaming = False
        item.final_pending = True
        item.splitter = None
        self._results.finalizing.add(item.id)
        self._set_footer_from_status(item)
        content = item.message.content
        text = self._answer_source(item, content)
        think = item.think
        if think is not None and think.ready:
            self._thoughts.trim(think)
        # Only the answer goes through Markdown; the thoughts stay plain text.
        self._render.request(RenderJob(item.id, "final", text, token=len(content)), PRIORITY_NOW)
        self._vp().update()

    def _answer_source(self, item: Item, content: str) -> str:
        """The part of ``content`` rendered as Markdown (the answer), with
        the item's thinking brought up to date from the whole text."""
        if item.kind != "assistant":
            return content
        spans = thinking_spans(content)
        self._set_think(item, spans)
        return content if spans is None else content[spans.answer_start :]

    def _set_think(self, item: Item, spans: ThinkingSpans | None) -> None:
        """Make the item's thinking match ``spans`` (the whole content's)."""
        think = item.think
        if spans is None:
            if think is not None:
                self._thoughts.drop(think)
                item.think = None
            return
        if think is None:
            item.think = think = ThoughtsState.of(spans)
            think.expanded = item.id in self._thoughts.open
            return
        changed = (think.start, think.end) != (spans.thoughts_start, spans.thoughts_end)
        think.start, think.end, think.answer, think.closed = (
            spans.thoughts_start, spans.thoughts_end, spans.answer_start, spans.closed
        )
        if changed:
            # (a stream that ended inside "</th": the held text is thoughts after all)
            think.words = -1
            if think.doc is not None:
                self._thoughts.drop(think)
                if think.expanded and self._list.index.get(item.id) is not None:
                    self._start_fill(item)

    def _on_rendered(self, result: RenderResult) -> None:
        self._results.on_rendered(result)

    def _on_settled(self, message_id: str) -> None:
        self._vp().update()
        self.message_settled.emit(message_id)

    # ------------------------------------------------------------------ documents

    def _drop_documents(self, item: Item) -> None:
        for u in item.units:
            if u.doc is not None:
                u.doc.deleteLater()
                u.doc = None
        if item.think is not None:
            self._thoughts.drop(item.think)
        item.live = False
        self._window.live.discard(item.id)

    # ------------------------------------------------------------------ thoughts

    def _start_fill(self, item: Item) -> None:
        """Give unfolded thoughts their document, filled from the message's
        text in work slices (``THOUGHTS_PIECE`` characters each, laid out as
        they go); thoughts streamed meanwhile wait in ``pending``."""
        think, msg = item.think, item.message
        assert think is not None and msg is not None
        text = msg.content[think.start : think.end]
        doc = self._docs.new_document()
        doc.setTextWidth(self._metrics.content_width())
        think.doc, think.cursor, think.breaker = doc, QTextCursor(doc), DisplayBreaker(BREAK_LIMIT)
        think.filling, think.pending, think.shown = True, [], False
        self._queue(f"thoughts:{item.id}:{id(doc)}", lambda: self._fill_thoughts(item, think, doc, text))

    def _fill_thoughts(self, item: Item, think: ThoughtsState, doc: QTextDocument, text: str) -> Iterator[None]:
        for start in range(0, len(text), THOUGHTS_PIECE):
            if item.think is not think or think.doc is not doc:
                return  # folded, dropped or cleared meanwhile
            self._thoughts.insert(think, text[start : start + THOUGHTS_PIECE])
            doc.size()  # lay this piece out now, in this slice
            yield
        if item.think is not think or think.doc is not doc:
            return
        for piece in think.pending:
            self._thoughts.insert(think, piece)
        think.pending = []
        think.filling = False
        if think.closed or not item.streaming:
            self._thoughts.trim(think)
        width = self._metrics.content_width()
        if doc.textWidth() != width:
            doc.setTextWidth(width)
        think.height, think.measured_width = doc.size().height(), width
        index = self._list.index.get(item.id)
        if index is not None and self._list.items[index] is item:
            self._set_height(index, self._metrics.item_height(item))
            self._vp().update()

    def _set_expanded(self, item: Item, expanded: bool) -> None:
        think = item.think
        assert think is not None
        if expanded:
            self._thoughts.open.add(item.id)
        else:
            self._thoughts.open.discard(item.id)
        if think.expanded == expanded:
            return
        think.expanded = expanded
        index = self._list.index[item.id]
        if expanded:
            if think.doc is None and (item.live or item.tail is not None):
                self._start_fill(item)
        else:
            self._thoughts.drop(think)
            for pos in (self._sel.anchor, self._sel.cursor):
                if pos is not None and pos.item == index and pos.unit < 0:
                    self._sel.anchor = self._sel.cursor = None  # its text is gone
        self._set_height(index, self._metrics.item_height(item))
        self._schedule_visibility()
        self._vp().update()
        self.thoughts_toggled.emit(item.id, expanded)

    def set_thoughts_expanded(self, message_id: str, expanded: bool) -> None:
        """Unfold (True) or fold a message's thoughts. Remembered per message
        id, also for a message not shown (yet)."""
        item = self._item(message_id)
        if item is None or item.think is None:
            if expanded:
                self._thoughts.open.add(message_id)
            else:
                self._thoughts.open.discard(message_id)
            return
        self._set_expanded(item, expanded)

    def toggle_thoughts(self, message_id: str) -> None:
        """Fold or unfold a message's thoughts (what clicking its header does)."""
        item = self._item(message_id)
        if item is not None and item.think is not None:
            self._set_expanded(item, not item.think.expanded)

    def thoughts_expanded(self, message_id: str) -> bool:
        return message_id in self._thoughts.open

    # ------------------------------------------------------------------ time-sliced work

    def _queue(self, key: str, job: Callable[[], Iterator[None] | None]) -> None:
        self._slicer.queue(key, job)

    def _on_work_drained(self) -> None:
        self._vp().update()
        self._check_viewport_ready()

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

    # ------------------------------------------------------------------ virtualization

    def _schedule_visibility(self) -> None:
        if not self._visibility_timer.isActive():
            self._visibility_timer.start(0)

    def _on_scrolled(self, value: int) -> None:
        self._schedule_visibility()
        self._vp().update()

    def _visible_range(self, above: float = 0.0, below: float = 0.0) -> range:
        return self._window.visible_range(above, below)

    def _is_visible(self, index: int) -> bool:
        return self._window.is_visible(index)

    def _update_live_items(self) -> None:
        """Build documents for items near the viewport, drop far ones (``LiveWindow``)."""
        drop, render, build = self._window.plan(self._pinned)
        for item in drop:
            self._drop_documents(item)
        for item, priority in render:
            self._request_render(item, priority)
        for item in build:
            self._queue(f"build:{item.id}", lambda it=item: self._build_item(it))  # type: ignore[misc]  # mypy: a lambda with a default argument
        self._check_viewport_ready()

    def _request_render(self, item: Item, priority: int) -> None:
        msg = item.message
        assert msg is not None
        if item.render_asked == len(msg):
            return
        item.render_asked = len(msg)
        kind = "user" if item.kind == "user" else "history"
        text = self._answer_source(item, msg.content)  # the thoughts never go through Markdown
        self._render.request(RenderJob(item.id, kind, text, token=len(msg)), priority)

    def _build_item(self, item: Item) -> Iterator[None]:
        width = self._metrics.content_width()
        think = item.think
        if think is not None and think.expanded and think.doc is None and item.live:
            self._start_fill(item)
        for u in item.units:
            if self._item(item.id) is not item or not item.live:
                return
            if u.doc is None:
                built = self._docs.build_unit(u.unit)
                u.doc, u.height, u.measured_width = built.doc, built.height, width
                yield
            elif u.measured_width != width:
                u.doc.setTextWidth(width)
                u.height = u.doc.size().height()
                u.measured_width = width
        index = self._list.index.get(item.id)
        if index is not None:
            self._set_height(index, self._metrics.item_height(item))
            item.measured_width = width
            self._vp().update()

    def _pinned(self, index: int) -> bool:
        """Items holding a selection end keep their documents."""
        return any(p is not None and p.item == index for p in (self._sel.anchor, self._sel.cursor))

    def _check_viewport_ready(self) -> None:
        if not self._list.items:
            return
        if self._reveal is not None and not self._try_reveal():
            return
        for index in self._visible_range():
            item = self._list.items[index]
            if item.message is not None and item.rendered_len < 0:
                return
            if not item.docs_ready:
                return
        self.viewport_ready.emit()

    # ------------------------------------------------------------------ Qt events

    # ------------------------------------------------------------------ theme and zoom

    @property
    def zoom(self) -> float:
        return self._metrics.zoom

    def set_zoom(self, factor: float) -> None:
        """Show the text at ``factor`` times its base size. Every item's
        height is scaled at once (O(n) arithmetic, no Qt call per message);
        documents near the viewport take the new font in work slices and are
        measured then, the others when they come into view, as on a resize."""
        if factor == self._metrics.zoom or factor <= 0:
            return
        stick = self.at_bottom()
        old_line = self._metrics.line_height()
        self._metrics.zoom = factor
        self._metrics.set_fonts(self.font())
        ratio = self._metrics.line_height() / old_line
        scale = ratio * ratio  # more lines (narrower text) of taller lines
        heights: list[float] = []
        for item in self._list.items:
            if item.live or item.tail is not None:
                self._queue(f"zoom:{item.id}", lambda it=item: self._refont_item(it))  # type: ignore[misc]  # mypy: a lambda with a default argument
            else:
                item.height *= scale
            heights.append(item.height + ITEM_GAP)
        self._list.heights.rebuild(heights)
        if stick:
            self._queue("zoom:bottom", self.scroll_to_bottom)
        self._update_scrollbar()
        if stick:
            self.scroll_to_bottom()
        self._schedule_visibility()
        self._vp().update()

    def _refont_item(self, item: Item) -> Iterator[None]:
        """Give an item's documents the current font and measure them (a work
        job: one document per step)."""
        width = self._metrics.content_width()
        for u in item.units:
            if self._item(item.id) is not item:
                return
            if u.doc is not None and u.doc.defaultFont() != self._metrics.font:
                u.doc.setDefaultFont(self._metrics.font)
                u.doc.setTextWidth(width)
                u.height, u.measured_width = u.doc.size().height(), width
                yield
        if item.tail is not None and item.tail.defaultFont() != self._metrics.font:
            item.tail.setDefaultFont(self._metrics.font)
            item.tail.setTextWidth(width)
            item.tail_height = item.tail.size().height()
        think = item.think
        if think is not None and think.doc is not None and think.doc.defaultFont() != self._metrics.font:
            think.doc.setDefaultFont(self._metrics.font)
            think.doc.setTextWidth(width)
            if not think.filling:
                think.height, think.measured_width = think.doc.size().height(), width
        index = self._list.index.get(item.id)
        if index is not None and self._item(item.id) is item:
            self._set_height(index, self._metrics.item_height(item))
            item.measured_width = width
        self._vp().update()

    def restyle(self) -> None:
        """Take the current theme (``app.ui.misc.theme``). Everything but rendered
        code is painted with the theme's colours as it is drawn; code blocks
        near the viewport get new documents in work slices (same heights), the
        others when they are next built."""
        if self._docs.restyle():
            for item_id in list(self._window.live):
                item = self._item(item_id)
                if item is not None and any(u.doc is not None and u.unit.kind != "plain" for u in item.units):
                    self._queue(f"restyle:{item.id}", lambda it=item: self._restyle_item(it))  # type: ignore[misc]  # mypy: a lambda with a default argument
        self._vp().update()

    def _restyle_item(self, item: Item) -> Iterator[None]:
        for u in item.units:
            if self._item(item.id) is not item:
                return
            if u.doc is not None and u.unit.kind != "plain":
                built = self._docs.build_unit(u.unit)
                old, u.doc, u.height, u.measured_width = u.doc, built.doc, built.height, built.measured_width
                old.deleteLater()
                self._vp().update()
                yield

    def resizeEvent(self, event: QResizeEvent | None) -> None:
        super().resizeEvent(event)
        width = self._metrics.content_width()
        if width != self._width:
            old_width, self._width = self._width, width
            # Items holding documents (near the viewport, bounded by the
            # screen) re-lay out now; the others' heights are scaled (text
            # wraps inversely to the width) and measured when they come into
            # view. O(n) arithmetic, no Qt call per message.
            stick = self.at_bottom()
            ratio = old_width / width if old_width > 0 else 1.0
            frame = self._metrics.frame_height()
            live: list[Item] = []
            scale = ratio != 1.0
            for item in self._list.items:
                if item.live or item.tail is not None:
                    live.append(item)
                elif scale and item.height > frame and item.kind != "notice":
                    # (units without documents re-estimate themselves: their
                    # measured_width no longer matches)
                    item.height = frame + (item.height - frame) * ratio
            self._list.heights.rebuild(i.height + ITEM_GAP for i in self._list.items)
            for item in live:
                self._results.relayout(item)
            self._update_scrollbar()
            if stick:
                self.scroll_to_bottom()
        else:
            self._update_scrollbar()
        self._schedule_visibility()

    def paintEvent(self, event: QPaintEvent | None) -> None:
        painter = QPainter(self._vp())
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        viewport = self._vp()
        self._painter.paint(
            painter, self._visible_range(), self._bar().value(), viewport.width(), viewport.height()
        )
        painter.end()

    # ------------------------------------------------------------------ hit testing

    def _hit(self, point: QPointF, details: bool = False) -> Hit | None:
        """What is under viewport ``point`` (one pass: see ``HitTester``)."""
        return self._hits.at(point, self._bar().value(), self._vp().width(), details)

    def _pos_at(self, point: QPointF) -> Pos | None:
        hit = self._hit(point)
        return None if hit is None else hit.pos()

    # ------------------------------------------------------------------ mouse and keys

    def mousePressEvent(self, event: QMouseEvent | None) -> None:
        if event is None or event.button() != Qt.MouseButton.LeftButton:
            return
        self.setFocus()
        point = event.position()
        self._press_at = point
        self._dragging = False
        pos = self._pos_at(point)
        if event.modifiers() & Qt.KeyboardModifier.ShiftModifier and self._sel.anchor is not None:
            self._sel.cursor = pos
        else:
            self._sel.anchor = self._sel.cursor = pos
        self._vp().update()

    def mouseMoveEvent(self, event: QMouseEvent | None) -> None:
        if event is None:
            return
        point = event.position()
        if event.buttons() & Qt.MouseButton.LeftButton and self._press_at is not None:
            self._dragging = True
            pos = self._pos_at(point)
            if pos is not None:
                self._sel.cursor = pos
                self._vp().update()
            return
        hit = self._hit(point, details=True)
        href = "" if hit is None else hit.href
        clickable = hit is not None and hit.clickable
        self._vp().setCursor(
            QCursor(Qt.CursorShape.PointingHandCursor if clickable else Qt.CursorShape.IBeamCursor)
        )
        if href != self._hover_href:
            self._hover_href = href
            self.setToolTip(href)

    def mouseReleaseEvent(self, event: QMouseEvent | None) -> None:
        if event is None or event.button() != Qt.MouseButton.LeftButton:
            return
        point = event.position()
        clicked = not self._dragging
        self._press_at = None
        self._dragging = False
        if not clicked:
            return
        hit = self._hit(point, details=True)
        if hit is None:
            return
        item_id = self._list.items[hit.index].id
        if hit.thinking:
            self.toggle_thoughts(item_id)
        elif hit.action:
            self._on_footer_action(hit.action, item_id)
        elif hit.code is not None:
            self._set_clipboard(hit.code, "code")
        elif hit.href:
            self._on_link_clicked(QUrl(hit.href))

    def mouseDoubleClickEvent(self, event: QMouseEvent | None) -> None:
        if event is None:
            return
        pos = self._pos_at(event.position())
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
        self._vp().update()

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
        hit = self._hit(point)
        index = None if hit is None or not hit.in_body else hit.index
        items = self._list.items
        if keyboard:
            if self._sel.cursor is not None:
                index = self._sel.cursor.item  # the message last clicked
            else:
                index = next((i for i in range(len(items) - 1, -1, -1) if items[i].kind != "notice"), None)
        target = None
        if index is not None and items[index].kind != "notice":
            item = items[index]
            thoughts = None if item.think is None else item.think.expanded
            target = MenuTarget(item.id, thoughts, self._actions(item))
        return build_context_menu(
            self, self.has_selection(), target, self.copy_selection, self.select_all,
            self._on_footer_action, self.toggle_thoughts,
        )

    def _on_footer_action(self, action: str, item_id: str) -> None:
        if action == "copy":
            item = self._item(item_id)
            if item is not None and item.message is not None:
                self._set_clipboard(copy_source(item.message), "message")
        self.message_action_requested.emit(action, item_id)

    def _on_link_clicked(self, url: QUrl) -> None:
        if url.scheme().lower() in ALLOWED_LINK_SCHEMES and url.host():
            QDesktopServices.openUrl(url)
            self.link_opened.emit(url)
        else:
            self.link_blocked.emit(url)

    def _set_clipboard(self, text: str, what: str) -> None:
        clipboard = QGuiApplication.clipboard()
        if clipboard is not None:
            clipboard.setText(text)
        self.copied.emit(what, text)

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
        last = len(self._list.items) - 1
        item = self._list.items[last]
        n_units = len(item.units) + (1 if item.tail is not None else 0)
        self._sel.anchor = Pos(0, -1, 0)
        self._sel.cursor = Pos(last, max(0, n_units - 1), 1 << 30)
        self._vp().update()

    def copy_selection(self) -> None:
        """Copy the selection. A large one (many messages) goes to the
        clipboard as data made when it is pasted, so Copy itself costs
        nothing whatever the selection's size."""
        sel = self._sel.ordered()
        if sel is None:
            return
        if sel[1].item - sel[0].item > LAZY_COPY_ITEMS:
            clipboard = QGuiApplication.clipboard()
            if clipboard is not None:
                clipboard.setMimeData(LazyTextMime(self._sel.selected_text))
            self.copied.emit("selection", "")
            return
        text = self._sel.selected_text()
        if text:
            self._set_clipboard(text, "selection")

    # ------------------------------------------------------------------ find

    def set_find(self, text: str, current: tuple[str, int] | None = None, reveal: bool = True) -> None:
        """Highlight every match of ``text`` in the documents on screen;
        ``current`` = (message id, n-th match in that message) gets its own
        colour and, with ``reveal``, is scrolled into view (once its message
        is laid out).
        Matches are found in later slices (``FindHighlighter``), never while
        painting."""
        self._find.set_text(text)
        self._find.current = current
        if current is not None and reveal:
            self._reveal = current
            self.scroll_to_message(current[0])
            self._try_reveal()
        self._vp().update()

    def _try_reveal(self) -> bool:
        """Scroll the current find match to the middle of the viewport when
        its message has its documents; True when done (or nothing to do)."""
        if self._reveal is None:
            return True
        message_id, nth = self._reveal
        index = self._list.index.get(message_id)
        if index is None or not self._find.active:
            self._reveal = None
            return True
        item = self._list.items[index]
        if not item.docs_ready or item.rendered_len < 0:
            return False
        k = self._hidden_thought_matches(item)
        if nth < k and item.think is not None:
            self._set_expanded(item, True)  # the match is in folded thoughts: unfold them
            return False
        self._reveal = None
        for _n, doc, _height, _unit, uy in self._layout.rows(item, self._layout.body_top(index)):
            if doc is None:
                continue
            starts = self._find.ranges(doc, now=True) or []
            if nth - k < len(starts):
                block = doc.findBlock(starts[nth - k])
                rect = layout_of(doc).blockBoundingRect(block)
                target = uy + rect.y() - self._vp().height() / 2
                self._bar().setValue(int(max(0.0, target)))
                return True
            k += len(starts)
        return True

    def _hidden_thought_matches(self, item: Item) -> int:
        """Find matches in a message's thoughts while they are not shown (the
        find bar numbers the matches of the whole message, thoughts first)."""
        think = item.think
        if think is None or think.ready or not self._find.active or item.message is None:
            return 0
        content = item.message.content
        return self._find.hidden_thought_matches(
            item.id, f"{think.start}:{think.end}", lambda: content[think.start : think.end].strip()
        )

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
        monospace: tens of ms, once). Call at start-up idle."""
        self._docs.warm_up(sample_markdown)
