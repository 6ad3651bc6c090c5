"""StreamFlow: a streaming message from its first piece (thinking counted
apart, the answer in the tail) to its final render (the answer only)."""

from __future__ import annotations

from app.core.conversation.model import Message, MessageStatus
from app.ui.services.render import PRIORITY_NOW
from tests.ui.conversation.parts import Parts


def test_pieces_go_to_the_tail_complete_blocks_to_the_render_thread_and_the_end_renders_the_answer(qapp) -> None:
    p = Parts()
    msg = Message("assistant", status=MessageStatus.STREAMING)
    p.rows.add_message(msg)
    item = p.item(msg)
    before = item.height
    for piece in ("<think>let me see</think>", "First paragraph.\n\nSecond"):  # (one scan for blocks)
        msg.append(piece)
        p.flow.append(msg.id, piece)
    assert item.think is not None and item.think.words == 3
    assert item.tail is not None and item.tail.toPlainText() == "First paragraph.\n\nSecond"
    assert item.height > before, "measured again as it grew"
    assert [(job.kind, job.text) for job, _prio in p.render.jobs] == [("stream", "First paragraph.\n\n")]
    p.flow.append("unknown", "x")  # ignored
    msg.status = MessageStatus.COMPLETE
    p.flow.finish(msg.id)
    job, prio = p.render.jobs[-1]
    assert (job.kind, job.text, job.token, prio) == ("final", "First paragraph.\n\nSecond", len(msg), PRIORITY_NOW)
    assert not item.streaming and item.final_pending and msg.id in p.results.finalizing
    p.flow.append(msg.id, "late")  # no longer streaming: ignored
    assert item.tail.toPlainText().endswith("Second")


def test_a_reply_shown_again_mid_stream_gets_its_text_so_far_and_its_unfolded_thoughts(qapp) -> None:
    p = Parts()
    msg = Message("assistant", "<think>one two three</think>Para one.\n\nPara", status=MessageStatus.STREAMING)
    p.unfolder.set_expanded_by_id(msg.id, True)  # unfolded the last time it was shown
    p.rows.add_message(msg)
    item = p.item(msg)
    assert item.tail is not None and item.tail.toPlainText() == "Para one.\n\nPara"
    assert item.think is not None and item.think.expanded and item.think.filling
    p.run()
    assert item.think.doc is not None and item.think.doc.toPlainText() == "one two three"
    assert [job.kind for job, _prio in p.render.jobs] == ["stream"]
