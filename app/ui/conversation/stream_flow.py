"""A streaming message's course through the view (``StreamFlow``): its item
set up for streaming (a tail, a thinking splitter for a reply, the text so
far when it is shown again), each streamed piece appended (``StreamingTail``)
and the tail re-measured, completed Markdown blocks looked for at most every
``COMMIT_SCAN_S``, and the end: the whole answer sent for its final render
(the thoughts stay plain text).

Threading rule: GUI thread only.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

from app.core.text.thinking import ThinkingSplitter
from app.ui.conversation.damage import ViewportDamage
from app.ui.conversation.footer import footer_words, set_footer_from_status
from app.ui.conversation.geometry import Metrics
from app.ui.conversation.items import COMMIT_SCAN_S, PAD_Y, UNIT_GAP, Item, ItemList
from app.ui.conversation.render_results import RenderResults
from app.ui.conversation.streaming import StreamingTail
from app.ui.conversation.thoughts import ThoughtsFold
from app.ui.conversation.unfolding import ThoughtsUnfolder
from app.ui.conversation.virtualizer import LiveWindow
from app.ui.services.render import PRIORITY_NOW, RenderJob, RenderService


class StreamFlow:
    """Streaming items from their first piece to their final render (see the module docstring)."""

    def __init__(
        self,
        items: ItemList,
        stream: StreamingTail,
        fold: ThoughtsFold,
        unfolder: ThoughtsUnfolder,
        results: RenderResults,
        metrics: Metrics,
        render_service: RenderService,
        window: LiveWindow,
        set_height: Callable[[int, float], None],
        repaint: Callable[[], None],
        damage: ViewportDamage | None = None,
        scroll_value: Callable[[], int] | None = None,
        marked: Callable[[int], bool] | None = None,
    ) -> None:
        self._list = items
        self._stream = stream
        self._fold = fold
        self._unfolder = unfolder
        self._results = results
        self._metrics = metrics
        self._render = render_service
        self._window = window
        self._set_height = set_height
        self._repaint = repaint
        # Partial repaints (a growing tail, a swap, the end) need both; without them all is repainted.
        self._damage = damage
        self._scroll_value = scroll_value
        self._marked = marked                 # item index → a selection end or find matches are drawn on it

    def begin(self, item: Item) -> None:
        """Set up a new item for a streaming message (before it joins the list)."""
        message = item.message
        assert message is not None
        item.streaming = True
        item.rendered_len = 0
        self._stream.new_tail(item)
        if item.kind == "assistant":
            item.splitter = ThinkingSplitter()
        if len(message):  # shown again after another conversation was: its text so far
            self._stream.stream_text(item, message.content)
            item.tail_height = item.tail.size().height() if item.tail is not None else 0.0

    def shown(self, item: Item) -> None:
        """The item set up by ``begin`` is in the list: its unfolded thoughts
        and the blocks its text so far completed."""
        assert item.message is not None
        if not len(item.message):
            return
        think = item.think
        if think is not None and think.expanded and think.doc is None:
            self._unfolder.start_fill(item)
            self._set_height(self._list.index[item.id], self._metrics.item_height(item))
        self._stream.maybe_commit(item)

    def append(self, message_id: str, text: str) -> None:
        """Append streamed text (already appended to the Message) to the tail:
        O(len(text)); asks for a render when a Markdown block completed."""
        item = self._list.get(message_id)
        if item is None or not item.streaming or not text:
            return
        if item.tail is None:
            self._stream.new_tail(item)
        answer = self._stream.stream_text(item, text)
        self._results.commits.arrived(message_id, len(answer))
        think = item.think
        filled = think is not None and think.expanded and think.doc is None
        if filled:
            self._unfolder.start_fill(item)
        self.tail_changed(item, appended=not filled)
        now = time.monotonic()
        if "\n" in answer and now - item.last_scan >= COMMIT_SCAN_S:
            item.last_scan = now
            self._stream.maybe_commit(item)

    def tail_changed(self, item: Item, appended: bool = False, swapped: bool = False) -> None:
        """Measure the tail (and the thoughts shown) again and set the item's
        height. ``appended``: only text was added at the tail's end, so only
        the strip from its old last lines down is painted again; ``swapped``:
        the tail's first blocks became rendered units, so from the tail's old
        top down; otherwise (a width change) all of it."""
        assert item.tail is not None
        old_tail_height = item.tail_height
        width = self._metrics.content_width()
        if item.tail.textWidth() != width:
            item.tail.setTextWidth(width)
        item.tail_height = item.tail.size().height()
        think = item.think
        thoughts_moved = False
        if think is not None and think.ready:
            assert think.doc is not None
            if think.doc.textWidth() != width:
                think.doc.setTextWidth(width)
            before = think.height
            think.height, think.measured_width = think.doc.size().height(), width
            thoughts_moved = think.height != before
        # What changed on screen: from the tail's old last lines down (its
        # new text, the footer pushed down), or from its old top (the units
        # above it did not change); the rest only moved, if at all.
        index = self._list.index[item.id]
        bottom = self._list.top(index) + item.height - self._metrics.footer_height(item)  # the old tail's end
        line = self._metrics.line_height()
        changed_from = bottom - 3 * line if appended else bottom - PAD_Y - old_tail_height - UNIT_GAP - line
        height = self._metrics.item_height(item)
        if swapped and not thoughts_moved and self._swap_in_place(item, index, height, changed_from):
            return
        self._set_height(index, height)
        if self._window.is_visible(index):
            if thoughts_moved or not (appended or swapped):
                self._repaint()
            else:
                self._repaint_below(changed_from)

    def _swap_in_place(self, item: Item, index: int, height: float, changed_from: float) -> bool:
        """Blocks at the front of the tail became units: when the view
        follows the bottom and scrolls by exactly the height's change, the
        rest of the tail and the footer stay where they were on screen. Then
        only the pixels above the old tail's top move, and only the new
        units' rows are painted (none when they are above the viewport, as
        at thousands of tokens a second, where the tail is screens long).
        Otherwise it repaints as before. False: not tried (nothing done)."""
        damage, value = self._damage, self._scroll_value
        change = height - item.height
        if damage is None or value is None or change != round(change) or not self._window.is_visible(index):
            return False
        if self._marked is not None and self._marked(index):
            return False  # its highlights are placed by unit and may move with the swap: as before
        before = value()
        pin = math.floor(changed_from - before)
        damage.pin(pin, -round(change))
        self._set_height(index, height)
        pinned = damage.unpin()
        moved = value() - before
        if moved != round(change) or not (pinned or moved == 0):
            self._repaint_below(changed_from)  # the pixels moved the usual way, or not at all: as before
            return True
        m = self._metrics
        tail = item.tail_height if item.tail is not None and not item.tail.isEmpty() else 0.0  # as item_height counts it
        rest_top = self._list.top(index) + item.height - m.footer_height(item) - PAD_Y - tail - value()
        damage.strip(min(pin, pin - moved), rest_top + m.line_height())
        return True

    def _repaint_below(self, y: float) -> None:
        """Repaint from content y ``y`` down (everything without the damage to ask)."""
        if self._damage is None or self._scroll_value is None:
            self._repaint()
        else:
            self._damage.below(y - self._scroll_value())

    def finish(self, message_id: str) -> None:
        """The message's text is complete: render it whole (off the GUI
        thread); the result is swapped in by ``RenderResults``."""
        item = self._list.get(message_id)
        if item is None or item.message is None:
            return
        item.streaming = False
        item.final_pending = True
        item.splitter = None
        self._results.finalizing.add(item.id)
        set_footer_from_status(item, footer_words())
        content = item.message.content
        text = self._unfolder.answer_source(item, content)
        think = item.think
        if think is not None and think.ready:
            self._fold.trim(think)
        # Only the answer goes through Markdown; the thoughts stay plain text.
        self._render.request(RenderJob(item.id, "final", text, token=len(content)), PRIORITY_NOW)
        index = self._list.index[item.id]
        if think is not None or not content:
            self._repaint()  # the thoughts trimmed, the waiting row gone
        elif self._window.is_visible(index):  # only the footer changed (its words; no actions until settled)
            self._repaint_below(self._list.top(index) + item.height - self._metrics.footer_height(item) - PAD_Y)
