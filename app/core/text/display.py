"""Text from outside, shown or printed by Rill, made inert (Qt-free).

A conversation title or a message comes from a model, a server or an
imported file. Printed raw by ``rill search`` or ``rill import`` it can drive
the terminal (``ESC]0;…BEL`` retitles it, ``ESC[2J`` clears it, a lone CR
overwrites a line); shown in the sidebar or the window title next to Rill's
own words, a right-to-left override (U+202E) reverses what follows.

* ``without_controls`` drops C0 and C1 control characters, DEL, and the bidi
  embedding, override and isolate characters (as the chat view drops control
  characters from a reply); lone surrogates become U+FFFD. The CLI applies it
  to every text of its human-readable output that it did not write itself
  (its JSON output escapes control characters by itself).
* ``isolated`` is that text as a first-strong bidi isolate (U+2068 … U+2069):
  Arabic or Hebrew titles still read right to left, and nothing leaks out.
"""

from __future__ import annotations

import re

__all__ = ["FSI", "PDI", "isolated", "utf8_std_streams", "without_controls"]

FSI, PDI = "\u2068", "\u2069"
_UNSAFE: dict[int, int | None] = {
    c: None for c in [*range(0x20), *range(0x7F, 0xA0), *range(0x202A, 0x202F), *range(0x2066, 0x206A)]
}
# The two translation tables, made once (a title is cleaned at every sidebar paint).
_ONE_LINE = {**_UNSAFE, ord("\t"): ord(" "), ord("\n"): ord(" "), 0x2028: ord(" "), 0x2029: ord(" ")}
_KEEP_LINES = {**_UNSAFE, ord("\t"): ord("\t"), ord("\n"): ord("\n")}
_SURROGATE = re.compile("[\ud800-\udfff]")


def without_controls(text: str, *, keep: str = "", one_line: bool = True) -> str:
    """``text`` without control or bidi-override characters, lone surrogates
    as U+FFFD. ``one_line``: tabs and line breaks become spaces (a title, an
    id); otherwise they stay (a message of several lines). ``keep``: control
    characters let through (the search marks)."""
    table = _ONE_LINE if one_line else _KEEP_LINES
    if keep:
        table = {k: v for k, v in table.items() if chr(k) not in keep}
    return _SURROGATE.sub("\ufffd", text).translate(table)


def isolated(text: str) -> str:
    """``text`` without controls, as a first-strong bidi isolate ('' stays '')."""
    clean = without_controls(text)
    return f"{FSI}{clean}{PDI}" if clean else ""


def utf8_std_streams() -> None:
    """Standard output and error write UTF-8 whatever the locale (a title
    in Chinese printed under LANG=C must not raise)."""
    import sys

    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            try:
                reconfigure(encoding="utf-8")
            except (ValueError, OSError):  # pragma: no cover - already written to
                pass
