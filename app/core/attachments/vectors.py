"""Embedding vectors of chunks, and ranking by cosine similarity (Qt-free, numpy).

A vector is stored as little-endian float32 bytes, normalised to length 1
(``pack``), so the cosine of two is their dot product. The store keeps a
blob's chunks' vectors as one matrix (``blob_vectors``); ``rank_blocks``
scores a question's vector against each in one matrix product (10,000 chunks
of 384 dimensions: 15 MB, a few milliseconds) and returns the best (blob,
row) pairs. Matrices of another dimension than the question's (another
model) are skipped. ``app.core.store.chunks.retrieve`` fuses this ranking with
the keyword one.

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


def rank_blocks(query: Sequence[float], blocks: Sequence[tuple[str, int, bytes]],
                limit: int = CANDIDATES) -> list[tuple[str, int]]:
    """The (key, row) of the rows most similar to ``query``, best first, over
    ``blocks`` (key, dim, packed rows: a blob's chunks' vectors as one matrix).
    Blocks of another size than the query's are skipped."""
    q = unpack(pack(query))
    if not q.any():
        return []
    keys: list[tuple[str, int]] = []
    scores: list[np.ndarray] = []
    for key, dim, data in blocks:
        if dim != q.size or not data or len(data) % q.nbytes:
            continue
        matrix = np.frombuffer(data, dtype="<f4").reshape(-1, dim)
        scores.append(matrix @ q)
        keys.append((key, matrix.shape[0]))
    if not scores:
        return []
    flat = np.concatenate(scores)
    k = min(limit, flat.size)
    best = np.argpartition(-flat, k - 1)[:k]
    best = best[np.argsort(-flat[best], kind="stable")]
    starts = np.cumsum([0] + [n for _, n in keys])
    out = []
    for i in best:
        b = int(np.searchsorted(starts, i, side="right")) - 1
        out.append((keys[b][0], int(i - starts[b])))
    return out
