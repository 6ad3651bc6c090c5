"""Vectors: packed normalised, ranked by cosine, fused with keywords in the store."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np

from app.core.attachments.chunking import Chunk, chunk
from app.core.attachments.record import Attachment, AttachmentKind, AttachmentMode, Extracted
from app.core.attachments.vectors import pack, rank_blocks, unpack
from app.core.conversation.model import Conversation
from app.core.store import Store, info_from_conversation
from app.core.store.attachments import AttachmentContent

PAGES = ["Cats purr when content.", "The invoice total is 42 euros.", "Dogs bark at strangers."]


def three_pages(store: Store, sha: str) -> tuple[Conversation, tuple[Chunk, ...]]:
    """A conversation whose question carries a three-page retrieval
    attachment (page 2 is about money); its chunks, one a page."""
    conv = Conversation(title="v")
    store.create_conversation(info_from_conversation(conv))
    user = conv.add_user("q")
    store.add_message(conv.id, user)
    ext = Extracted.from_pages(PAGES)
    att = Attachment("n.md", AttachmentKind.TEXT, 1, sha256=sha, mode=AttachmentMode.RETRIEVED).with_text(ext)
    chunks = tuple(chunk(ext))
    assert len(chunks) == 3
    store.save_attachments(conv.id, user.id, [AttachmentContent(att, ext, chunks)])
    return conv, chunks


def test_pack_normalises_and_rank_orders_by_cosine() -> None:
    assert np.allclose(unpack(pack([3.0, 4.0])), [0.6, 0.8])
    assert unpack(pack([0.0, 0.0])).tolist() == [0.0, 0.0]
    blocks = [("a", 3, pack([0, 1, 0]) + pack([0.9, 0.1, 0])), ("b", 3, pack([1, 0, 0])),
              ("c", 2, pack([1, 0]))]  # c: another model's size
    assert rank_blocks([1, 0, 0], blocks) == [("b", 0), ("a", 1), ("a", 0)]
    assert rank_blocks([1, 0, 0], blocks, limit=1) == [("b", 0)]
    assert rank_blocks([0, 0, 0], blocks) == [] and rank_blocks([1, 0, 0], []) == []
    assert rank_blocks([1, 0, 0], [("torn", 3, b"\x00" * 7)]) == [], "a torn matrix is skipped"


def test_vectors_join_the_keyword_ranking() -> None:
    with Store.in_memory() as store:
        conv, _ = three_pages(store, "c" * 64)
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
        assert store.conn.execute("SELECT count(*) FROM blob_vectors").fetchone()[0] == 0


def test_a_v4_database_s_chunk_vectors_become_one_matrix_per_file(tmp_path: Path) -> None:
    path = tmp_path / "rill.db"
    opened = Store.open(path)
    assert opened.store is not None
    with opened.store as store:
        conv, _ = three_pages(store, "d" * 64)
    # turn it back into v4's layout: one vector row per chunk
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("DROP TABLE blob_vectors")
        conn.execute("DROP TRIGGER chunks_index_insert")
        conn.execute("DROP TRIGGER chunks_index_delete")
        conn.execute("ALTER TABLE chunks DROP COLUMN terms")  # v4's chunks had no terms of their own
        conn.execute("CREATE TABLE chunk_vectors (chunk_rowid INTEGER NOT NULL, model TEXT NOT NULL, "
                     "vector BLOB NOT NULL, PRIMARY KEY (chunk_rowid, model))")
        rowids = [r for (r,) in conn.execute("SELECT rowid FROM chunks WHERE sha256 = ? ORDER BY ord", ("d" * 64,))]
        toy = [[1.0, 0.0], [0.0, 1.0], [1.0, 0.1]]
        conn.executemany("INSERT INTO chunk_vectors VALUES (?, 'toy', ?)",
                         [(r, pack(v)) for r, v in zip(rowids, toy, strict=True)])
        conn.execute("INSERT INTO chunk_vectors VALUES (?, 'gappy', ?)", (rowids[1], pack([1.0, 0.0])))
        conn.execute("PRAGMA user_version = 4")
    conn.close()
    opened = Store.open(path)
    assert opened.store is not None and not opened.notices
    with opened.store as store:
        tables = {r for (r,) in store.conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        assert "chunk_vectors" not in tables
        matrices = store.conn.execute("SELECT model, dim, length(vectors) FROM blob_vectors ORDER BY model").fetchall()
        assert matrices == [("toy", 2, 3 * 8)], "the gappy model's lone vector (chunk 1, no chunk 0) is not kept"
        hits = store.retrieve(conv.id, "how much must be paid?", query_vector=[0.1, 1.0], model="toy")
        assert hits and hits[0].page == 2
        assert store.retrieve(conv.id, "invoice")[0].page == 2, "v4's chunks stay indexed"
        assert "terms" in {row[1] for row in store.conn.execute("PRAGMA table_info(chunks)")}
        store.delete_conversation(conv.id)  # v4 rows (terms NULL) leave both indexes cleanly
        for table in ("chunk_fts", "chunk_fts_short"):
            store.conn.execute(f"INSERT INTO {table}({table}) VALUES ('integrity-check')")


def test_chunks_read_before_a_model_get_their_vectors_later() -> None:
    with Store.in_memory() as store:
        conv, chunks = three_pages(store, "d" * 64)
        first = store.unembedded_chunks(conv.id, "toy", limit=2)
        assert [text for _, text in first] == [c.text for c in chunks[:2]]  # bounded, in order
        store.save_chunk_vectors("toy", [(first[0][0], [1.0, 0.0]), (first[1][0], [0.0, 1.0])])
        rest = store.unembedded_chunks(conv.id, "toy", limit=2)
        assert [text for _, text in rest] == [chunks[2].text]
        assert len(store.unembedded_chunks(conv.id, "other", limit=10)) == 3  # per model
        store.save_chunk_vectors("toy", [(rest[0][0], [1.0, 0.1])])
        assert store.unembedded_chunks(conv.id, "toy", limit=10) == []
        assert store.retrieve(conv.id, "how much must be paid?", query_vector=[0.1, 1.0], model="toy")[0].page == 2
        later = store.unembedded_chunks(conv.id, "z", limit=10)
        store.save_chunk_vectors("z", [(key, v) for (key, _), v in zip(later, [[], [0.0, 1.0], [1.0, 0.0]], strict=True)])
        assert store.unembedded_chunks(conv.id, "z", limit=10) == [], "a chunk that gave no vector holds nothing back"
        assert store.retrieve(conv.id, "how much must be paid?", query_vector=[0.0, 1.0], model="z")[0].page == 2
