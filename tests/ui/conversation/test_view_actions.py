"""ViewActions: the clipboard (a selection, lazily when it is large; a
message's source without its thinking), links behind an http(s) allow-list,
footer actions handed on."""

from __future__ import annotations

import pytest
from PyQt6.QtCore import QUrl
from PyQt6.QtGui import QDesktopServices, QGuiApplication, QPalette

from app.core.conversation.model import Message
from app.ui.conversation.items import LAZY_COPY_ITEMS, Item, ItemList, Pos
from app.ui.conversation.selection import Selection
from app.ui.conversation.view_actions import ViewActions


class _Harness:
    def __init__(self, n: int = 3) -> None:
        self.items = ItemList()
        self.messages = [Message("assistant", f"<think>hidden</think>answer {k}") for k in range(n)]
        for m in self.messages:
            self.items.items.append(Item(m.id, "assistant", m))
        self.items.reindex()
        self.sel = Selection(self.items, QPalette)
        self.copied: list[tuple[str, str]] = []
        self.opened: list[str] = []
        self.blocked: list[str] = []
        self.requested: list[tuple[str, str]] = []
        self.actions = ViewActions(
            self.items, self.sel, lambda what, text: self.copied.append((what, text)),
            lambda url: self.opened.append(url.toString()), lambda url: self.blocked.append(url.toString()),
            lambda action, mid: self.requested.append((action, mid)),
        )


def test_copy_message_copies_the_answer_source_and_hands_the_action_on(qapp) -> None:
    h = _Harness()
    mid = h.messages[1].id
    h.actions.footer_action("copy", mid)
    assert h.copied == [("message", "answer 1")] and h.requested == [("copy", mid)]
    clipboard = QGuiApplication.clipboard()
    assert clipboard is not None and clipboard.text() == "answer 1"
    h.actions.footer_action("regenerate", mid)
    assert h.requested[-1] == ("regenerate", mid) and len(h.copied) == 1


def test_only_http_links_with_a_host_open(qapp, monkeypatch: pytest.MonkeyPatch) -> None:
    h = _Harness()
    system: list[str] = []
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: system.append(url.toString()) or True)
    for url in ("javascript:alert(1)", "file:///etc/passwd", "https://", "https://example.com/a"):
        h.actions.open_link(QUrl(url))
    assert system == h.opened == ["https://example.com/a"]
    assert h.blocked == ["javascript:alert(1)", "file:///etc/passwd", "https://"]


def test_a_selection_over_many_messages_is_copied_lazily(qapp) -> None:
    h = _Harness(LAZY_COPY_ITEMS + 2)
    h.actions.copy_selection()
    assert h.copied == [], "nothing selected"
    h.sel.select_all()
    h.actions.copy_selection()
    assert h.copied == [("selection", "")]
    clipboard = QGuiApplication.clipboard()
    assert clipboard is not None
    mime = clipboard.mimeData()
    assert mime is not None and mime.text().startswith("answer 0\n\nanswer 1\n\n"), "made when pasted"
    h.sel.anchor, h.sel.cursor = Pos(0, 0, 0), Pos(1, 0, 1 << 30)
    h.actions.copy_selection()
    assert h.copied[-1] == ("selection", "answer 0\n\nanswer 1")
