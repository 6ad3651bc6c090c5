"""The conversation: messages, their status, and the prompt sent to a backend."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from app.core.backend import ChatMessage

DEFAULT_SYSTEM_PROMPT = (
    "You are Rill, a helpful assistant running locally on the user's computer. "
    "Answer clearly and concisely. Use Markdown when it helps."
)


class MessageStatus(str, enum.Enum):
    STREAMING = "streaming"
    COMPLETE = "complete"
    STOPPED = "stopped"      # the user pressed Stop: the partial text is kept
    TRUNCATED = "truncated"  # the token limit ran out
    ERROR = "error"


class Message:
    """One turn. A streaming reply grows by ``append`` in O(len(text)); the
    parts are joined only when ``content`` is read."""

    def __init__(
        self, role: str, content: str = "", status: MessageStatus = MessageStatus.COMPLETE, error: str = ""
    ) -> None:
        self.role = role  # "user" | "assistant"
        self.status = status
        self.error = error
        self._parts: list[str] = [content] if content else []

    def append(self, text: str) -> None:
        self._parts.append(text)

    @property
    def content(self) -> str:
        if len(self._parts) > 1:
            self._parts[:] = ["".join(self._parts)]
        return self._parts[0] if self._parts else ""

    @content.setter
    def content(self, text: str) -> None:
        self._parts = [text] if text else []

    def __repr__(self) -> str:
        return f"Message({self.role!r}, {self.content[:40]!r}…, {self.status.value})"


@dataclass
class Conversation:
    system_prompt: str = DEFAULT_SYSTEM_PROMPT
    messages: list[Message] = field(default_factory=list)

    def add_user(self, text: str) -> Message:
        msg = Message("user", text)
        self.messages.append(msg)
        return msg

    def start_reply(self) -> Message:
        msg = Message("assistant", status=MessageStatus.STREAMING)
        self.messages.append(msg)
        return msg

    def prompt(self) -> tuple[ChatMessage, ...]:
        """What the model sees: the system prompt and every finished turn.

        Failed replies and empty ones are left out; a stopped reply is kept as
        far as it went (the user saw it, so the model should too).
        """
        out = [ChatMessage("system", self.system_prompt)] if self.system_prompt else []
        for msg in self.messages:
            if msg.status in (MessageStatus.ERROR, MessageStatus.STREAMING):
                continue
            if msg.role == "assistant" and not msg.content.strip():
                continue
            out.append(ChatMessage(msg.role, msg.content))
        return tuple(out)

    def clear(self) -> None:
        self.messages.clear()
