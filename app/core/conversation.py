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


@dataclass
class Message:
    role: str  # "user" | "assistant"
    content: str = ""
    status: MessageStatus = MessageStatus.COMPLETE
    error: str = ""


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
