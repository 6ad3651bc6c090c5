"""The conversation: messages with stable ids, their status, and the prompt
sent to a backend (Qt-free, serializable).

Every message has an id that never changes and is unique across conversations
(a UUID4 hex). Views, the store and exports refer to messages by id only,
never by position in a document.
"""

from __future__ import annotations

import enum
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

from app.core.backend import ChatMessage

DEFAULT_SYSTEM_PROMPT = (
    "You are Rill, a helpful assistant running locally on the user's computer. "
    "Answer clearly and concisely. Use Markdown when it helps."
)

#: Version of the dict layout written by ``Message.to_dict`` / ``Conversation.to_dict``.
FORMAT_VERSION = 1


class MessageStatus(str, enum.Enum):
    STREAMING = "streaming"
    COMPLETE = "complete"
    STOPPED = "stopped"          # the user pressed Stop: the partial text is kept
    TRUNCATED = "truncated"      # the token limit ran out
    ERROR = "error"              # the backend failed; the partial text is kept
    INTERRUPTED = "interrupted"  # the app ended while it streamed (crash, kill)


class Role(str, enum.Enum):
    USER = "user"
    ASSISTANT = "assistant"


def new_id() -> str:
    return uuid.uuid4().hex


@dataclass
class MessageMeta:
    """Facts about how a reply was made (empty for user messages)."""

    model: str = ""
    finish_reason: str = ""
    tokens: int = 0
    prompt_tokens: int = 0
    tokens_per_s: float = 0.0
    ttft_ms: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "finish_reason": self.finish_reason,
            "tokens": self.tokens,
            "prompt_tokens": self.prompt_tokens,
            "tokens_per_s": self.tokens_per_s,
            "ttft_ms": self.ttft_ms,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MessageMeta:
        return cls(
            model=str(data.get("model", "")),
            finish_reason=str(data.get("finish_reason", "")),
            tokens=int(data.get("tokens", 0)),
            prompt_tokens=int(data.get("prompt_tokens", 0)),
            tokens_per_s=float(data.get("tokens_per_s", 0.0)),
            ttft_ms=None if data.get("ttft_ms") is None else float(data["ttft_ms"]),
        )


class Message:
    """One turn. A streaming reply grows by ``append`` in O(len(text)); the
    parts are joined only when ``content`` is read.

    ``rendered`` caches the finished message's rendered form (a tuple of
    ``app.core.blocks.Unit``) together with the content length it was made
    from; it is dropped whenever the content changes.
    """

    __slots__ = ("id", "role", "status", "error", "created_at", "meta", "parent_id", "_parts", "_len", "_rendered")

    def __init__(
        self,
        role: str,
        content: str = "",
        status: MessageStatus = MessageStatus.COMPLETE,
        error: str = "",
        *,
        id: str | None = None,  # noqa: A002 - the natural name
        created_at: float | None = None,
        meta: MessageMeta | None = None,
        parent_id: str | None = None,
    ) -> None:
        self.id = id or new_id()
        self.parent_id = parent_id  # the message this one answers or follows (None: first)
        self.role = role  # "user" | "assistant"
        self.status = status
        self.error = error
        self.created_at = time.time() if created_at is None else created_at
        self.meta = meta or MessageMeta()
        self._parts: list[str] = [content] if content else []
        self._len = len(content)
        self._rendered: tuple[int, tuple[Any, ...]] | None = None

    def append(self, text: str) -> None:
        if text:
            self._parts.append(text)
            self._len += len(text)
            self._rendered = None

    @property
    def content(self) -> str:
        if len(self._parts) > 1:
            self._parts[:] = ["".join(self._parts)]
        return self._parts[0] if self._parts else ""

    @content.setter
    def content(self, text: str) -> None:
        self._parts = [text] if text else []
        self._len = len(text)
        self._rendered = None

    def __len__(self) -> int:
        return self._len

    @property
    def rendered(self) -> tuple[Any, ...] | None:
        """The cached rendered units, or None when there are none for this content."""
        if self._rendered is not None and self._rendered[0] == self._len:
            return self._rendered[1]
        return None

    @rendered.setter
    def rendered(self, units: tuple[Any, ...] | None) -> None:
        self._rendered = None if units is None else (self._len, units)

    @property
    def finished(self) -> bool:
        return self.status != MessageStatus.STREAMING

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id,
            "role": self.role,
            "content": self.content,
            "status": self.status.value,
            "created_at": self.created_at,
        }
        if self.error:
            out["error"] = self.error
        if self.parent_id:
            out["parent_id"] = self.parent_id
        if self.role == Role.ASSISTANT.value:
            out["meta"] = self.meta.to_dict()
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Message:
        role = str(data["role"])
        if role not in (Role.USER.value, Role.ASSISTANT.value):
            raise ValueError(f"message role must be 'user' or 'assistant', not {role!r}")
        return cls(
            role,
            str(data.get("content", "")),
            MessageStatus(data.get("status", MessageStatus.COMPLETE.value)),
            str(data.get("error", "")),
            id=str(data["id"]) if data.get("id") else None,
            created_at=float(data["created_at"]) if data.get("created_at") is not None else None,
            meta=MessageMeta.from_dict(data.get("meta") or {}),
            parent_id=str(data["parent_id"]) if data.get("parent_id") else None,
        )

    def __repr__(self) -> str:
        return f"Message({self.id[:8]}, {self.role!r}, {self.content[:40]!r}…, {self.status.value})"


@dataclass
class Conversation:
    system_prompt: str = DEFAULT_SYSTEM_PROMPT
    messages: list[Message] = field(default_factory=list)
    id: str = field(default_factory=new_id)
    title: str = ""
    _index: dict[str, Message] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self._index = {m.id: m for m in self.messages}

    def add(self, msg: Message) -> Message:
        if msg.parent_id is None and self.messages:
            msg.parent_id = self.messages[-1].id
        self.messages.append(msg)
        self._index[msg.id] = msg
        return msg

    def add_user(self, text: str) -> Message:
        if not self.title:
            self.title = " ".join(text.split())[:80]
        return self.add(Message(Role.USER.value, text))

    def start_reply(self) -> Message:
        return self.add(Message(Role.ASSISTANT.value, status=MessageStatus.STREAMING))

    def get(self, message_id: str) -> Message | None:
        return self._index.get(message_id)

    def prompt(self, upto: Message | None = None) -> tuple[ChatMessage, ...]:
        """What the model sees: the system prompt and every finished turn
        (before ``upto`` when given).

        Failed replies and empty ones are left out; a stopped reply is kept as
        far as it went (the user saw it, so the model should too).
        """
        out = [ChatMessage("system", self.system_prompt)] if self.system_prompt else []
        for msg in self.messages:
            if msg is upto:
                break
            if msg.status in (MessageStatus.ERROR, MessageStatus.STREAMING):
                continue
            if msg.role == Role.ASSISTANT.value and not msg.content.strip():
                continue
            out.append(ChatMessage(msg.role, msg.content))
        return tuple(out)

    def clear(self) -> None:
        self.messages.clear()
        self._index.clear()
        self.title = ""

    def to_markdown(self) -> str:
        """The conversation as Markdown: a heading per turn, the raw sources."""
        parts: list[str] = []
        if self.title:
            parts.append(f"# {self.title}\n")
        for msg in self.messages:
            who = "You" if msg.role == Role.USER.value else "Rill"
            note = "" if msg.status in (MessageStatus.COMPLETE, MessageStatus.STREAMING) else f" ({msg.status.value})"
            parts.append(f"## {who}{note}\n\n{msg.content.rstrip()}\n")
        return "\n".join(parts)

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": "rill.conversation",
            "version": FORMAT_VERSION,
            "id": self.id,
            "title": self.title,
            "system_prompt": self.system_prompt,
            "messages": [m.to_dict() for m in self.messages],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Conversation:
        conv = cls(
            system_prompt=str(data.get("system_prompt", DEFAULT_SYSTEM_PROMPT)),
            messages=[Message.from_dict(m) for m in data.get("messages", [])],
            id=str(data.get("id") or new_id()),
            title=str(data.get("title", "")),
        )
        return conv
