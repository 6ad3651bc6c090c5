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
