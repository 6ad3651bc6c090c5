"""Embedding vectors of chunks, and ranking by cosine similarity (Qt-free, numpy).

A vector is stored as little-endian float32 bytes, normalised to length 1
(``pack``), so the cosine of two is their dot product; ``rank`` scores a
question's vector against a matrix of chunk vectors in one matrix product
(10,000 chunks of 384 dimensions: a 15 MB matrix, a few milliseconds) and
returns the best ids. Vectors of another dimension than the question's
(another model) are skipped. The store keeps them (``chunk_vectors``) and
fuses this ranking with the keyword one (``app.core.store.chunks.retrieve``).

Threading rule: pure functions, any thread (numpy releases the GIL in the product).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

#: Chunks a vector ranking keeps (as the keyword ranking's candidates).
CANDIDATES = 50


def pack(vector: Sequence[float]) -> bytes:
    """``vector`` as float32 bytes, normalised (a zero vector stays zero)."""
    v = np.asarray(vector, dtype="<f4")
    norm = float(np.linalg.norm(v))
    if norm > 0:
        v = v / norm
    return v.astype("<f4").tobytes()


def unpack(data: bytes) -> np.ndarray:
    return np.frombuffer(data, dtype="<f4")


def rank(query: Sequence[float], rows: Sequence[tuple[int, bytes]], limit: int = CANDIDATES) -> list[int]:
    """The ids of ``rows`` (id, packed vector) most similar to ``query``, best first."""
    q = unpack(pack(query))
    usable = [(rid, data) for rid, data in rows if len(data) == q.nbytes]
    if not usable or not q.any():
        return []
    matrix = np.frombuffer(b"".join(data for _, data in usable), dtype="<f4").reshape(len(usable), q.size)
    scores = matrix @ q
    k = min(limit, len(usable))
    best = np.argpartition(-scores, k - 1)[:k]
    best = best[np.argsort(-scores[best], kind="stable")]
    return [usable[int(i)][0] for i in best]
