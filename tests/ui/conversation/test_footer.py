"""The footer: status notes, facts and the actions the decorator allows."""

from __future__ import annotations

from app.core.conversation.model import Message, MessageStatus
from app.ui.conversation.footer import (
    footer_actions,
    footer_words,
    set_footer_from_status,
)
from app.ui.conversation.items import Item


def test_a_stopped_reply_says_so_and_lists_its_facts(qapp) -> None:
    msg = Message("assistant", "hi", MessageStatus.STOPPED)
    msg.meta.tokens = 12
    item = Item(msg.id, "assistant", msg)
    set_footer_from_status(item, footer_words())
    assert item.note == "⏹ Stopped" and item.note_kind == "info"
    assert item.facts == "12 tokens"


def test_actions_follow_the_decorator(qapp) -> None:
    item = Item("m", "assistant", Message("assistant", "x"))
    assert footer_actions(item, None) == [("copy", "Copy")]
    actions = footer_actions(item, lambda _id: ((2, 3), ("edit", "delete")))
    assert [a for a, _label in actions] == ["previous", "branch", "next", "copy", "edit", "delete"]
    item.streaming = True
    assert footer_actions(item, lambda _id: ((1, 2), ("edit",))) == []
