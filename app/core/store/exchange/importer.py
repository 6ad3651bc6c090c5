"""Import: writing validated conversations in one transaction, as copies
with new ids where an id is already taken."""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Protocol

from app.core.base.i18n import translate
from app.core.base.limits import MAX_MESSAGE_CHARS
from app.core.conversation.model import Message
from app.core.store.attachments import AttachmentContent
from app.core.store.exchange.attachments_json import ParsedAttachments
from app.core.store.exchange.export_json import StoreReader
from app.core.store.exchange.validate import ParsedConversation, parse_export
from app.core.store.rows import ConversationInfo


class StoreWriter(StoreReader, Protocol):
    """What an import writes to the store (``app.core.store.Store``)."""

    def batch(self) -> AbstractContextManager[None]: ...

    def create_conversation(self, info: ConversationInfo) -> None: ...

    def add_messages(self, conversation_id: str, msgs: Iterable[Message]) -> None: ...


@dataclass(frozen=True)
class ImportResult:
    conversations: int
    messages: int
    #: The imported conversations' ids in the store, in the document's order.
    conversation_ids: tuple[str, ...] = ()
    #: (id in the document, new id) for each conversation imported as a copy
    #: because its id or one of its message ids already existed.
    copies: tuple[tuple[str, str], ...] = ()
    #: Titles, in the same order as ``conversation_ids``.
    titles: tuple[str, ...] = ()
    #: Message counts, in the same order as ``conversation_ids``.
    message_counts: tuple[int, ...] = ()
    #: Sentences for the user: what the import changed (messages cut to the limit).
    notices: tuple[str, ...] = ()


# ======================================================================================


def _exists(store: StoreWriter, conv: ParsedConversation) -> bool:
    """Is the conversation's id, or any of its message ids, already stored?"""
    if store.get_conversation(conv.id) is not None:
        return True
    return any(store.message_conversation(m.id) is not None for m in conv.messages)


def _as_copy(conv: ParsedConversation) -> ParsedConversation:
    new = {m.id: uuid.uuid4().hex for m in conv.messages}
    messages = [
        Message(m.role, m.content, m.status, m.error, id=new[m.id], created_at=m.created_at,
                meta=m.meta, parent_id=new[m.parent_id] if m.parent_id else None)
        for m in conv.messages
    ]
    leaf = conv.info.current_leaf
    info = dataclasses.replace(conv.info, id=uuid.uuid4().hex, current_leaf=new[leaf] if leaf else None)
    attached = ParsedAttachments(
        [(new[mid], dataclasses.replace(c, attachment=dataclasses.replace(c.attachment, id=uuid.uuid4().hex)))
         for mid, c in conv.attachments.items],
        {new[mid]: items for mid, items in conv.attachments.sources.items()},
    )
    return ParsedConversation(info, messages, [new[m] for m in conv.cut], attached)


def import_json(store: StoreWriter, text: str) -> ImportResult:
    """Validate the whole document, then add every conversation in it in one
    transaction. A conversation whose id or any of whose message ids is
    already in the store is added as a copy with new ids (the result lists
    them). Raises ``ImportFormatError`` (nothing imported) on malformed input."""
    return import_parsed(store, parse_export(text))


def import_parsed(store: StoreWriter, parsed: Sequence[ParsedConversation]) -> ImportResult:
    """``import_json`` for a document already checked by ``parse_export``."""
    copies: list[tuple[str, str]] = []
    notices: list[str] = []
    ids: list[str] = []
    n_messages = 0
    with store.batch():  # one transaction: all or nothing
        for conv in parsed:
            if conv.cut:
                notices.append(_cut_notice(conv))
            if _exists(store, conv):
                copy = _as_copy(conv)
                copies.append((conv.id, copy.id))
                conv = copy
            store.create_conversation(conv.info)
            store.add_messages(conv.id, conv.messages)  # keeps updated_at as given
            _add_attachments(store, conv)
            ids.append(conv.id)
            n_messages += len(conv.messages)
    return ImportResult(
        conversations=len(parsed), messages=n_messages, conversation_ids=tuple(ids), copies=tuple(copies),
        titles=tuple(c.title for c in parsed), message_counts=tuple(len(c.messages) for c in parsed),
        notices=tuple(notices),
    )


def _add_attachments(store: StoreWriter, conv: ParsedConversation) -> None:
    """The conversation's attachments (by message, in order) and its replies' sources."""
    save = getattr(store, "save_attachments", None)
    if save is None:
        return
    by_message: dict[str, list[AttachmentContent]] = {}
    for message_id, content in conv.attachments.items:
        by_message.setdefault(message_id, []).append(content)
    for message_id, items in by_message.items():
        save(conv.id, message_id, items)
    for reply_id, sources in conv.attachments.sources.items():
        store.save_sources(conv.id, reply_id, sources)  # type: ignore[attr-defined]  # it has save_attachments


def _cut_notice(conv: ParsedConversation) -> str:
    title = conv.title or translate("Exchange", "(untitled)")
    return translate(
        "Exchange", "{count} message(s) of “{title}” were longer than {limit} characters, the most Rill keeps in "
        "a message: each was cut to that length (it ends with “[…]”)."
    ).format(count=len(conv.cut), title=title, limit=f"{MAX_MESSAGE_CHARS:,}")
