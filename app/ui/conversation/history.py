"""Showing a conversation's history: items with estimated heights made in
plain Python (``make_history_items``), and ``HistoryLoader``, which makes
the earlier items of a very long history in time-sliced steps.

Why not a helper thread (as before wave 8, stop 32): making the items is
pure Python, ~3 µs a message, and a helper thread running it holds the
GIL whenever the GUI thread does not, and keeps it for a switch interval
when the GUI thread wants it back. Opening a 26,554-message conversation
while a reply starts, the GUI thread's work then took two to three times
as long (beats of 30–50 ms; see docs/PERFORMANCE.md). On the GUI thread
the same work costs the same CPU but comes in steps of ``CHUNK`` messages,
at most ``SLICE_S`` of them per turn of the event loop, between the ticks
and paints instead of inside them. The garbage collector is never turned
off; every ``SETTLE_CHUNKS`` steps the items made so far are frozen
(``app.ui.services.collector.settle_long``, when the application enabled
it), so the full collections the burst sets off stay short.
"""

from __future__ import annotations

import logging
import operator
from collections.abc import Iterator
from dataclasses import dataclass, field

from PyQt6.QtCore import QObject, pyqtSignal

from app.core.conversation.model import Message, MessageStatus, Role
from app.core.text.thinking import thinking_spans
from app.core.util.fenwick import FrontValues
from app.ui.conversation.footer import set_footer_from_status
from app.ui.conversation.items import ITEM_GAP, SYNC_HISTORY, Item, ThoughtsState, UnitSlot
from app.ui.services import collector
from app.ui.services.slicer import TimeSlicer

log = logging.getLogger(__name__)

__all__ = ["CHUNK", "SLICE_S", "SYNC_HISTORY", "EarlierHistory", "HistoryLoader", "HistoryParams", "make_history_items"]

#: Messages made into items per step (~0.6 ms on this machine).
CHUNK = 200
#: The loader's time slice per turn of the event loop.
SLICE_S = 0.002
#: Every this many steps, the items made so far are frozen (``collector.settle_long``):
#: full collections set off by the burst then walk at most this many steps' items.
SETTLE_CHUNKS = 20


@dataclass(frozen=True, slots=True)
class HistoryParams:
    """What estimating an item's height needs (values, safe on any thread)."""

    per_line: int          # characters per line
    line_h: float          # body line height
    frame: float           # padding, header and footer of an item
    think_h: float         # the thinking header's row
    you: str               # the user's label
    rill: str              # the assistant's label
    words: dict[str, str]  # the footer's words (``footer.footer_words``)


def make_history_items(messages: list[Message], params: HistoryParams) -> list[Item]:
    """Items with estimated heights. Pure Python, safe on any thread
    (thinking found by ``thinking_spans``: O(leading whitespace) for a
    message without it)."""
    user = Role.USER.value
    complete = MessageStatus.COMPLETE
    per_line, line_h, frame, think_h = params.per_line, params.line_h, params.frame, params.think_h
    out: list[Item] = []
    for message in messages:
        kind = "user" if message.role == user else "assistant"
        item = Item(message.id, kind, message, params.you if kind == "user" else params.rill)
        cached = message.rendered
        if cached is not None:
            item.units = [UnitSlot(u) for u in cached]
            item.rendered_len = len(message)
        content = message.content
        start = 0
        if kind == "assistant":
            spans = thinking_spans(content)
            if spans is not None:
                item.think = ThoughtsState.of(spans)
                start = spans.answer_start
        lines = (len(content) - start) // per_line + content.count("\n", start, start + 20000) + 1
        item.height = frame + lines * line_h + 12.0 + (think_h if item.think is not None else 0.0)
        if message.status != complete or message.meta.tokens:
            set_footer_from_status(item, params.words)
        out.append(item)
    return out


@dataclass(slots=True)
class EarlierHistory:
    """Earlier items made in steps, with what putting them in front of the
    view's list needs, made in the same steps: their heights (+ ``ITEM_GAP``)
    with running sums, and their ids' positions. The step that puts them in
    front is then O(the items already shown), not O(all)."""

    items: list[Item] = field(default_factory=list)
    heights: FrontValues = field(default_factory=FrontValues)
    positions: dict[str, int] = field(default_factory=dict)

    def extend(self, items: list[Item]) -> None:
        n = len(self.items)
        self.items += items
        self.heights.extend(item.height + ITEM_GAP for item in items)
        self.positions.update(zip(map(_ID, items), range(n, n + len(items)), strict=True))

    @classmethod
    def of(cls, items: list[Item]) -> EarlierHistory:
        block = cls()
        block.extend(items)
        return block


_ID = operator.attrgetter("id")


class HistoryLoader(QObject):
    """Makes the items of earlier history messages in time-sliced steps
    (GUI thread; see the module docstring)."""

    #: Earlier items are ready (GUI thread); args: the items (EarlierHistory), the generation asked for.
    loaded = pyqtSignal(object, int)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._slicer = TimeSlicer(SLICE_S, self)
        self._loads = 0
        self.pending = 0

    def load(self, messages: list[Message], params: HistoryParams, generation: int) -> None:
        """Make the items of ``messages``; ``loaded`` follows unless cancelled."""
        self.pending += 1
        self._loads += 1
        self._slicer.queue(f"history:{self._loads}", lambda: self._steps(messages, params, generation))

    def _steps(self, messages: list[Message], params: HistoryParams, generation: int) -> Iterator[None]:
        block = EarlierHistory()
        try:
            for n, start in enumerate(range(0, len(messages), CHUNK), 1):
                block.extend(make_history_items(messages[start : start + CHUNK], params))
                if n % SETTLE_CHUNKS == 0:
                    collector.settle_long(len(messages))  # the items so far leave the collector's walks
                yield
        except Exception:  # a bug: the view shows the last messages only, and is not left busy
            log.exception("making the earlier history's items failed")
            block = EarlierHistory()
        self.pending -= 1
        self.loaded.emit(block, generation)

    def cancel(self) -> None:
        """Forget every load in flight (their results are never delivered)."""
        self._slicer.stop()
        self.pending = 0
