"""The view's rows coming and going (``ItemRows``): a message or a notice
appended, a history shown (beyond ``SYNC_HISTORY`` messages the last ones at
once, the earlier ones made in time-sliced steps by ``HistoryLoader`` and put
in front in one step), messages removed, and everything cleared (New Chat).

None of them moves what the reader looks at: a view following the bottom
keeps following it; items put in front of or removed above the viewport
move the scroll value with them. Removed items take their documents, render
requests, folds, find state and selection ends with them. A clear is O(1)
now: the old items are freed in later work slices, a few thousand at a time,
and late results for them (renders, history) are dropped (``generation``).

Threading rule: GUI thread only.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Callable, Iterator

from PyQt6.QtCore import QCoreApplication

from app.core.conversation.model import Message, MessageStatus, Role, new_id
from app.core.render import blocks
from app.core.render.blocks import Unit
from app.core.text.thinking import thinking_spans
from app.ui.conversation.find_reveal import FindReveal
from app.ui.conversation.footer import footer_words, set_footer_from_status
from app.ui.conversation.geometry import Metrics
from app.ui.conversation.history import EarlierHistory, HistoryLoader, HistoryParams, make_history_items
from app.ui.conversation.items import CHAR_W, HEADER_GAP, ITEM_GAP, SYNC_HISTORY, Item, ItemList, UnitSlot
from app.ui.conversation.live_items import LiveItems
from app.ui.conversation.render_results import RenderResults
from app.ui.conversation.scrolling import ScrollKeeper
from app.ui.conversation.selection import Selection
from app.ui.conversation.stream_flow import StreamFlow
from app.ui.conversation.unfolding import ThoughtsUnfolder
from app.ui.services.render import RenderService
from app.ui.services.slicer import TimeSlicer


def _labels() -> tuple[str, str]:
    """The user's and the assistant's labels (literal calls, so pylupdate finds them;
    the context is the view's, where they were first)."""
    return QCoreApplication.translate("ChatView", "You"), QCoreApplication.translate("ChatView", "Rill")


class ItemRows:
    """Adds, removes and clears the view's items (see the module docstring);
    ``completed()`` is called once every message given to ``add_messages``
    is in the list."""

    def __init__(
        self,
        items: ItemList,
        scroll: ScrollKeeper,
        metrics: Metrics,
        flow: StreamFlow,
        unfolder: ThoughtsUnfolder,
        live: LiveItems,
        results: RenderResults,
        render_service: RenderService,
        history: HistoryLoader,
        slicer: TimeSlicer,
        selection: Selection,
        reveal: FindReveal,
        schedule_visibility: Callable[[], None],
        repaint: Callable[[], None],
        completed: Callable[[], None],
    ) -> None:
        self._list = items
        self._scroll = scroll
        self._metrics = metrics
        self._flow = flow
        self._unfolder = unfolder
        self._live = live
        self._results = results
        self._render = render_service
        self._history = history
        self._slicer = slicer
        self._sel = selection
        self._reveal = reveal
        self._schedule_visibility = schedule_visibility
        self._repaint = repaint
        self._completed = completed
        self.generation = 0  # bumped by clear(): late results of before are dropped

    # ------------------------------------------------------------------ adding

    def add_message(self, message: Message, label: str = "") -> None:
        """Show a message (finished, or streaming: then ``StreamFlow`` goes on)."""
        kind = "user" if message.role == Role.USER.value else "assistant"
        if not label:
            you, rill = _labels()
            label = you if kind == "user" else rill
        item = Item(message.id, kind, message, label)
        if message.status == MessageStatus.STREAMING:
            self._flow.begin(item)
        else:
            if kind == "assistant":
                self._unfolder.sync(item, thinking_spans(message.content))
            cached = message.rendered
            if cached is not None:
                item.units = [UnitSlot(u) for u in cached]
                item.rendered_len = len(message)
            elif kind == "user" and len(message) <= blocks.RENDER_LIMIT:
                units = blocks.user_units(message.content)  # cheap: escaped text, no Markdown
                message.rendered = units
                item.units = [UnitSlot(u) for u in units]
                item.rendered_len = len(message)
            set_footer_from_status(item, footer_words())
        self._append(item)
        if item.streaming:
            self._flow.shown(item)

    def add_notice(self, text: str, kind: str = "info", notice_id: str = "") -> str:
        """A line outside the conversation (errors, warnings): its own item."""
        nid = notice_id or new_id()
        item = Item(nid, "notice", None, note_kind=kind)
        item.units = [UnitSlot(Unit("plain", text))]
        item.rendered_len = len(text)
        self._append(item)
        return nid

    def _append(self, item: Item) -> None:
        stick = self._scroll.at_bottom()
        index = len(self._list.items)
        self._list.items.append(item)
        self._list.index[item.id] = index
        item.height = self._metrics.item_height(item)
        self._list.heights.append(item.height + ITEM_GAP)
        self._scroll.update_range()
        if stick:
            self._scroll.to_bottom()
        self._schedule_visibility()
        self._repaint()

    def add_messages(self, messages: list[Message], sync_limit: int = SYNC_HISTORY) -> None:
        """Show many finished messages at once (history), below any already
        shown: an estimated height each, no Qt call per message. Beyond
        ``sync_limit`` messages the earlier ones come from the helper thread."""
        if len(messages) > sync_limit and not self._list.items:
            head, tail = messages[:-sync_limit], messages[-sync_limit:]
            params = self._history_params()
            self.append_history(make_history_items(tail, params))
            self._history.load(head, params, self.generation)
            return
        self.append_history(make_history_items(messages, self._history_params()))
        self._completed()

    def _history_params(self) -> HistoryParams:
        width = self._metrics.content_width()
        small = self._metrics.line_height(self._metrics.small)
        frame = self._metrics.frame_height()
        return HistoryParams(
            max(10, int(width / (CHAR_W * self._metrics.zoom))), self._metrics.line_height(), frame, small + HEADER_GAP,
            *_labels(), footer_words(),
        )

    def append_history(self, new: list[Item]) -> None:
        """Items made by ``make_history_items``, below the others."""
        self._unfolder.mark_open(new)
        stick = self._scroll.at_bottom()
        items, index = self._list.items, self._list.index
        for item in new:
            index[item.id] = len(items)
            items.append(item)
        self._list.heights.rebuild(itertools.chain(self._list.heights.values(), (i.height + ITEM_GAP for i in new)))
        self._scroll.update_range()
        if stick:
            self._scroll.to_bottom()
        self._schedule_visibility()
        self._repaint()

    def prepend_history(self, block: EarlierHistory, owner: int) -> None:
        """Earlier messages prepared in steps: put them in front, keeping
        what is on screen where it is. O(the items already shown), at C speed
        for the earlier ones (``EarlierHistory``)."""
        older = block.items
        if owner != self.generation or not older:
            return  # the view was cleared meanwhile
        self._unfolder.mark_open(older)
        k = len(older)
        added = block.heights.total
        value = self._scroll.value
        self._list.items[0:0] = older
        self._list.index.prepend_positions(block.positions)
        self._list.heights.prepend(block.heights)
        self._sel.shift(k)
        self._scroll.update_range()
        self._scroll.set_value(round(value + added))
        self._schedule_visibility()
        self._repaint()
        self._completed()

    # ------------------------------------------------------------------ removing

    def remove(self, ids: list[str]) -> None:
        """Remove these items (messages or notices) without moving what the
        reader sees: the scroll value stays when the removed items start
        below the viewport's top, else the view stays anchored to the first
        remaining item at or above it. O(n) arithmetic."""
        gone = sorted({i for i in (self._list.index.get(k) for k in ids) if i is not None})
        if not gone:
            return
        value = self._scroll.value
        old_tops = (
            [0.0, *itertools.accumulate(self._list.heights.values())][:-1] if gone[0] <= self._list.at_y(value) else None
        )
        removed = set(gone)
        for index in gone:
            item = self._list.items[index]
            self._render.cancel(item.id)
            self._live.drop_documents(item)
            if item.tail is not None:
                item.tail.deleteLater()
            item.tail = item.tail_cursor = None
            self._results.finalizing.discard(item.id)
            self._unfolder.forget(item.id)
        self._reveal.forget({self._list.items[i].id for i in gone})
        self._sel.items_removed(gone)
        kept = [(n, it) for n, it in enumerate(self._list.items) if n not in removed]
        self._list.items = [it for _n, it in kept]
        self._list.reindex()
        self._scroll.update_range()
        if old_tops is not None:
            # The removed items reach the viewport's top: keep the first
            # remaining item at or above it where it was.
            top_index = bisect.bisect_right(old_tops, value) - 1  # old index of the item at the top
            anchor = next((k for k in range(len(kept) - 1, -1, -1) if kept[k][0] <= top_index), None)
            if anchor is None:
                self._scroll.set_value(0)
            else:
                old = kept[anchor][0]
                offset = value - old_tops[old]
                if old < top_index:  # the reader looked at removed items: show what follows the anchor
                    offset = min(offset, kept[anchor][1].height + ITEM_GAP)
                self._scroll.set_value(round(self._list.top(anchor) + offset))
        else:
            self._scroll.set_value(value)
        self._schedule_visibility()
        self._repaint()

    def clear(self) -> None:
        """Forget every item: O(1) now; the old items are freed in later slices."""
        old = self._list.items
        self.generation += 1
        self._render.cancel_all()
        self._list.reset()
        self._live.reset()
        self._results.finalizing.clear()
        self._history.cancel()
        self._slicer.clear()
        self._sel.clear()
        self._reveal.clear()
        self._scroll.update_range()
        self._repaint()
        if old:
            self._slicer.queue(f"free:{id(old)}", lambda: self._free(old))

    def _free(self, items: list[Item]) -> Iterator[None]:
        while items:
            chunk = items[-2000:]
            del items[-2000:]
            for item in chunk:
                self._live.drop_documents(item)
                if item.tail is not None:
                    item.tail.deleteLater()
                item.tail = item.tail_cursor = None
            del chunk
            yield
