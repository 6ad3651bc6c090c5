"""Text from outside shown inside Rill's own text (Qt-free).

A conversation title comes from a model, an import or the user; shown in the
sidebar or the window title next to Rill's words, a right-to-left override
(U+202E) in it would reverse what follows, and its control characters would
show as boxes. ``isolated`` drops the bidi embedding, override and isolate
controls and the control characters, then wraps the text in a first-strong
isolate (U+2068 … U+2069): Arabic or Hebrew titles still read right to left,
and nothing leaks out of the title.
"""

from __future__ import annotations

import re

__all__ = ["isolated", "without_controls"]

_CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
FSI, PDI = "\u2068", "\u2069"


def without_controls(text: str) -> str:
    """``text`` without control characters or bidi embedding/override/isolate controls."""
    return _CONTROLS.sub("", text)


def isolated(text: str) -> str:
    """``text`` without controls, as a first-strong bidi isolate ('' stays '')."""
    clean = without_controls(text)
    return f"{FSI}{clean}{PDI}" if clean else ""
