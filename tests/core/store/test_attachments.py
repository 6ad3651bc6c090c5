"""Attachments in the store: blobs stored once, chunks indexed, keyword
retrieval (Latin and Chinese), sources, and deletion with the conversation."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from app.core.attachments.chunking import chunk
from app.core.attachments.context import Source
from app.core.attachments.record import Attachment, AttachmentKind, AttachmentMode, Extracted
from app.core.conversation.model import Conversation
from app.core.store import Store, info_from_conversation
from app.core.store.attachments import AttachmentContent
from app.core.store.chunks import query_terms, sources_from_json

WORDS = ("river", "stone", "ledger", "harbor", "meadow", "lantern", "copper", "orchard", "signal", "canal")


def pages(n: int, needle_page: int, needle: str) -> Extracted:
    out = []
    for p in range(1, n + 1):
        lines = [f"Page {p} line {i}: the {WORDS[(p + i) % 10]} and the {WORDS[(p * 3 + i) % 10]} were noted."
                 for i in range(30)]
        if p == needle_page:
            lines.insert(11, needle)
        out.append("\n\n".join(" ".join(lines[j:j + 3]) for j in range(0, 30, 3)))
    return Extracted.from_pages(out)


def content(name: str, ext: Extracted, sha: str, mode: AttachmentMode = AttachmentMode.RETRIEVED) -> AttachmentContent:
    att = Attachment(name, AttachmentKind.PDF, 1000, sha256=sha, mode=mode).with_text(ext)
    return AttachmentContent(att, ext, tuple(chunk(ext)))


@pytest.fixture
def store() -> Iterator[Store]:
    with Store.in_memory() as s:
        yield s


def conversation(store: Store) -> Conversation:
    conv = Conversation(title="docs")
    store.create_conversation(info_from_conversation(conv))
    user = conv.add_user("question")
    store.add_message(conv.id, user)
    return conv


def test_needle_found_in_300_pages_latin_and_chinese(store: Store) -> None:
    conv = conversation(store)
    latin = pages(300, 217, "The vault code is heliotrope-7731.")
    chinese = pages(300, 42, "金库的密码是紫罗兰七七三一。")
    user = conv.all_messages()[-1].id
    store.save_attachments(conv.id, user, [content("report.pdf", latin, "a" * 64), content("报告.pdf", chinese, "b" * 64)])
    hits = store.retrieve(conv.id, "What is the vault code?")
    assert hits and hits[0].file == "report.pdf" and hits[0].page == 217 and "heliotrope" in hits[0].text
    hits = store.retrieve(conv.id, "金库的密码是什么？")
    assert hits and hits[0].file == "报告.pdf" and hits[0].page == 42 and "紫罗兰" in hits[0].text
    assert store.retrieve(conv.id, "") == [] and store.retrieve(conv.id, "the and what") == []
    assert store.retrieve("other conversation", "vault code") == []


def test_whole_attachments_are_not_retrieved_and_text_loads(store: Store) -> None:
    conv = conversation(store)
    ext = pages(3, 2, "The vault code is heliotrope-7731.")
    mid = conv.all_messages()[-1].id
    store.save_attachments(conv.id, mid, [content("short.pdf", ext, "c" * 64, AttachmentMode.WHOLE)])
    assert store.retrieve(conv.id, "vault code") == []
    [(message_id, att)] = store.load_attachments(conv.id)
    assert message_id == mid and att.name == "short.pdf" and att.mode is AttachmentMode.WHOLE and att.pages == 3
    loaded = store.load_text(att.sha256)
    assert loaded == ext
    store.set_attachment_modes(conv.id, {att.id: AttachmentMode.RETRIEVED})
    assert store.retrieve(conv.id, "vault code")[0].page == 2


def test_blobs_are_shared_and_freed_with_their_last_conversation(store: Store) -> None:
    one, two = conversation(store), conversation(store)
    ext = pages(2, 1, "needle sentence here")
    for conv in (one, two):
        store.save_attachments(conv.id, conv.all_messages()[-1].id, [content("same.pdf", ext, "d" * 64)])
    assert store.blob_count() == 1
    chunks_before = store.conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
    assert chunks_before == len(chunk(ext))  # the second attachment reused them
    store.delete_conversation(one.id)
    assert store.blob_count() == 1 and store.retrieve(two.id, "needle sentence")
    store.delete_conversation(two.id)
    assert store.blob_count() == 0
    assert store.conn.execute("SELECT count(*) FROM chunks").fetchone()[0] == 0
    assert store.conn.execute("SELECT count(*) FROM chunk_fts WHERE chunk_fts MATCH '\"needle\"'").fetchone()[0] == 0


def test_deleting_the_message_deletes_its_attachments(store: Store) -> None:
    conv = conversation(store)
    mid = conv.all_messages()[-1].id
    store.save_attachments(conv.id, mid, [content("x.pdf", pages(1, 1, "abc"), "e" * 64)])
    store.delete_message(mid)
    assert store.load_attachments(conv.id) == [] and store.blob_count() == 0


def test_sources_round_trip(store: Store) -> None:
    conv = conversation(store)
    reply = conv.start_reply()
    store.add_message(conv.id, reply)
    sources = [Source("r.pdf", 217, 0.5, "the fact", "aid", 3, 120)]
    store.save_sources(conv.id, reply.id, sources)
    assert store.load_sources(conv.id) == {reply.id: sources}
    assert sources_from_json("not json") == [] and sources_from_json('{"a": 1}') == []


def test_images_and_failures_are_kept(store: Store) -> None:
    conv = conversation(store)
    image = Attachment("shot.png", AttachmentKind.IMAGE, 5000, sha256="f" * 64, tokens=300)
    broken = Attachment("bad.pdf", AttachmentKind.PDF, 10, error="This PDF is damaged.")
    store.save_attachments(conv.id, conv.all_messages()[-1].id,
                           [AttachmentContent(image, image=b"\x89PNG...", mime="image/png"), AttachmentContent(broken)])
    loaded = [a for _, a in store.load_attachments(conv.id)]
    assert [a.name for a in loaded] == ["shot.png", "bad.pdf"] and loaded[1].error == "This PDF is damaged."
    assert store.load_image("f" * 64) == (b"\x89PNG...", "image/png") and store.load_image("0" * 64) is None


def test_query_terms() -> None:
    words, short = query_terms("What is the VAULT code? 金库的密码")
    assert words == ["vault", "code"]
    assert short == ["金库", "库的", "的密", "密码"]
    assert query_terms("码")[1] == ["码"]


def test_chunks_read_with_their_terms_are_indexed_and_deleted_with_them(store: Store) -> None:
    """Chunks carry their short-index terms from the reading process; the
    store indexes those (no Python in its thread) and deletes exactly them."""
    from dataclasses import replace

    from app.core.store.search import short_terms

    conv = conversation(store)
    chinese = pages(30, 7, "金库的密码是紫罗兰七七三一。")
    att = Attachment("报告.pdf", AttachmentKind.PDF, 1000, sha256="f" * 64, mode=AttachmentMode.RETRIEVED).with_text(chinese)
    chunks = tuple(replace(c, terms=short_terms(c.text)) for c in chunk(chinese))
    store.save_attachments(conv.id, conv.all_messages()[-1].id, [AttachmentContent(att, chinese, chunks)])
    stored = [t for (t,) in store.conn.execute("SELECT terms FROM chunks ORDER BY ord")]
    assert stored == [c.terms for c in chunks] and all(stored)
    assert store.retrieve(conv.id, "金库的密码是什么？")[0].page == 7
    store.delete_conversation(conv.id)
    assert store.conn.execute("SELECT count(*) FROM chunks").fetchone()[0] == 0
    for table in ("chunk_fts", "chunk_fts_short"):
        store.conn.execute(f"INSERT INTO {table}({table}) VALUES ('integrity-check')")
