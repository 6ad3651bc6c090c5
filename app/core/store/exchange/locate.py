"""Where a JSON path is in the text of a document (for the line and column
an import error names)."""

from __future__ import annotations

import json
import re

JsonPath = tuple[str | int, ...]


_WS = re.compile(r"[ \t\n\r]*")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.DOTALL)
_SCALAR = re.compile(r"[^\s,\]}]+")


def _skip_ws(text: str, pos: int) -> int:
    return _WS.match(text, pos).end()  # type: ignore[union-attr]  # "[ \t\n\r]*" matches anywhere


def _skip_value(text: str, pos: int) -> int:
    ch = text[pos]
    if ch == '"':
        return _STRING.match(text, pos).end()  # type: ignore[union-attr]  # valid JSON: a string starts here
    if ch in "[{":
        depth = 0
        while True:
            m = _TOKEN.search(text, pos)
            if m is None:
                raise ValueError("unterminated")
            pos = m.end()
            tok = m.group()
            if tok in "[{":
                depth += 1
            elif tok in "]}":
                depth -= 1
                if depth == 0:
                    return pos
    m = _SCALAR.match(text, pos)
    return m.end() if m else pos + 1


def locate(text: str, path: JsonPath) -> int | None:
    """The offset in ``text`` (valid JSON) of the value at ``path``, or None
    when it cannot be found. For a repeated key, the first one (``json.loads``
    keeps the last: a file with repeated keys may be pointed at wrongly)."""
    try:
        pos = _skip_ws(text, 0)
        for part in path:
            if isinstance(part, int):
                if text[pos] != "[":
                    return None
                pos = _skip_ws(text, pos + 1)
                for _ in range(part):
                    pos = _skip_ws(text, _skip_value(text, pos))
                    if text[pos] != ",":
                        return None
                    pos = _skip_ws(text, pos + 1)
            else:
                if text[pos] != "{":
                    return None
                pos = _skip_ws(text, pos + 1)
                while True:
                    if text[pos] != '"':
                        return None
                    m = _STRING.match(text, pos)
                    assert m is not None
                    key = json.loads(m.group())
                    pos = _skip_ws(text, m.end())
                    pos = _skip_ws(text, pos + 1)  # the colon
                    if key == part:
                        break
                    pos = _skip_ws(text, _skip_value(text, pos))
                    if text[pos] != ",":
                        return None
                    pos = _skip_ws(text, pos + 1)
        return pos
    except (IndexError, ValueError, AttributeError, AssertionError):
        return None


def line_column(text: str, pos: int) -> tuple[int, int]:
    """1-based line and column of offset ``pos`` (as ``json.JSONDecodeError`` counts)."""
    line = text.count("\n", 0, pos) + 1
    return line, pos - text.rfind("\n", 0, pos)
