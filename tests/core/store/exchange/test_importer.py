"""app.core.store.exchange.importer: all or nothing, copies for taken ids."""

from __future__ import annotations

import json

from app.core.store import Store
from app.core.store.exchange.errors import ExchangeError, ImportFormatError, UnknownConversationError
from app.core.store.exchange.importer import StoreWriter, import_json


def _doc() -> str:
    return json.dumps({"format": "rill.export", "version": 1, "conversations": [
        {"id": "c", "title": "t", "created_at": 1.0, "updated_at": 2.0, "current_leaf": "u",
         "messages": [{"id": "u", "parent_id": None, "role": "user", "content": "hi"}]}]})


def test_importing_twice_makes_a_copy_with_new_ids() -> None:
    store: StoreWriter = Store.in_memory()
    first = import_json(store, _doc())
    assert first.conversation_ids == ("c",) and first.copies == () and first.messages == 1
    again = import_json(store, _doc())
    ((old, new),) = again.copies
    assert old == "c" and new != "c" and again.conversation_ids == (new,)
    copy = store.get_conversation(new)
    assert copy is not None and copy.current_leaf not in (None, "u") and copy.updated_at == 2.0
    assert [m.content for m in store.load_messages(new)] == ["hi"]


def test_the_errors_are_exchange_errors() -> None:
    assert str(ImportFormatError("bad", path="a.b", line=3, column=4)) == "line 3, column 4: a.b: bad"
    assert str(UnknownConversationError("no conversation with id 'x'")) == "no conversation with id 'x'"
    assert issubclass(ImportFormatError, ExchangeError) and issubclass(UnknownConversationError, KeyError)


def test_an_oversized_message_is_cut_to_the_limit_with_a_notice(monkeypatch) -> None:
    from app.core.base import limits
    from app.core.store.exchange import validate

    monkeypatch.setattr(validate, "MAX_MESSAGE_CHARS", 100)  # the real limit (4 M characters): tests/test_cli_faults.py
    doc = json.loads(_doc())
    messages = doc["conversations"][0]["messages"]
    messages[0]["content"] = "x" * 100  # at the limit: kept whole
    messages.append({"id": "big", "parent_id": "u", "role": "assistant", "content": "é" * 5000})
    store = Store.in_memory()
    result = import_json(store, json.dumps(doc))
    assert len(result.notices) == 1 and "1 message(s) of “t”" in result.notices[0]
    kept = {m.id: m.content for m in store.load_messages("c")}
    assert kept["u"] == "x" * 100
    assert len(kept["big"]) == 100 and kept["big"].endswith(limits.CUT_MARK) and kept["big"].startswith("é" * 90)
    again = import_json(store, json.dumps(doc))  # a copy: its cut message is named by its new id
    assert again.copies and len(again.notices) == 1


def test_imported_titles_lose_their_control_characters() -> None:
    doc = json.loads(_doc())
    doc["conversations"][0]["title"] = "\x1b]0;x\x07bad\x1b[2J\nline"
    store = Store.in_memory()
    import_json(store, json.dumps(doc))
    info = store.get_conversation("c")
    assert info is not None and info.title == "]0;xbad[2J line"
