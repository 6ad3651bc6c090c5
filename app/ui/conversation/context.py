"""What the model no longer sees: the notice when a conversation outgrew the
model's context and earlier messages were left out of the prompt.

A notice comes only when the number of messages dropped changes, and only
for the conversation shown. The strings keep the translation context
"ChatController" (they were its). Threading rule: GUI thread only.
"""

from __future__ import annotations

from PyQt6.QtCore import QCoreApplication

from app.core.conversation.model import Conversation

__all__ = ["DroppedNotices"]


class DroppedNotices:
    """Remembers, per conversation, how many messages the model was last
    told it no longer sees."""

    def __init__(self) -> None:
        self._told: dict[str, int] = {}

    def notice(self, conv: Conversation, dropped_ids: tuple[str, ...], shown: bool) -> str | None:
        """The notice for a reply whose prompt left out ``dropped_ids``
        (None: nothing to say). ``shown``: ``conv`` is the conversation shown."""
        told = self._told.get(conv.id, 0)
        self._told[conv.id] = len(dropped_ids)
        if len(dropped_ids) == told or not shown or not dropped_ids:
            return None
        first, last = conv.get(dropped_ids[0]), conv.get(dropped_ids[-1])
        n = len(dropped_ids)
        if first is None or last is None:
            if n == 1:
                return QCoreApplication.translate(
                    "ChatController",
                    "The conversation is longer than the model's context: the model no longer sees "
                    "an earlier message. They stay here; Settings chooses what is dropped.",
                )
            return QCoreApplication.translate(
                "ChatController",
                "The conversation is longer than the model's context: the model no longer sees "
                "%n earlier messages. They stay here; Settings chooses what is dropped.",
                None,  # type: ignore[arg-type]  # PyQt6 stubs: disambiguation may be None
                n,
            )
        if first is last:  # one message
            return QCoreApplication.translate(
                "ChatController",
                "The conversation is longer than the model's context: the model no longer sees "
                "an earlier message (“{excerpt}”). They stay here; Settings chooses what is dropped.",
            ).format(excerpt=_excerpt(first.content))
        return QCoreApplication.translate(
            "ChatController",
            "The conversation is longer than the model's context: the model no longer sees "
            "%n earlier messages (from “{first}” to “{last}”). They stay here; Settings chooses what is dropped.",
            None,  # type: ignore[arg-type]  # PyQt6 stubs: disambiguation may be None
            n,
        ).format(first=_excerpt(first.content), last=_excerpt(last.content))


def _excerpt(text: str, n: int = 40) -> str:
    line = " ".join(text.split())
    return line if len(line) <= n else line[: n - 1] + "…"
