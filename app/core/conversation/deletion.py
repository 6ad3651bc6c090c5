"""Deleting a message, as a record that can be undone (Qt-free).

``MessageDeletion.apply`` takes a message and everything after it in the tree
out of a conversation and returns the record; ``undo`` puts them back and
makes the restored message's branch the current path again. The record is
what travels to an Undo button (instead of a closure), so whoever offers the
undo needs no access to the controller's internals.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from app.core.conversation.model import Conversation, Message, MessageStatus

__all__ = ["MessageDeletion"]


@dataclass
class MessageDeletion:
    """Messages removed from one conversation (parents first)."""

    conversation: Conversation
    removed: tuple[Message, ...]
    undone: bool = field(default=False)

    @classmethod
    def apply(cls, conversation: Conversation, message_id: str) -> MessageDeletion | None:
        """Delete ``message_id`` and what followed it; None (nothing done)
        when it is not there or is still streaming."""
        msg = conversation.get(message_id)
        if msg is None or msg.status == MessageStatus.STREAMING:
            return None
        return cls(conversation, tuple(conversation.remove(message_id)))

    @property
    def count(self) -> int:
        return len(self.removed)

    def undo(self) -> bool:
        """Put the messages back (once); False when already undone."""
        if self.undone:
            return False
        self.undone = True
        self.conversation.restore(list(self.removed))
        return True
