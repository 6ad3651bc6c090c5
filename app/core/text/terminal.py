"""Text printed to a terminal, made inert (Qt-free).

A conversation title or a message comes from a model, a server or an
imported file; printed raw by ``rill search`` or ``rill import`` it can drive
the terminal (``ESC]0;…BEL`` retitles it, ``ESC[2J`` clears it, a lone CR
overwrites a line) or read reversed (U+202E). ``terminal_safe`` drops C0
and C1 control characters, DEL, and the bidi embedding, override and isolate
characters (as the chat view drops control characters from a reply); lone
surrogates become U+FFFD. The CLI applies it to every text of its
human-readable output that it did not write itself (JSON output escapes
control characters by itself).
"""

from __future__ import annotations

import re

__all__ = ["terminal_safe"]

_UNSAFE: dict[int, int | None] = {
    c: None for c in [*range(0x20), *range(0x7F, 0xA0), *range(0x202A, 0x202F), *range(0x2066, 0x206A)]
}
_ONE_LINE = {ord("\t"): ord(" "), ord("\n"): ord(" "), 0x2028: ord(" "), 0x2029: ord(" ")}
_KEEP_LINES = {ord("\t"): ord("\t"), ord("\n"): ord("\n")}
_SURROGATE = re.compile("[\ud800-\udfff]")


def terminal_safe(text: str, *, keep: str = "", one_line: bool = True) -> str:
    """``text`` safe to print to a terminal: no control or bidi-override
    characters, lone surrogates as U+FFFD. ``one_line``: tabs and line breaks
    become spaces (a title, an id); otherwise they stay (a message of several
    lines). ``keep``: control characters let through (the search marks)."""
    table = {**_UNSAFE, **(_ONE_LINE if one_line else _KEEP_LINES)}
    for ch in keep:
        table.pop(ord(ch), None)
    return _SURROGATE.sub("\ufffd", text).translate(table)
