"""What the conversation view does outside itself (``ViewActions``): the
clipboard (the selection, a whole message's Markdown source, a code block),
links (opened only with an http(s) allow-list: ``ALLOWED_LINK_SCHEMES`` and
a host) and footer actions handed on to whoever listens.

A large selection (over ``LAZY_COPY_ITEMS`` messages) goes to the clipboard
as data gathered in work slices (``LazyTextMime``), so neither Copy nor a
paste blocks the window whatever the selection's size.

Threading rule: GUI thread only.
"""

from __future__ import annotations

from collections.abc import Callable

from PyQt6.QtCore import QUrl
from PyQt6.QtGui import QDesktopServices, QGuiApplication

from app.ui.conversation.clipboard_text import LazyTextMime
from app.ui.conversation.items import ALLOWED_LINK_SCHEMES, LAZY_COPY_ITEMS, ItemList, copy_source
from app.ui.conversation.selection import Selection


class ViewActions:
    """``copied(what, text)``, ``link_opened(url)``, ``link_blocked(url)`` and
    ``action_requested(action, message_id)`` report what was done (the
    view's signals)."""

    def __init__(
        self,
        items: ItemList,
        selection: Selection,
        copied: Callable[[str, str], None],
        link_opened: Callable[[QUrl], None],
        link_blocked: Callable[[QUrl], None],
        action_requested: Callable[[str, str], None],
    ) -> None:
        self._list = items
        self._sel = selection
        self._copied = copied
        self._link_opened = link_opened
        self._link_blocked = link_blocked
        self._action_requested = action_requested

    def copy_selection(self) -> None:
        """Copy the selection (lazily when it spans many messages)."""
        sel = self._sel.ordered()
        if sel is None:
            return
        if sel[1].item - sel[0].item > LAZY_COPY_ITEMS:
            clipboard = QGuiApplication.clipboard()
            if clipboard is not None:
                clipboard.setMimeData(LazyTextMime(self._sel.selected_pieces()))
            self._copied("selection", "")
            return
        text = self._sel.selected_text()
        if text:
            self.set_clipboard(text, "selection")

    def footer_action(self, action: str, item_id: str) -> None:
        """A footer (or context menu) action: "copy" copies the message's
        source here; every action is then handed on."""
        if action == "copy":
            item = self._list.get(item_id)
            if item is not None and item.message is not None:
                self.set_clipboard(copy_source(item.message), "message")
        self._action_requested(action, item_id)

    def open_link(self, url: QUrl) -> None:
        if url.scheme().lower() in ALLOWED_LINK_SCHEMES and url.host():
            QDesktopServices.openUrl(url)
            self._link_opened(url)
        else:
            self._link_blocked(url)

    def set_clipboard(self, text: str, what: str) -> None:
        clipboard = QGuiApplication.clipboard()
        if clipboard is not None:
            clipboard.setText(text)
        self._copied(what, text)
