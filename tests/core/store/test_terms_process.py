"""A long text's search terms made in a helper process (TermsProcess)."""

from __future__ import annotations

import multiprocessing

import pytest

from app.core.conversation.model import Message, MessageStatus
from app.core.store import ConversationInfo, Store, search
from app.core.store.terms_process import TermsProcess

#: Long enough for the helper when its threshold is lowered to 1,000 characters.
LONG = "Qt と 用户界面 AI " * 200 + "the end"


@pytest.fixture(autouse=True)
def _small_long_texts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search, "_TERMS_CACHE", {})  # each test makes its terms again
    monkeypatch.setattr(search, "TERMS_CACHE_MIN", 1000)  # LONG is a long text


def test_the_helper_makes_the_same_terms_as_this_thread_and_ends_when_closed() -> None:
    terms = TermsProcess(min_chars=1000)
    try:
        assert terms.terms("Qt 界面") == search.local_terms("Qt 界面") and terms.made_there == 0, "short: here"
        assert terms.terms(LONG) == search.local_terms(LONG)
        assert terms.made_there == 1
    finally:
        terms.close()
    assert multiprocessing.active_children() == []
    assert terms.terms(LONG) == search.local_terms(LONG) and terms.made_there == 1, "closed: made here"


def _store_long(store: Store) -> tuple[str, Message]:
    """A conversation with LONG in it (the helper's threshold lowered); its id and the message."""
    store.terms.min_chars = 1000
    info = ConversationInfo(title="long")
    store.create_conversation(info)
    msg = Message("user", LONG, MessageStatus.COMPLETE)
    store.add_message(info.id, msg)
    return info.id, msg


def test_a_store_saving_a_long_message_has_it_indexed_by_the_helper() -> None:
    with Store.in_memory() as store:
        conversation_id, msg = _store_long(store)
        msg.content = LONG + " again"
        store.save_message(msg, conversation_id)  # an update: the delete trigger asks for the old text's terms again
        assert store.terms.made_there == 2, "each text made once (the old one was kept)"
        for query in ("AI", "界面", "Qt", "the end"):
            assert [h.message_id for h in store.search(query)] == [msg.id], query
    assert multiprocessing.active_children() == [], "closing the store ends the helper"


def test_no_helper_means_the_terms_are_made_here(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_processes(method: str) -> object:
        raise OSError("no processes here")

    monkeypatch.setattr(multiprocessing, "get_context", no_processes)
    with Store.in_memory() as store:
        _, msg = _store_long(store)
        assert store.terms.made_there == 0
        assert [h.message_id for h in store.search("AI")] == [msg.id]
