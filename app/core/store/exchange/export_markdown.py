"""Export: conversations as Markdown (File › Export and Edit › Copy), the
current branch of each."""

from __future__ import annotations

import io
import time
from collections.abc import Iterable, Iterator, Sequence
from typing import Protocol, TextIO

from app.core.conversation.model import Message, MessageStatus, Role, current_path
from app.core.store.exchange.export_json import StoreReader, resolve_conversations
from app.core.store.exchange.inert_markdown import inert_body, inert_line


class Described(Protocol):
    """What the Markdown shows of a conversation: a ``ConversationInfo``, or
    the ``Conversation`` itself (Edit › Copy)."""

    @property
    def title(self) -> str: ...

    @property
    def model(self) -> str: ...

    @property
    def created_at(self) -> float: ...

    @property
    def current_leaf(self) -> str | None: ...


def _local_time(ts: float) -> str:
    try:
        return time.strftime("%Y-%m-%d %H:%M", time.localtime(float(ts)))
    except (OverflowError, OSError, ValueError):
        return "unknown date"


def conversation_markdown(info: Described, messages: Sequence[Message], inert: bool = True) -> str:
    """One conversation as Markdown: its current path, with a note where other
    branches were left out. Bodies, the title and errors are made inert
    (``inert_markdown``): only these headings are at levels 1 and 2, and
    nothing in them is HTML or a script link. ``inert=False``: bodies as
    written (Edit › Copy Conversation as Markdown: the user's own text to
    paste elsewhere, like Copy on a message; the CommonMark pass costs about
    0.4 s per MB, too much for a paste served on the GUI thread)."""
    return "".join(conversation_markdown_parts(info, messages, inert))


def conversation_markdown_parts(
    info: Described, messages: Sequence[Message], inert: bool = True, path: Sequence[Message] | None = None
) -> Iterator[str]:
    """``conversation_markdown`` in pieces (the heading, then a message
    each), made as they are asked for: a long conversation is copied in
    work slices. ``messages`` is read at the first piece; ``path``: the
    current path when the caller knows it already (a ``Conversation``: its
    ``messages``; finding it again takes ~9 ms for 26,554 messages)."""
    if path is None:
        path = current_path(messages, info.current_leaf)
    siblings: dict[str | None, int] = {}
    for m in messages:
        siblings[m.parent_id] = siblings.get(m.parent_id, 0) + 1
    title = inert_line(" ".join(str(info.title or "").split())) or "Untitled conversation"
    models = [info.model] if info.model else list(dict.fromkeys(m.meta.model for m in path if m.meta.model))
    facts = [_local_time(info.created_at)] + (["model: " + ", ".join(models)] if models else [])
    yield f"# {title}\n\n*{' · '.join(facts)}*\n"
    for msg in path:
        who = "You" if msg.role == Role.USER.value else "Rill"
        status = MessageStatus(msg.status)
        note = "" if status is MessageStatus.COMPLETE else f" ({status.value})"
        body = inert_body(msg.content) if inert else msg.content
        section = f"\n## {who}{note}\n\n{body}"
        if body and not body.endswith("\n"):
            section += "\n"
        if msg.error:
            section += f"\n> Error: {inert_line(' '.join(msg.error.split()))}\n"
        others = siblings.get(msg.parent_id, 1) - 1
        if others:
            what = "prompt" if msg.role == Role.USER.value else "reply"
            versions = "version" if others == 1 else "versions"
            section += f"\n*({others} other {versions} of this {what} not shown)*\n"
        yield section


def write_markdown(store: StoreReader, conversation_ids: Iterable[str] | None, out: TextIO) -> tuple[int, int]:
    """Write the Markdown export (one document) to ``out``; returns (conversations, messages shown)."""
    infos = resolve_conversations(store, conversation_ids)
    shown = 0
    for i, info in enumerate(infos):
        messages = store.load_messages(info.id)
        shown += len(current_path(messages, info.current_leaf))
        if i:
            out.write("\n")
        out.write(conversation_markdown(info, messages))
    return len(infos), shown


def export_markdown(store: StoreReader, conversation_ids: Iterable[str] | None = None) -> str:
    """The given conversations (None: all of them) as one Markdown document."""
    buf = io.StringIO()
    write_markdown(store, conversation_ids, buf)
    return buf.getvalue()
