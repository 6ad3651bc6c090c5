"""The only mapping between database rows and objects: conversation rows ↔
``ConversationInfo`` ↔ ``Conversation``, message rows ↔ ``Message``."""

from __future__ import annotations

import dataclasses
import json
import logging
from dataclasses import dataclass, field
from typing import Any

from app.core.conversation.model import (
    DEFAULT_SYSTEM_PROMPT,
    Conversation,
    ConversationMeta,
    Message,
    MessageMeta,
    MessageStatus,
)
from app.core.store.clean import clean_title
from app.core.text.utf8 import utf8_parts

log = logging.getLogger(__name__)


@dataclass
class ConversationInfo(ConversationMeta):
    """A conversation's row (no messages): its ``ConversationMeta`` and its
    settings as the store keeps them. ``system_prompt`` is the
    conversation's own system prompt (None: the default one of Settings);
    ``params`` holds the sampling overrides (JSON in the database); together
    they are its ``ConversationSettings``. ``current_leaf`` is the id of the
    message at the end of the path the user last viewed; ``message_count`` is
    filled in only when asked for (``list_conversations(with_counts=True)``)."""

    system_prompt: str | None = None
    params: dict[str, Any] = field(default_factory=dict)
    current_leaf: str | None = None
    message_count: int | None = None


_META_FIELDS = tuple(f.name for f in dataclasses.fields(ConversationMeta))


def _meta_fields(meta: ConversationMeta) -> dict[str, Any]:
    """The ``ConversationMeta`` part of a conversation or a row."""
    return {name: getattr(meta, name) for name in _META_FIELDS}


def info_from_conversation(conv: Conversation) -> ConversationInfo:
    """The row of ``conv``: its overrides (``Conversation.overrides``) give
    ``system_prompt`` and ``params``."""
    own = conv.overrides.get("system_prompt")
    params = {k: v for k, v in conv.overrides.items() if k != "system_prompt"}
    return ConversationInfo(
        **_meta_fields(conv),
        system_prompt=own if isinstance(own, str) else None,
        params=params,
        current_leaf=conv.current_leaf,
    )


def conversation_from_info(info: ConversationInfo, messages: list[Message]) -> Conversation:
    """The conversation of a row and its messages, on the path the user last
    viewed (``current_leaf``; see ``Conversation.load`` when it is unknown)."""
    overrides = {k: v for k, v in info.params.items() if k != "system_prompt"}
    if info.system_prompt is not None:
        overrides["system_prompt"] = info.system_prompt
    conv = Conversation(
        **_meta_fields(info),
        system_prompt=info.system_prompt if info.system_prompt is not None else DEFAULT_SYSTEM_PROMPT,
        overrides=overrides,
    )
    conv.load(messages, info.current_leaf)
    conv.updated_at = info.updated_at
    return conv


CONV_COLUMNS = "id, title, created_at, updated_at, pinned, model, system_prompt, params, current_leaf"
MSG_COLUMNS = (
    "id, conversation_id, parent_id, role, content, status, error, model, finish_reason, "
    "tokens, prompt_tokens, tokens_per_s, ttft_ms, created_at"
)
UPDATABLE = {"title", "created_at", "updated_at", "pinned", "model", "system_prompt", "params", "current_leaf"}


def conv_row(info: ConversationInfo) -> tuple[Any, ...]:
    """The row of ``info`` (its title as one plain line: ``clean_title``)."""
    return (
        info.id,
        clean_title(info.title or ""),
        info.created_at,
        info.updated_at,
        1 if info.pinned else 0,
        info.model,
        info.system_prompt,
        json.dumps(info.params or {}, ensure_ascii=False),
        info.current_leaf,
    )


def info_from_row(row: tuple[Any, ...], count: int | None = None) -> ConversationInfo:
    params: dict[str, Any] = {}
    if row[7]:
        try:
            loaded = json.loads(row[7])
            params = loaded if isinstance(loaded, dict) else {}
        except ValueError:
            log.warning("conversation %s: ignoring unreadable params %r", row[0], row[7][:80])
    return ConversationInfo(
        id=row[0],
        title=row[1] or "",
        created_at=row[2] or 0.0,
        updated_at=row[3] or 0.0,
        pinned=bool(row[4]),
        model=row[5] or "",
        system_prompt=row[6],
        params=params,
        current_leaf=row[8],
        message_count=count,
    )


def message_values(msg: Message) -> tuple[Any, ...]:
    """content, status, error, model, finish_reason, tokens, prompt_tokens, tokens_per_s, ttft_ms."""
    meta = msg.meta
    return (
        msg.content,
        msg.status.value if isinstance(msg.status, MessageStatus) else str(msg.status),
        msg.error or None,
        meta.model or None,
        meta.finish_reason or None,
        meta.tokens,
        meta.prompt_tokens,
        meta.tokens_per_s,
        meta.ttft_ms,
    )


def message_row(conversation_id: str, msg: Message) -> tuple[Any, ...]:
    return (msg.id, conversation_id, msg.parent_id, msg.role, *message_values(msg), msg.created_at)


def message_from_row(row: tuple[Any, ...], streaming_as: MessageStatus = MessageStatus.STREAMING) -> Message:
    """The message of a row (``MSG_COLUMNS``). A row still ``streaming``
    reads as ``streaming_as``: ``interrupted`` when no Rill is writing it
    (a crash left it so; see ``Store.streaming_is_live``)."""
    try:
        status = MessageStatus(row[5])
    except ValueError:
        status = MessageStatus.COMPLETE
    if status is MessageStatus.STREAMING:
        status = streaming_as
    return Message(
        row[3] or "user",
        row[4] or "",
        status,
        row[6] or "",
        id=row[0],
        created_at=row[13] if row[13] is not None else 0.0,
        meta=MessageMeta(
            model=row[7] or "",
            finish_reason=row[8] or "",
            tokens=row[9] or 0,
            prompt_tokens=row[10] or 0,
            tokens_per_s=row[11] or 0.0,
            ttft_ms=row[12],
        ),
        parent_id=row[2],
    )


#: The content goes in as text, or as its UTF-8 bytes when it is long (``utf8_content``).
INSERT_MESSAGE = (
    f"INSERT INTO messages ({MSG_COLUMNS}) VALUES (?, ?, ?, ?, CAST(? AS TEXT), {', '.join('?' * 9)}) "
    "ON CONFLICT(id) DO UPDATE SET content = excluded.content, status = excluded.status, "
    "error = excluded.error, model = excluded.model, finish_reason = excluded.finish_reason, "
    "tokens = excluded.tokens, prompt_tokens = excluded.prompt_tokens, "
    "tokens_per_s = excluded.tokens_per_s, ttft_ms = excluded.ttft_ms"
)
SAVE_MESSAGE = (
    "UPDATE messages SET content = CAST(? AS TEXT), status = ?, error = ?, model = ?, finish_reason = ?, "
    "tokens = ?, prompt_tokens = ?, tokens_per_s = ?, ttft_ms = ? WHERE id = ?"
)


#: Content at least this long is bound as its UTF-8 bytes (``utf8_content``).
LONG_CONTENT_CHARS = 262144


def utf8_content(values: tuple[Any, ...], index: int) -> tuple[Any, ...]:
    """``values`` with the long text at ``index`` as its UTF-8 bytes, encoded
    in pieces (``utf8_parts``; SQLite takes it as text through ``CAST(? AS
    TEXT)``). Binding a str makes sqlite3 encode it in one call that holds
    the GIL: ~8 ms for a 4 MB prompt with an emoji in it, while the window
    was sending it. (Clean text, ``clean_values``: no lone surrogates.)"""
    text = values[index]
    if not isinstance(text, str) or len(text) < LONG_CONTENT_CHARS:
        return values
    return (*values[:index], b"".join(utf8_parts([text], "strict")), *values[index + 1 :])
