"""Export (JSON, Markdown) and import of conversations: round trip, every
malformed input named and refused whole, copies instead of overwrites."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from app.core.conversation.model import Message, MessageMeta, MessageStatus
from app.core.store import ConversationInfo, Store, StoreWriteError, exchange
from app.core.store.exchange import ImportFormatError, export_json, export_markdown, import_json, parse_export

T0 = 1_714_550_400.25  # 2024-05-01, with a fraction that must survive


# -- fixtures ------------------------------------------------------------------------------


@pytest.fixture
def open_store(tmp_path: Path) -> Iterator[Callable[[str], Any]]:
    opened: list[Any] = []

    def open_(name: str = "rill.db") -> Any:
        result = Store.open(tmp_path / name)
        assert result.store is not None, result.notices
        opened.append(result.store)
        return result.store

    yield open_
    for store in opened:
        store.close()


@pytest.fixture
def store(open_store: Callable[[str], Any]) -> Any:
    return open_store("a.db")


def msg(id_: str, role: str, content: str, parent: str | None, t: float, status: MessageStatus = MessageStatus.COMPLETE,
        error: str = "", meta: MessageMeta | None = None) -> Message:
    return Message(role, content, status, error, id=id_, created_at=t, meta=meta, parent_id=parent)


def fill(store: Any) -> None:
    """Three conversations: a branched one with CJK/emoji and every kind of
    status, a pinned one with parameters, an empty one."""
    stats = MessageMeta(model="SmolLM2-135M", finish_reason="stop", tokens=42, prompt_tokens=17,
                        tokens_per_s=123.456789, ttft_ms=87.5)
    store.create_conversation(ConversationInfo(
        id="c1" * 16, title="界面 design 👋", created_at=T0, updated_at=T0 + 100, pinned=False,
        model="SmolLM2-135M", system_prompt="Be brief. 简短。", params={"temperature": 0.7, "top_p": 0.9},
        current_leaf=None))
    for m in [
        msg("u1", "user", "Hello 你好 👋 — how do I design a 界面?", None, T0 + 1),
        msg("a1", "assistant", "First answer:\n\n```py\nprint('hi')\n```\n", "u1", T0 + 2, meta=stats),
        msg("a2", "assistant", "Second answer, stopped ha", "u1", T0 + 3, MessageStatus.STOPPED,
            meta=MessageMeta(model="SmolLM2-135M", finish_reason="cancelled", tokens=5, tokens_per_s=50.0)),
        msg("u2", "user", "続けてください 🙏", "a2", T0 + 4),
        msg("a3", "assistant", "途中まで", "u2", T0 + 5, MessageStatus.INTERRUPTED,
            meta=MessageMeta(model="SmolLM2-135M", tokens=3, ttft_ms=None)),
        msg("a4", "assistant", "", "u1", T0 + 6, MessageStatus.ERROR, error="the model crashed"),
    ]:
        store.add_message("c1" * 16, m)
    store.update_conversation("c1" * 16, current_leaf="a3", updated_at=T0 + 100)

    store.create_conversation(ConversationInfo(
        id="c2" * 16, title="Pinned", created_at=T0 + 1000, updated_at=T0 + 1001, pinned=True, model="",
        system_prompt="", params={"max_tokens": 64, "seed": 3}, current_leaf=None))
    store.add_message("c2" * 16, msg("v1", "user", "long one", None, T0 + 1000.5))
    store.add_message("c2" * 16, msg("v2", "assistant", "cut off", "v1", T0 + 1000.75, MessageStatus.TRUNCATED,
                                     meta=MessageMeta(finish_reason="length", tokens=64)))
    store.update_conversation("c2" * 16, current_leaf="v2", updated_at=T0 + 1001, pinned=True)

    store.create_conversation(ConversationInfo(
        id="c3" * 16, title="", created_at=T0 + 2000, updated_at=T0 + 2000, pinned=False, model="",
        system_prompt="x", params={}, current_leaf=None))


def without_exported_at(text: str) -> str:
    return re.sub(r'"exported_at": "[^"]*"', '"exported_at": ""', text)


def valid_doc() -> dict[str, Any]:
    return {
        "format": "rill.export", "version": 1, "exported_at": "2024-05-01T00:00:00+00:00",
        "conversations": [
            {"id": "conv-a", "title": "ok", "created_at": T0, "updated_at": T0, "pinned": False, "model": "",
             "system_prompt": "", "params": {}, "current_leaf": "m2",
             "messages": [
                 {"id": "m1", "parent_id": None, "role": "user", "content": "hi", "status": "complete",
                  "error": "", "created_at": T0, "meta": {}},
                 {"id": "m2", "parent_id": "m1", "role": "assistant", "content": "yo", "status": "complete",
                  "error": "", "created_at": T0 + 1, "meta": {"tokens": 1}},
             ]},
            {"id": "conv-b", "title": "bad one", "created_at": T0, "updated_at": T0, "pinned": False,
             "model": "", "system_prompt": "", "params": {}, "current_leaf": None,
             "messages": [
                 {"id": "n1", "parent_id": None, "role": "user", "content": "q", "status": "complete",
                  "error": "", "created_at": T0, "meta": {}},
                 {"id": "n2", "parent_id": "n1", "role": "assistant", "content": "a", "status": "stopped",
                  "error": "", "created_at": T0 + 1, "meta": {"tokens": 2, "ttft_ms": 5.0}},
                 {"id": "n3", "parent_id": "n2", "role": "user", "content": "more", "status": "complete",
                  "error": "", "created_at": T0 + 2, "meta": {}},
             ]},
        ],
    }


# -- round trip ----------------------------------------------------------------------------


def test_round_trip_is_exact(open_store: Callable[[str], Any]) -> None:
    src = open_store("src.db")
    fill(src)
    first = export_json(src)
    dst = open_store("dst.db")
    result = import_json(dst, first)
    assert (result.conversations, result.messages) == (3, 8)
    assert result.copies == ()
    assert without_exported_at(export_json(dst)) == without_exported_at(first)

    doc = json.loads(first)
    assert doc["format"] == "rill.export" and doc["version"] == 2
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00", doc["exported_at"])
    c1 = doc["conversations"][0]
    assert c1["id"] == "c1" * 16 and c1["current_leaf"] == "a3" and c1["params"] == {"temperature": 0.7, "top_p": 0.9}
    assert c1["created_at"] == T0 and c1["updated_at"] == T0 + 100
    by_id = {m["id"]: m for m in c1["messages"]}
    assert set(by_id) == {"u1", "a1", "a2", "u2", "a3", "a4"}  # every branch
    assert by_id["a1"]["meta"] == {"model": "SmolLM2-135M", "finish_reason": "stop", "tokens": 42,
                                   "prompt_tokens": 17, "tokens_per_s": 123.456789, "ttft_ms": 87.5}
    assert [by_id[i]["status"] for i in ("a2", "a3", "a4")] == ["stopped", "interrupted", "error"]
    assert by_id["a4"]["error"] == "the model crashed"
    assert by_id["u2"]["parent_id"] == "a2" and by_id["u1"]["parent_id"] is None
    assert "你好 👋" in first  # readable UTF-8, not \u escapes
    assert doc["conversations"][1]["pinned"] is True
    assert doc["conversations"][2]["messages"] == [] and doc["conversations"][2]["current_leaf"] is None
    # The text is the plain indented dump of the document (written piecewise).
    assert first == json.dumps(doc, indent=2, ensure_ascii=False) + "\n"

    # The imported tree is the same tree.
    msgs = {m.id: m for m in dst.load_messages("c1" * 16)}
    assert msgs["a3"].status is MessageStatus.INTERRUPTED and msgs["a3"].meta.ttft_ms is None
    assert msgs["a1"].meta.tokens_per_s == 123.456789 and msgs["a1"].created_at == T0 + 2
    assert dst.get_conversation("c1" * 16).current_leaf == "a3"


def test_export_selected_conversations_and_unique_prefixes(store: Any) -> None:
    fill(store)
    doc = json.loads(export_json(store, ["c2" * 16]))
    assert [c["id"] for c in doc["conversations"]] == ["c2" * 16]
    doc = json.loads(export_json(store, ["c3c3", "c1"]))  # prefixes, kept in the given order
    assert [c["id"] for c in doc["conversations"]] == ["c3" * 16, "c1" * 16]
    with pytest.raises(exchange.UnknownConversationError, match="no conversation with id 'nope'"):
        export_json(store, ["nope"])
    with pytest.raises(exchange.UnknownConversationError, match="start of 3 conversation ids"):
        export_json(store, ["c"])


def test_export_of_an_empty_store(store: Any) -> None:
    doc = json.loads(export_json(store))
    assert doc["conversations"] == []
    assert import_json(store, export_json(store)).conversations == 0


def test_streaming_message_is_imported_as_interrupted(store: Any) -> None:
    doc = valid_doc()
    doc["conversations"][0]["messages"][1]["status"] = "streaming"
    import_json(store, json.dumps(doc))
    assert {m.id: m.status for m in store.load_messages("conv-a")}["m2"] is MessageStatus.INTERRUPTED


def test_optional_fields_take_defaults(store: Any) -> None:
    text = json.dumps({"format": "rill.export", "version": 1, "conversations": [
        {"id": "x", "messages": [{"id": "x1", "role": "user", "content": "hi"},
                                 {"id": "x2", "role": "assistant", "content": "yo", "parent_id": "x1"}]}]})
    assert import_json(store, text).messages == 2
    info = store.get_conversation("x")
    assert info.title == "" and info.pinned is False and info.params == {}
    loaded = store.load_messages("x")
    assert [m.status for m in loaded] == [MessageStatus.COMPLETE] * 2
    assert [m.id for m in loaded] == ["x1", "x2"]  # file order kept for defaulted timestamps


def test_children_listed_before_their_parents_still_import(store: Any) -> None:
    doc = valid_doc()
    doc["conversations"][1]["messages"].reverse()
    result = import_json(store, json.dumps(doc))
    assert result.messages == 5
    assert {m.id: m.parent_id for m in store.load_messages("conv-b")} == {"n1": None, "n2": "n1", "n3": "n2"}


# -- existing ids: copies, never overwrites --------------------------------------------------


def test_importing_an_existing_conversation_makes_a_copy_with_new_ids(store: Any) -> None:
    fill(store)
    before = export_json(store)
    result = import_json(store, export_json(store, ["c1" * 16]))
    assert result.conversations == 1 and result.messages == 6
    ((old, new),) = result.copies
    assert old == "c1" * 16 and new != old and result.conversation_ids == (new,)
    assert store.count_conversations() == 4
    # The original is untouched...
    assert without_exported_at(export_json(store, ["c1" * 16, "c2" * 16, "c3" * 16])) == without_exported_at(before)
    # ...and the copy is the same tree under new ids.
    orig = json.loads(before)["conversations"][0]
    copy = json.loads(export_json(store, [new]))["conversations"][0]
    assert copy["title"] == orig["title"] and copy["params"] == orig["params"]
    old_ids = {m["id"] for m in orig["messages"]}
    assert not old_ids & {m["id"] for m in copy["messages"]}
    rename = {o["id"]: c["id"] for o, c in zip(orig["messages"], copy["messages"], strict=False)}
    for o, c in zip(orig["messages"], copy["messages"], strict=False):
        assert c["parent_id"] == (rename[o["parent_id"]] if o["parent_id"] else None)
        assert (c["content"], c["status"], c["meta"], c["created_at"]) == (o["content"], o["status"], o["meta"], o["created_at"])
    assert copy["current_leaf"] == rename["a3"]


def test_a_new_conversation_id_with_an_existing_message_id_is_copied_too(store: Any) -> None:
    fill(store)
    doc = valid_doc()
    doc["conversations"][0]["messages"][0]["id"] = "u1"  # a message of c1 in the store
    doc["conversations"][0]["messages"][1]["parent_id"] = "u1"
    result = import_json(store, json.dumps(doc))
    assert [old for old, _ in result.copies] == ["conv-a"]
    assert store.get_conversation("conv-a") is None
    assert store.get_conversation("conv-b") is not None
    assert {m.id for m in store.load_messages("c1" * 16)} >= {"u1"}


# -- malformed input: named precisely, nothing imported -------------------------------------


def _set(path: tuple[Any, ...], value: Any) -> Callable[[dict[str, Any]], None]:
    def edit(doc: dict[str, Any]) -> None:
        target = doc
        for part in path[:-1]:
            target = target[part]
        target[path[-1]] = value
    return edit


def _delete(path: tuple[Any, ...]) -> Callable[[dict[str, Any]], None]:
    def edit(doc: dict[str, Any]) -> None:
        target = doc
        for part in path[:-1]:
            target = target[part]
        del target[path[-1]]
    return edit


MSG = ("conversations", 1, "messages")
BAD_CASES = {
    "unknown role": (_set(MSG + (2, "role"), "bot"), "conversations[1].messages[2].role",
                     'expected "user" or "assistant", got "bot"', '"role": "bot"'),
    "wrong type": (_set(MSG + (1, "content"), 42), "conversations[1].messages[1].content",
                   "expected a string, got the number 42", '"content": 42'),
    "bool is not a number": (_set(MSG + (1, "created_at"), True), "conversations[1].messages[1].created_at",
                             "expected a number, got true", '"created_at": true'),
    "negative tokens": (_set(MSG + (1, "meta", "tokens"), -3), "conversations[1].messages[1].meta.tokens",
                        "expected a whole number ≥ 0, got -3", '"tokens": -3'),
    "unknown status": (_set(MSG + (1, "status"), "done"), "conversations[1].messages[1].status",
                       'got "done"', '"status": "done"'),
    "missing id": (_delete(MSG + (2, "id")), "conversations[1].messages[2]",
                   'missing the required field "id"', None),
    "empty id": (_set(MSG + (0, "id"), ""), "conversations[1].messages[0].id",
                 "expected an id, got an empty string", '"id": ""'),
    "dangling parent": (_set(MSG + (2, "parent_id"), "ghost"), "conversations[1].messages[2].parent_id",
                        'no message with id "ghost" in this conversation', '"parent_id": "ghost"'),
    "parent in another conversation": (_set(MSG + (2, "parent_id"), "m1"), "conversations[1].messages[2].parent_id",
                                       "is a message of another conversation (conversations[0])", None),
    "own parent": (_set(MSG + (1, "parent_id"), "n2"), "conversations[1].messages[1].parent_id",
                   "cannot be its own parent", None),
    "cycle": (_set(MSG + (0, "parent_id"), "n3"), "conversations[1].messages[0].parent_id",
              'the parent links form a cycle ("n1" → "n3" → "n2" → "n1")', '"parent_id": "n3"'),
    "duplicate message id": (_set(MSG + (2, "id"), "n1"), "conversations[1].messages[2].id",
                             'duplicate message id "n1" (also used by conversations[1].messages[0])', None),
    "duplicate message id across conversations": (
        _set(MSG + (0, "id"), "m2"), "conversations[1].messages[0].id",
        "duplicate message id \"m2\" (also used by conversations[0].messages[1])", None),
    "duplicate conversation id": (_set(("conversations", 1, "id"), "conv-a"), "conversations[1].id",
                                  'duplicate conversation id "conv-a"', '"id": "conv-a"'),
    "leaf not in conversation": (_set(("conversations", 1, "current_leaf"), "m2"), "conversations[1].current_leaf",
                                 'no message with id "m2" in this conversation', '"current_leaf": "m2"'),
    "messages not a list": (_set(("conversations", 1, "messages"), {}), "conversations[1].messages",
                            "expected a list, got an object", None),
    "message not an object": (_set(MSG + (1,), "hello"), "conversations[1].messages[1]",
                              'expected a message (a JSON object), got "hello"', None),
    "params not an object": (_set(("conversations", 1, "params"), [1]), "conversations[1].params",
                             "expected an object, got a list", None),
    "pinned not a bool": (_set(("conversations", 1, "pinned"), "yes"), "conversations[1].pinned",
                          'expected true or false, got "yes"', '"pinned": "yes"'),
    "lone surrogate": (_set(MSG + (1, "content"), "ok \ud83d then"), "conversations[1].messages[1].content",
                       "contains \\ud83d, half of a surrogate pair", None),
    "surrogate role": (_set(MSG + (1, "role"), "\udc00"), "conversations[1].messages[1].role",
                       'got "\\udc00"', None),
    "huge whole number": (_set(MSG + (1, "meta", "tokens"), 2**70), "conversations[1].messages[1].meta.tokens",
                          "out of range", None),
    "number out of range": (_set(MSG + (1, "created_at"), -1e301), "conversations[1].messages[1].created_at",
                            "out of range", '"created_at": -1e+301'),
    "fractional tokens": (_set(MSG + (1, "meta", "tokens"), 2.5), "conversations[1].messages[1].meta.tokens",
                          "expected a whole number, got the number 2.5", '"tokens": 2.5'),
    "wrong format": (_set(("format",), "chatgpt"), "format", 'expected "rill.export", got "chatgpt"',
                     '"format": "chatgpt"'),
    "newer version": (_set(("version",), 3), "version", "written by a newer Rill (format version 3)", '"version": 3'),
    "version not a number": (_set(("version",), "1"), "version", 'expected a format version (1 or 2), got "1"', None),
    "missing conversations": (_delete(("conversations",)), "the top level",
                              'missing the required field "conversations"', None),
}


@pytest.mark.parametrize("case", list(BAD_CASES), ids=list(BAD_CASES))
def test_malformed_input_names_the_place_and_imports_nothing(store: Any, case: str) -> None:
    edit, path, problem, needle = BAD_CASES[case]
    doc = valid_doc()
    edit(doc)
    text = json.dumps(doc, indent=2)
    with pytest.raises(ImportFormatError) as caught:
        import_json(store, text)
    err = caught.value
    str(err).encode("utf-8")  # printable whatever the input held
    assert err.path == path
    assert problem in err.problem
    assert str(err).startswith(f"line {err.line}, column {err.column}: {path}: ")
    assert err.line is not None and err.column is not None
    # The line/column point at the value itself (or the object missing a field).
    offset = sum(len(line) + 1 for line in text.split("\n")[: err.line - 1]) + err.column - 1
    if needle is not None:
        assert text[offset:].startswith(needle.split(": ", 1)[1]), text.split("\n")[err.line - 1]
        assert needle in text.split("\n")[err.line - 1]
    else:
        assert text[offset] in '{["' or text[offset].isdigit() or text[offset] == "t"
    assert store.count_conversations() == 0  # not even conversations[0], which was fine


def test_exact_line_and_column_in_a_hand_written_file(store: Any) -> None:
    text = (
        '{\n'
        '  "format": "rill.export",\n'
        '  "version": 1,\n'
        '  "conversations": [\n'
        '    {"id": "c", "messages": [\n'
        '      {"id": "a", "role": "user", "content": "x"},\n'
        '      {"id": "b", "role": "bot", "content": "y"}\n'
        '    ]}\n'
        '  ]\n'
        '}\n'
    )
    with pytest.raises(ImportFormatError) as caught:
        import_json(store, text)
    assert str(caught.value) == (
        'line 7, column 27: conversations[0].messages[1].role: expected "user" or "assistant", got "bot"'
    )


def test_brackets_and_quotes_inside_strings_do_not_confuse_the_locator(store: Any) -> None:
    doc = valid_doc()
    doc["conversations"][0]["messages"][0]["content"] = 'tricky ] } [ { \\" "quoted" ,\n\t"role": "bot"'
    doc["conversations"][0]["title"] = "界面 👋 \"}"
    doc["conversations"][1]["messages"][2]["role"] = "bot"
    text = json.dumps(doc, indent=1, ensure_ascii=False)
    with pytest.raises(ImportFormatError) as caught:
        parse_export(text)
    err = caught.value
    line = text.split("\n")[err.line - 1]
    assert line.strip() == '"role": "bot",' and line.index('"bot"') + 1 == err.column


def test_on_one_line_the_column_does_the_pointing() -> None:
    doc = valid_doc()
    doc["conversations"][1]["messages"][1]["meta"]["ttft_ms"] = "fast"
    text = json.dumps(doc)
    with pytest.raises(ImportFormatError) as caught:
        parse_export(text)
    err = caught.value
    assert err.line == 1 and text[err.column - 1:].startswith('"fast"')
    assert err.path == "conversations[1].messages[1].meta.ttft_ms"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{\n  "format": "rill.export",\n  "version": 1\n  "conversations": []\n}',
         "line 4, column 3: not valid JSON: Expecting ',' delimiter"),
        ('{"format": "rill.export", "version": 1, "conversations": [}', "line 1, column 59: not valid JSON"),
        ("", "the file is empty"),
        ("   \n", "the file is empty"),
        ("# Hello\n\n## You\n", "line 1, column 1: not valid JSON: Expecting value (this looks like Markdown"),
        ('{"format": "rill.export", "version": 1,\n "conversations": [], "x": NaN}',
         "line 2, column 28: not valid JSON: NaN is not allowed"),
        ('{"format": "NaN -Infinity",\n "version": 1, "conversations": [{"id": -Infinity}]}',
         "line 2, column 41: not valid JSON: -Infinity is not allowed"),
        ("[1, 2]", "the top level: expected a Rill export (a JSON object), got a list"),
        ('{"version": 1, "conversations": []}', 'not a Rill export: missing "format": "rill.export"'),
        ('{"format": "rill.export", "version": 1, "conversations": []' + "}" * 0, "line 1, column"),
        ("[" * 100_000 + "]" * 100_000, "not valid JSON"),
    ],
)
def test_syntax_errors_give_line_and_column(store: Any, text: str, expected: str) -> None:
    with pytest.raises(ImportFormatError) as caught:
        import_json(store, text)
    assert expected in str(caught.value)
    assert store.count_conversations() == 0


def test_a_number_too_big_for_a_float_is_located() -> None:
    text = json.dumps(valid_doc(), indent=2).replace('"tokens": 2,', '"tokens": 2, "tokens_per_s": 1e400,')
    with pytest.raises(ImportFormatError) as caught:
        parse_export(text)
    err = caught.value
    assert err.path == "conversations[1].messages[1].meta.tokens_per_s" and "out of range" in err.problem
    assert text.split("\n")[err.line - 1][err.column - 1:].startswith("1e400")


def test_bytes_that_are_not_utf8_are_located() -> None:
    with pytest.raises(ImportFormatError, match=r"line 2, column 4: not UTF-8 text \(byte 5"):
        exchange.decode_bytes(b'{\n  "\xff"}')
    assert exchange.decode_bytes("\ufeff{}".encode()) == "{}"


def test_a_failure_while_writing_rolls_everything_back(store: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    fill(store)
    before = export_json(store)
    doc = valid_doc()
    calls = []
    real_add = store.add_messages

    def failing_add(conversation_id: str, messages: list[Message]) -> Any:
        calls.append(conversation_id)
        if len(calls) == 2:  # conversations[0] is written, conversations[1] is not
            raise StoreWriteError("Rill cannot save: the disk is full.", "disk_full")
        return real_add(conversation_id, messages)

    monkeypatch.setattr(store, "add_messages", failing_add)
    with pytest.raises(StoreWriteError, match="disk is full"):
        import_json(store, json.dumps(doc))
    monkeypatch.undo()
    assert calls == ["conv-a", "conv-b"]
    assert store.count_conversations() == 3
    assert store.get_conversation("conv-a") is None and store.get_conversation("conv-b") is None
    assert store.get_message("m1") is None
    assert without_exported_at(export_json(store)) == without_exported_at(before)
    assert import_json(store, json.dumps(doc)).conversations == 2  # and the store still works


def test_a_real_database_error_mid_import_rolls_back(store: Any) -> None:
    fill(store)
    before = export_json(store)
    # A trigger makes the database refuse the second conversation's messages.
    store.conn.execute(
        "CREATE TEMP TRIGGER refuse BEFORE INSERT ON messages WHEN NEW.id = 'n2' "
        "BEGIN SELECT RAISE(ABORT, 'refused'); END"
    )
    with pytest.raises(Exception, match="refused"):
        import_json(store, json.dumps(valid_doc()))
    store.conn.execute("DROP TRIGGER refuse")
    assert without_exported_at(export_json(store)) == without_exported_at(before)
    assert store.integrity_ok()


# -- Markdown ------------------------------------------------------------------------------


def test_markdown_shows_the_current_path_with_statuses_and_other_versions(store: Any) -> None:
    fill(store)
    md = export_markdown(store, ["c1" * 16])
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(T0))  # local time, like the app
    assert md.startswith(f"# 界面 design 👋\n\n*{when} · model: SmolLM2-135M*\n\n## You\n")
    assert "model: SmolLM2-135M*" in md.split("\n")[2]
    headings = [line for line in md.split("\n") if line.startswith("## ")]
    assert headings == ["## You", "## Rill (stopped)", "## You", "## Rill (interrupted)"]
    assert "Hello 你好 👋 — how do I design a 界面?" in md
    assert "Second answer, stopped ha" in md and "途中まで" in md
    assert "First answer" not in md  # another branch
    assert md.count("*(2 other versions of this reply not shown)*") == 1
    assert "other version" not in md.split("## You")[2]


def test_markdown_without_current_leaf_follows_the_newest_leaf(store: Any) -> None:
    fill(store)
    store.update_conversation("c1" * 16, current_leaf=None)
    md = export_markdown(store, ["c1" * 16])
    headings = [line for line in md.split("\n") if line.startswith("## ")]
    assert headings == ["## You", "## Rill (error)"]  # a4 is the newest leaf
    assert "> Error: the model crashed" in md


def test_markdown_of_everything_is_one_document(store: Any) -> None:
    fill(store)
    md = export_markdown(store)
    titles = [line for line in md.split("\n") if line.startswith("# ")]
    assert titles == ["# 界面 design 👋", "# Pinned", "# Untitled conversation"]
    assert "## Rill (truncated)\n\ncut off\n" in md
    assert "```py\nprint('hi')\n```" not in md  # not on the current path


def test_markdown_keeps_content_verbatim(store: Any) -> None:
    store.create_conversation(ConversationInfo(id="v", title="t", created_at=T0, updated_at=T0, pinned=False,
                                               model="", system_prompt="", params={}, current_leaf=None))
    body = "  indented\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```\ncode  \n```"
    store.add_message("v", msg("q", "user", body, None, T0))
    assert f"## You\n\n{body}\n" in export_markdown(store, ["v"])


# -- helpers -------------------------------------------------------------------------------


def test_current_path_and_locate_units() -> None:
    ms = [msg("a", "user", "", None, 1), msg("b", "assistant", "", "a", 2), msg("c", "assistant", "", "a", 3)]
    assert [m.id for m in exchange.current_path(ms, None)] == ["a", "c"]
    assert [m.id for m in exchange.current_path(ms, "b")] == ["a", "b"]
    assert [m.id for m in exchange.current_path(ms, "gone")] == ["a", "c"]
    assert exchange.current_path([], None) == []
    text = '{"a": [1, {"b": "x\\"]"}, {"b": 2}], "c": null}'
    assert text[exchange.locate(text, ("a", 2, "b")):].startswith("2}")
    assert text[exchange.locate(text, ("c",)):].startswith("null")
    assert exchange.locate(text, ("a", 9)) is None
    assert exchange.locate(text, ("zz",)) is None
    assert exchange.format_path(("conversations", 0, "weird key")) == 'conversations[0]["weird key"]'
