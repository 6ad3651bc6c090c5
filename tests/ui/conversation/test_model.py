"""The message-list model: a path change removes and inserts only the rows
from where the old and new path part; another conversation is a reset."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.core.conversation.deletion import MessageDeletion
from app.core.conversation.model import Conversation, Message, MessageStatus, Role
from app.ui.conversation.model import (
    ACTIONS_ROLE,
    BRANCH_ROLE,
    ID_ROLE,
    ROLE_ROLE,
    STATUS_ROLE,
    MessageListModel,
)


def branched(split: int = 59, before: int = 60, after: int = 60) -> tuple[Conversation, Message, Message]:
    """``before`` messages, then at row ``split`` (an assistant reply) a second
    version with its own ``after - 1`` follow-ups; the path is the first version's."""
    conv = Conversation()
    msgs = []
    for i in range(before + after):
        role = Role.USER.value if i % 2 == 0 else Role.ASSISTANT.value
        msgs.append(conv.add(Message(role, f"message {i}", created_at=float(i))))
    first = msgs[split]
    second = conv.add(
        Message(Role.ASSISTANT.value, "second version", created_at=1000.0, parent_id=msgs[split - 1].id), follow=False
    )
    parent = second
    for i in range(after - 1 + (before - split - 1)):
        role = Role.USER.value if i % 2 == 0 else Role.ASSISTANT.value
        parent = conv.add(Message(role, f"other {i}", created_at=1001.0 + i, parent_id=parent.id), follow=False)
    conv.switch_to(msgs[-1].id)
    return conv, first, second


class Spy:
    """Every structural signal of a model, in order."""

    def __init__(self, model: MessageListModel) -> None:
        self.events: list[tuple[Any, ...]] = []
        model.modelReset.connect(lambda: self.events.append(("reset",)))
        model.rowsAboutToBeRemoved.connect(lambda _p, a, b: self.events.append(("remove", a, b)))
        model.rowsInserted.connect(lambda _p, a, b: self.events.append(("insert", a, b)))
        model.dataChanged.connect(lambda tl, br, _r: self.events.append(("changed", tl.row(), br.row())))


@pytest.fixture
def model(qapp):
    return MessageListModel()


def test_show_is_a_reset_and_rows_are_the_path(model: MessageListModel) -> None:
    conv, first, _ = branched()
    spy = Spy(model)
    model.show(conv)
    assert spy.events == [("reset",)]
    assert model.rowCount() == 120
    assert model.message_ids() == [m.id for m in conv.messages]
    index = model.index(59)
    assert model.data(index, ID_ROLE) == first.id
    assert model.data(index, ROLE_ROLE) == Role.ASSISTANT.value
    assert model.data(index, STATUS_ROLE) == MessageStatus.COMPLETE
    assert model.data(index, BRANCH_ROLE) == (1, 2)
    assert model.data(index, ACTIONS_ROLE) == ("regenerate", "delete")
    assert model.data(model.index(0), ACTIONS_ROLE) == ("edit", "delete")
    assert model.data(model.index(0), BRANCH_ROLE) is None


def test_a_version_switch_in_the_middle_replaces_only_the_rows_after_it(model: MessageListModel) -> None:
    conv, first, second = branched()
    model.show(conv)
    kept = model.messages(0, 58)
    spy = Spy(model)
    conv.switch_to(second.id)
    assert model.sync() == 59
    assert spy.events == [("remove", 59, 119), ("insert", 59, len(conv.messages) - 1)]
    assert model.messages(0, 58) == kept and all(a is b for a, b in zip(model.messages(0, 58), kept, strict=False))
    assert model.message_ids() == [m.id for m in conv.messages]
    assert model.row_of(second.id) == 59 and model.row_of(first.id) == -1


def test_delete_undo_and_regenerate_touch_the_rows_from_the_change_on(model: MessageListModel) -> None:
    conv, first, second = branched()
    conv.switch_to(second.id)
    model.show(conv)
    n = len(conv.messages)
    spy = Spy(model)
    deletion = MessageDeletion.apply(conv, second.id)
    assert deletion is not None and deletion.count == n - 59
    model.sync()
    assert spy.events == [("remove", 59, n - 1), ("insert", 59, 119)]  # the path moves to the other version
    assert model.row_of(first.id) == 59
    spy.events.clear()
    assert deletion.undo() and not deletion.undo()
    model.sync()
    assert spy.events == [("remove", 59, 119), ("insert", 59, n - 1)]
    assert model.row_of(second.id) == 59
    # Regenerate the last reply: only the last row goes and comes.
    spy.events.clear()
    conv.start_reply(parent_id=conv.messages[-2].id)
    model.sync()
    assert spy.events == [("remove", n - 1, n - 1), ("insert", n - 1, n - 1)]


def test_nothing_changes_nothing_and_a_footer_change_is_data_changed(model: MessageListModel) -> None:
    conv = Conversation()
    conv.add(Message(Role.USER.value, "hi"))
    stopped = conv.add(Message(Role.ASSISTANT.value, "half", status=MessageStatus.STOPPED))
    model.show(conv)
    spy = Spy(model)
    assert model.sync() == -1
    assert spy.events == []
    assert model.decoration(stopped.id) == (None, ("regenerate", "continue", "delete"))
    conv.add_user("more")
    model.sync()
    # The stopped reply is no longer the last one: it loses Continue (a footer change, not a new row).
    assert spy.events == [("insert", 2, 2), ("changed", 1, 1)]
    assert model.decoration(stopped.id) == (None, ("regenerate", "delete"))


def test_a_message_continued_in_place_is_removed_and_inserted_again(model: MessageListModel) -> None:
    conv = Conversation()
    conv.add(Message(Role.USER.value, "hi"))
    stopped = conv.add(Message(Role.ASSISTANT.value, "half", status=MessageStatus.STOPPED))
    model.show(conv)
    spy = Spy(model)
    stopped.status = MessageStatus.STREAMING
    model.sync(redo_from=stopped.id)
    assert spy.events == [("remove", 1, 1), ("insert", 1, 1)]


@given(st.lists(st.integers(min_value=0, max_value=1000), min_size=1, max_size=60), st.data())
def test_the_rows_two_paths_share_are_found_as_a_row_by_row_walk_finds_them(parents: list[int], data: Any) -> None:
    """Two root-to-leaf paths of one tree: the shared rows, by binary search."""
    from app.ui.conversation.model import _common_prefix

    nodes = [Message("user", "root")]
    for p in parents:  # each new message answers one of the earlier ones
        nodes.append(Message("user", str(len(nodes)), parent_id=nodes[p % len(nodes)].id))
    by_id = {m.id: m for m in nodes}

    def path(leaf: Message) -> list[Message]:
        out = [leaf]
        while out[-1].parent_id is not None:
            out.append(by_id[out[-1].parent_id])
        return out[::-1]

    a = path(data.draw(st.sampled_from(nodes)))
    b = path(data.draw(st.sampled_from(nodes)))
    walk = 0
    while walk < min(len(a), len(b)) and a[walk] is b[walk]:
        walk += 1
    assert _common_prefix(a, b) == walk
