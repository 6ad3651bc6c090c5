"""The live window of the conversation view (``LiveWindow``): which items
hold documents. Items near the viewport (``LIVE_ABOVE`` screens above,
``LIVE_BELOW`` below) are built, visible ones first; items further than
``KEEP_MARGIN`` screens lose their documents, unless they stream, await
their final render or hold an end of the selection.

The window only plans (plain Python over the item list); the view builds,
renders and drops.

Threading rule: GUI thread only.
"""

from __future__ import annotations

from collections.abc import Callable

from app.ui.conversation.items import (
    KEEP_MARGIN,
    LIVE_ABOVE,
    LIVE_BELOW,
    Item,
    ItemList,
)
from app.ui.services.render import PRIORITY_BACKGROUND, PRIORITY_VISIBLE


class LiveWindow:
    """``viewport()`` gives (scroll value, viewport height) now."""

    def __init__(self, items: ItemList, viewport: Callable[[], tuple[float, float]]) -> None:
        self._list = items
        self._viewport = viewport
        self.live: set[str] = set()  # ids of items holding documents

    def visible_range(self, above: float = 0.0, below: float = 0.0) -> range:
        """Indices of the items on screen, widened by ``above``/``below`` screens."""
        if not self._list.items:
            return range(0)
        value, h = self._viewport()
        first = self._list.at_y(max(0.0, value - above * h))
        last = self._list.at_y(value + h + below * h)
        return range(first, last + 1)

    def is_visible(self, index: int) -> bool:
        return index in self.visible_range()

    def plan(self, pinned: Callable[[int], bool]) -> tuple[list[Item], list[tuple[Item, int]], list[Item]]:
        """(items to drop the documents of, items to render with their
        priority, items to build); the items to build count as live now."""
        items = self._list.items
        drop: list[Item] = []
        render: list[tuple[Item, int]] = []
        build: list[Item] = []
        if not items:
            return drop, render, build
        live = self.visible_range(LIVE_ABOVE, LIVE_BELOW)
        keep = self.visible_range(KEEP_MARGIN + LIVE_ABOVE, KEEP_MARGIN + LIVE_BELOW)
        visible = self.visible_range()
        # Drop documents of items far away (cheap: a few per scroll step).
        for item_id in list(self.live):
            index = self._list.index.get(item_id)
            if index is None:
                self.live.discard(item_id)
                continue
            if index not in keep:
                item = items[index]
                if not item.streaming and not item.final_pending and not pinned(index):
                    drop.append(item)
        order = list(visible) + [i for i in live if i not in visible]
        for index in order:
            item = items[index]
            if (
                item.message is not None
                and item.rendered_len != len(item.message)
                and not item.streaming
                and not item.final_pending
            ):
                render.append((item, PRIORITY_VISIBLE if index in visible else PRIORITY_BACKGROUND))
                continue
            if not item.live or not item.docs_ready:
                item.live = True
                self.live.add(item.id)
                build.append(item)
        return drop, render, build
