"""Text at the store boundary: what is written is always valid UTF-8, and a
title is one plain line (Qt-free, any thread).

* ``clean_text``: a lone surrogate (half of a UTF-16 pair, as a server may
  send in JSON: ``"\\ud800"``) becomes U+FFFD, as the view shows it; SQLite
  cannot store it otherwise (``UnicodeEncodeError``).
* ``clean_title``: control characters go (tabs and line breaks become
  spaces), so a title cannot move a terminal's cursor, retitle or clear it.
* ``clean_values``: ``clean_text`` over every string of a write's values
  (tuples, lists and dicts of them)."""

from __future__ import annotations

import re
from typing import Any

_SURROGATE = re.compile("[\ud800-\udfff]")
#: C0 and C1 controls and DEL; tabs and line breaks are replaced by a space first.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")
_BREAKS = re.compile("[\t\n\r\x0b\x0c\x85\u2028\u2029]+")

REPLACEMENT = "\ufffd"


#: A long text is searched for surrogates this many characters at a time.
SCAN_CHARS = 262144


def clean_text(text: str) -> str:
    """``text`` with every lone surrogate replaced by U+FFFD (the same object
    when there is none: the usual case costs one scan, in pieces of
    ``SCAN_CHARS`` on a long text: one regex call holds the GIL, and the
    store thread's scan of a 4 MB prompt took 4.5 ms of it in one go)."""
    if text.isascii():
        return text
    search = _SURROGATE.search
    for start in range(0, len(text), SCAN_CHARS):
        if search(text, start, start + SCAN_CHARS) is not None:
            return _SURROGATE.sub(REPLACEMENT, text)
    return text


def clean_title(title: str) -> str:
    """A title as one plain line: line breaks and tabs become one space,
    other control characters go, lone surrogates become U+FFFD."""
    if title.isascii() and title.isprintable():
        return title
    return _CONTROL.sub("", _BREAKS.sub(" ", clean_text(title)))


def clean_values(value: Any) -> Any:
    """``value`` with ``clean_text`` applied to every string in it (tuples,
    lists and dicts are rebuilt only when something changed)."""
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, tuple):
        cleaned = tuple(clean_values(v) for v in value)
        return value if all(a is b for a, b in zip(cleaned, value, strict=True)) else cleaned
    if isinstance(value, list):
        return [clean_values(v) for v in value]
    if isinstance(value, dict):
        return {clean_values(k): clean_values(v) for k, v in value.items()}
    return value
