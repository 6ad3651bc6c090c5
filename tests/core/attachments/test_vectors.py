"""Vectors: packed normalised, ranked by cosine, fused with keywords in the store."""

from __future__ import annotations

import numpy as np

from app.core.attachments.chunking import chunk
from app.core.attachments.record import Attachment, AttachmentKind, AttachmentMode, Extracted
from app.core.attachments.vectors import pack, rank, unpack
from app.core.conversation.model import Conversation
from app.core.store import Store, info_from_conversation
from app.core.store.attachments import AttachmentContent


def test_pack_normalises_and_rank_orders_by_cosine() -> None:
    assert np.allclose(unpack(pack([3.0, 4.0])), [0.6, 0.8])
    assert unpack(pack([0.0, 0.0])).tolist() == [0.0, 0.0]
    rows = [(1, pack([1, 0, 0])), (2, pack([0.9, 0.1, 0])), (3, pack([0, 1, 0])), (4, pack([1, 0]))]  # 4: another model
    assert rank([1, 0, 0], rows) == [1, 2, 3]
    assert rank([1, 0, 0], rows, limit=1) == [1]
    assert rank([0, 0, 0], rows) == [] and rank([1, 0, 0], []) == []


def test_vectors_join_the_keyword_ranking() -> None:
    with Store.in_memory() as store:
        conv = Conversation(title="v")
        store.create_conversation(info_from_conversation(conv))
        user = conv.add_user("q")
        store.add_message(conv.id, user)
        pages = ["Cats purr when content.", "The invoice total is 42 euros.", "Dogs bark at strangers."]
        ext = Extracted.from_pages(pages)
        att = Attachment("n.md", AttachmentKind.TEXT, 1, sha256="c" * 64, mode=AttachmentMode.RETRIEVED).with_text(ext)
        chunks = chunk(ext)
        store.save_attachments(conv.id, user.id, [AttachmentContent(att, ext, tuple(chunks))])
        # a toy "embedding": page 2 is about money
        vectors = [[1.0, 0.0], [0.0, 1.0], [1.0, 0.1]]
        store.save_vectors("c" * 64, "toy", vectors)
        # no word in common with any chunk: keywords find nothing, the vector finds page 2
        assert store.retrieve(conv.id, "how much must be paid?") == []
        hits = store.retrieve(conv.id, "how much must be paid?", query_vector=[0.1, 1.0], model="toy")
        assert hits[0].page == 2
        # both agree: page 2 first; another model's vectors are not used
        assert store.retrieve(conv.id, "invoice", query_vector=[0.0, 1.0], model="toy")[0].page == 2
        assert store.retrieve(conv.id, "paid", query_vector=[0.0, 1.0], model="other") == []
        # the vectors go with their chunks
        store.delete_conversation(conv.id)
        assert store.conn.execute("SELECT count(*) FROM chunk_vectors").fetchone()[0] == 0


def test_chunks_read_before_a_model_get_their_vectors_later() -> None:
    with Store.in_memory() as store:
        conv = Conversation(title="v")
        store.create_conversation(info_from_conversation(conv))
        user = conv.add_user("q")
        store.add_message(conv.id, user)
        ext = Extracted.from_pages(["Cats purr when content.", "The invoice total is 42 euros.", "Dogs bark."])
        att = Attachment("n.md", AttachmentKind.TEXT, 1, sha256="d" * 64, mode=AttachmentMode.RETRIEVED).with_text(ext)
        chunks = chunk(ext)
        assert len(chunks) == 3
        store.save_attachments(conv.id, user.id, [AttachmentContent(att, ext, tuple(chunks))])
        first = store.unembedded_chunks(conv.id, "toy", limit=2)
        assert [text for _, text in first] == [c.text for c in chunks[:2]]  # bounded, in order
        store.save_chunk_vectors("toy", [(first[0][0], [1.0, 0.0]), (first[1][0], [0.0, 1.0])])
        rest = store.unembedded_chunks(conv.id, "toy", limit=2)
        assert [text for _, text in rest] == [chunks[2].text]
        assert len(store.unembedded_chunks(conv.id, "other", limit=10)) == 3  # per model
        store.save_chunk_vectors("toy", [(rest[0][0], [1.0, 0.1])])
        assert store.unembedded_chunks(conv.id, "toy", limit=10) == []
        assert store.retrieve(conv.id, "how much must be paid?", query_vector=[0.1, 1.0], model="toy")[0].page == 2
