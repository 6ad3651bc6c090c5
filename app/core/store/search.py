"""Full-text search over every stored message (Qt-free, stdlib ``sqlite3``).

The method: two FTS5 indexes, kept in sync by triggers on ``messages``
----------------------------------------------------------------------

SQLite's ``unicode61`` tokenizer does not segment Chinese or Japanese (a whole
run of ideographs becomes one token) and drops emoji; the ``trigram``
tokenizer matches any substring, in any script, but only of 3 or more
characters. So a query is split into terms (whitespace separates terms, a
"double-quoted phrase" is one term) and each term goes to the index that can
answer it:

* ``message_fts`` — FTS5 ``trigram``, external content (the text lives once,
  in ``messages.content``). Answers every term of **3 or more characters**, in
  any script: ``python``, ``数据库``, ``日本語``, a ZWJ emoji sequence, a
  quoted phrase with spaces. Case-insensitive substring match.
* ``message_fts_short`` — FTS5 contentless, ``detail=none`` (a bare
  "which messages contain this token" index: small). Answers terms of **1 or 2
  characters**. Its tokens are made in Python by ``short_terms`` (registered on
  the connection as the SQL function ``rill_short_terms``):

  - in runs of characters written without spaces (Han, kana, Hangul, Thai,
    Lao, Myanmar, Khmer) and of emoji/pictographic symbols: every single
    character and every pair of neighbours (``用户界面`` → 用 用户 户 户界 界
    界面 面), so ``界面`` or ``🎉`` are one exact lookup;
  - in other scripts: the words of one or two letters or digits (``AI``,
    ``Qt``, ``go``), matched as whole words, case-insensitively (a short Latin
    term as a substring would hit nearly every message);
  - each token is stored hex-encoded (UTF-8 bytes, prefix ``x``), so the
    ``ascii`` tokenizer sees exactly one token per term whatever its script.

  A term of 1–2 characters that yields no token (``#``, ``?!``) is ignored.

Terms are ANDed. A query mixing long and short terms intersects the two
indexes by rowid (``INTERSECT ... ORDER BY 1 DESC``: SQLite merges the two
rowid-ordered streams lazily). User text never reaches FTS5 query syntax: long terms are
always passed as FTS5 strings (``"..."``, inner quotes doubled), short terms as
hex tokens, so quotes, ``*``, ``-``, ``NEAR``, ``AND``/``OR``/``NOT`` and
parentheses are searched for literally and never cause a syntax error.

Results come newest-stored first (``ORDER BY rowid DESC``), which FTS5 walks
lazily, so the first ``limit`` hits cost the same however many messages match:
ranking by relevance (bm25) would have to score every match first.
Snippets are cut in Python from the stored text (FTS5's ``snippet()`` does not
work on a contentless table and is clumsy on trigrams), the matches marked
with ``\\x02``…``\\x03`` (any such characters in the text itself are removed
first, so the UI can escape the snippet and then turn them into highlight
markup).

A message is indexed once it is no longer ``streaming``: while a reply
streams, the once-a-second ``save_message`` is a plain row update and costs no
index work; the reply enters the index when it finishes, stops, fails or is
marked interrupted.

Caveat: any connection that writes ``messages`` must register
``rill_short_terms`` first (``register_functions``); the sqlite3 shell can read
the database but its writes to ``messages`` fail with "no such function"
(nothing is damaged).
"""

from __future__ import annotations

import functools
import itertools
import operator
import re
import sqlite3
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass

TRIGRAM_TABLE = "message_fts"
SHORT_TABLE = "message_fts_short"
SHORT_TERMS_FUNCTION = "rill_short_terms"

#: Characters of scripts written without spaces between words.
_DENSE = (
    "\u0e00-\u0eff"  # Thai, Lao
    "\u1000-\u109f"  # Myanmar
    "\u1100-\u11ff"  # Hangul Jamo
    "\u1780-\u17ff"  # Khmer
    "\u2e80-\u2fdf"  # CJK radicals, Kangxi radicals
    "\u3005-\u3007\u3021-\u3029\u3031-\u3035\u3038-\u303c"  # 々 〆 〇, Hangzhou numerals, kana repeat marks
    "\u3040-\u30ff"  # Hiragana, Katakana
    "\u3100-\u31bf"  # Bopomofo, Hangul compatibility Jamo, Kanbun
    "\u31f0-\u31ff"  # Katakana phonetic extensions
    "\u3400-\u4dbf"  # CJK extension A
    "\u4e00-\u9fff"  # CJK unified ideographs
    "\ua960-\ua97f"  # Hangul Jamo extended A
    "\uac00-\ud7ff"  # Hangul syllables, Jamo extended B
    "\uf900-\ufaff"  # CJK compatibility ideographs
    "\uff66-\uff9f"  # half-width Katakana
    "\U00020000-\U0003ffff"  # CJK extensions B and later
)
#: Emoji and pictographic symbols, with the joiners and modifiers of emoji sequences.
_SYMBOL = (
    "\u00a9\u00ae\u203c\u2049\u2122\u2139"
    "\u200d\u20e3\ufe0f"  # zero width joiner, combining keycap, variation selector-16
    "\u2190-\u21ff"  # arrows
    "\u2300-\u23ff"  # miscellaneous technical (⌚ ⏰ ⏳)
    "\u24c2\u25a0-\u27bf"  # geometric shapes, miscellaneous symbols, dingbats (☀ ✅ ❤)
    "\u2900-\u297f\u2b00-\u2bff"  # arrows, miscellaneous symbols and arrows (⭐)
    "\u3030\u303d\u3297\u3299"
    "\U0001f000-\U0001faff"  # mahjong … symbols and pictographs extended-A (emoji, skin tones, flags)
    "\U000e0020-\U000e007f"  # tag characters (subdivision flags)
)
_RUN = re.compile(f"[{_DENSE}{_SYMBOL}]+")
_WORDCHAR = rf"[^\W{_DENSE}{_SYMBOL}]"
#: Words of other scripts that are one or two characters long.
_SHORT_WORD = re.compile(rf"(?<!{_WORDCHAR}){_WORDCHAR}{{1,2}}(?!{_WORDCHAR})")
_SHORT_WORD_RE = re.compile(rf"{_WORDCHAR}{{1,2}}\Z")
#: A term: "a quoted phrase" (an unclosed quote runs to the end) or a run of non-space.
_TERM = re.compile(r'"([^"]*)(?:"|\Z)|(\S+)')
_MARKERS = re.compile("[\x02\x03]")
_SPACE = re.compile(r"\s+")

#: Characters of context kept before the first match in a snippet, and the snippet's length.
SNIPPET_BEFORE = 40
SNIPPET_LENGTH = 160


@dataclass(frozen=True)
class SearchHit:
    """One matching message. ``snippet`` is plain text with each match
    between ``\\x02`` and ``\\x03``."""

    conversation_id: str
    conversation_title: str
    message_id: str
    role: str
    snippet: str
    created_at: float


def _encode(token: str) -> str:
    return "x" + token.encode("utf-8").hex()


#: ``_tokens`` reads a long text in pieces of about this many characters, cut at white space.
TOKENS_PIECE = 32768
_SPACE_AFTER = re.compile(r"\s")


def _pieces(text: str) -> Iterator[str]:
    """``text`` in pieces of about ``TOKENS_PIECE`` characters, each cut just
    before a white-space character (which is in no word and no dense run,
    so every run and short word is whole in one piece); a stretch with no
    white space goes whole."""
    start, n = 0, len(text)
    while start < n:
        end = start + TOKENS_PIECE
        if end < n:
            cut = max(text.rfind(" ", start, end), text.rfind("\n", start, end))
            if cut <= start:
                found = _SPACE_AFTER.search(text, end)
                cut = found.start() if found is not None else n
            end = cut
        yield text[start:end]
        start = end


def _tokens(text: str) -> list[str]:
    """The short-index tokens of ``text``, unencoded, in order, without repeats:
    each character of a dense run then the pair it starts, then the short
    words.

    The store thread runs this inside SQLite's index triggers, holding the
    GIL: a 1 MB message took 80 ms of it in two regex calls, the window's
    GUI thread waiting meanwhile. So a long text is read in pieces (each
    regex call ~2 ms; the GIL can change hands between them) and the runs
    are split by C-level maps, no Python step per character."""
    out: dict[str, None] = {}
    pieces = [text] if len(text) <= TOKENS_PIECE else list(_pieces(text))
    for piece in pieces:
        for run in _RUN.findall(piece):
            run = run.replace("\ufe0f", "")  # ❤️ and ❤ are the same emoji
            pairs = map(operator.add, run, run[1:])  # run[i] + run[i + 1]
            out.update(dict.fromkeys(itertools.chain.from_iterable(zip(run, pairs, strict=False))))  # the last one alone below
            if run:
                out[run[-1]] = None
    for piece in pieces:
        out.update(dict.fromkeys(map(str.lower, _SHORT_WORD.findall(piece))))
    return list(out)


def local_terms(text: str | bytes) -> str:
    """What ``message_fts_short`` indexes for ``text`` (or its UTF-8 bytes),
    made in this thread (``short_terms`` may have a helper process make it
    for a long text)."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    return " ".join(_encode(t) for t in _tokens(text))


def short_terms(text: str | bytes | None, make: Callable[[str | bytes], str] = local_terms) -> str:
    """What ``message_fts_short`` indexes for a message (deterministic: the
    delete triggers recompute it from the old text), made by ``make``
    (``local_terms``, or a ``TermsProcess``'s). The index triggers pass the
    text as its UTF-8 bytes (``CAST(content AS BLOB)``, schema v6): a copy,
    where a ``str`` would be decoded, ~1 ns a byte of GIL for a long text
    (and it goes to the helper process as it is). The terms of the last few
    long texts are kept: an update's delete trigger asks again for the text
    the insert just indexed, and a long one costs ~80 ms per MB."""
    if not text:
        return ""
    if len(text) < TERMS_CACHE_MIN:
        return local_terms(text)
    # Looked up by a cheap fingerprint, then compared (a memcmp): hashing a
    # long text costs more, and every trigger call gets a new object, whose
    # hash is not known yet.
    key = (len(text), text[:: len(text) // 64])
    with _TERMS_LOCK:  # (each store connection's thread may ask)
        kept = _TERMS_CACHE.get(key)
    if kept is not None and kept[0] == text:
        return kept[1]
    known = make(text)
    with _TERMS_LOCK:
        _TERMS_CACHE.pop(key, None)
        if len(_TERMS_CACHE) >= TERMS_CACHE_SIZE:
            del _TERMS_CACHE[next(iter(_TERMS_CACHE))]
        _TERMS_CACHE[key] = (text, known)
    return known


#: Texts at least this long have their terms kept (``short_terms``), the last few of them.
TERMS_CACHE_MIN = 65536
TERMS_CACHE_SIZE = 4
_TERMS_CACHE: dict[tuple[int, str | bytes], tuple[str | bytes, str]] = {}
_TERMS_LOCK = threading.Lock()


def register_functions(conn: sqlite3.Connection, make: Callable[[str | bytes], str] | None = None) -> None:
    """Make ``rill_short_terms`` available to the index triggers on ``conn``;
    ``make``: who makes a long text's terms (default: this thread)."""
    function = short_terms if make is None else functools.partial(short_terms, make=make)
    conn.create_function(SHORT_TERMS_FUNCTION, 1, function, deterministic=True)


# -- schema (used by the store's migrations to versions 2 and 6) -----------------------

_INDEXED = "status IS NOT 'streaming'"

TABLES_SQL = f"""
CREATE VIRTUAL TABLE {TRIGRAM_TABLE} USING fts5(
    content, content='messages', content_rowid='rowid', tokenize='trigram'
);
CREATE VIRTUAL TABLE {SHORT_TABLE} USING fts5(
    terms, content='', detail=none, tokenize='ascii'
);
"""

#: The index triggers (v6: the short terms are made from the text's bytes, ``short_terms``).
TRIGGERS_SQL = f"""
CREATE TRIGGER messages_search_insert AFTER INSERT ON messages
WHEN new.{_INDEXED} BEGIN
    INSERT INTO {TRIGRAM_TABLE}(rowid, content) VALUES (new.rowid, new.content);
    INSERT INTO {SHORT_TABLE}(rowid, terms) VALUES (new.rowid, {SHORT_TERMS_FUNCTION}(CAST(new.content AS BLOB)));
END;
CREATE TRIGGER messages_search_delete AFTER DELETE ON messages
WHEN old.{_INDEXED} BEGIN
    INSERT INTO {TRIGRAM_TABLE}({TRIGRAM_TABLE}, rowid, content) VALUES ('delete', old.rowid, old.content);
    INSERT INTO {SHORT_TABLE}({SHORT_TABLE}, rowid, terms)
        VALUES ('delete', old.rowid, {SHORT_TERMS_FUNCTION}(CAST(old.content AS BLOB)));
END;
CREATE TRIGGER messages_search_update AFTER UPDATE OF content, status ON messages
WHEN (old.status IS 'streaming') <> (new.status IS 'streaming')
  OR (new.{_INDEXED} AND old.content IS NOT new.content) BEGIN
    INSERT INTO {TRIGRAM_TABLE}({TRIGRAM_TABLE}, rowid, content)
        SELECT 'delete', old.rowid, old.content WHERE old.{_INDEXED};
    INSERT INTO {SHORT_TABLE}({SHORT_TABLE}, rowid, terms)
        SELECT 'delete', old.rowid, {SHORT_TERMS_FUNCTION}(CAST(old.content AS BLOB)) WHERE old.{_INDEXED};
    INSERT INTO {TRIGRAM_TABLE}(rowid, content) SELECT new.rowid, new.content WHERE new.{_INDEXED};
    INSERT INTO {SHORT_TABLE}(rowid, terms)
        SELECT new.rowid, {SHORT_TERMS_FUNCTION}(CAST(new.content AS BLOB)) WHERE new.{_INDEXED};
END;
"""

SCHEMA_SQL = TABLES_SQL + TRIGGERS_SQL
DROP_TRIGGERS_SQL = """
DROP TRIGGER IF EXISTS messages_search_insert;
DROP TRIGGER IF EXISTS messages_search_delete;
DROP TRIGGER IF EXISTS messages_search_update;
"""

FILL_SQL = (
    f"INSERT INTO {TRIGRAM_TABLE}(rowid, content) SELECT rowid, content FROM messages WHERE {_INDEXED}",
    (f"INSERT INTO {SHORT_TABLE}(rowid, terms) "
     f"SELECT rowid, {SHORT_TERMS_FUNCTION}(CAST(content AS BLOB)) FROM messages WHERE {_INDEXED}"),
)


def rebuild(conn: sqlite3.Connection) -> None:
    """Empty both indexes and index every stored message again (inside the
    caller's transaction)."""
    conn.execute(f"INSERT INTO {TRIGRAM_TABLE}({TRIGRAM_TABLE}) VALUES ('delete-all')")
    conn.execute(f"INSERT INTO {SHORT_TABLE}({SHORT_TABLE}) VALUES ('delete-all')")
    for sql in FILL_SQL:
        conn.execute(sql)


# -- queries -----------------------------------------------------------------------


@dataclass(frozen=True)
class Query:
    """A parsed query: ``terms`` as typed (for highlighting), the FTS5
    expressions for each index (None: that index is not needed)."""

    terms: tuple[str, ...]
    trigram: str | None
    short: str | None
    #: The short terms that are whole words of a spaced script (highlighted as words).
    short_words: frozenset[str]


def parse_query(text: str) -> Query:
    """Split ``text`` into terms and build safe FTS5 expressions (see the module doc)."""
    terms: list[str] = []
    long_parts: list[str] = []
    short_tokens: dict[str, None] = {}
    words: set[str] = set()
    text = text.replace("\x00", " ")  # FTS5 strings end at NUL
    for m in _TERM.finditer(text):
        term = m.group(1) if m.group(1) is not None else m.group(2)
        term = term.strip()
        if not term:
            continue
        if len(term) >= 3:
            terms.append(term)
            long_parts.append('"' + term.replace('"', '""') + '"')
            continue
        tokens = _tokens(term)
        if not tokens:
            continue
        terms.append(term)
        if _SHORT_WORD_RE.match(term):
            words.add(term.lower())
        # a 2-character dense term is its own bigram token: look up only that
        bare = term.replace("\ufe0f", "")
        if len(bare) == 2 and bare in tokens:
            tokens = [bare]
        for token in tokens:
            short_tokens[_encode(token)] = None
    return Query(
        terms=tuple(terms),
        trigram=" AND ".join(long_parts) or None,
        short=" AND ".join(short_tokens) or None,
        short_words=frozenset(words),
    )


def matching_rowids(conn: sqlite3.Connection, query: Query, limit: int) -> list[int]:
    """The rowids of the newest ``limit`` messages matching ``query``."""
    if query.trigram and query.short:
        # both sides come in rowid order, so SQLite merges them lazily (a zipper in C)
        sql = (
            f"SELECT rowid FROM {TRIGRAM_TABLE} WHERE {TRIGRAM_TABLE} MATCH ? "
            f"INTERSECT SELECT rowid FROM {SHORT_TABLE} WHERE {SHORT_TABLE} MATCH ? ORDER BY 1 DESC LIMIT ?"
        )
        args: tuple[object, ...] = (query.trigram, query.short, limit)
    elif query.trigram:
        sql = f"SELECT rowid FROM {TRIGRAM_TABLE} WHERE {TRIGRAM_TABLE} MATCH ? ORDER BY rowid DESC LIMIT ?"
        args = (query.trigram, limit)
    elif query.short:
        sql = f"SELECT rowid FROM {SHORT_TABLE} WHERE {SHORT_TABLE} MATCH ? ORDER BY rowid DESC LIMIT ?"
        args = (query.short, limit)
    else:
        return []
    return [row[0] for row in conn.execute(sql, args)]


def _streaming_rowids(conn: sqlite3.Connection, pattern: re.Pattern[str] | None) -> list[int]:
    """The rowids of the messages still ``streaming`` (not indexed) whose text
    matches ``pattern`` (the partial index ``messages_streaming`` finds them;
    after a crash there are a few at most)."""
    if pattern is None:
        return []
    rows = conn.execute("SELECT rowid, content FROM messages WHERE status = 'streaming'").fetchall()
    return [rowid for rowid, content in rows if pattern.search(_MARKERS.sub("", content or ""))]


def search(conn: sqlite3.Connection, text: str, limit: int = 50, *, include_streaming: bool = False) -> list[SearchHit]:
    """The newest ``limit`` messages matching ``text``, each with a marked
    snippet. ``include_streaming``: also the messages still ``streaming``
    (which a crash left so: ``Store.streaming_is_live``), matched in Python."""
    if limit <= 0:
        return []
    query = parse_query(text)
    rowids = matching_rowids(conn, query, limit)
    if include_streaming:
        extra = _streaming_rowids(conn, highlight_pattern(query))
        if extra:
            rowids = sorted(set(rowids) | set(extra), reverse=True)[:limit]
    if not rowids:
        return []
    marks = ",".join("?" * len(rowids))
    rows = conn.execute(
        "SELECT m.rowid, m.conversation_id, c.title, m.id, m.role, m.content, m.created_at "
        "FROM messages AS m JOIN conversations AS c ON c.id = m.conversation_id "
        f"WHERE m.rowid IN ({marks})",
        rowids,
    ).fetchall()
    by_rowid = {row[0]: row for row in rows}
    pattern = highlight_pattern(query)
    hits = []
    for rowid in rowids:
        row = by_rowid.get(rowid)
        if row is None:
            continue
        _, conversation_id, title, message_id, role, content, created_at = row
        hits.append(
            SearchHit(
                conversation_id=conversation_id,
                conversation_title=title or "",
                message_id=message_id,
                role=role or "",
                snippet=make_snippet(content or "", pattern),
                created_at=created_at or 0.0,
            )
        )
    return hits


# -- snippets ----------------------------------------------------------------------


def highlight_pattern(query: Query) -> re.Pattern[str] | None:
    """A regex matching what each term matched: a substring, or a whole word
    for the short terms of spaced scripts."""
    parts = []
    for term in sorted(set(query.terms), key=len, reverse=True):
        if term.lower() in query.short_words:
            parts.append(rf"(?<!{_WORDCHAR}){re.escape(term)}(?!{_WORDCHAR})")
        elif len(term) >= 3 or _tokens(term):
            parts.append(re.escape(term))
    if not parts:
        return None
    return re.compile("|".join(parts), re.IGNORECASE)


def _flat(text: str) -> str:
    return _SPACE.sub(" ", text)


def make_snippet(content: str, pattern: re.Pattern[str] | None) -> str:
    """About ``SNIPPET_LENGTH`` characters of ``content`` around its first
    match, whitespace collapsed, every match inside marked ``\\x02``…``\\x03``,
    ``…`` where text was cut."""
    content = _MARKERS.sub("", content)
    first = pattern.search(content) if pattern is not None else None
    start = 0 if first is None else max(0, first.start() - SNIPPET_BEFORE)
    if start > 0:
        # start at a word boundary when there is one close by
        space = content.find(" ", start, first.start() if first else start)
        if space != -1 and space - start < SNIPPET_BEFORE // 2:
            start = space + 1
    end = min(len(content), start + SNIPPET_LENGTH)
    if first is not None and end < first.end():
        end = first.end()
    window = content[start:end]
    pieces: list[str] = []
    pos = 0
    if pattern is not None:
        for m in pattern.finditer(window):
            if m.end() == m.start():
                continue
            pieces.append(_flat(window[pos : m.start()]))
            pieces.append("\x02" + _flat(m.group()) + "\x03")
            pos = m.end()
    pieces.append(_flat(window[pos:]))
    text = "".join(pieces).strip()
    if start > 0:
        text = "…" + text
    if end < len(content):
        text = text + "…"
    return text
