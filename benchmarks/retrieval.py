"""Retrieval over a conversation's attachments: time per question at 10,000
chunks (issue #21's goal: <= 50 ms per question), keyword mode and keyword +
vector mode, Latin and Chinese, and whether the needle is found.

Builds an on-disk store (WAL, as the app's) through the store's own API:
one conversation whose user message carries ``--documents`` retrieval
attachments, their pages made of Zipf-weighted sentences (English, and one
Chinese document in ten) by ``store_search.TextMaker``, chunked by the app's
``chunk`` (~512 tokens). One fact is stated once, on one page of one
document, in each language. With ``--dim`` > 0 every chunk also gets a random
normalised vector of that size (an embedding model's 384 or 768), and the
needle's chunk a vector near the question's, as a real model would give.

Each question is timed through ``Store.retrieve`` (the 20 best chunks with
their texts, as a prompt gets them) and ``Store.plan_question`` (the whole
prompt plan: whole attachments, retrieval, budget), the first run and the
median of ``--repeat``.

    python -m benchmarks.retrieval                    # 10,000 chunks, keyword and 384-d vectors
    python -m benchmarks.retrieval --chunks 50000 --dim 768

Prints a table and, last, one JSON line.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.store_search import TextMaker

LATIN_NEEDLE = "The vault code of the harbour office is heliotrope-7731."
CHINESE_NEEDLE = "港口办公室金库的密码是紫罗兰七七三一。"
QUESTIONS = (
    ("latin, reuses the needle's words", "What is the vault code of the harbour office?", "heliotrope"),
    ("latin, common words only", "How does the server handle the request in this example?", ""),
    ("chinese, reuses the needle's words", "港口办公室金库的密码是什么？", "紫罗兰"),
    ("chinese, common words only", "用户界面的设计需要什么？", ""),
    ("no word of the documents", "zqxjvw plorbt?", ""),
)


def _page(maker: TextMaker, chinese: bool, chars: int) -> str:
    pool = maker.zh if chinese else maker.en
    parts: list[str] = []
    size = 0
    while size < chars:
        paragraph = (" " if not chinese else "").join(maker.rng.choices(pool, k=6))
        parts.append(paragraph)
        size += len(paragraph) + 2
    return "\n\n".join(parts)


def _open(path: Path) -> Any:
    from app.core.store import Store

    opened = Store.open(path)
    if opened.store is None:
        raise SystemExit(f"the store could not be opened: {opened.notices}")
    return opened.store


def build(path: Path, target_chunks: int, documents: int, dim: int, seed: int) -> dict[str, Any]:
    import numpy as np

    from app.core.attachments.chunking import chunk
    from app.core.attachments.record import Attachment, AttachmentKind, AttachmentMode, Extracted
    from app.core.conversation.model import Conversation
    from app.core.store import info_from_conversation
    from app.core.store.attachments import AttachmentContent

    maker = TextMaker(seed)
    rng = np.random.default_rng(seed)
    t0 = time.perf_counter()
    # A page of ~950 English characters (~250 Chinese) plus its neighbour's
    # overlap comes out as about one chunk of the app's chunker.
    per_doc = max(1, target_chunks // documents)
    with _open(path) as store:
        conv = Conversation(title="documents")
        store.create_conversation(info_from_conversation(conv))
        user = conv.add_user("question")
        store.add_message(conv.id, user)
        total = 0
        chars = 0
        latin_doc = documents // 3 + (1 if (documents // 3) % 10 == 0 else 0)  # an English document
        chinese_doc = (documents - 1) // 10 * 10  # documents 0, 10, 20, ... are Chinese
        for d in range(documents):
            chinese = d % 10 == 0
            pages = [_page(maker, chinese, 250 if chinese else 950) for _ in range(per_doc)]
            if d == latin_doc:
                pages[per_doc // 2] += "\n\n" + LATIN_NEEDLE
            if d == chinese_doc:
                pages[per_doc // 3] += "\n\n" + CHINESE_NEEDLE
            ext = Extracted.from_pages(pages)
            chunks = tuple(chunk(ext))
            vectors: tuple[tuple[float, ...], ...] = ()
            if dim:
                matrix = rng.standard_normal((len(chunks), dim)).astype("float32")
                vectors = tuple(tuple(float(x) for x in row) for row in matrix)
            name = f"{'报告' if chinese else 'report'}-{d:03d}.pdf"
            att = Attachment(name, AttachmentKind.PDF, len(ext.text) * 2, sha256=f"{d:064x}",
                             mode=AttachmentMode.RETRIEVED).with_text(ext)
            store.save_attachments(conv.id, user.id, [AttachmentContent(
                att, ext, chunks, vectors=vectors, vector_model="bench-embedder" if dim else "")])
            total += len(chunks)
            chars += len(ext.text)
    return {"conversation_id": conv.id, "user_id": user.id, "question_text": user.content, "chunks": total,
            "documents": documents, "text_mb": round(chars / 1e6, 1), "build_s": round(time.perf_counter() - t0, 1)}


def _query_vector(path: Path, needle: str, dim: int, seed: int) -> list[float]:
    """A question vector near the vector of the chunk holding ``needle`` (as a
    real model gives a question and its answer's passage similar vectors)."""
    import sqlite3

    import numpy as np

    from app.core.attachments.vectors import unpack

    conn = sqlite3.connect(path)
    try:
        row = conn.execute("SELECT v.dim, v.vectors, c.ord FROM chunks AS c JOIN blob_vectors AS v "
                           "ON v.sha256 = c.sha256 WHERE c.text LIKE ?", (f"%{needle}%",)).fetchone()
    finally:
        conn.close()
    rng = np.random.default_rng(seed + 1)
    noise = rng.standard_normal(dim).astype("float32") * 0.04
    base = unpack(bytes(row[1])).reshape(-1, int(row[0]))[int(row[2])] if row else np.zeros(dim, dtype="float32")
    return [float(x) for x in base + noise]


def measure(path: Path, built: dict[str, Any], repeat: int, dim: int, seed: int) -> list[dict[str, Any]]:
    from app.core.attachments.plan import Budget

    conv_id, user_id = built["conversation_id"], built["user_id"]
    rows: list[dict[str, Any]] = []
    with _open(path) as store:
        modes: list[tuple[str, bool]] = [("keyword", False)] + ([("keyword+vector", True)] if dim else [])
        for mode, with_vector in modes:
            for label, question, expect in QUESTIONS:
                vector = _query_vector(path, expect, dim, seed) if with_vector and expect else (
                    [float(x) for x in random.Random(seed).choices(range(-5, 6), k=dim)] if with_vector else None)
                model = "bench-embedder" if with_vector else ""
                times: list[float] = []
                plans: list[float] = []
                hits: list[Any] = []
                for _ in range(repeat + 1):
                    t = time.perf_counter()
                    hits = store.retrieve(conv_id, question, query_vector=vector, model=model)
                    times.append((time.perf_counter() - t) * 1000)
                    budget = Budget(8192, 512, 0)
                    t = time.perf_counter()
                    store.plan_question(conv_id, [(user_id, question)], user_id, question, budget, vector, model)
                    plans.append((time.perf_counter() - t) * 1000)
                rank = next((i + 1 for i, h in enumerate(hits) if expect and expect in h.text), None)
                rows.append({
                    "mode": mode, "label": label, "question": question, "hits": len(hits),
                    "has_needle": bool(expect), "needle_rank": rank, "first_ms": round(times[0], 2),
                    "median_ms": round(statistics.median(times[1:]), 2), "max_ms": round(max(times[1:]), 2),
                    "plan_median_ms": round(statistics.median(plans[1:]), 2),
                })
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chunks", type=int, default=10_000, help="about this many chunks in all")
    parser.add_argument("--documents", type=int, default=20)
    parser.add_argument("--dim", type=int, default=384, help="vector size (0: keyword mode only)")
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)

    tmp = Path(tempfile.mkdtemp(prefix="rill-retrieval-bench-"))
    try:
        path = tmp / "rill.db"
        print(f"building ~{args.chunks:,} chunks in {args.documents} documents ...", file=sys.stderr, flush=True)
        built = build(path, args.chunks, args.documents, args.dim, args.seed)
        built["db_mb"] = round(path.stat().st_size / 1e6, 1)
        rows = measure(path, built, args.repeat, args.dim, args.seed)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    res = {k: v for k, v in built.items() if k not in ("conversation_id", "user_id", "question_text")}
    res.update(dim=args.dim, repeat=args.repeat, goal_ms=50, questions=rows,
               worst_median_ms=max(r["median_ms"] for r in rows), worst_max_ms=max(r["max_ms"] for r in rows))
    print(f"\n{res['chunks']:,} chunks in {res['documents']} documents, text {res['text_mb']} MB, "
          f"database {res['db_mb']} MB, built in {res['build_s']} s; vectors: {args.dim or 'none'}")
    print(f"{'mode':<15} {'question':<36} {'hits':>4} {'needle':>6} {'first ms':>9} {'median ms':>10} "
          f"{'max ms':>8} {'plan ms':>8}")
    for r in rows:
        needle = str(r["needle_rank"]) if r["has_needle"] else "-"
        print(f"{r['mode']:<15} {r['label']:<36} {r['hits']:>4} {needle:>6} {r['first_ms']:>9} "
              f"{r['median_ms']:>10} {r['max_ms']:>8} {r['plan_median_ms']:>8}")
    print(json.dumps(res, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
