"""MessageViewAdapter: the model's row changes, applied to a real ChatView."""

from __future__ import annotations

from app.core.conversation.model import Conversation
from app.ui.conversation.model import MessageListModel
from app.ui.conversation.view import ChatView
from app.ui.conversation.view_adapter import MessageViewAdapter


def setup(view: ChatView) -> tuple[MessageListModel, MessageViewAdapter, list[list[str]]]:
    model = MessageListModel()
    adapter = MessageViewAdapter(model, view)
    dropped: list[list[str]] = []
    adapter.messages_dropped.connect(dropped.append)
    return model, adapter, dropped


def answered(conv: Conversation, prompt: str, answer: str) -> tuple[str, str]:
    user = conv.add_user(prompt)
    reply = conv.start_reply()
    reply.append(answer)
    reply.status = user.status  # complete
    return user.id, reply.id


def test_a_reset_shows_the_conversation_and_drops_what_was_shown(view: ChatView) -> None:
    model, _, dropped = setup(view)
    a, b = Conversation(title="a"), Conversation(title="b")
    a_ids = answered(a, "one", "uno")
    b_ids = answered(b, "two", "dos") + answered(b, "three", "tres")
    model.show(a)
    assert view.message_ids() == list(a_ids) and dropped == [[]]
    model.show(b)
    assert view.message_ids() == list(b_ids)
    assert dropped == [[], list(a_ids)]


def test_inserted_rows_are_appended_without_a_reset(view: ChatView) -> None:
    model, _, dropped = setup(view)
    conv = Conversation(title="c")
    first = answered(conv, "one", "uno")
    model.show(conv)
    dropped.clear()
    user = conv.add_user("two")
    reply = conv.start_reply()  # streaming: shown with a live tail
    assert model.sync() == 2
    assert view.message_ids() == [*first, user.id, reply.id]
    assert view.has_item(reply.id)
    assert dropped == []  # nothing left the view: no reset


def test_a_regenerated_reply_replaces_the_old_one_and_keeps_the_rest(view: ChatView) -> None:
    model, _, dropped = setup(view)
    conv = Conversation(title="c")
    first = answered(conv, "one", "uno")
    user_id, old_reply = answered(conv, "two", "dos")
    model.show(conv)
    dropped.clear()
    sibling = conv.start_reply(parent_id=user_id)  # regenerate: a sibling of the old reply
    sibling.append("zwei")
    sibling.status = conv.get(user_id).status  # it exists
    assert model.sync() == 3
    assert view.message_ids() == [*first, user_id, sibling.id]
    assert not view.has_item(old_reply)
    assert dropped == [[old_reply]]  # only the removed row left the view


def test_switching_back_to_a_shorter_path_removes_the_tail(view: ChatView) -> None:
    model, _, dropped = setup(view)
    conv = Conversation(title="c")
    u1, r1 = answered(conv, "one", "uno")
    u2, r2 = answered(conv, "two", "dos")
    model.show(conv)
    dropped.clear()
    alt = conv.add_user("other two", parent_id=r1)  # an edited second prompt: a new branch
    assert model.sync() == 2
    assert view.message_ids() == [u1, r1, alt.id]
    assert dropped == [[u2, r2]]
    conv.switch_to(r2)  # and back to the first branch
    model.sync()
    assert view.message_ids() == [u1, r1, u2, r2]
    assert dropped[-1] == [alt.id]


def test_a_row_removed_and_inserted_again_stays_in_the_view_once(view: ChatView) -> None:
    model, _, dropped = setup(view)
    conv = Conversation(title="c")
    u1, r1 = answered(conv, "one", "uno")
    model.show(conv)
    dropped.clear()
    assert model.sync(redo_from=r1) == 1  # a stopped reply that goes on in place
    assert view.message_ids() == [u1, r1]
    assert dropped == [[r1]]
