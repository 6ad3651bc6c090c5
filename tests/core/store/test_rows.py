"""app.core.store.rows: the only row <-> object mapping."""

from __future__ import annotations

from app.core.conversation.model import DEFAULT_SYSTEM_PROMPT, Conversation, Message, MessageMeta, MessageStatus
from app.core.store.rows import (
    ConversationInfo,
    conv_row,
    conversation_from_info,
    info_from_conversation,
    info_from_row,
    message_from_row,
    message_row,
)


def test_a_conversation_and_its_row_map_both_ways() -> None:
    conv = Conversation(title="t", pinned=True, model="m.gguf", overrides={"system_prompt": "be brief", "seed": None})
    user = conv.add_user("hi")
    reply = conv.start_reply()
    info = info_from_conversation(conv)
    assert (info.system_prompt, info.params, info.current_leaf) == ("be brief", {"seed": None}, reply.id)
    again = info_from_row(conv_row(info))
    assert again == info
    back = conversation_from_info(again, [user, reply])
    assert (back.id, back.title, back.pinned, back.model) == (conv.id, "t", True, "m.gguf")
    assert back.overrides == conv.overrides and back.system_prompt == "be brief"
    assert back.updated_at == info.updated_at and [m.id for m in back.messages] == [user.id, reply.id]


def test_no_own_prompt_means_the_default() -> None:
    back = conversation_from_info(ConversationInfo(system_prompt=None, params={"temperature": 0.1}), [])
    assert back.system_prompt == DEFAULT_SYSTEM_PROMPT and back.overrides == {"temperature": 0.1}
    assert info_from_conversation(back).system_prompt is None


def test_unreadable_params_read_as_none() -> None:
    row = list(conv_row(ConversationInfo(id="c")))
    row[7] = "{not json"
    assert info_from_row(tuple(row)).params == {}


def test_a_message_row_round_trip_and_the_streaming_mapping() -> None:
    msg = Message("assistant", "half", MessageStatus.STREAMING, meta=MessageMeta(model="m", tokens=3), parent_id="p")
    row = message_row("c", msg)
    same = message_from_row(row)
    assert (same.id, same.content, same.status, same.meta, same.parent_id) == (msg.id, "half", msg.status, msg.meta, "p")
    assert message_from_row(row, MessageStatus.INTERRUPTED).status is MessageStatus.INTERRUPTED
    done = message_row("c", Message("user", "x", MessageStatus.COMPLETE))
    assert message_from_row(done, MessageStatus.INTERRUPTED).status is MessageStatus.COMPLETE


def test_one_record_for_what_a_conversation_is() -> None:
    import dataclasses

    from app.core.conversation.model import ConversationMeta
    from app.core.store.exchange.validate import ParsedConversation

    meta = {f.name for f in dataclasses.fields(ConversationMeta)}
    assert meta == {"id", "title", "created_at", "updated_at", "pinned", "model"}
    assert issubclass(Conversation, ConversationMeta) and issubclass(ConversationInfo, ConversationMeta)
    # cut: the import's; attachments: format version 2 (app.core.store.exchange.attachments_json)
    assert {f.name for f in dataclasses.fields(ParsedConversation)} == {"info", "messages", "cut", "attachments"}
    conv = Conversation(title="x", pinned=True)
    info = info_from_conversation(conv)
    assert all(getattr(info, name) == getattr(conv, name) for name in meta)
