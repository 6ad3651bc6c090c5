"""A message's footer: its note (stopped, error...), its facts (tokens,
speed) and its actions (the branch switcher, Copy, Edit...), painted as
quiet icon buttons that show on the message under the pointer, on the one
the keyboard is on and always on the last reply (``ActionsShown``). A reply
that was given passages of attached files lists them on a line of their
own above that, always shown ("Sources: report.pdf p. 217, p. 218"; the
action "sources").

``footer_words()`` looks the translated texts up once (GUI thread); the rest
is plain Python on an ``Item``, safe on any thread.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from PyQt6.QtCore import QCoreApplication

from app.core.conversation.model import MessageStatus, Role
from app.ui.conversation.items import Item, ItemList

#: ``decorator(message_id) -> ((k, n) or None, actions)``: what the conversation allows.
Decorator = Callable[[str], tuple[tuple[int, int] | None, tuple[str, ...]]]
#: ``sources(message_id) -> "Sources: report.pdf p. 217, p. 218"`` ("" for none): the
#: passages of attached files a reply was given (the attachments feature answers).
SourcesLabel = Callable[[str], str]
#: ``sourced() -> ids``: the replies that were given passages (the label answers "" for all others).
SourcedIds = Callable[[], Iterable[str]]


def footer_words() -> dict[str, str]:
    """The footer's translated texts and templates (looked up once per
    batch of history items, not once per message)."""
    return {
        "stopped": QCoreApplication.translate("ChatView", "⏹ Stopped"),
        "truncated": QCoreApplication.translate("ChatView", "✂ Cut at the token limit"),
        "interrupted": QCoreApplication.translate("ChatView", "⚠ Interrupted"),
        "error": QCoreApplication.translate("ChatView", "⚠ Error"),
        "error_reason": QCoreApplication.translate("ChatView", "⚠ Error: {reason}"),
        "tokens": QCoreApplication.translate("ChatView", "{tokens} tokens"),
        "rate": QCoreApplication.translate("ChatView", "{rate:.1f} tok/s"),
        "ttft": QCoreApplication.translate("ChatView", "first token {ms:.0f} ms"),
    }


def set_footer_from_status(item: Item, words: dict[str, str]) -> None:
    """Read the message's status and facts into the item's footer."""
    msg = item.message
    if msg is None:
        return
    status = msg.status
    if status == MessageStatus.STOPPED:
        item.note, item.note_kind = words["stopped"], "info"
    elif status == MessageStatus.TRUNCATED:
        item.note, item.note_kind = words["truncated"], "info"
    elif status == MessageStatus.INTERRUPTED:
        item.note, item.note_kind = words["interrupted"], "warning"
    elif status == MessageStatus.ERROR:
        note = words["error_reason"].format(reason=msg.error) if msg.error else words["error"]
        item.note, item.note_kind = note, "error"
    else:
        item.note, item.note_kind = "", "info"
    facts = []
    meta = msg.meta
    if msg.role == Role.ASSISTANT.value and status != MessageStatus.STREAMING:
        if meta.tokens:
            facts.append(words["tokens"].format(tokens=meta.tokens))
        if meta.tokens_per_s:
            facts.append(words["rate"].format(rate=meta.tokens_per_s))
        if meta.ttft_ms is not None:
            facts.append(words["ttft"].format(ms=meta.ttft_ms))
    item.facts = " · ".join(facts)


class SourcesLines:
    """The replies' "Sources: …" lines: the label that answers them, the
    replies that have passages (``sourced``) and those showing a line."""

    def __init__(self) -> None:
        self.label: SourcesLabel | None = None
        self.sourced: SourcedIds | None = None
        self._lined: set[str] = set()

    def refresh(self, items: ItemList, set_height: Callable[[int, float], None],
                item_height: Callable[[Item], float]) -> None:
        """Each finished reply takes its sources line; a reply whose line came
        or went is given its new height. Only the replies ``sourced`` names and
        those that showed a line are asked: O(replies with sources), whatever
        the length of the conversation (without ``sourced``: every item)."""
        label, lined = self.label, self._lined
        ids: Iterable[str]
        if self.sourced is None or label is None:
            ids = [item.id for item in items.items]
        else:
            ids = set(self.sourced()) | lined
        for message_id in ids:
            n = items.index.get(message_id)
            if n is None:
                lined.discard(message_id)
                continue
            item = items.items[n]
            if item.kind != "assistant" or item.streaming:
                continue
            line = label(item.id) if label is not None else ""
            if line:
                lined.add(message_id)
            else:
                lined.discard(message_id)
            if line != item.sources:
                item.sources = line
                set_height(n, item_height(item))


def footer_actions(item: Item, decorator: Decorator | None) -> list[tuple[str, str]]:
    """(action, label) pairs shown in a message's footer: the branch
    switcher ("‹ 2/3 ›") when the message has siblings, then Copy and what
    the conversation allows (the decorator's actions), then the reply's
    sources ("sources", its "Sources: …" line: ``item.sources``) when it
    was given any."""
    if item.kind == "notice" or item.streaming or item.final_pending:
        return []
    out: list[tuple[str, str]] = []
    branch: tuple[int, int] | None = None
    actions: tuple[str, ...] = ()
    if decorator is not None:
        branch, actions = decorator(item.id)
    if branch is not None and branch[1] > 1:
        k, n = branch
        if k > 1:
            out.append(("previous", "‹"))
        out.append(("branch", f"{k}/{n}"))
        if k < n:
            out.append(("next", "›"))
    out.append(("copy", QCoreApplication.translate("ChatView", "Copy")))
    labels = {
        "edit": QCoreApplication.translate("ChatView", "Edit"),
        "regenerate": QCoreApplication.translate("ChatView", "Regenerate"),
        "continue": QCoreApplication.translate("ChatView", "Continue"),
        "delete": QCoreApplication.translate("ChatView", "Delete"),
    }
    out.extend((a, labels[a]) for a in actions if a in labels)
    if item.sources:
        out.append(("sources", item.sources))
    return out


@dataclass(slots=True)
class ActionsShown:
    """Whose actions are shown: the message under the pointer (and the
    action there, drawn highlighted), the message the keyboard is on while
    the view has focus, and the last reply (``last_reply_id``, set by the
    view when it paints)."""

    hover_id: str = ""
    hover_action: str = ""
    focus_id: str = ""
    last_reply_id: str = ""

    def find_last_reply(self, items: list[Item]) -> None:
        """Set ``last_reply_id``: the last assistant message, a few steps
        back from the end at most (only notices come after it)."""
        self.last_reply_id = ""
        for n in range(len(items) - 1, max(-1, len(items) - 8), -1):
            if items[n].kind == "assistant":
                self.last_reply_id = items[n].id
                return
            if items[n].kind == "user":
                return

    def focus(self, items: list[Item], index: int | None) -> None:
        """The keyboard is on item ``index`` (the message last clicked), or
        with None on the last message."""
        if index is not None and 0 <= index < len(items):
            self.focus_id = items[index].id
        else:
            self.focus_id = next((i.id for i in reversed(items[-8:]) if i.kind != "notice"), "")

    def shows(self, item: Item) -> bool:
        return item.id in (self.hover_id, self.focus_id, self.last_reply_id)

    def hover(self, item_id: str, action: str) -> bool:
        """The pointer is over ``item_id`` (and ``action``); True when that changed."""
        if (item_id, action) == (self.hover_id, self.hover_action):
            return False
        self.hover_id, self.hover_action = item_id, action
        return True
