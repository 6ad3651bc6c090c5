"""Format version 2 carries attachments: export, import (with retrieval
working again), a copy with new ids, bad attachments named by path, and a
version 1 file still imports."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from app.core.attachments.chunking import chunk
from app.core.attachments.context import Source
from app.core.attachments.record import Attachment, AttachmentKind, AttachmentMode, Extracted
from app.core.conversation.model import Conversation
from app.core.store import Store, info_from_conversation
from app.core.store.attachments import AttachmentContent
from app.core.store.exchange import ImportFormatError, export_json, import_json
from app.core.store.exchange.attachments_json import parse_attachments


@pytest.fixture
def store() -> Iterator[Store]:
    with Store.in_memory() as s:
        yield s


def filled(store: Store) -> tuple[Conversation, str, str]:
    conv = Conversation(title="docs")
    store.create_conversation(info_from_conversation(conv))
    user = conv.add_user("What is the code?")
    reply = conv.start_reply()
    reply.content = "heliotrope"
    store.add_messages(conv.id, [user, reply])
    ext = Extracted.from_pages(["intro page", "The vault code is heliotrope-7731.", "金库的密码是紫罗兰。"])
    doc = Attachment("report.pdf", AttachmentKind.PDF, 1234, sha256="a" * 64, mode=AttachmentMode.RETRIEVED).with_text(ext)
    pic = Attachment("shot.png", AttachmentKind.IMAGE, 99, sha256="b" * 64, tokens=768)
    store.save_attachments(conv.id, user.id, [AttachmentContent(doc, ext, tuple(chunk(ext))),
                                              AttachmentContent(pic, image=b"\x89PNG data", mime="image/png")])
    store.save_sources(conv.id, reply.id, [Source("report.pdf", 2, 0.5, "The vault code", doc.id, 1, 10)])
    return conv, user.id, reply.id


def test_round_trip_into_another_store(store: Store) -> None:
    conv, user_id, reply_id = filled(store)
    text = export_json(store)
    doc = json.loads(text)
    assert doc["version"] == 2
    [c] = doc["conversations"]
    assert [a["name"] for a in c["attachments"]] == ["report.pdf", "shot.png"]
    assert c["attachments"][0]["page_starts"] == [0, 12, 48] and c["attachments"][1]["image"]["mime"] == "image/png"
    assert c["sources"][reply_id][0]["page"] == 2
    with Store.in_memory() as other:
        result = import_json(other, text)
        assert result.conversations == 1
        loaded = other.load_attachments(conv.id)
        assert [(mid, a.name, a.mode) for mid, a in loaded] == [
            (user_id, "report.pdf", AttachmentMode.RETRIEVED), (user_id, "shot.png", AttachmentMode.NONE)]
        assert other.retrieve(conv.id, "vault code")[0].page == 2  # chunks made again
        assert other.load_image("b" * 64) == (b"\x89PNG data", "image/png")
        assert other.load_sources(conv.id)[reply_id][0].text == "The vault code"
        # importing it again makes a copy: new ids, the blobs shared
        copy = import_json(other, text)
        new_id = copy.conversation_ids[0]
        assert new_id != conv.id and len(other.load_attachments(new_id)) == 2
        assert other.blob_count() == 2
        assert other.retrieve(new_id, "金库的密码")[0].page == 3
        assert set(other.load_sources(new_id)) and reply_id not in other.load_sources(new_id)


def test_a_conversation_without_attachments_has_no_keys(store: Store) -> None:
    conv = Conversation(title="plain")
    store.create_conversation(info_from_conversation(conv))
    store.add_messages(conv.id, [conv.add_user("hi")])
    [c] = json.loads(export_json(store))["conversations"]
    assert "attachments" not in c and "sources" not in c


def test_version_1_files_still_import(store: Store) -> None:
    v1 = {"format": "rill.export", "version": 1, "conversations": [
        {"id": "c1", "title": "old", "messages": [{"id": "m1", "role": "user", "content": "hello"}]}]}
    result = import_json(store, json.dumps(v1))
    assert result.conversations == 1 and store.load_attachments("c1") == []


@pytest.mark.parametrize(("attachments", "where"), [
    ([{"message_id": "nope", "name": "x"}], "conversations[0].attachments[0].message_id"),
    ([{"message_id": "m1", "kind": "spreadsheet"}], "conversations[0].attachments[0].kind"),
    ([{"message_id": "m1", "text": "abc", "page_starts": [0, 99]}], "conversations[0].attachments[0].page_starts"),
    ([{"message_id": "m1", "kind": "image", "image": {"data": "!!not base64"}}],
     "conversations[0].attachments[0].image.data"),
    ("not a list", "conversations[0].attachments"),
])
def test_bad_attachments_are_named(store: Store, attachments: object, where: str) -> None:
    doc = {"format": "rill.export", "version": 2, "conversations": [
        {"id": "c1", "messages": [{"id": "m1", "role": "user", "content": "hello"}], "attachments": attachments}]}
    with pytest.raises(ImportFormatError) as caught:
        import_json(store, json.dumps(doc))
    assert where in str(caught.value)
    assert store.count_conversations() == 0  # nothing imported


def test_parse_attachments_defaults() -> None:
    parsed = parse_attachments({"attachments": [{"message_id": "m", "name": "a.txt", "text": "hello"}]}, {"m"})
    [(mid, content)] = parsed.items
    assert mid == "m" and content.attachment.kind is AttachmentKind.UNKNOWN and len(content.attachment.sha256) == 64
    assert content.extracted == Extracted("hello") and len(content.chunks) == 1
