"""The conversation: messages with stable ids, their status, and the prompt
sent to a backend (Qt-free, serializable).

Every message has an id that never changes and is unique across conversations
(a UUID4 hex). Views, the store and exports refer to messages by id only,
never by position in a document.
"""

from __future__ import annotations

import dataclasses
import enum
import operator
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from app.core.backends.base import ChatMessage
from app.core.text.thinking import strip_thinking
from app.core.util.gil import handing_over

DEFAULT_SYSTEM_PROMPT = (
    "You are Rill, a helpful assistant running locally on the user's computer. "
    "Answer clearly and concisely. Use Markdown when it helps."
)

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


_END = object()  # "after the end of the current path"


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
    ``app.core.render.blocks.Unit``) together with the content length it was made
    from; it is dropped whenever the content changes.
    """

    __slots__ = ("_len", "_parts", "_rendered", "created_at", "error", "id", "meta", "parent_id", "role", "status")

    def __init__(
        self,
        role: str,
        content: str = "",
        status: MessageStatus = MessageStatus.COMPLETE,
        error: str = "",
        *,
        id: str | None = None,
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

    def snapshot(self) -> Message:
        """A copy of the message as it is now (for another thread to write
        while this one keeps growing; the rendered cache is not copied)."""
        return Message(
            self.role,
            self.content,
            self.status,
            self.error,
            id=self.id,
            created_at=self.created_at,
            meta=dataclasses.replace(self.meta),
            parent_id=self.parent_id,
        )

    def __repr__(self) -> str:
        return f"Message({self.id[:8]}, {self.role!r}, {self.content[:40]!r}…, {self.status.value})"


def text_parts(messages: Sequence[Message]) -> list[list[str]]:
    """Each message's content as its pieces (their join is the text), taken
    at C speed: 26,000 messages in well under a millisecond, where reading
    ``content`` of each is a Python call apiece. Another thread may join
    them; none may change them."""
    return list(map(_PARTS, messages))


_PARTS = operator.attrgetter("_parts")


def _prompt_of(system_prompt: str, path: list[Message], upto_id: str | None) -> tuple[ChatMessage, ...]:
    # Runs on the inference thread over the whole path (26,554 messages in a
    # 10 M-character conversation), holding the GIL the GUI thread needs: the
    # enum members are read once (each read is a Python-level descriptor call
    # in 3.11), thinking is looked for only where a "<think>" can start, and
    # no content is copied to be tested for blankness. 57 -> 19 ms.
    out = [ChatMessage("system", system_prompt)] if system_prompt else []
    skipped = (MessageStatus.ERROR, MessageStatus.STREAMING)
    assistant = Role.ASSISTANT.value
    append = out.append
    for msg in handing_over(path):  # (the GUI thread may be waiting for the GIL: app.core.util.gil)
        if msg.id == upto_id:
            break
        if msg.status in skipped:
            continue
        content = msg.content
        if msg.role == assistant:
            if content[:1] == "<" or content[:1].isspace():  # where a leading "<think>" can be
                content = strip_thinking(content)  # a model never sees its own thoughts
            if not content or content.isspace():
                continue
        append(ChatMessage(msg.role, content, msg.id))
    return tuple(out)


def newest_leaf(messages: Sequence[Message]) -> Message:
    """The path shown when the leaf is not known: the newest leaf (on a tie,
    the later one). ``messages`` must not be empty."""
    parents = {m.parent_id for m in messages if m.parent_id}
    leaves = [m for m in messages if m.id not in parents] or list(messages)
    leaf = leaves[0]
    for m in leaves[1:]:
        if m.created_at >= leaf.created_at:
            leaf = m
    return leaf


def current_path(messages: Sequence[Message], leaf_id: str | None) -> list[Message]:
    """Root → ``leaf_id``; without a (known) leaf, root → ``newest_leaf``
    (what ``Conversation.load`` shows for the same tree)."""
    if not messages:
        return []
    index = {m.id: m for m in messages}
    leaf = index.get(leaf_id) if leaf_id else None
    if leaf is None:
        leaf = newest_leaf(messages)
    path: list[Message] = []
    seen: set[str] = set()
    node: Message | None = leaf
    while node is not None and node.id not in seen:
        seen.add(node.id)
        path.append(node)
        node = index.get(node.parent_id) if node.parent_id else None
    path.reverse()
    return path


@dataclass
class ConversationMeta:
    """What a conversation is apart from its messages and settings: the one
    record ``Conversation``, the store's rows (``app.core.store.rows.
    ConversationInfo``) and the import parser share. ``updated_at`` orders the
    sidebar (newest first, pinned ones on top)."""

    id: str = field(default_factory=new_id)
    title: str = ""
    created_at: float = field(default_factory=time.time)
    updated_at: float = field(default_factory=time.time)
    pinned: bool = False
    model: str = ""


@dataclass
class Conversation(ConversationMeta):
    """A conversation: a tree of messages and the path the user is on.

    Regenerating a reply or editing a prompt adds a sibling (same parent), so
    nothing is ever overwritten. ``messages`` is the current path, root to
    leaf: what the view shows and the model is sent. ``siblings`` and
    ``switch_to`` move between branches.
    """

    system_prompt: str = DEFAULT_SYSTEM_PROMPT
    messages: list[Message] = field(default_factory=list)
    #: This conversation's overrides of the Settings, in the flat form of
    #: ``app.core.config.preferences.ConversationSettings.to_dict()``: its own
    #: "system_prompt" and/or sampling keys ("temperature", "seed"...).
    #: Empty: everything as in Settings. The store keeps them in the
    #: ``system_prompt`` and ``params`` columns.
    overrides: dict[str, Any] = field(default_factory=dict)
    _index: dict[str, Message] = field(default_factory=dict, repr=False)
    _children: dict[str | None, list[str]] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        given, self.messages = self.messages, []
        self._index = {}
        self._children = {}
        for msg in given:
            self.add(msg)

    # -- the tree ------------------------------------------------------------------

    def add(self, msg: Message, *, follow: bool = True, root: bool = False) -> Message:
        """Add ``msg`` under its parent (a message without one: under the end
        of the current path, unless ``root``). With ``follow`` the current
        path becomes root → ``msg``."""
        if msg.parent_id is None and not root and self.messages and msg.id not in self._index:
            msg.parent_id = self.messages[-1].id
        self._index[msg.id] = msg
        self._children.setdefault(msg.parent_id, []).append(msg.id)
        if follow:
            if self.messages and self.messages[-1].id == msg.parent_id:
                self.messages.append(msg)
            else:
                self.messages = self._ancestors(msg)
        self.updated_at = time.time()
        return msg

    def load(self, messages: list[Message], leaf_id: str | None = None) -> None:
        """Replace the tree with ``messages`` (any order of creation; parents
        before children) and go to ``leaf_id`` (unknown: ``newest_leaf``, the
        same rule as ``current_path``)."""
        self.messages, self._index, self._children = [], {}, {}
        for msg in messages:
            self._index[msg.id] = msg
            self._children.setdefault(msg.parent_id, []).append(msg.id)
        if not messages:
            return
        start = self._index.get(leaf_id) if leaf_id else None
        if start is None:
            start = newest_leaf(messages)
        self.switch_to(start.id)

    def _ancestors(self, msg: Message) -> list[Message]:
        path = []
        seen: set[str] = set()
        node: Message | None = msg
        while node is not None and node.id not in seen:
            seen.add(node.id)
            path.append(node)
            node = self._index.get(node.parent_id) if node.parent_id else None
        path.reverse()
        return path

    def children(self, message_id: str | None) -> list[Message]:
        return [self._index[i] for i in self._children.get(message_id, []) if i in self._index]

    def siblings(self, message_id: str) -> list[Message]:
        """The messages sharing this one's parent (itself included), oldest first."""
        msg = self._index.get(message_id)
        return [] if msg is None else self.children(msg.parent_id)

    def switch_to(self, message_id: str) -> None:
        """Make the current path go through ``message_id``, then down its
        newest children to a leaf."""
        msg = self._index.get(message_id)
        if msg is None:
            return
        path = self._ancestors(msg)
        node = msg
        while True:
            kids = self.children(node.id)
            if not kids:
                break
            node = kids[-1]
            path.append(node)
        self.messages = path

    @property
    def current_leaf(self) -> str | None:
        return self.messages[-1].id if self.messages else None

    def remove(self, message_id: str) -> list[Message]:
        """Remove a message and everything after it in the tree; returns them
        (parents first) so ``restore`` can undo it. The path moves to a
        sibling when there is one, else it ends at the parent."""
        msg = self._index.get(message_id)
        if msg is None:
            return []
        removed: list[Message] = []
        stack = [msg]
        while stack:
            node = stack.pop()
            removed.append(node)
            stack.extend(reversed(self.children(node.id)))
        for node in removed:
            self._index.pop(node.id, None)
            self._children.pop(node.id, None)
        siblings = self._children.get(msg.parent_id, [])
        if message_id in siblings:
            siblings.remove(message_id)
        if any(m.id == message_id for m in self.messages):
            if siblings:
                self.switch_to(siblings[-1])
            else:
                parent = self._index.get(msg.parent_id) if msg.parent_id else None
                self.messages = self._ancestors(parent) if parent is not None else []
        return removed

    def restore(self, removed: list[Message]) -> None:
        """Undo ``remove``: put the messages back and go to the first one."""
        for node in removed:
            self._index[node.id] = node
            kids = self._children.setdefault(node.parent_id, [])
            kids.append(node.id)
            kids.sort(key=lambda i: self._index[i].created_at)
        if removed:
            self.switch_to(removed[0].id)

    def all_messages(self) -> list[Message]:
        """Every message of the tree, oldest first."""
        return sorted(self._index.values(), key=lambda m: m.created_at)

    # -- turns -----------------------------------------------------------------------

    def add_user(self, text: str, parent_id: str | None | object = _END) -> Message:
        """A prompt after the end of the current path, or under ``parent_id``
        (None: a new first message: editing the first prompt)."""
        if not self.title:
            self.title = " ".join(text[:400].split())[:80]  # a prefix: a 4 MB paste costs nothing here
        return self._add_turn(Message(Role.USER.value, text), parent_id)

    def start_reply(self, parent_id: str | None | object = _END) -> Message:
        """A streaming reply after the end of the current path, or under
        ``parent_id`` (regenerating: a sibling of the earlier reply)."""
        return self._add_turn(Message(Role.ASSISTANT.value, status=MessageStatus.STREAMING), parent_id)

    def _add_turn(self, msg: Message, parent_id: str | None | object) -> Message:
        if parent_id is _END:
            return self.add(msg)
        msg.parent_id = parent_id if isinstance(parent_id, str) else None
        return self.add(msg, root=msg.parent_id is None)

    def get(self, message_id: str) -> Message | None:
        return self._index.get(message_id)

    def prompt_builder(
        self, upto: Message | None = None, system_prompt: str | None = None
    ) -> Callable[[], tuple[ChatMessage, ...]]:
        """A function that builds ``prompt(upto)`` later, on another thread.
        Taking it is O(path) pointer copies; the messages it reads are
        finished ones, which the GUI no longer changes. ``system_prompt``
        (None: ``self.system_prompt``) is the one chosen for this request."""
        path = list(self.messages)
        system_prompt = self.system_prompt if system_prompt is None else system_prompt
        upto_id = upto.id if upto is not None else None

        def build() -> tuple[ChatMessage, ...]:
            return _prompt_of(system_prompt, path, upto_id)

        return build

    def prompt(self, upto: Message | None = None) -> tuple[ChatMessage, ...]:
        """What the model sees: the system prompt and every finished turn
        (before ``upto`` when given).

        Failed replies and empty ones are left out; a stopped reply is kept as
        far as it went (the user saw it, so the model should too).
        """
        return _prompt_of(self.system_prompt, self.messages, upto.id if upto is not None else None)

    def clear(self) -> None:
        self.messages = []
        self._index.clear()
        self._children.clear()
        self.title = ""
