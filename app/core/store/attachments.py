"""The store's attachment methods (mixed into ``Store``): save an
attachment with its blob and chunks, load a conversation's attachments and
their texts, retrieve chunks for a question, keep a reply's sources.

Writes go through the store's write machinery (``_write``: the retry queue,
one transaction each). See ``app.core.store.chunks`` for the tables.

Threading rule: the store's thread, as every ``Store`` method.
"""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from app.core.attachments.chunking import Chunk
from app.core.attachments.context import Source
from app.core.attachments.plan import Budget, PromptPlan, plan_prompt
from app.core.attachments.record import Attachment, AttachmentKind, AttachmentMode, Extracted
from app.core.attachments.vectors import pack
from app.core.store import chunks as _chunks
from app.core.store.writes import WritingStore, _Op


@dataclass(frozen=True)
class AttachmentContent:
    """What is saved for one attachment: its record, its text and chunks
    (None / empty for an image or a failure), an image's scaled bytes."""

    attachment: Attachment
    extracted: Extracted | None = None
    chunks: tuple[Chunk, ...] = ()
    image: bytes = b""
    mime: str = ""
    #: The chunks' embedding vectors (in chunk order) and the model that made them ("" : none).
    vectors: tuple[tuple[float, ...], ...] = ()
    vector_model: str = ""


def _kind(value: str | None) -> AttachmentKind:
    try:
        return AttachmentKind(value or "unknown")
    except ValueError:
        return AttachmentKind.UNKNOWN


def _mode(value: str | None) -> AttachmentMode:
    try:
        return AttachmentMode(value or "none")
    except ValueError:
        return AttachmentMode.NONE


class AttachmentRecords(WritingStore):
    """See the module docstring."""

    def save_attachments(self, conversation_id: str, message_id: str, items: Sequence[AttachmentContent]) -> None:
        """Store ``items`` as the attachments of ``message_id`` (in order). A
        blob already stored (the same file) is reused with its chunks; saving
        again updates the rows (retries are harmless)."""
        now = time.time()
        rows = []
        for position, item in enumerate(items):
            a = item.attachment
            sha = a.sha256 or None
            blob = None
            if sha is not None:
                text = item.extracted.text if item.extracted is not None else None
                starts = json.dumps(list(item.extracted.page_starts)) if item.extracted is not None else None
                chunk_rows = [(sha, c.index, c.page, c.start, c.tokens, c.text, c.terms or None) for c in item.chunks]
                packed = [pack(v) for v in item.vectors] if item.vector_model else []
                blob = ((sha, a.kind.value, a.size, text, starts, item.image or None, item.mime or None), chunk_rows,
                        item.vector_model, packed)
            rows.append(((a.id, conversation_id, message_id, position, a.name, a.kind.value, a.size, a.pages, a.chars,
                          a.tokens, a.error, a.notice, a.mode.value, sha, now), blob))
        self._write(_Op("save_attachments", message_id, (conversation_id, rows), conversation_id))

    def _do_save_attachments(self, payload: tuple[str, list[tuple[tuple[Any, ...], Any]]]) -> None:
        conversation_id, rows = payload
        with self._tx() as conn:
            conn.execute("INSERT OR IGNORE INTO conversations(id, title, created_at, updated_at) VALUES (?, '', ?, ?)",
                         (conversation_id, time.time(), time.time()))
            for row, blob in rows:
                if blob is not None:
                    blob_row, chunk_rows, vector_model, packed = blob
                    cur = conn.execute("INSERT OR IGNORE INTO blobs VALUES (?, ?, ?, ?, ?, ?, ?)", blob_row)
                    if cur.rowcount:  # a new blob: index its chunks (a known one has them)
                        conn.executemany(
                            "INSERT INTO chunks(sha256, ord, page, start, tokens, text, terms) VALUES (?, ?, ?, ?, ?, ?, ?)",
                            chunk_rows)
                    if vector_model and packed:
                        _chunks.save_vectors(conn, blob_row[0], vector_model, packed)
                conn.execute("INSERT OR REPLACE INTO attachments VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", row)

    def set_attachment_modes(self, conversation_id: str, modes: dict[str, AttachmentMode]) -> None:
        """Change attachments' modes (whole ↔ retrieved: the context changed)."""
        payload = [(m.value, attachment_id) for attachment_id, m in modes.items()]
        self._write(_Op("set_attachment_modes", conversation_id, payload, conversation_id))

    def _do_set_attachment_modes(self, payload: list[tuple[str, str]]) -> None:
        with self._tx() as conn:
            conn.executemany("UPDATE attachments SET mode = ? WHERE id = ?", payload)

    def load_attachments(self, conversation_id: str) -> list[tuple[str, Attachment]]:
        """(message id, attachment) of every attachment of ``conversation_id``, in order."""
        rows = self.conn.execute(
            "SELECT message_id, id, name, kind, size, pages, chars, tokens, error, notice, mode, sha256 "
            "FROM attachments WHERE conversation_id = ? ORDER BY created_at, position", (conversation_id,)).fetchall()
        return [(mid or "", Attachment(name or "", _kind(kind), int(size or 0), id=aid, pages=int(pages or 0),
                                       chars=int(chars or 0), tokens=int(tokens or 0), error=error or "",
                                       notice=notice or "", sha256=sha or "", mode=_mode(mode)))
                for mid, aid, name, kind, size, pages, chars, tokens, error, notice, mode, sha in rows]

    def load_text(self, sha256: str) -> Extracted | None:
        """The text stored for a blob (None: no such blob or no text)."""
        row = self.conn.execute("SELECT text, page_starts FROM blobs WHERE sha256 = ?", (sha256,)).fetchone()
        if row is None or row[0] is None:
            return None
        try:
            starts = tuple(int(s) for s in json.loads(row[1] or "[0]")) or (0,)
        except (ValueError, TypeError):
            starts = (0,)
        return Extracted(row[0], starts)

    def load_image(self, sha256: str) -> tuple[bytes, str] | None:
        row = self.conn.execute("SELECT data, mime FROM blobs WHERE sha256 = ?", (sha256,)).fetchone()
        if row is None or row[0] is None:
            return None
        return bytes(row[0]), row[1] or ""

    def retrieve(self, conversation_id: str, question: str, limit: int = 20,
                 query_vector: Sequence[float] | None = None, model: str = "") -> list[Source]:
        """The retrieval chunks of ``conversation_id`` that best match
        ``question`` (and ``query_vector``, the question embedded by ``model``)."""
        return _chunks.retrieve(self.conn, conversation_id, question, limit, query_vector, model)

    def save_vectors(self, sha256: str, model: str, vectors: Sequence[Sequence[float]]) -> None:
        """Keep an embedding model's vectors of a blob's chunks (in chunk order)."""
        self._write(_Op("save_vectors", sha256, (sha256, model, [pack(v) for v in vectors])))

    def _do_save_vectors(self, payload: tuple[str, str, list[bytes]]) -> None:
        with self._tx() as conn:
            _chunks.save_vectors(conn, *payload)

    def unembedded_chunks(self, conversation_id: str, model: str, limit: int) -> list[tuple[_chunks.ChunkKey, str]]:
        """(key, text) of at most ``limit`` retrieval chunks of the conversation
        that have no vector of ``model`` yet (read before it was chosen)."""
        return _chunks.unembedded(self.conn, conversation_id, model, limit)

    def save_chunk_vectors(self, model: str, vectors: Sequence[tuple[_chunks.ChunkKey, Sequence[float]]]) -> None:
        """Keep ``model``'s vectors of chunks by key (``unembedded_chunks``;
        an empty vector: that chunk's text gave none)."""
        packed = [(key, pack(v) if v else b"") for key, v in vectors]
        if packed:
            self._write(_Op("save_chunk_vectors", model, (model, packed)))

    def _do_save_chunk_vectors(self, payload: tuple[str, list[tuple[_chunks.ChunkKey, bytes]]]) -> None:
        with self._tx() as conn:
            _chunks.append_vectors(conn, *payload)

    def save_sources(self, conversation_id: str, message_id: str, sources: Sequence[Source]) -> None:
        """Keep the chunks reply ``message_id`` was given."""
        self._write(_Op("save_sources", message_id, (message_id, conversation_id, _chunks.sources_json(sources)),
                        conversation_id))

    def _do_save_sources(self, row: tuple[str, str, str]) -> None:
        self.conn.execute("INSERT OR REPLACE INTO reply_sources VALUES (?, ?, ?)", row)

    def load_sources(self, conversation_id: str) -> dict[str, list[Source]]:
        rows = self.conn.execute("SELECT message_id, sources FROM reply_sources WHERE conversation_id = ?",
                                 (conversation_id,)).fetchall()
        return {mid: _chunks.sources_from_json(text) for mid, text in rows}

    def plan_question(
        self, conversation_id: str, path: Sequence[tuple[str, str]], question_id: str, question: str, budget: Budget,
        query_vector: Sequence[float] | None = None, vector_model: str = "",
    ) -> PromptPlan:
        """The prompt plan for ``question`` (``app.core.attachments.plan``): the
        path's whole attachments with their texts, and the retrieval chunks
        that best match it."""
        on_path = {mid for mid, _ in path}
        attached: dict[str, list[Attachment]] = {}
        any_retrieved = False
        for mid, att in self.load_attachments(conversation_id):
            any_retrieved = any_retrieved or att.mode is AttachmentMode.RETRIEVED
            if mid in on_path:
                attached.setdefault(mid, []).append(att)
        texts: dict[str, Extracted] = {}
        for atts in attached.values():
            for a in atts:
                if a.mode is AttachmentMode.WHOLE and a.sha256 and a.sha256 not in texts:
                    text = self.load_text(a.sha256)
                    if text is not None:
                        texts[a.sha256] = text
        images: dict[str, tuple[str, str]] = {}
        for atts in attached.values():
            for a in atts:
                if a.kind is AttachmentKind.IMAGE and a.ok and a.sha256 and a.sha256 not in images:
                    stored = self.load_image(a.sha256)
                    if stored is not None:
                        images[a.sha256] = (stored[1] or "image/png", base64.b64encode(stored[0]).decode("ascii"))
        retrieved = self.retrieve(conversation_id, question, query_vector=query_vector, model=vector_model) \
            if any_retrieved else []
        return plan_prompt(path, attached, texts, question_id, retrieved, budget, images)

    def blob_count(self) -> int:
        return int(self.conn.execute("SELECT count(*) FROM blobs").fetchone()[0])
