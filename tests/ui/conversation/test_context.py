"""DroppedNotices: what the model no longer sees, said once per change."""

from __future__ import annotations

from app.core.conversation.model import Conversation
from app.ui.conversation.context import DroppedNotices


def conversation(n: int) -> tuple[Conversation, list[str]]:
    conv = Conversation(title="long")
    ids = []
    for i in range(n):
        ids.append(conv.add_user(f"question   number\n{i}").id)
    return conv, ids


def test_a_notice_comes_only_when_the_number_dropped_changes(qapp) -> None:
    conv, ids = conversation(5)
    notices = DroppedNotices()
    assert notices.notice(conv, (), shown=True) is None  # nothing dropped
    first = notices.notice(conv, tuple(ids[:2]), shown=True)
    assert first is not None and "2 earlier messages" in first
    assert notices.notice(conv, tuple(ids[:2]), shown=True) is None  # told already
    assert notices.notice(conv, tuple(ids[1:3]), shown=True) is None  # same number: nothing new to say
    third = notices.notice(conv, tuple(ids[:3]), shown=True)
    assert third is not None and "3 earlier messages" in third
    assert notices.notice(conv, (), shown=True) is None  # everything fits again
    assert notices.notice(conv, tuple(ids[:3]), shown=True) is not None  # ... and then no longer does


def test_the_notice_names_excerpts_of_the_first_and_last_message_dropped(qapp) -> None:
    conv, ids = conversation(4)
    long = conv.add_user("word " * 30)
    text = DroppedNotices().notice(conv, (ids[0], ids[2]), shown=True)
    assert text is not None
    assert "from “question number 0” to “question number 2”" in text  # whitespace folded
    one = DroppedNotices().notice(conv, (long.id,), shown=True)
    assert one is not None and "an earlier message (“" in one
    excerpt = one.split("“")[1].split("”")[0]
    assert len(excerpt) == 40 and excerpt.endswith("…") and excerpt.startswith("word word")


def test_unknown_ids_give_the_notice_without_excerpts(qapp) -> None:
    conv, _ = conversation(1)
    one = DroppedNotices().notice(conv, ("gone",), shown=True)
    assert one is not None and "an earlier message." in one and "“" not in one
    many = DroppedNotices().notice(conv, ("gone", "also gone"), shown=True)
    assert many is not None and "2 earlier messages." in many


def test_a_conversation_not_shown_gets_no_notice_but_is_remembered(qapp) -> None:
    a, a_ids = conversation(3)
    b, b_ids = conversation(3)
    notices = DroppedNotices()
    assert notices.notice(a, tuple(a_ids[:2]), shown=False) is None
    # Shown later with the same number dropped: it was counted, nothing to say.
    assert notices.notice(a, tuple(a_ids[:2]), shown=True) is None
    # Every conversation has its own count.
    assert notices.notice(b, tuple(b_ids[:2]), shown=True) is not None
