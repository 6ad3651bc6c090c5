"""Export and import of conversations: Markdown, and Rill's versioned JSON (Qt-free).

The JSON format is documented in ``docs/FORMAT.md``. In short::

    {"format": "rill.export", "version": 1, "exported_at": "2025-01-31T12:00:00+00:00",
     "generator": "Rill 0.1.0",
     "conversations": [{"id", "title", "created_at", "updated_at", "pinned", "model",
                        "system_prompt", "params", "current_leaf",
                        "messages": [{"id", "parent_id", "role", "content", "status",
                                      "error", "created_at", "meta": {...}}, ...]}]}

It holds the whole tree of every conversation (every branch), its metadata,
its own settings (``system_prompt``: left out when it follows the default
system prompt of Settings; ``params``: its sampling overrides) and each
reply's stats; never Rill's settings, API keys or anything else about the user.

Import validates the WHOLE document before it writes anything, then writes it
in one transaction: malformed input raises ``ImportFormatError`` naming the
line, column and field at fault, and the store is left untouched. A
conversation whose id (or one of whose message ids) already exists in the
store is imported as a copy with new ids: nothing is ever overwritten.
"""

from __future__ import annotations

import datetime as _dt
import io
import json
import math
import re
import time
import uuid
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TextIO

from app import __version__
from app.core.conversation.model import DEFAULT_SYSTEM_PROMPT, Message, MessageMeta, MessageStatus, Role
from app.core.base.i18n import translate
from app.core.store import ConversationInfo

FORMAT_NAME = "rill.export"
#: The version this Rill writes and the newest it reads.
FORMAT_VERSION = 1
#: Conversations fetched per ``list_conversations`` call while exporting everything.
PAGE_SIZE = 500
#: Ids longer than this are refused (ours are 32 hex digits).
MAX_ID_LENGTH = 256

_ROLES = (Role.USER.value, Role.ASSISTANT.value)
_STATUSES = tuple(s.value for s in MessageStatus)


class ExchangeError(Exception):
    """Export or import failed for a reason the user can act on (the message says which)."""


class ImportFormatError(ExchangeError, ValueError):
    """The import document is malformed; ``str()`` names the place at fault:
    ``line 14, column 9: conversations[0].messages[3].role: expected "user" or
    "assistant", got "bot"``. ``line``/``column`` are 1-based (None when the
    place could not be found in the text); ``path`` is the JSON path."""

    def __init__(self, problem: str, *, path: str = "", line: int | None = None, column: int | None = None) -> None:
        self.problem = problem
        self.path = path
        self.line = line
        self.column = column
        if line is not None and path:
            text = translate("Exchange", "line {line}, column {column}: {path}: {problem}")
        elif line is not None:
            text = translate("Exchange", "line {line}, column {column}: {problem}")
        elif path:
            text = "{path}: {problem}"
        else:
            text = "{problem}"
        super().__init__(text.format(line=line, column=column, path=path, problem=problem))


class UnknownConversationError(ExchangeError, KeyError):
    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


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


# ======================================================================================
# Export
# ======================================================================================


def _all_infos(store: Any) -> Iterator[Any]:
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


def resolve_conversations(store: Any, conversation_ids: Iterable[str] | None) -> list[Any]:
    """The ``ConversationInfo`` of each conversation to export: all of them
    (oldest first, so the order depends on the data only) when
    ``conversation_ids`` is None, else the given ones in the given order (a
    unique prefix of an id is enough). Raises ``UnknownConversationError``."""
    if conversation_ids is None:
        infos = list(_all_infos(store))
        infos.sort(key=lambda i: (float(i.created_at), str(i.id)))
        return infos
    out: list[Any] = []
    seen: set[str] = set()
    every: list[Any] | None = None
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


def conversation_to_dict(info: Any, messages: Sequence[Message]) -> dict[str, Any]:
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


def write_json(store: Any, conversation_ids: Iterable[str] | None, out: TextIO) -> tuple[int, int]:
    """Write the export document to ``out`` one conversation at a time (so
    exporting a million messages never holds them all). Returns
    (conversations, messages). The text is exactly ``json.dumps(document,
    indent=2, ensure_ascii=False)``."""
    infos = resolve_conversations(store, conversation_ids)
    head = {"format": FORMAT_NAME, "version": FORMAT_VERSION, "exported_at": _exported_at(),
            "generator": f"Rill {__version__}"}
    out.write("{\n")
    for key, value in head.items():
        out.write(f"  {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)},\n")
    if not infos:
        out.write('  "conversations": []\n}\n')
        return 0, 0
    out.write('  "conversations": [\n')
    n_messages = 0
    for i, info in enumerate(infos):
        messages = store.load_messages(info.id)
        n_messages += len(messages)
        text = json.dumps(conversation_to_dict(info, messages), indent=2, ensure_ascii=False)
        # JSON strings never hold a raw newline, so re-indenting by lines is exact.
        out.write("    " + text.replace("\n", "\n    "))
        out.write(",\n" if i < len(infos) - 1 else "\n")
    out.write("  ]\n}\n")
    return len(infos), n_messages


def export_json(store: Any, conversation_ids: Iterable[str] | None = None) -> str:
    """The JSON export of the given conversations (None: all of them)."""
    buf = io.StringIO()
    write_json(store, conversation_ids, buf)
    return buf.getvalue()


# -- Markdown --------------------------------------------------------------------------


def current_path(messages: Sequence[Message], leaf_id: str | None) -> list[Message]:
    """Root → ``leaf_id``; without a (known) leaf, root → the newest leaf."""
    if not messages:
        return []
    index = {m.id: m for m in messages}
    leaf = index.get(leaf_id) if leaf_id else None
    if leaf is None:
        parents = {m.parent_id for m in messages if m.parent_id}
        leaves = [m for m in messages if m.id not in parents] or list(messages)
        leaf = leaves[0]
        for m in leaves[1:]:  # the newest; on a tie, the later one
            if m.created_at >= leaf.created_at:
                leaf = m
    path: list[Message] = []
    seen: set[str] = set()
    node: Message | None = leaf
    while node is not None and node.id not in seen:
        seen.add(node.id)
        path.append(node)
        node = index.get(node.parent_id) if node.parent_id else None
    path.reverse()
    return path


def _local_time(ts: float) -> str:
    try:
        return time.strftime("%Y-%m-%d %H:%M", time.localtime(float(ts)))
    except (OverflowError, OSError, ValueError):
        return "unknown date"


def conversation_markdown(info: Any, messages: Sequence[Message]) -> str:
    """One conversation as Markdown: its current path, with a note where other
    branches were left out."""
    path = current_path(messages, info.current_leaf)
    siblings: dict[str | None, int] = {}
    for m in messages:
        siblings[m.parent_id] = siblings.get(m.parent_id, 0) + 1
    title = " ".join(str(info.title or "").split()) or "Untitled conversation"
    models = [info.model] if info.model else list(dict.fromkeys(m.meta.model for m in path if m.meta.model))
    facts = [_local_time(info.created_at)] + (["model: " + ", ".join(models)] if models else [])
    parts = [f"# {title}\n\n*{' · '.join(facts)}*\n"]
    for msg in path:
        who = "You" if msg.role == Role.USER.value else "Rill"
        status = MessageStatus(msg.status)
        note = "" if status is MessageStatus.COMPLETE else f" ({status.value})"
        body = msg.content
        section = f"## {who}{note}\n\n{body}"
        if body and not body.endswith("\n"):
            section += "\n"
        if msg.error:
            section += f"\n> Error: {' '.join(msg.error.split())}\n"
        others = siblings.get(msg.parent_id, 1) - 1
        if others:
            what = "prompt" if msg.role == Role.USER.value else "reply"
            versions = "version" if others == 1 else "versions"
            section += f"\n*({others} other {versions} of this {what} not shown)*\n"
        parts.append(section)
    return "\n".join(parts)


def write_markdown(store: Any, conversation_ids: Iterable[str] | None, out: TextIO) -> tuple[int, int]:
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


def export_markdown(store: Any, conversation_ids: Iterable[str] | None = None) -> str:
    """The given conversations (None: all of them) as one Markdown document."""
    buf = io.StringIO()
    write_markdown(store, conversation_ids, buf)
    return buf.getvalue()


# ======================================================================================
# Import: validation
# ======================================================================================

JsonPath = tuple[str | int, ...]


class _Invalid(Exception):
    """A validation failure at ``path`` (a missing field: the path of its object)."""

    def __init__(self, path: JsonPath, problem: str) -> None:
        super().__init__(problem)
        self.path = path
        self.problem = problem


def format_path(path: JsonPath) -> str:
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        elif re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", part):
            out += f".{part}" if out else part
        else:
            out += f"[{json.dumps(part, ensure_ascii=bool(_SURROGATE.search(part)))}]"
    return out or translate("Exchange", "the top level")


def _describe(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return translate("Exchange", "the number {value}").format(value=repr(value))
    if isinstance(value, str):
        text = json.dumps(value, ensure_ascii=bool(_SURROGATE.search(value)))
        return text if len(text) <= 60 else text[:56] + '…"'
    if isinstance(value, dict):
        return translate("Exchange", "an object")
    if isinstance(value, list):
        return translate("Exchange", "a list")
    return type(value).__name__  # pragma: no cover - json.loads makes nothing else


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


_SURROGATE = re.compile("[\ud800-\udfff]")
_CONTROL = re.compile("[\x00-\x1f\x7f]")
#: Whole numbers must fit SQLite's 64-bit integers; other numbers must be finite.
MAX_INT = 2**63 - 1
MAX_NUMBER = 1e300


def _check_text(value: str, path: JsonPath) -> None:
    match = _SURROGATE.search(value)
    if match:
        raise _Invalid(path, translate(
            "Exchange", "contains {escape}, half of a surrogate pair, "
            "which is not a character (the file was damaged or badly encoded)"
        ).format(escape=f"\\u{ord(match.group()):04x}"))


def _expected(path: JsonPath, expected: str, value: Any) -> _Invalid:
    """"expected {expected}, got …" (``expected`` in the user's language)."""
    return _Invalid(path, translate("Exchange", "expected {expected}, got {got}").format(
        expected=expected, got=_describe(value)))


class _Reader:
    """Typed access to one JSON object at ``path`` that raises ``_Invalid``."""

    def __init__(self, obj: Any, path: JsonPath, what: str) -> None:
        """``what``: what ``obj`` should be, in the user's language."""
        if not isinstance(obj, dict):
            raise _Invalid(path, translate("Exchange", "expected {what} (a JSON object), got {got}").format(
                what=what, got=_describe(obj)))
        self.obj = obj
        self.path = path

    def _get(self, key: str, required: bool) -> tuple[bool, Any]:
        if key in self.obj:
            return True, self.obj[key]
        if required:
            raise _Invalid(self.path, translate("Exchange", 'missing the required field "{key}"').format(key=key))
        return False, None

    def string(self, key: str, default: str | None = None, *, nullable: bool = False) -> Any:
        present, value = self._get(key, default is None and not nullable)
        if not present:
            return default
        if value is None and nullable:
            return None
        if not isinstance(value, str):
            expected = translate("Exchange", "a string or null") if nullable else translate("Exchange", "a string")
            raise _expected(self.path + (key,), expected, value)
        _check_text(value, self.path + (key,))
        return value

    def ident(self, key: str, *, nullable: bool = False) -> str | None:
        value = self.string(key, nullable=nullable)
        if value is None:
            return None
        if not value:
            raise _Invalid(self.path + (key,), translate("Exchange", "expected an id, got an empty string"))
        if len(value) > MAX_ID_LENGTH:
            raise _Invalid(self.path + (key,), translate(
                "Exchange", "an id may be at most {limit} characters, this one has {length}").format(
                limit=MAX_ID_LENGTH, length=len(value)))
        if _CONTROL.search(value):
            raise _Invalid(self.path + (key,), translate("Exchange", "an id may not contain control characters"))
        return value

    def number(self, key: str, default: float | None = None, *, nullable: bool = False,
               minimum: float | None = None) -> Any:
        present, value = self._get(key, default is None and not nullable)
        if not present:
            return default
        if value is None and nullable:
            return None
        if not _is_number(value):
            expected = translate("Exchange", "a number or null") if nullable else translate("Exchange", "a number")
            raise _expected(self.path + (key,), expected, value)
        if not math.isfinite(value) or abs(value) > MAX_NUMBER:
            raise _Invalid(self.path + (key,), translate("Exchange", "this number is out of range"))
        if minimum is not None and value < minimum:
            raise _Invalid(self.path + (key,), translate("Exchange", "expected a number ≥ {minimum}, got {value}").format(
                minimum=f"{minimum:g}", value=repr(value)))
        return value

    def integer(self, key: str, default: int, *, minimum: int = 0) -> int:
        present, value = self._get(key, False)
        if not present:
            return default
        if not (isinstance(value, int) and not isinstance(value, bool)
                or isinstance(value, float) and value.is_integer()):
            raise _expected(self.path + (key,), translate("Exchange", "a whole number"), value)
        if value < minimum:
            raise _Invalid(self.path + (key,), translate(
                "Exchange", "expected a whole number ≥ {minimum}, got {value}").format(minimum=minimum, value=repr(value)))
        if value > MAX_INT:
            raise _Invalid(self.path + (key,), translate("Exchange", "the number {value} is out of range").format(
                value=repr(value)))
        return int(value)

    def boolean(self, key: str, default: bool) -> bool:
        present, value = self._get(key, False)
        if not present:
            return default
        if not isinstance(value, bool):
            raise _expected(self.path + (key,), translate("Exchange", "true or false"), value)
        return value

    def choice(self, key: str, choices: Sequence[str], default: str | None = None) -> str:
        present, value = self._get(key, default is None)
        if not present:
            return default  # type: ignore[return-value]
        if value not in choices:
            wanted = translate("Exchange", "{choices} or {last}").format(
                choices=", ".join(f'"{c}"' for c in choices[:-1]), last=f'"{choices[-1]}"')
            raise _expected(self.path + (key,), wanted, value)
        return value  # type: ignore[no-any-return]

    def obj_field(self, key: str, *, nullable: bool = False) -> dict[str, Any] | None:
        present, value = self._get(key, False)
        if not present or (value is None and nullable):
            return None
        if not isinstance(value, dict):
            raise _expected(self.path + (key,), translate("Exchange", "an object"), value)
        return value

    def list_field(self, key: str) -> list[Any]:
        present, value = self._get(key, True)
        if not isinstance(value, list):
            raise _expected(self.path + (key,), translate("Exchange", "a list"), value)
        return value


@dataclass
class ParsedConversation:
    """One validated conversation of an import document."""

    id: str
    title: str
    created_at: float
    updated_at: float
    pinned: bool
    model: str
    #: None: the field was absent, or held Rill's built-in default: the
    #: conversation follows the default system prompt of Settings.
    system_prompt: str | None
    params: dict[str, Any]
    current_leaf: str | None
    messages: list[Message]  # parents before children


def _parse_meta(reader: _Reader) -> MessageMeta:
    raw = reader.obj_field("meta", nullable=True)
    if raw is None:
        return MessageMeta()
    meta = _Reader(raw, reader.path + ("meta",), translate("Exchange", "the reply's facts"))
    return MessageMeta(
        model=meta.string("model", ""),
        finish_reason=meta.string("finish_reason", ""),
        tokens=meta.integer("tokens", 0),
        prompt_tokens=meta.integer("prompt_tokens", 0),
        tokens_per_s=meta.number("tokens_per_s", 0.0, minimum=0),
        ttft_ms=meta.number("ttft_ms", nullable=True, minimum=0),
    )


def _parents_first(messages: list[Message]) -> list[Message]:
    """The messages with every parent before its children, otherwise in the
    given order (the ids are known to form a forest)."""
    done: set[str] = set()
    waiting: dict[str, list[Message]] = {}
    out: list[Message] = []
    for msg in messages:
        if msg.parent_id is not None and msg.parent_id not in done:
            waiting.setdefault(msg.parent_id, []).append(msg)
            continue
        stack = [msg]
        while stack:
            node = stack.pop()
            out.append(node)
            done.add(node.id)
            stack.extend(reversed(waiting.pop(node.id, [])))
    return out


def _parse_conversation(raw: Any, path: JsonPath, seen_messages: dict[str, JsonPath],
                        now: float) -> ParsedConversation:
    r = _Reader(raw, path, translate("Exchange", "a conversation"))
    conv_id = r.ident("id")
    assert conv_id is not None
    title = r.string("title", "")
    created_at = r.number("created_at", now)
    updated_at = r.number("updated_at", created_at)
    pinned = r.boolean("pinned", False)
    model = r.string("model", "")
    present, system_prompt = r._get("system_prompt", False)
    if present:
        system_prompt = r.string("system_prompt")
        if system_prompt == DEFAULT_SYSTEM_PROMPT:
            system_prompt = None  # what every conversation had before Settings existed
    params = r.obj_field("params")
    params = {} if params is None else params
    _check_text(json.dumps(params, ensure_ascii=False), path + ("params",))
    leaf = r.ident("current_leaf", nullable=True) if "current_leaf" in r.obj else None
    raw_messages = r.list_field("messages")

    messages: list[Message] = []
    where: dict[str, int] = {}
    for i, raw_msg in enumerate(raw_messages):
        mpath = path + ("messages", i)
        m = _Reader(raw_msg, mpath, translate("Exchange", "a message"))
        msg_id = m.ident("id")
        assert msg_id is not None
        if msg_id in seen_messages:
            first = format_path(seen_messages[msg_id])
            raise _Invalid(mpath + ("id",), translate("Exchange", "duplicate message id {id} (also used by {other})").format(
                id=_describe(msg_id), other=first))
        seen_messages[msg_id] = mpath
        where[msg_id] = i
        parent_id = m.ident("parent_id", nullable=True) if "parent_id" in m.obj else None
        role = m.choice("role", _ROLES)
        content = m.string("content")
        status = m.choice("status", _STATUSES, MessageStatus.COMPLETE.value)
        error = m.string("error", "")
        created = m.number("created_at", now + i * 1e-6)
        meta = _parse_meta(m)
        if status == MessageStatus.STREAMING.value:
            status = MessageStatus.INTERRUPTED.value  # nothing streams into an imported message
        messages.append(Message(role, content, MessageStatus(status), error, id=msg_id,
                                created_at=float(created), meta=meta, parent_id=parent_id))

    # Parents: in this conversation, and no cycles.
    for i, msg in enumerate(messages):
        pid = msg.parent_id
        if pid is None:
            continue
        ppath = path + ("messages", i, "parent_id")
        if pid == msg.id:
            raise _Invalid(ppath, translate("Exchange", "a message cannot be its own parent"))
        if pid not in where:
            other = seen_messages.get(pid)
            if other is not None:
                raise _Invalid(ppath, translate("Exchange", "{id} is a message of another conversation "
                                                            "({conversation}), not of this one").format(
                    id=_describe(pid), conversation=format_path(other[:-2])))
            raise _Invalid(ppath, _no_such_message(pid))
    state: dict[str, int] = {}  # 1: on the current walk, 2: reaches a root
    for msg in messages:
        walk: list[str] = []
        node_id: str | None = msg.id
        while node_id is not None and state.get(node_id) is None:
            state[node_id] = 1
            walk.append(node_id)
            node_id = messages[where[node_id]].parent_id
        if node_id is not None and state[node_id] == 1:
            cycle = walk[walk.index(node_id):]
            first = min(cycle, key=lambda x: where[x])
            names = " → ".join(_describe(x) for x in cycle + [node_id])
            raise _Invalid(path + ("messages", where[first], "parent_id"), translate(
                "Exchange", "the parent links form a cycle ({ids}); every message must lead back to a first message"
            ).format(ids=names))
        for x in walk:
            state[x] = 2

    if leaf is not None and leaf not in where:
        raise _Invalid(path + ("current_leaf",), _no_such_message(leaf))
    return ParsedConversation(
        id=conv_id, title=title, created_at=float(created_at), updated_at=float(updated_at), pinned=pinned,
        model=model, system_prompt=system_prompt, params=params, current_leaf=leaf,
        messages=_parents_first(messages),
    )


def _no_such_message(message_id: Any) -> str:
    return translate("Exchange", "no message with id {id} in this conversation").format(id=_describe(message_id))


def _parse_document(doc: Any) -> list[ParsedConversation]:
    top = _Reader(doc, (), translate("Exchange", "a Rill export"))
    if "format" not in top.obj:
        raise _Invalid((), translate("Exchange", 'not a Rill export: missing "format": "{format}"').format(
            format=FORMAT_NAME))
    fmt = top.obj["format"]
    if fmt != FORMAT_NAME:
        raise _expected(("format",), f'"{FORMAT_NAME}"', fmt)
    version = top.obj.get("version")
    if "version" not in top.obj:
        raise _Invalid((), translate("Exchange", 'missing the required field "{key}"').format(key="version"))
    if not (_is_number(version) and float(version).is_integer() and version >= 1):
        raise _expected(("version",), translate("Exchange", "a format version (1)"), version)
    if version > FORMAT_VERSION:
        raise _Invalid(("version",), translate(
            "Exchange", "this file was written by a newer Rill (format version {version}); "
            "this Rill reads version {known}: update Rill to import it").format(version=int(version), known=FORMAT_VERSION))
    top.string("exported_at", "")
    raw_convs = top.list_field("conversations")
    now = time.time()
    seen_convs: dict[str, int] = {}
    seen_messages: dict[str, JsonPath] = {}
    out = []
    for i, raw in enumerate(raw_convs):
        conv = _parse_conversation(raw, ("conversations", i), seen_messages, now)
        if conv.id in seen_convs:
            raise _Invalid(("conversations", i, "id"), translate(
                "Exchange", "duplicate conversation id {id} (also used by {other})").format(
                id=_describe(conv.id), other=f"conversations[{seen_convs[conv.id]}]"))
        seen_convs[conv.id] = i
        out.append(conv)
    return out


# -- finding a JSON path in the text ----------------------------------------------------

_WS = re.compile(r"[ \t\n\r]*")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.S)
_SCALAR = re.compile(r"[^\s,\]}]+")
_CONSTANT = re.compile(r'"(?:[^"\\]|\\.)*"|-?(?:NaN|Infinity)', re.S)


def _skip_ws(text: str, pos: int) -> int:
    return _WS.match(text, pos).end()  # type: ignore[union-attr]


def _skip_value(text: str, pos: int) -> int:
    ch = text[pos]
    if ch == '"':
        return _STRING.match(text, pos).end()  # type: ignore[union-attr]
    if ch in "[{":
        depth = 0
        while True:
            m = _TOKEN.search(text, pos)
            if m is None:
                raise ValueError("unterminated")
            pos = m.end()
            tok = m.group()
            if tok in "[{":
                depth += 1
            elif tok in "]}":
                depth -= 1
                if depth == 0:
                    return pos
    m = _SCALAR.match(text, pos)
    return m.end() if m else pos + 1


def locate(text: str, path: JsonPath) -> int | None:
    """The offset in ``text`` (valid JSON) of the value at ``path``, or None
    when it cannot be found. For a repeated key, the first one (``json.loads``
    keeps the last: a file with repeated keys may be pointed at wrongly)."""
    try:
        pos = _skip_ws(text, 0)
        for part in path:
            if isinstance(part, int):
                if text[pos] != "[":
                    return None
                pos = _skip_ws(text, pos + 1)
                for _ in range(part):
                    pos = _skip_ws(text, _skip_value(text, pos))
                    if text[pos] != ",":
                        return None
                    pos = _skip_ws(text, pos + 1)
            else:
                if text[pos] != "{":
                    return None
                pos = _skip_ws(text, pos + 1)
                while True:
                    if text[pos] != '"':
                        return None
                    m = _STRING.match(text, pos)
                    assert m is not None
                    key = json.loads(m.group())
                    pos = _skip_ws(text, m.end())
                    pos = _skip_ws(text, pos + 1)  # the colon
                    if key == part:
                        break
                    pos = _skip_ws(text, _skip_value(text, pos))
                    if text[pos] != ",":
                        return None
                    pos = _skip_ws(text, pos + 1)
        return pos
    except (IndexError, ValueError, AttributeError, AssertionError):
        return None


def line_column(text: str, pos: int) -> tuple[int, int]:
    """1-based line and column of offset ``pos`` (as ``json.JSONDecodeError`` counts)."""
    line = text.count("\n", 0, pos) + 1
    return line, pos - text.rfind("\n", 0, pos)


def _reject_constant(name: str) -> Any:
    raise ValueError(translate("Exchange", "{name} is not allowed in JSON").format(name=name))


def parse_export(text: str) -> list[ParsedConversation]:
    """Parse and validate a whole export document; raises ``ImportFormatError``."""
    if text.startswith("\ufeff"):
        text = text[1:]
    if not text.strip():
        raise ImportFormatError(translate("Exchange", "the file is empty (expected a Rill JSON export)"))
    try:
        doc = json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        if exc.pos == 0 and text.lstrip().startswith("#"):
            problem = translate("Exchange", "not valid JSON: {error} (this looks like Markdown: only Rill's JSON "
                                            "exports can be imported)")
        else:
            problem = translate("Exchange", "not valid JSON: {error}")
        raise ImportFormatError(problem.format(error=exc.msg), line=exc.lineno, column=exc.colno) from None
    except ValueError as exc:  # NaN / Infinity
        found = (m for m in _CONSTANT.finditer(text) if m.group()[0] != '"')
        match = next(found, None)
        line, col = line_column(text, match.start()) if match else (None, None)
        raise ImportFormatError(translate("Exchange", "not valid JSON: {error}").format(error=exc),
                                line=line, column=col) from None
    except RecursionError:
        raise ImportFormatError(translate("Exchange", "not valid JSON: nested too deeply")) from None
    try:
        return _parse_document(doc)
    except _Invalid as bad:
        pos = locate(text, bad.path)
        line, col = line_column(text, pos) if pos is not None else (None, None)
        raise ImportFormatError(bad.problem, path=format_path(bad.path), line=line, column=col) from None


def decode_bytes(data: bytes) -> str:
    """UTF-8 (a BOM is allowed) or ``ImportFormatError`` naming where it is not."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        before = data[: exc.start].decode("utf-8-sig", errors="replace")
        line, col = line_column(before, len(before))
        raise ImportFormatError(translate("Exchange", "not UTF-8 text (byte {byte}: {reason})").format(
            byte=exc.start, reason=exc.reason), line=line, column=col) from None


# ======================================================================================
# Import: writing
# ======================================================================================


def _exists(store: Any, conv: ParsedConversation) -> bool:
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
    return ParsedConversation(
        id=uuid.uuid4().hex, title=conv.title, created_at=conv.created_at, updated_at=conv.updated_at,
        pinned=conv.pinned, model=conv.model, system_prompt=conv.system_prompt, params=conv.params,
        current_leaf=new[conv.current_leaf] if conv.current_leaf else None, messages=messages,
    )


def import_json(store: Any, text: str) -> ImportResult:
    """Validate the whole document, then add every conversation in it in one
    transaction. A conversation whose id or any of whose message ids is
    already in the store is added as a copy with new ids (the result lists
    them). Raises ``ImportFormatError`` (nothing imported) on malformed input."""
    return import_parsed(store, parse_export(text))


def import_parsed(store: Any, parsed: Sequence[ParsedConversation]) -> ImportResult:
    """``import_json`` for a document already checked by ``parse_export``."""
    copies: list[tuple[str, str]] = []
    ids: list[str] = []
    n_messages = 0
    with store.batch():  # one transaction: all or nothing
        for conv in parsed:
            if _exists(store, conv):
                copy = _as_copy(conv)
                copies.append((conv.id, copy.id))
                conv = copy
            info = ConversationInfo(
                id=conv.id, title=conv.title, created_at=conv.created_at, updated_at=conv.updated_at,
                pinned=conv.pinned, model=conv.model, params=conv.params, current_leaf=conv.current_leaf,
            )
            if conv.system_prompt is not None:
                info.system_prompt = conv.system_prompt
            store.create_conversation(info)
            store.add_messages(conv.id, conv.messages)  # keeps updated_at as given
            ids.append(conv.id)
            n_messages += len(conv.messages)
    return ImportResult(
        conversations=len(parsed), messages=n_messages, conversation_ids=tuple(ids), copies=tuple(copies),
        titles=tuple(c.title for c in parsed), message_counts=tuple(len(c.messages) for c in parsed),
    )
