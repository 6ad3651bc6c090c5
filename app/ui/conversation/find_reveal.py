"""Find in the view (``FindReveal``): the needle and the current match
handed to the ``FindHighlighter``, the current match scrolled to the middle
of the viewport once its message has its documents (unfolding its thoughts
first when the match is in them), and the matches of folded thoughts,
counted from their text (the find bar numbers the matches of a whole
message, thoughts first).

Threading rule: GUI thread only.
"""

from __future__ import annotations

from collections.abc import Callable

from app.ui.conversation.find import FindHighlighter, find_pattern, text_matches, unit_text
from app.ui.conversation.geometry import ItemLayout
from app.ui.conversation.items import Item, ItemList, layout_of
from app.ui.conversation.scrolling import ScrollKeeper
from app.ui.conversation.unfolding import ThoughtsUnfolder


class FindReveal:
    """``pending`` is the match (message id, n-th match in it) still to
    scroll to; ``scroll_to_message(id)`` brings a message on screen."""

    def __init__(
        self,
        items: ItemList,
        find: FindHighlighter,
        layout: ItemLayout,
        unfolder: ThoughtsUnfolder,
        scroll: ScrollKeeper,
        scroll_to_message: Callable[[str], None],
        repaint: Callable[[], None],
    ) -> None:
        self._list = items
        self._find = find
        self._layout = layout
        self._unfolder = unfolder
        self._scroll = scroll
        self._scroll_to_message = scroll_to_message
        self._repaint = repaint
        self.pending: tuple[str, int] | None = None

    def set_find(self, text: str, current: tuple[str, int] | None = None, reveal: bool = True) -> None:
        """Highlight every match of ``text``; ``current`` gets its own colour
        and, with ``reveal``, is scrolled into view (once its message is laid out)."""
        self._find.set_text(text)
        self._find.current = current
        if current is not None and reveal:
            self.pending = current
            self._scroll_to_message(current[0])
            self.try_reveal()
        self._repaint()

    def try_reveal(self) -> bool:
        """Scroll the current find match to the middle of the viewport when
        its message has its documents; True when done (or nothing to do)."""
        if self.pending is None:
            return True
        message_id, nth = self.pending
        index = self._list.index.get(message_id)
        if index is None or not self._find.active:
            self.pending = None
            return True
        item = self._list.items[index]
        if not item.docs_ready or item.rendered_len < 0:
            return False
        k = self.hidden_thought_matches(item)
        if nth < k and item.think is not None:
            self._unfolder.set_expanded(item, True)  # the match is in folded thoughts: unfold them
            return False
        self.pending = None
        pattern = find_pattern(self._find.text)
        for _n, doc, height, unit, uy in self._layout.rows(item, self._layout.body_top(index)):
            if doc is None:
                if unit is None or pattern is None:
                    continue
                # a far unit of a long message (``UnitWindow``): its matches
                # counted from its text; bring it on screen, reveal once built
                count = len(text_matches(pattern, unit_text(unit.unit)))
                if nth - k < count:
                    self.pending = (message_id, nth)
                    self._scroll.set_value(int(max(0.0, uy + height / 2 - self._scroll.page_height() / 2)))
                    return False
                k += count
                continue
            starts = self._find.ranges(doc, now=True) or []
            if nth - k < len(starts):
                block = doc.findBlock(starts[nth - k])
                rect = layout_of(doc).blockBoundingRect(block)
                target = uy + rect.y() - self._scroll.page_height() / 2
                self._scroll.set_value(int(max(0.0, target)))
                return True
            k += len(starts)
        return True

    def hidden_thought_matches(self, item: Item) -> int:
        """Find matches in a message's thoughts while they are not shown."""
        think = item.think
        if think is None or think.ready or not self._find.active or item.message is None:
            return 0
        content = item.message.content
        return self._find.hidden_thought_matches(
            item.id, f"{think.start}:{think.end}", lambda: content[think.start : think.end].strip()
        )

    def forget(self, message_ids: set[str]) -> None:
        """These messages left the view: their match state goes with them."""
        if self.pending is not None and self.pending[0] in message_ids:
            self.pending = None
        self._find.forget(message_ids)

    def clear(self) -> None:
        """No messages any more (New Chat)."""
        self._find.clear()
        self.pending = None
