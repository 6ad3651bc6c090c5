"""Whole or retrieval, the prompt's blocks, sources and reciprocal-rank fusion."""

from __future__ import annotations

from app.core.attachments.context import (
    Source,
    excerpts_block,
    fuse,
    plan_modes,
    retrieval_budget,
    sources_line,
    whole_block,
    whole_budget,
    with_attachments,
    within_budget,
)
from app.core.attachments.record import Attachment, AttachmentKind, AttachmentMode


def att(tokens: int, kind: AttachmentKind = AttachmentKind.TEXT, error: str = "") -> Attachment:
    return Attachment("f.txt", kind, 10, tokens=tokens, error=error)


def test_whole_when_they_fit_else_retrieved() -> None:
    budget = whole_budget(n_ctx=8192, conversation_tokens=1000, reply_tokens=1024)
    assert budget == 8192 - 1000 - 1024 - 256
    fits = [att(3000), att(2000), att(0, AttachmentKind.IMAGE), att(5, error="bad")]
    assert plan_modes(fits, budget) == [AttachmentMode.WHOLE, AttachmentMode.WHOLE, AttachmentMode.NONE, AttachmentMode.NONE]
    assert plan_modes([att(3000), att(3000)], budget) == [AttachmentMode.RETRIEVED] * 2
    assert retrieval_budget(8192, 1000, 1024) == 4096
    assert whole_budget(100, 1000, 10) == 0


def test_blocks_and_question() -> None:
    a = Attachment('a "b".pdf', AttachmentKind.PDF, 1)
    block = whole_block(a, "one\n\ntwo", (0, 5))
    assert block.startswith('<attachment name="a &quot;b&quot;.pdf">') and "[page 2]\ntwo" in block
    s = [Source("r.pdf", 217, 1.0, "the fact"), Source("r.pdf", 3, 0.5, "other")]
    ex = excerpts_block(s)
    assert '<excerpt source="r.pdf p. 217">\nthe fact\n</excerpt>' in ex
    assert excerpts_block([]) == ""
    assert with_attachments("Q?", [block, ""]) == block + "\n\nQ?"
    assert with_attachments("Q?", []) == "Q?"
    assert sources_line(s + [Source("n.md", 1, 0.1, "x"), Source("r.pdf", 3, 0.1, "dup")]) == \
        "Sources: r.pdf p. 3, p. 217; n.md p. 1"


def test_budget_and_round_trip() -> None:
    ranked = [Source("a", 1, 3.0, "x", tokens=400), Source("a", 2, 2.0, "y", tokens=500), Source("a", 3, 1.0, "z", tokens=50)]
    assert [s.page for s in within_budget(ranked, 500)] == [1, 3]
    assert [s.page for s in within_budget(ranked, 10_000, limit=2)] == [1, 2]
    assert Source.from_dict(ranked[0].to_dict()) == ranked[0]
    assert ranked[0].to_report()["text"] == "x"


def test_reciprocal_rank_fusion() -> None:
    fused = fuse([["a", "b", "c"], ["c", "a"]])
    assert [k for k, _ in fused] == ["a", "c", "b"]
    assert fused[0][1 ] == 1 / 61 + 1 / 62
