"""Search across all conversations: Latin, Chinese, Japanese, Korean, emoji,
short terms, hostile query syntax, and an index that follows every change."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from app.core.conversation.model import Message, MessageStatus
from app.core.store import ConversationInfo, Store
from app.core.store.search import make_snippet, parse_query, short_terms


@pytest.fixture
def store() -> Iterator[Store]:
    with Store.in_memory() as s:
        yield s


def add(store: Store, *texts: str, title: str = "chat", status: MessageStatus = MessageStatus.COMPLETE) -> list[Message]:
    info = ConversationInfo(title=title)
    store.create_conversation(info)
    msgs = []
    parent = None
    for i, text in enumerate(texts):
        msg = Message("user" if i % 2 == 0 else "assistant", text, status, parent_id=parent)
        store.add_message(info.id, msg)
        msgs.append(msg)
        parent = msg.id
    return msgs


def ids(store: Store, query: str, limit: int = 50) -> list[str]:
    return [h.message_id for h in store.search(query, limit)]


CORPUS = {
    "latin": "How do I speed up my Python program? It is slow.",
    "german": "Die Größe der Datenbank wächst schnell.",
    "zh_ui": "我们需要重新设计用户界面，让它更简洁。",
    "zh_split": "这个界限很清楚，面对问题不要怕。",  # 界 and 面 present but not side by side
    "ja": "日本語の文章を検索できますか？ひらがなとカタカナも。",
    "ko": "한국어 검색도 잘 됩니다",
    "emoji": "Party time 🎉 with friends ❤ and a family 👨‍👩‍👧 photo",
    "emoji_vs": "I ❤️ this",
    "ai": "The AI model said it was Qt based.",
    "syntax": 'He wrote "quoted" text, C++ and a-b; NEAR(x y) * (parens) AND OR NOT',
}


@pytest.fixture
def corpus(store: Store) -> dict[str, str]:
    out = {}
    for name, text in CORPUS.items():
        out[name] = add(store, text, title=name)[0].id
    return out


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("python", ["latin"]),
        ("PYTHON", ["latin"]),
        ("pyth", ["latin"]),  # a substring, case-insensitively
        ("speed python", ["latin"]),  # terms are ANDed
        ("speed java", []),
        ("größe", ["german"]),
        ("界面", ["zh_ui"]),  # two Chinese characters, side by side only
        ("用户界面", ["zh_ui"]),
        ("界", ["zh_ui", "zh_split"]),
        ("面对", ["zh_split"]),
        ("日本語", ["ja"]),
        ("検索", ["ja"]),
        ("カタカナ", ["ja"]),
        ("も", ["ja"]),
        ("한국", ["ko"]),
        ("검색도", ["ko"]),
        ("🎉", ["emoji"]),
        ("👨‍👩‍👧", ["emoji"]),
        ("❤", ["emoji", "emoji_vs"]),
        ("❤️", ["emoji", "emoji_vs"]),  # with or without the variation selector
        ("AI", ["ai"]),  # a short Latin term is a whole word: not "said"
        ("ai", ["ai"]),
        ("qt", ["ai"]),
        ("is", ["latin"]),
        ("界面 简洁", ["zh_ui"]),
        ("AI model", ["ai"]),  # a short and a long term together
        ("AI 界面", []),
        ('"quoted" text', ["syntax"]),
        ('"wrote ""quoted"""', ["syntax"]),
        ("C++", ["syntax"]),
        ("a-b", ["syntax"]),
        ("NEAR(x y)", ["syntax"]),
        ("(parens)", ["syntax"]),
        ("AND OR NOT", ["syntax"]),
        ('"AND OR NOT"', ["syntax"]),
        ('"time 🎉 with"', ["emoji"]),
        ("nothing-like-this", []),
    ],
)
def test_search_finds_what_it_should(store: Store, corpus: dict[str, str], query: str, expected: list[str]) -> None:
    got = set(ids(store, query))
    assert got == {corpus[name] for name in expected}, (query, got)


HOSTILE = [
    '"', '""', '"""', "'", "*", "**", "-", "--", "- x", "-python", "python*", "*python", "NEAR", "NEAR(", "NEAR(a b, 2)",
    "AND", "OR", "NOT", "a AND", "OR b", "NOT NOT", "(", ")", "()", "((a)", "a)", "{", "}", "{a b}: c", "col:python",
    "^python", "+", "\\", "\x00", "\x02", "\x03", ":", ";", "a:b", "[", "]", "%", "_", "'; DROP TABLE messages; --",
    "python\"", '"unclosed phrase', "  ", "", "\n\t", "x" * 3000, "界面" * 500, "🎉" * 200,
]


@pytest.mark.parametrize("query", HOSTILE)
def test_hostile_queries_never_raise(store: Store, corpus: dict[str, str], query: str) -> None:
    hits = store.search(query)
    assert isinstance(hits, list)
    assert store.count_conversations() == len(CORPUS)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(max_size=40))
def test_any_query_is_safe(store: Store, query: str) -> None:
    store.search(query)
    store.search(query, limit=1)


def test_results_are_newest_first_and_limited(store: Store) -> None:
    msgs = add(store, *[f"needle number {i}" for i in range(30)])
    assert ids(store, "needle") == [m.id for m in reversed(msgs)]
    assert ids(store, "needle", limit=5) == [m.id for m in reversed(msgs[-5:])]
    assert store.search("needle", limit=0) == []


def test_hits_carry_conversation_role_and_time(store: Store) -> None:
    msgs = add(store, "a question about 界面", "an answer about 界面", title="UI talk")
    hits = store.search("界面")
    assert [(h.conversation_title, h.role, h.message_id, h.created_at) for h in hits] == [
        ("UI talk", "assistant", msgs[1].id, msgs[1].created_at),
        ("UI talk", "user", msgs[0].id, msgs[0].created_at),
    ]
    assert hits[0].conversation_id == store.list_conversations()[0].id


def test_snippets_mark_the_matches(store: Store) -> None:
    long_text = ("lorem ipsum dolor " * 40) + "the NEEDLE is here\x02 and\x03 here needle again " + ("sit amet " * 40)
    add(store, long_text)
    (hit,) = store.search("needle")
    assert hit.snippet.startswith("…") and hit.snippet.endswith("…")
    assert hit.snippet.count("\x02") == hit.snippet.count("\x03") == 2
    assert "\x02NEEDLE\x03" in hit.snippet and "\x02needle\x03" in hit.snippet
    flat = " ".join(re.sub("[\x02\x03]", "", long_text).split())
    assert re.sub("[\x02\x03]", "", hit.snippet).replace("…", "") in flat
    assert len(hit.snippet) < 200
    add(store, "line one\n\n界面\tline two")
    (hit,) = store.search("界面")
    assert hit.snippet == "line one \x02界面\x03 line two"
    assert store.search("ai") == []  # 'ai' is not a word of either text


def test_short_latin_terms_are_highlighted_as_words() -> None:
    q = parse_query("ai")
    from app.core.store.search import highlight_pattern

    assert make_snippet("said the AI, ai!", highlight_pattern(q)) == "said the \x02AI\x03, \x02ai\x03!"


def test_streaming_replies_are_indexed_when_they_finish(store: Store) -> None:
    info = ConversationInfo(title="live")
    store.create_conversation(info)
    user = Message("user", "tell me")
    live = Message("assistant", "", MessageStatus.STREAMING, parent_id=user.id)
    store.add_message(info.id, user)
    store.add_message(info.id, live)
    live.append("the streamed 界面 words")
    store.save_message(live)
    assert ids(store, "streamed") == [] and ids(store, "界面") == []
    live.append(" and the end")
    live.status = MessageStatus.COMPLETE
    store.save_message(live)
    assert ids(store, "streamed") == [live.id] and ids(store, "界面") == [live.id] and ids(store, "the end") == [live.id]
    store.save_message(live)  # saved again unchanged: still once
    assert ids(store, "streamed") == [live.id]


def test_interrupted_replies_become_searchable(store: Store) -> None:
    (live,) = add(store, "cut off mid 句子", status=MessageStatus.STREAMING)
    assert ids(store, "句子") == []
    assert store.recover_interrupted() == 1
    assert ids(store, "句子") == [live.id] and ids(store, "cut off") == [live.id]


def test_edits_and_deletes_are_reflected(store: Store) -> None:
    first, second = add(store, "old words 旧界面 🐍", "a reply 回答")
    first.content = "new words 新设计 🦀"
    store.save_message(first)
    for gone in ("old words", "界面", "🐍"):
        assert ids(store, gone) == [], gone
    for present in ("new words", "设计", "🦀"):
        assert ids(store, present) == [first.id], present
    store.delete_message(first.id)  # its reply goes too
    assert ids(store, "new words") == [] and ids(store, "回答") == [] and ids(store, "🦀") == []
    third, = add(store, "another 设计", title="other")
    conv = store.message_conversation(third.id)
    assert conv is not None
    assert ids(store, "设计") == [third.id]
    store.delete_conversation(conv)
    assert ids(store, "设计") == []
    assert store.conn.execute("INSERT INTO message_fts(message_fts) VALUES ('integrity-check')") is not None


def test_rebuild_gives_the_same_answers(store: Store, corpus: dict[str, str]) -> None:
    queries = ["python", "界面", "🎉", "AI", "日本語", "❤"]
    before = {q: ids(store, q) for q in queries}
    store.rebuild_search_index()
    assert {q: ids(store, q) for q in queries} == before


def test_short_terms_are_deterministic_and_cover_pairs() -> None:
    text = "用户界面 ok 🎉🎊 Qt ❤️"
    assert short_terms(text) == short_terms(text)
    decoded = {bytes.fromhex(t[1:]).decode() for t in short_terms(text).split()}
    assert {"用", "用户", "户界", "界面", "面", "ok", "qt", "🎉", "🎉🎊", "🎊", "❤"} <= decoded
    assert short_terms("") == short_terms(None) == ""


def test_query_parsing() -> None:
    q = parse_query('界面 "a phrase" x NEAR(y) ab')
    assert q.terms == ("界面", "a phrase", "x", "NEAR(y)", "ab")
    assert q.trigram == '"a phrase" AND "NEAR(y)"'
    assert q.short is not None and len(q.short.split(" AND ")) == 3
    assert parse_query("?! #").terms == ()  # nothing searchable: no hits, no error


# -- property: any substring of a stored message finds it ---------------------------------

ALPHABET = "abcdeXYZ 0123 界面用户设计日本語のテキストひらがな한국어🎉❤👍🏽"
DENSE = set("界面用户设计日本語のテキストひらがな한국어🎉❤👍🏽")


@settings(max_examples=120, deadline=None)
@given(st.lists(st.text(alphabet=ALPHABET, min_size=1, max_size=30), min_size=1, max_size=6), st.data())
def test_any_substring_finds_its_message(texts: list[str], data: st.DataObject) -> None:
    with Store.in_memory() as s:
        msgs = add(s, *texts)
        i = data.draw(st.integers(0, len(texts) - 1))
        text = texts[i]
        start = data.draw(st.integers(0, len(text) - 1))
        end = data.draw(st.integers(start + 1, min(len(text), start + 6)))
        needle = text[start:end]
        assume(needle.strip() == needle and needle and '"' not in needle)
        # a substring of 3+ characters, or 1-2 characters of CJK/Hangul/emoji
        assume(len(needle) >= 3 or set(needle) <= DENSE)
        assume(" " not in needle or len(needle) >= 3)
        query = f'"{needle}"' if " " in needle else needle
        hits = ids(s, query)
        assert msgs[i].id in hits
        # and nothing that does not contain it
        for m in msgs:
            if m.id in hits:
                assert needle.lower() in m.content.lower()


def _tokens_one_step_per_character(text: str) -> list[str]:
    """The short-index tokens as first written (the oracle): one Python step per character."""
    from app.core.store import search

    out: dict[str, None] = {}
    for run in search._RUN.findall(text):
        run = run.replace("\ufe0f", "")
        for i in range(len(run)):
            out[run[i]] = None
            if i + 1 < len(run):
                out[run[i : i + 2]] = None
    for word in search._SHORT_WORD.findall(text):
        out[word.lower()] = None
    return list(out)


@given(st.text(alphabet=st.sampled_from(list("ab Z\n\t-.,_1é\u0301你好世界😀❤\ufe0f가ぁ")), max_size=120),
       st.integers(min_value=1, max_value=12))
def test_short_terms_read_in_pieces_are_the_same_terms_in_the_same_order(text: str, piece: int) -> None:
    """A long text is read in pieces cut at white space (so the GIL can
    change hands): the terms, and their order, are those of one pass."""
    from app.core.store import search

    saved = search.TOKENS_PIECE
    search.TOKENS_PIECE = piece
    try:
        assert search._tokens(text) == _tokens_one_step_per_character(text)
    finally:
        search.TOKENS_PIECE = saved


@given(st.text(alphabet=st.sampled_from(list("ab Z\n-.1é你好世界😀❤\ufe0f가ぁ")), max_size=80))
def test_the_terms_of_a_text_and_of_its_utf8_bytes_are_the_same(text: str) -> None:
    """The index triggers pass the bytes (schema v6); terms made from the
    str (v5, and the chunks) must be the same, or a delete would miss them."""
    from app.core.store import search

    assert search.local_terms(text.encode("utf-8")) == search.local_terms(text)
    assert short_terms(text.encode("utf-8")) == short_terms(text)


def test_a_long_text_is_stored_as_text_whole_and_found() -> None:
    """Content of ``LONG_CONTENT_CHARS`` or more is bound as its UTF-8
    bytes (``CAST(? AS TEXT)``): it reads back as the same text, the index
    has it, and a save of it too."""
    from app.core.store import rows

    long_text = "日本語 😀 Qt " * (rows.LONG_CONTENT_CHARS // 8) + "the end"
    with Store.in_memory() as store:
        msg = add(store, long_text)[0]
        assert store.conn.execute("SELECT typeof(content) FROM messages WHERE id = ?", (msg.id,)).fetchone() == ("text",)
        assert store.load_messages(store.list_conversations()[0].id)[0].content == long_text
        assert [h.message_id for h in store.search("Qt")] == [msg.id]
        msg.content = long_text + " 再见"
        store.save_message(msg)
        assert store.conn.execute("SELECT content FROM messages WHERE id = ?", (msg.id,)).fetchone()[0] == msg.content
        assert [h.message_id for h in store.search("再见")] == [msg.id]
