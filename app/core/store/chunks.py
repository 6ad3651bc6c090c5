"""Attachments in the store: the tables, the chunk indexes, and keyword
retrieval (Qt-free, stdlib ``sqlite3``; schema versions 4 and 5).

Tables:

* ``blobs`` — content-addressed by the sha256 of the file's bytes: the text
  read from it (and its page starts, JSON), or an image's scaled bytes. The
  same file attached twice, in any conversation, is stored once.
* ``attachments`` — one row per attachment: its conversation (``ON DELETE
  CASCADE``), the user message it came with, what its chip shows, its mode and
  its blob. A trigger deletes a blob (and so its chunks) when the last
  attachment using it goes; another deletes a message's attachments with it.
* ``chunks`` — a blob's chunks (~512 tokens, page kept), ``ON DELETE CASCADE``
  from their blob.
* ``reply_sources`` — the chunks a reply was given (JSON, by message id).
* ``chunk_fts`` / ``chunk_fts_short`` — the same two-index method as the
  messages' search (``app.core.store.search``): FTS5 ``trigram`` for terms of
  3+ characters in any script, and a contentless index of ``rill_short_terms``
  tokens (CJK single characters and bigrams, short Latin words) for the rest.

Retrieval (``retrieve``) is not the message search: a question is not a set of
terms that must all occur. Its words (3+ characters, minus a few stopwords)
are ORed in the trigram index and its CJK bigrams ORed in the short one; each
index ranks by bm25 over the conversation's retrieval chunks only, and the two
rankings are fused by reciprocal rank (``app.core.attachments.context.fuse``).

With an embedding model, ``blob_vectors`` holds each blob's chunks' vectors
as one matrix (float32 rows, normalised; ``save_vectors``) and ``retrieve``
given the question's vector adds a cosine ranking (numpy) to the fusion.

Threading rule: the store's thread (these take its connection).
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Sequence

from app.core.attachments import vectors as _vectors
from app.core.attachments.context import Source, fuse
from app.core.store import search as _search

CHUNK_TRIGRAM = "chunk_fts"
CHUNK_SHORT = "chunk_fts_short"
_F = _search.SHORT_TERMS_FUNCTION

#: A chunk's short-index terms: the ones made where it was read (``terms``),
#: else made here by the Python function (a v4 row, a chunk from elsewhere).
#: Made in the reading process, indexing a 300-page PDF runs no Python in
#: this one: the store thread no longer takes the window's GIL for ~0.2 s.
_TERMS = "CASE WHEN {row}.terms IS NOT NULL THEN {row}.terms ELSE " + _F + "({row}.text) END"

#: A blob's chunks' vectors of one model, as one float32 matrix (row i:
#: chunk ``ord`` i; fewer rows than chunks when an embedding was cut short).
#: One row per blob, not per chunk: a question over 10,000 chunks reads 20
#: rows in ~8 ms where 10,000 rows took ~25 (schema v5; v4 had ``chunk_vectors``).
#: With it (v5), the chunk triggers that use the chunks' own ``terms``.
VECTORS_SQL = f"""
CREATE TABLE IF NOT EXISTS blob_vectors (
    sha256 TEXT NOT NULL REFERENCES blobs(sha256) ON DELETE CASCADE,
    model TEXT NOT NULL,
    dim INTEGER NOT NULL,
    vectors BLOB NOT NULL,
    PRIMARY KEY (sha256, model)
);
DROP TRIGGER IF EXISTS chunks_index_insert;
CREATE TRIGGER chunks_index_insert AFTER INSERT ON chunks BEGIN
    INSERT INTO {CHUNK_TRIGRAM}(rowid, text) VALUES (new.rowid, new.text);
    INSERT INTO {CHUNK_SHORT}(rowid, terms) VALUES (new.rowid, {_TERMS.format(row="new")});
END;
DROP TRIGGER IF EXISTS chunks_index_delete;
CREATE TRIGGER chunks_index_delete AFTER DELETE ON chunks BEGIN
    INSERT INTO {CHUNK_TRIGRAM}({CHUNK_TRIGRAM}, rowid, text) VALUES ('delete', old.rowid, old.text);
    INSERT INTO {CHUNK_SHORT}({CHUNK_SHORT}, rowid, terms) VALUES ('delete', old.rowid, {_TERMS.format(row="old")});
END;
"""

SCHEMA_SQL = f"""
CREATE TABLE blobs (
    sha256 TEXT PRIMARY KEY,
    kind TEXT,
    size INTEGER,
    text TEXT,
    page_starts TEXT,
    data BLOB,
    mime TEXT
);
CREATE TABLE attachments (
    id TEXT PRIMARY KEY,
    conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    message_id TEXT,
    position INTEGER,
    name TEXT,
    kind TEXT,
    size INTEGER,
    pages INTEGER,
    chars INTEGER,
    tokens INTEGER,
    error TEXT,
    notice TEXT,
    mode TEXT,
    sha256 TEXT REFERENCES blobs(sha256),
    created_at REAL
);
CREATE INDEX attachments_by_conversation ON attachments(conversation_id, position);
CREATE INDEX attachments_by_message ON attachments(message_id);
CREATE INDEX attachments_by_blob ON attachments(sha256);
CREATE TABLE chunks (
    sha256 TEXT NOT NULL REFERENCES blobs(sha256) ON DELETE CASCADE,
    ord INTEGER NOT NULL,
    page INTEGER,
    start INTEGER,
    tokens INTEGER,
    text TEXT,
    terms TEXT,
    UNIQUE (sha256, ord)
);
CREATE TABLE reply_sources (
    message_id TEXT PRIMARY KEY,
    conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    sources TEXT
);
CREATE VIRTUAL TABLE {CHUNK_TRIGRAM} USING fts5(text, content='chunks', content_rowid='rowid', tokenize='trigram');
CREATE VIRTUAL TABLE {CHUNK_SHORT} USING fts5(terms, content='', tokenize='ascii');
CREATE TRIGGER attachments_blob_release AFTER DELETE ON attachments
WHEN old.sha256 IS NOT NULL AND NOT EXISTS (SELECT 1 FROM attachments WHERE sha256 = old.sha256) BEGIN
    DELETE FROM blobs WHERE sha256 = old.sha256;
END;
CREATE TRIGGER messages_attachments_delete AFTER DELETE ON messages BEGIN
    DELETE FROM attachments WHERE message_id = old.id;
    DELETE FROM reply_sources WHERE message_id = old.id;
END;
""" + VECTORS_SQL

#: Words too common to help find a chunk (English; other languages rank by bm25's idf alone).
STOPWORDS = frozenset(
    "the and for are but not you all any can had her was one our out has his how its may new now old see two "
    "who did get let put say she too use what when where which while with why will this that than then them "
    "they there these those from have into about does your their been were would could should also just some "
    "such only other over more most very each much many like page file attached document".split()
)
_WORD = re.compile(r"\w{3,}")
#: Terms taken from one question at most.
MAX_QUERY_TERMS = 48
#: Candidates each index ranks before fusion.
CANDIDATES = 50


def query_terms(question: str) -> tuple[list[str], list[str]]:
    """(trigram terms, short-index tokens) of a question: its words of 3+
    characters that are not stopwords, lower-cased; the bigrams of its CJK runs
    (single characters only for a run of one)."""
    dense = _search._RUN.findall(question)
    spaced = _search._RUN.sub(" ", question)
    words = list(dict.fromkeys(w.lower() for w in _WORD.findall(spaced) if w.lower() not in STOPWORDS))
    short: list[str] = []
    for run in dense:
        if len(run) == 1:
            short.append(run)
        short.extend(run[i : i + 2] for i in range(len(run) - 1))
    return words[:MAX_QUERY_TERMS], list(dict.fromkeys(short))[:MAX_QUERY_TERMS]


def _ranked(conn: sqlite3.Connection, table: str, expression: str, conversation_id: str) -> list[int]:
    # The matches are ranked first (MATERIALIZED), then kept if they belong
    # to the conversation. Written as ``MATCH ? AND rowid IN (its chunks)``,
    # SQLite ran one full-text query per chunk of the conversation: 6 s for a
    # question of common words over 4,000 chunks, against 11 ms this way
    # (``python -m benchmarks.retrieval``).
    sql = (
        f"WITH m AS MATERIALIZED (SELECT rowid AS r, bm25({table}) AS s FROM {table} WHERE {table} MATCH ?) "
        "SELECT m.r FROM m JOIN chunks AS c ON c.rowid = m.r WHERE EXISTS (SELECT 1 FROM attachments AS a "
        "WHERE a.sha256 = c.sha256 AND a.conversation_id = ? AND a.mode = 'retrieved') "
        f"ORDER BY m.s LIMIT {CANDIDATES}"
    )
    return [row[0] for row in conn.execute(sql, (expression, conversation_id))]


def _vector_ranked(conn: sqlite3.Connection, conversation_id: str, model: str, query: Sequence[float]) -> list[int]:
    rows = conn.execute(
        "SELECT v.sha256, v.dim, v.vectors FROM blob_vectors AS v WHERE v.model = ? AND v.sha256 IN ("
        "SELECT a.sha256 FROM attachments AS a WHERE a.conversation_id = ? AND a.mode = 'retrieved')",
        (model, conversation_id)).fetchall()
    best = _vectors.rank_blocks(query, [(str(sha), int(dim), bytes(data)) for sha, dim, data in rows])
    out: list[int] = []
    for sha, ord_ in best:  # only the best few are looked up
        row = conn.execute("SELECT rowid FROM chunks WHERE sha256 = ? AND ord = ?", (sha, ord_)).fetchone()
        if row is not None:
            out.append(int(row[0]))
    return out


ChunkKey = tuple[str, int]
"""A chunk by its blob and place: (sha256, ord)."""


def unembedded(conn: sqlite3.Connection, conversation_id: str, model: str, limit: int) -> list[tuple[ChunkKey, str]]:
    """(key, text) of at most ``limit`` retrieval chunks of ``conversation_id``
    beyond their blob's matrix of ``model`` (read before it was chosen), in order."""
    rows = conn.execute(
        "SELECT c.sha256, c.ord, c.text FROM chunks AS c "
        "LEFT JOIN blob_vectors AS v ON v.sha256 = c.sha256 AND v.model = ? "
        "WHERE c.sha256 IN (SELECT a.sha256 FROM attachments AS a WHERE a.conversation_id = ? AND a.mode = 'retrieved') "
        "AND c.ord >= coalesce(length(v.vectors) / (4 * v.dim), 0) "
        "ORDER BY c.sha256, c.ord LIMIT ?", (model, conversation_id, limit)).fetchall()
    return [((str(sha), int(ord_)), t or "") for sha, ord_, t in rows]


def append_vectors(conn: sqlite3.Connection, model: str, packed: Sequence[tuple[ChunkKey, bytes]]) -> int:
    """Add ``model``'s vectors of chunks (``unembedded``'s keys) to their
    blobs' matrices: each only right after the rows its blob has (a chunk
    whose text gave no vector gets zeros: it is never found by meaning, and
    the chunks after it are); returns how many were added."""
    by_blob: dict[str, list[tuple[int, bytes]]] = {}
    for (sha, ord_), vector in packed:
        by_blob.setdefault(sha, []).append((ord_, vector))
    sizes = {len(v) for _, v in packed if v}
    added = 0
    for sha, items in by_blob.items():
        row = conn.execute("SELECT dim, vectors FROM blob_vectors WHERE sha256 = ? AND model = ?", (sha, model)).fetchone()
        width = int(row[0]) * 4 if row else (sizes.pop() if len(sizes) == 1 else 0)
        if not width:
            continue
        data = bytearray(bytes(row[1]) if row else b"")
        for ord_, vector in sorted(items):
            if ord_ != len(data) // width:
                continue  # not the next row (another job added it meanwhile)
            if vector and len(vector) != width:
                continue
            data += vector or bytes(width)
            added += 1
        conn.execute("INSERT OR REPLACE INTO blob_vectors VALUES (?, ?, ?, ?)", (sha, model, width // 4, bytes(data)))
    return added


def save_vectors(conn: sqlite3.Connection, sha256: str, model: str, packed: Sequence[bytes]) -> int:
    """Keep ``model``'s vectors of a blob's chunks (``packed[i]``: chunk ``i``'s,
    ``vectors.pack``ed, all of one size); returns how many."""
    n_chunks = conn.execute("SELECT count(*) FROM chunks WHERE sha256 = ?", (sha256,)).fetchone()[0]
    kept = list(packed[:n_chunks])
    if not kept or len({len(p) for p in kept}) != 1 or not kept[0]:
        return 0
    conn.execute("INSERT OR REPLACE INTO blob_vectors VALUES (?, ?, ?, ?)",
                 (sha256, model, len(kept[0]) // 4, b"".join(kept)))
    return len(kept)


def retrieve(
    conn: sqlite3.Connection, conversation_id: str, question: str, limit: int = 20,
    query_vector: Sequence[float] | None = None, model: str = "",
) -> list[Source]:
    """The chunks of ``conversation_id``'s retrieval attachments that best
    match ``question``, best first (see the module docstring). With
    ``query_vector`` (the question embedded by ``model``), the chunks'
    vectors of that model are ranked by cosine too, and fused."""
    words, short = query_terms(question)
    rankings: list[list[int]] = []
    if query_vector is not None and model:
        rankings.append(_vector_ranked(conn, conversation_id, model, query_vector))
    if words:
        rankings.append(_ranked(conn, CHUNK_TRIGRAM, " OR ".join('"' + w.replace('"', '""') + '"' for w in words),
                                conversation_id))
    if short:
        rankings.append(_ranked(conn, CHUNK_SHORT, " OR ".join(_search._encode(t) for t in short), conversation_id))
    fused = fuse(rankings)[:limit]
    return sources_of_rowids(conn, conversation_id, fused)


def sources_of_rowids(conn: sqlite3.Connection, conversation_id: str, ranked: Sequence[tuple[int, float]]) -> list[Source]:
    if not ranked:
        return []
    marks = ",".join("?" * len(ranked))
    rows = conn.execute(
        "SELECT c.rowid, a.name, a.id, c.page, c.ord, c.tokens, c.text FROM chunks AS c "
        "JOIN attachments AS a ON a.sha256 = c.sha256 AND a.conversation_id = ? "
        f"WHERE c.rowid IN ({marks}) GROUP BY c.rowid",
        (conversation_id, *[r for r, _ in ranked]),
    ).fetchall()
    by_rowid = {row[0]: row for row in rows}
    out = []
    for rowid, score in ranked:
        row = by_rowid.get(rowid)
        if row is not None:
            _, name, attachment_id, page, ord_, tokens, text = row
            out.append(Source(name or "", int(page or 1), score, text or "", attachment_id, int(ord_), int(tokens or 0)))
    return out


def sources_json(sources: Sequence[Source]) -> str:
    return json.dumps([s.to_dict() for s in sources], ensure_ascii=False)


def sources_from_json(text: str | None) -> list[Source]:
    try:
        data = json.loads(text or "[]")
    except ValueError:
        return []
    return [Source.from_dict(d) for d in data if isinstance(d, dict)] if isinstance(data, list) else []
