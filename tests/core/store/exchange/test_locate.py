"""app.core.store.exchange.locate: a JSON path's place in the text."""

from __future__ import annotations

import json

from app.core.store.exchange.locate import line_column, locate

TEXT = json.dumps({"a": 1, "list": [{"x": "a,}]"}, {"x": [1, 2], "y": None}]}, indent=2)


def test_locate_finds_nested_values_past_tricky_strings() -> None:
    pos = locate(TEXT, ("list", 1, "y"))
    assert pos is not None and TEXT[pos:pos + 4] == "null"
    assert TEXT[locate(TEXT, ("list", 0, "x")) or 0] == '"'
    assert locate(TEXT, ("list", 5)) is None and locate(TEXT, ("nope",)) is None
    assert locate("not json", ("a",)) is None


def test_line_column_counts_like_json() -> None:
    text = '{\n  "a": x\n}'
    try:
        json.loads(text)
    except json.JSONDecodeError as exc:
        assert line_column(text, exc.pos) == (exc.lineno, exc.colno)
