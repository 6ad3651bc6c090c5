"""ItemRows: messages added, a history put in front, messages removed and
everything cleared, without moving what the reader looks at."""

from __future__ import annotations

from app.core.conversation.model import Message, MessageStatus
from app.ui.conversation.footer import footer_words
from app.ui.conversation.history import EarlierHistory, HistoryParams, make_history_items
from app.ui.conversation.items import ITEM_GAP, Pos
from tests.ui.conversation.parts import Parts


def _history(n: int) -> list[Message]:
    return Parts.rendered([Message("user" if k % 2 == 0 else "assistant", f"turn {k}\n" * 5) for k in range(n)])


def test_a_message_and_a_notice_join_the_end_and_the_bottom_is_followed(qapp) -> None:
    p = Parts()
    p.rows.add_messages(_history(40))
    assert p.completed == 1 and len(p.items.items) == 40
    p.scroll.to_bottom()
    user = Message("user", "hello *there*")
    p.rows.add_message(user)
    item = p.item(user)
    assert item.label == "You" and item.rendered_len == len(user), "a user message is shown as it is, at once"
    assert p.scroll.at_bottom()
    nid = p.rows.add_notice("Model not found", "error")
    assert p.items.items[-1].id == nid and p.items.items[-1].note_kind == "error"
    assert p.scroll.at_bottom()
    reply = Message("assistant", status=MessageStatus.STREAMING)
    p.rows.add_message(reply)
    assert p.item(reply).streaming and p.item(reply).tail is not None and p.item(reply).label == "Rill"


def test_earlier_history_goes_in_front_without_moving_the_view(qapp) -> None:
    p = Parts()
    p.rows.add_messages(_history(30))
    p.scroll.set_value(400)
    p.sel.anchor, p.sel.cursor = Pos(2, 0, 0), Pos(3, 0, 4)
    older = make_history_items(_history(5), HistoryParams(60, 17.0, 40.0, 20.0, "You", "Rill", footer_words()))
    p.rows.prepend_history(EarlierHistory.of(older), p.rows.generation + 1)  # from before a clear: dropped
    assert len(p.items.items) == 30 and p.completed == 1
    p.rows.prepend_history(EarlierHistory.of(older), p.rows.generation)
    added = sum(i.height + ITEM_GAP for i in older)
    assert len(p.items.items) == 35 and p.items.items[0] is older[0]
    assert p.items.top(5) == added and p.items.get(older[4].id) is older[4]
    assert p.items.index.get(p.items.items[5].id) == 5, "the shown ones are numbered after them"
    assert p.scroll.value == round(400 + added)
    assert (p.sel.anchor, p.sel.cursor) == (Pos(7, 0, 0), Pos(8, 0, 4)), "the selection moved with its text"
    assert p.completed == 2


def test_removing_messages_above_the_viewport_keeps_the_first_one_shown_in_place(qapp) -> None:
    p = Parts()
    msgs = _history(30)
    p.rows.add_messages(msgs)
    p.scroll.set_value(int(p.items.top(10)) + 5)  # item 10 at the top, 5 px scrolled into it
    p.sel.anchor, p.sel.cursor = Pos(20, 0, 0), Pos(21, 0, 3)
    p.results.finalizing.add(msgs[3].id)
    p.rows.remove([msgs[3].id, msgs[4].id, "unknown"])
    assert len(p.items.items) == 28
    assert p.items.index[msgs[10].id] == 8
    assert p.scroll.value == int(p.items.top(8)) + 5
    assert (p.sel.anchor, p.sel.cursor) == (Pos(18, 0, 0), Pos(19, 0, 3))
    assert p.render.cancelled == [msgs[3].id, msgs[4].id] and not p.results.finalizing
    p.rows.remove([msgs[21].id])  # the selection's cursor was in it
    assert p.sel.anchor is None and p.sel.cursor is None


def test_removing_messages_below_the_viewport_keeps_the_value(qapp) -> None:
    p = Parts()
    msgs = _history(30)
    p.rows.add_messages(msgs)
    p.scroll.set_value(200)
    p.rows.remove([msgs[25].id])
    assert p.scroll.value == 200 and msgs[25].id not in p.items.index


def test_clear_forgets_everything_at_once_and_frees_the_items_later(qapp) -> None:
    p = Parts()
    msgs = _history(10)
    p.rows.add_messages(msgs)
    p.live.update()
    p.run()
    assert any(u.doc is not None for i in p.items.items for u in i.units)
    old = list(p.items.items)
    generation = p.rows.generation
    p.rows.clear()
    assert p.items.items == [] and p.rows.generation == generation + 1 and p.render.cancelled_all == 1
    assert not p.window.live and p.sel.anchor is None
    assert p.slicer.busy, "the old items are freed in work slices"
    while p.slicer.busy:
        p.slicer.run_slice()
    assert all(u.doc is None for i in old for u in i.units), "their documents were let go"
