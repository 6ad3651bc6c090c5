"""app.core.store.exchange.validate: a whole document checked before anything is written."""

from __future__ import annotations

import json

import pytest

from app.core.conversation.model import DEFAULT_SYSTEM_PROMPT, MessageStatus
from app.core.store.exchange.errors import ImportFormatError
from app.core.store.exchange.validate import decode_bytes, format_path, parse_export
from app.core.store.rows import ConversationInfo


def doc(**conv: object) -> str:
    base = {"id": "c", "title": "t", "created_at": 1.0, "updated_at": 2.0, "pinned": True, "model": "m",
            "params": {"seed": None}, "current_leaf": "r",
            "messages": [{"id": "r", "parent_id": "u", "role": "assistant", "content": "yo", "status": "streaming"},
                         {"id": "u", "parent_id": None, "role": "user", "content": "hi"}]}
    base.update(conv)
    return json.dumps({"format": "rill.export", "version": 1, "conversations": [base]})


def test_a_parsed_conversation_is_a_store_row_and_its_messages_parents_first() -> None:
    (parsed,) = parse_export(doc(system_prompt=DEFAULT_SYSTEM_PROMPT))
    assert parsed.info == ConversationInfo(id="c", title="t", created_at=1.0, updated_at=2.0, pinned=True, model="m",
                                           system_prompt=None, params={"seed": None}, current_leaf="r")
    assert [m.id for m in parsed.messages] == ["u", "r"]
    assert parsed.messages[1].status is MessageStatus.INTERRUPTED  # nothing streams into an imported message
    assert (parsed.id, parsed.title) == ("c", "t")


def test_a_bad_field_is_named_with_its_place() -> None:
    with pytest.raises(ImportFormatError) as err:
        parse_export(doc(pinned="yes"))
    assert err.value.path == "conversations[0].pinned" and err.value.line == 1
    assert format_path(("conversations", 0, "messages", 3, "role")) == "conversations[0].messages[3].role"


def test_bytes_that_are_not_utf8_are_refused_with_the_place() -> None:
    assert decode_bytes("\ufeffé".encode()) == "é"
    with pytest.raises(ImportFormatError) as err:
        decode_bytes(b'{\n  "a": "\xff"}')
    assert (err.value.line, err.value.column) == (2, 9)
