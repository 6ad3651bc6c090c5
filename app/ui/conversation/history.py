"""Showing a conversation's history: items with estimated heights made in
plain Python (``make_history_items``), and ``HistoryLoader``, which makes
the earlier items of a very long history on a helper thread.

The helper thread gets only plain values (the messages, the layout numbers,
the translated words); its result comes back through
``app.ui.services.background.BackgroundCalls``, so it never reaches a view
that was deleted meanwhile, and no process-wide state (the garbage
collector) is touched.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

from PyQt6.QtCore import QObject, pyqtSignal

from app.core.conversation.model import Message, MessageStatus, Role
from app.core.text.thinking import thinking_spans
from app.ui.conversation.footer import set_footer_from_status
from app.ui.conversation.items import SYNC_HISTORY, Item, ThoughtsState, UnitSlot
from app.ui.services.background import BackgroundCalls

__all__ = ["SYNC_HISTORY", "HistoryLoader", "HistoryParams", "make_history_items"]


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


class HistoryLoader(QObject):
    """Makes the items of earlier history messages on a helper thread."""

    #: Earlier items are ready (GUI thread); args: the items (list[Item]), the generation asked for.
    loaded = pyqtSignal(object, int)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._calls = BackgroundCalls(self)
        self.pending = 0

    def load(self, messages: list[Message], params: HistoryParams, generation: int) -> None:
        """Make the items of ``messages``; ``loaded`` follows unless cancelled."""
        self.pending += 1

        def work(cancel: threading.Event) -> list[Item]:
            return [] if cancel.is_set() else make_history_items(messages, params)

        self._calls.run(work, self._done(generation), name="rill-history")

    def _done(self, generation: int) -> Callable[[object, BaseException | None], None]:
        def deliver(items: object, error: BaseException | None) -> None:
            self.pending -= 1
            self.loaded.emit(items if error is None and isinstance(items, list) else [], generation)

        return deliver

    def cancel(self) -> None:
        """Forget every load in flight (their results are dropped)."""
        self._calls.cancel_all()
        self.pending = 0
