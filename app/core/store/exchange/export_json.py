"""Export: the conversations to export, and Rill's JSON format (written one
conversation at a time).

Format versions: 1, the conversations and their messages; 2 (this Rill)
adds each conversation's ``attachments`` and ``sources`` when it has any
(``attachments_json``: the documented migration is that a version 1 file is
read as a version 2 file without them). A reader of the store without
attachments (the quit guard's conversations in memory) writes none."""

from __future__ import annotations

import datetime as _dt
import io
import json
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Protocol, TextIO

from app import __version__
from app.core.base.i18n import translate
from app.core.conversation.model import Conversation, Message, MessageStatus
from app.core.store.clean import clean_text
from app.core.store.exchange.attachments_json import attachments_to_json
from app.core.store.exchange.errors import UnknownConversationError
from app.core.store.rows import ConversationInfo, info_from_conversation

FORMAT_NAME = "rill.export"
#: The version this Rill writes and the newest it reads.
FORMAT_VERSION = 2
#: Conversations fetched per ``list_conversations`` call while exporting everything.
PAGE_SIZE = 500


class StoreReader(Protocol):
    """What an export reads of the store (``app.core.store.Store``)."""

    def get_conversation(self, conversation_id: str) -> ConversationInfo | None: ...

    def list_conversations(self, offset: int = 0, limit: int = 100, *,
                           with_counts: bool = False) -> list[ConversationInfo]: ...

    def load_messages(self, conversation_id: str) -> list[Message]: ...

    def message_conversation(self, message_id: str) -> str | None: ...


class ConversationsReader:
    """A ``StoreReader`` over conversations in memory (what the quit guard
    exports when the history cannot be written): snapshots taken when it is
    made, so it may be read on another thread; text cleaned as the store
    would (``clean_text``), so the file is always valid UTF-8."""

    def __init__(self, conversations: Iterable[Conversation]) -> None:
        self._infos: dict[str, ConversationInfo] = {}
        self._messages: dict[str, list[Message]] = {}
        for conv in conversations:
            self._infos[conv.id] = info_from_conversation(conv)
            snapshots = []
            for msg in conv.all_messages():
                copy = msg.snapshot()
                copy.content = clean_text(copy.content)
                copy.error = clean_text(copy.error)
                snapshots.append(copy)
            self._messages[conv.id] = snapshots

    def get_conversation(self, conversation_id: str) -> ConversationInfo | None:
        return self._infos.get(conversation_id)

    def list_conversations(self, offset: int = 0, limit: int = 100, *,
                           with_counts: bool = False) -> list[ConversationInfo]:
        return list(self._infos.values())[max(0, offset): max(0, offset) + max(0, limit)]

    def load_messages(self, conversation_id: str) -> list[Message]:
        return list(self._messages.get(conversation_id, []))

    def message_conversation(self, message_id: str) -> str | None:
        for conversation_id, messages in self._messages.items():
            if any(m.id == message_id for m in messages):
                return conversation_id
        return None


def _all_infos(store: StoreReader) -> Iterator[ConversationInfo]:
    seen: set[str] = set()
    offset = 0
    while True:
        page = store.list_conversations(offset, PAGE_SIZE)
        for info in page:  # a conversation updated meanwhile may move to a later page
            if info.id not in seen:
                seen.add(info.id)
                yield info
        if len(page) < PAGE_SIZE:
            return
        offset += len(page)


def resolve_conversations(store: StoreReader, conversation_ids: Iterable[str] | None) -> list[ConversationInfo]:
    """The ``ConversationInfo`` of each conversation to export: all of them
    (oldest first, so the order depends on the data only) when
    ``conversation_ids`` is None, else the given ones in the given order (a
    unique prefix of an id is enough). Raises ``UnknownConversationError``."""
    if conversation_ids is None:
        infos = list(_all_infos(store))
        infos.sort(key=lambda i: (float(i.created_at), str(i.id)))
        return infos
    out: list[ConversationInfo] = []
    seen: set[str] = set()
    every: list[ConversationInfo] | None = None
    for wanted in conversation_ids:
        info = store.get_conversation(wanted)
        if info is None and wanted:
            if every is None:
                every = list(_all_infos(store))
            matches = [i for i in every if str(i.id).startswith(wanted)]
            if len(matches) > 1:
                raise UnknownConversationError(translate(
                    "Exchange", "{prefix} is the start of {count} conversation ids; give more of it"
                ).format(prefix=repr(wanted), count=len(matches)))
            info = matches[0] if matches else None
        if info is None:
            raise UnknownConversationError(translate("Exchange", "no conversation with id {id}").format(id=repr(wanted)))
        if info.id not in seen:
            seen.add(info.id)
            out.append(info)
    return out


def message_to_dict(msg: Message) -> dict[str, Any]:
    return {
        "id": msg.id,
        "parent_id": msg.parent_id,
        "role": msg.role,
        "content": msg.content,
        "status": MessageStatus(msg.status).value,
        "error": msg.error,
        "created_at": msg.created_at,
        "meta": msg.meta.to_dict(),
    }


def conversation_to_dict(info: ConversationInfo, messages: Sequence[Message]) -> dict[str, Any]:
    ids = {m.id for m in messages}
    leaf = info.current_leaf if info.current_leaf in ids else None
    out: dict[str, Any] = {
        "id": info.id,
        "title": info.title,
        "created_at": info.created_at,
        "updated_at": info.updated_at,
        "pinned": bool(info.pinned),
        "model": info.model,
    }
    if info.system_prompt is not None:  # absent: the default system prompt of Settings
        out["system_prompt"] = info.system_prompt
    out["params"] = dict(info.params or {})
    out["current_leaf"] = leaf
    out["messages"] = [message_to_dict(m) for m in messages]
    return out


def _exported_at() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def write_json(store: StoreReader, conversation_ids: Iterable[str] | None, out: TextIO) -> tuple[int, int]:
    """Write the export document to ``out`` one conversation at a time (so
    exporting a million messages never holds them all). Returns
    (conversations, messages). The text is exactly ``json.dumps(document,
    indent=2, ensure_ascii=False)``."""
    infos = resolve_conversations(store, conversation_ids)
    head = {"format": FORMAT_NAME, "version": FORMAT_VERSION, "exported_at": _exported_at(),
            "generator": f"Rill {__version__}"}
    out.write("{\n")
    out.writelines(f"  {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)},\n" for key, value in head.items())
    if not infos:
        out.write('  "conversations": []\n}\n')
        return 0, 0
    out.write('  "conversations": [\n')
    n_messages = 0
    for i, info in enumerate(infos):
        messages = store.load_messages(info.id)
        n_messages += len(messages)
        conv = conversation_to_dict(info, messages)
        if hasattr(store, "load_attachments"):
            conv.update(attachments_to_json(store, info.id))  # type: ignore[arg-type]  # a Store: it has them all
        text = json.dumps(conv, indent=2, ensure_ascii=False)
        # JSON strings never hold a raw newline, so re-indenting by lines is exact.
        out.write("    " + text.replace("\n", "\n    "))
        out.write(",\n" if i < len(infos) - 1 else "\n")
    out.write("  ]\n}\n")
    return len(infos), n_messages


def export_json(store: StoreReader, conversation_ids: Iterable[str] | None = None) -> str:
    """The JSON export of the given conversations (None: all of them)."""
    buf = io.StringIO()
    write_json(store, conversation_ids, buf)
    return buf.getvalue()
