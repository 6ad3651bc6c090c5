"""A question's prompt plan: whole texts on their messages, excerpts on the question."""

from __future__ import annotations

from app.core.attachments.context import Source
from app.core.attachments.plan import Budget, PromptPlan, conversation_tokens, decide_new_modes, plan_prompt
from app.core.attachments.record import Attachment, AttachmentKind, AttachmentMode, Extracted


def test_whole_on_its_message_and_excerpts_on_the_question() -> None:
    whole = Attachment("a.md", AttachmentKind.TEXT, 10, sha256="s1", mode=AttachmentMode.WHOLE, tokens=5)
    retrieved = Attachment("b.pdf", AttachmentKind.PDF, 10, sha256="s2", mode=AttachmentMode.RETRIEVED, tokens=90_000)
    path = [("u1", "first"), ("r1", "answer"), ("u2", "second")]
    sources = [Source("b.pdf", 7, 1.0, "chunk seven", tokens=100), Source("b.pdf", 8, 0.5, "chunk eight", tokens=100)]
    budget = Budget(n_ctx=4096, reply_tokens=512, conversation_tokens=100)
    plan = plan_prompt(path, {"u1": [whole], "u2": [retrieved]}, {"s1": Extracted("whole text")}, "u2", sources, budget)
    assert plan.contents["u1"] == '<attachment name="a.md">\nwhole text\n</attachment>\n\nfirst'
    assert plan.contents["u2"].endswith("second") and "chunk seven" in plan.contents["u2"]
    assert "r1" not in plan.contents and plan.apply("r1", "answer") == "answer"
    assert plan.sources == tuple(sources) and plan.attachments == (whole, retrieved)
    # no room at all: no excerpts
    tight = Budget(n_ctx=600, reply_tokens=512, conversation_tokens=100)
    assert plan_prompt(path, {}, {}, "u2", sources, tight) == PromptPlan({}, (), ())


def test_modes_follow_the_context_left() -> None:
    atts = [Attachment("a", AttachmentKind.TEXT, 1, tokens=4000), Attachment("b", AttachmentKind.TEXT, 1, tokens=4000)]
    roomy = Budget(32768, 1024, conversation_tokens(["hello"] * 10))
    assert [a.mode for a in decide_new_modes(atts, roomy)] == [AttachmentMode.WHOLE] * 2
    small = Budget(0, 1024, 0)  # unknown context: 8192 assumed
    assert [a.mode for a in decide_new_modes(atts, small)] == [AttachmentMode.RETRIEVED] * 2
