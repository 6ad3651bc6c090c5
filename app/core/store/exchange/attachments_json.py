"""Attachments in Rill's JSON format (version 2): written with each
conversation, read back and checked (Qt-free).

Format version 2 adds two optional keys to each conversation; a version 1
file is a version 2 file without them (the migration: nothing to convert, its
conversations import with no attachments):

* ``"attachments"``: a list, each ``{"id", "message_id", "name", "kind",
  "size", "pages", "chars", "tokens", "mode", "error", "notice", "sha256",
  "text", "page_starts", "image"}``; ``text`` (the text read from the file,
  or null) with ``page_starts`` (where each page starts in it), ``image``
  (``{"mime", "data"}``, base64 of the scaled image, or null). ``message_id``
  names the user message it came with. Chunks are not written: the import
  makes them again from ``text``.
* ``"sources"``: ``{reply message id: [{"file", "page", "score", "text",
  "attachment_id", "chunk_index", "tokens"}]}`` (the chunks each reply was given).

Bounds on reading: a text longer than ``MAX_ATTACH_CHARS`` is cut, an image
larger than ``MAX_IMPORT_IMAGE_BYTES`` (decoded) is dropped (its attachment
keeps a message), at most ``MAX_ATTACHMENTS_PER_CONVERSATION`` attachments.

Threading rule: pure functions (the store's thread, or the CLI's).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from app.core.attachments.chunking import chunk
from app.core.attachments.context import Source
from app.core.attachments.record import Attachment, AttachmentKind, AttachmentMode, Extracted, new_attachment_id
from app.core.base import limits
from app.core.base.i18n import translate
from app.core.store.attachments import AttachmentContent

#: An imported image's decoded bytes at most (they were scaled when attached: ~100-500 KB).
MAX_IMPORT_IMAGE_BYTES = 16 * limits.MB
#: Attachments read per conversation at most.
MAX_ATTACHMENTS_PER_CONVERSATION = 10_000


class AttachmentReader(Protocol):
    """What the export reads of a store's attachments (``Store`` has them)."""

    def load_attachments(self, conversation_id: str) -> list[tuple[str, Attachment]]: ...

    def load_text(self, sha256: str) -> Extracted | None: ...

    def load_image(self, sha256: str) -> tuple[bytes, str] | None: ...

    def load_sources(self, conversation_id: str) -> dict[str, list[Source]]: ...


class AttachmentsFormatError(Exception):
    """A bad attachment in an import: ``path`` below the conversation, and the problem."""

    def __init__(self, path: tuple[str | int, ...], problem: str) -> None:
        super().__init__(problem)
        self.path = path
        self.problem = problem


@dataclass
class ParsedAttachments:
    """A conversation's attachments as read: (message id, content) in order, and its replies' sources."""

    items: list[tuple[str, AttachmentContent]] = field(default_factory=list)
    sources: dict[str, list[Source]] = field(default_factory=dict)


def attachments_to_json(store: AttachmentReader, conversation_id: str) -> dict[str, Any]:
    """The ``attachments`` and ``sources`` keys of a conversation (empty dict: it has none)."""
    rows = store.load_attachments(conversation_id)
    sources = store.load_sources(conversation_id)
    if not rows and not sources:
        return {}
    out = []
    for message_id, a in rows:
        text = store.load_text(a.sha256) if a.sha256 and a.kind is not AttachmentKind.IMAGE else None
        image = store.load_image(a.sha256) if a.sha256 and a.kind is AttachmentKind.IMAGE else None
        out.append({
            "id": a.id, "message_id": message_id, "name": a.name, "kind": a.kind.value, "size": a.size,
            "pages": a.pages, "chars": a.chars, "tokens": a.tokens, "mode": a.mode.value, "error": a.error,
            "notice": a.notice, "sha256": a.sha256,
            "text": text.text if text is not None else None,
            "page_starts": list(text.page_starts) if text is not None else None,
            "image": {"mime": image[1], "data": base64.b64encode(image[0]).decode("ascii")} if image else None,
        })
    return {"attachments": out, "sources": {mid: [s.to_dict() for s in items] for mid, items in sources.items()}}


def _bad(path: tuple[str | int, ...], expected: str) -> AttachmentsFormatError:
    return AttachmentsFormatError(path, translate("Exchange", "expected {expected}").format(expected=expected))


def _string(raw: Mapping[str, Any], key: str, path: tuple[str | int, ...], default: str = "") -> str:
    value = raw.get(key, default)
    if value is None:
        return default
    if not isinstance(value, str):
        raise _bad(path + (key,), translate("Exchange", "a string"))
    return value


def _integer(raw: Mapping[str, Any], key: str, path: tuple[str | int, ...]) -> int:
    value = raw.get(key, 0)
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0 or value != int(value):
        raise _bad(path + (key,), translate("Exchange", "a whole number, 0 or more"))
    return int(value)


def _enum(raw: Mapping[str, Any], key: str, path: tuple[str | int, ...], values: Sequence[str], default: str) -> str:
    value = _string(raw, key, path, default) or default
    if value not in values:
        raise _bad(path + (key,), " | ".join(values))
    return value


def parse_attachments(conv: Mapping[str, Any], message_ids: set[str]) -> ParsedAttachments:
    """The attachments and sources of one conversation object (version 2; absent keys: none)."""
    parsed = ParsedAttachments()
    raw_list = conv.get("attachments", [])
    if raw_list is None:
        raw_list = []
    if not isinstance(raw_list, list):
        raise _bad(("attachments",), translate("Exchange", "a list"))
    if len(raw_list) > MAX_ATTACHMENTS_PER_CONVERSATION:
        raise AttachmentsFormatError(("attachments",), translate(
            "Exchange", "more than {limit} attachments").format(limit=f"{MAX_ATTACHMENTS_PER_CONVERSATION:,}"))
    for i, raw in enumerate(raw_list):
        parsed.items.append(_parse_one(raw, ("attachments", i), message_ids))
    raw_sources = conv.get("sources", {})
    if raw_sources is None:
        raw_sources = {}
    if not isinstance(raw_sources, dict):
        raise _bad(("sources",), translate("Exchange", "an object"))
    for reply_id, items in raw_sources.items():
        if reply_id not in message_ids:
            raise AttachmentsFormatError(("sources", reply_id), translate(
                "Exchange", "no message with id {id} in this conversation").format(id=repr(reply_id)))
        if not isinstance(items, list) or not all(isinstance(s, dict) for s in items):
            raise _bad(("sources", reply_id), translate("Exchange", "a list of objects"))
        parsed.sources[reply_id] = [Source.from_dict(s) for s in items]
    return parsed


def _parse_one(raw: Any, path: tuple[str | int, ...], message_ids: set[str]) -> tuple[str, AttachmentContent]:
    if not isinstance(raw, dict):
        raise _bad(path, translate("Exchange", "an attachment (an object)"))
    message_id = _string(raw, "message_id", path)
    if message_id not in message_ids:
        raise AttachmentsFormatError(path + ("message_id",), translate(
            "Exchange", "no message with id {id} in this conversation").format(id=repr(message_id)))
    kind = AttachmentKind(_enum(raw, "kind", path, [k.value for k in AttachmentKind], "unknown"))
    mode = AttachmentMode(_enum(raw, "mode", path, [m.value for m in AttachmentMode], "none"))
    text = _string(raw, "text", path)[: limits.MAX_ATTACH_CHARS]
    starts_raw = raw.get("page_starts") or [0]
    if not isinstance(starts_raw, list) or not all(isinstance(s, int) and 0 <= s <= len(text) for s in starts_raw):
        raise _bad(path + ("page_starts",), translate("Exchange", "a list of offsets into the text"))
    starts = tuple(sorted(set(starts_raw))) or (0,)
    image_bytes, mime = b"", ""
    image = raw.get("image")
    if image is not None:
        if not isinstance(image, dict):
            raise _bad(path + ("image",), translate("Exchange", "an object"))
        data = _string(image, "data", path + ("image",))
        mime = _string(image, "mime", path + ("image",), "image/png")
        if len(data) * 3 // 4 <= MAX_IMPORT_IMAGE_BYTES:
            try:
                image_bytes = base64.b64decode(data, validate=True)
            except (binascii.Error, ValueError) as e:
                raise _bad(path + ("image", "data"), translate("Exchange", "base64 data")) from e
    error = _string(raw, "error", path)[: limits.MAX_QUOTED_CHARS * 4]
    if kind is AttachmentKind.IMAGE and image is not None and not image_bytes and not error:
        error = translate("Exchange", "This image was too large to import.")
    extracted = Extracted(text, starts) if text else None
    # the hash names the content stored: the file's when it was given, else the content's own
    sha = _string(raw, "sha256", path)
    if len(sha) != 64 or any(c not in "0123456789abcdef" for c in sha):
        sha = hashlib.sha256(image_bytes or text.encode("utf-8", "surrogatepass")).hexdigest() if (text or image_bytes) else ""
    att = Attachment(
        _string(raw, "name", path)[:255], kind, _integer(raw, "size", path),
        id=_string(raw, "id", path)[:64] or new_attachment_id(),
        pages=_integer(raw, "pages", path), chars=_integer(raw, "chars", path), tokens=_integer(raw, "tokens", path),
        error=error, notice=_string(raw, "notice", path)[:500], sha256=sha if (text or image_bytes) else "", mode=mode,
    )
    chunks = tuple(chunk(extracted)) if extracted is not None else ()
    return message_id, AttachmentContent(att, extracted, chunks, image_bytes, mime)
