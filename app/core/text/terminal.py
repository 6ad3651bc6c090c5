"""Text printed to a terminal, made inert (Qt-free).

A conversation title or a message comes from a model, a server or an
imported file; printed raw by ``rill search`` or ``rill import`` it can drive
the terminal (``ESC]0;…BEL`` retitles it, ``ESC[2J`` clears it, a lone CR
overwrites a line) or read reversed (U+202E). ``terminal_safe`` replaces C0
and C1 control characters (but newline and tab), DEL, and the bidi
embedding, override and isolate characters with U+FFFD, visibly. The CLI
applies it to every text of its human-readable output that it did not write
itself (JSON output escapes control characters by itself).
"""

from __future__ import annotations

import re

__all__ = ["terminal_safe"]

_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def terminal_safe(text: str) -> str:
    """``text`` with every character that could drive a terminal replaced by U+FFFD."""
    return _UNSAFE.sub("\ufffd", text)
