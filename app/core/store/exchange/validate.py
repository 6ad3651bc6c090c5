"""Import: reading and validating a whole export document (typed JSON
reading, the document's rules), before anything is written."""

from __future__ import annotations

import json
import math
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from app.core.base.i18n import translate
from app.core.base.limits import CUT_MARK, MAX_MESSAGE_CHARS, MAX_TITLE_CHARS
from app.core.conversation.model import DEFAULT_SYSTEM_PROMPT, Message, MessageMeta, MessageStatus, Role
from app.core.store.exchange.attachments_json import AttachmentsFormatError, ParsedAttachments, parse_attachments
from app.core.store.exchange.errors import ImportFormatError
from app.core.store.exchange.export_json import FORMAT_NAME, FORMAT_VERSION
from app.core.store.exchange.locate import JsonPath, line_column, locate
from app.core.store.rows import ConversationInfo

#: A message's error (a sentence or two from Rill or a server) is cut to this many characters.
MAX_ERROR_CHARS = 4000
#: Ids longer than this are refused (ours are 32 hex digits).
MAX_ID_LENGTH = 256

_ROLES = (Role.USER.value, Role.ASSISTANT.value)
_STATUSES = tuple(s.value for s in MessageStatus)
_CONSTANT = re.compile(r'"(?:[^"\\]|\\.)*"|-?(?:NaN|Infinity)', re.DOTALL)



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
        value: str | None = self.string(key, nullable=nullable)
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
            return default  # type: ignore[return-value]  # None only when required, and then present
        if value not in choices:
            wanted = translate("Exchange", "{choices} or {last}").format(
                choices=", ".join(f'"{c}"' for c in choices[:-1]), last=f'"{choices[-1]}"')
            raise _expected(self.path + (key,), wanted, value)
        return str(value)  # one of ``choices``

    def obj_field(self, key: str, *, nullable: bool = False) -> dict[str, Any] | None:
        present, value = self._get(key, False)
        if not present or (value is None and nullable):
            return None
        if not isinstance(value, dict):
            raise _expected(self.path + (key,), translate("Exchange", "an object"), value)
        return value

    def list_field(self, key: str) -> list[Any]:
        _, value = self._get(key, True)
        if not isinstance(value, list):
            raise _expected(self.path + (key,), translate("Exchange", "a list"), value)
        return value


def cut_to_limit(text: str, limit: int | None = None) -> str:
    """``text`` as it is when it fits ``limit`` characters (default
    ``MAX_MESSAGE_CHARS``), else cut so that it ends with ``CUT_MARK`` and is
    ``limit`` characters long."""
    limit = MAX_MESSAGE_CHARS if limit is None else limit
    if len(text) <= limit:
        return text
    return text[: limit - len(CUT_MARK)] + CUT_MARK


@dataclass
class ParsedConversation:
    """One validated conversation of an import document: its row as the store
    keeps it (``info.system_prompt`` None: the field was absent, or held
    Rill's built-in default, so it follows the default of Settings) and its
    messages, parents before children. ``cut``: the ids of the messages
    longer than ``MAX_MESSAGE_CHARS``, cut to it (``cut_to_limit``)."""

    info: ConversationInfo
    messages: list[Message]
    cut: list[str] = field(default_factory=list)
    #: Its attachments and replies' sources (format version 2; empty for version 1).
    attachments: ParsedAttachments = field(default_factory=ParsedAttachments)

    @property
    def id(self) -> str:
        return self.info.id

    @property
    def title(self) -> str:
        return self.info.title


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
    title = r.string("title", "")[:MAX_TITLE_CHARS]
    created_at = r.number("created_at", now)
    updated_at = r.number("updated_at", created_at)
    pinned = r.boolean("pinned", False)
    model = r.string("model", "")
    present, system_prompt = r._get("system_prompt", False)
    if present:
        system_prompt = r.string("system_prompt")
        if system_prompt == DEFAULT_SYSTEM_PROMPT:
            system_prompt = None  # what every conversation had before Settings existed
        else:
            system_prompt = cut_to_limit(system_prompt)
    params = r.obj_field("params")
    params = {} if params is None else params
    _check_text(json.dumps(params, ensure_ascii=False), path + ("params",))
    leaf = r.ident("current_leaf", nullable=True) if "current_leaf" in r.obj else None
    raw_messages = r.list_field("messages")

    messages: list[Message] = []
    cut: list[str] = []
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
        if len(content) > MAX_MESSAGE_CHARS:
            content = cut_to_limit(content)
            cut.append(msg_id)
        status = m.choice("status", _STATUSES, MessageStatus.COMPLETE.value)
        error = cut_to_limit(m.string("error", ""), MAX_ERROR_CHARS)
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
    info = ConversationInfo(
        id=conv_id, title=title, created_at=float(created_at), updated_at=float(updated_at), pinned=pinned,
        model=model, system_prompt=system_prompt, params=params, current_leaf=leaf,
    )
    try:
        attached = parse_attachments(r.obj, set(where))
    except AttachmentsFormatError as e:
        raise _Invalid(path + e.path, e.problem) from e
    return ParsedConversation(info, _parents_first(messages), cut, attached)


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
    version: Any = top.obj.get("version")
    if "version" not in top.obj:
        raise _Invalid((), translate("Exchange", 'missing the required field "{key}"').format(key="version"))
    if not (_is_number(version) and float(version).is_integer() and version >= 1):
        raise _expected(("version",), translate("Exchange", "a format version (1 or 2)"), version)
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


def _reject_constant(name: str) -> Any:
    raise ValueError(translate("Exchange", "{name} is not allowed in JSON").format(name=name))


def parse_export(text: str) -> list[ParsedConversation]:
    """Parse and validate a whole export document; raises ``ImportFormatError``."""
    text = text.removeprefix("\ufeff")
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
