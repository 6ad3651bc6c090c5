"""Python's garbage collector and the GUI thread (``freeze_long_lived``).

A full collection walks every object the collector tracks and holds the GIL
while it does, whichever thread set it off: with the app's modules, classes
and Qt wrappers it took 20-40 ms here, a stall of the window each time a
burst of allocation (a long paste, a long reply's units) triggered one.
What exists once the window is up and once the first model has loaded (its
library's modules) lives as long as the process, so it is moved out of the
collector's generations (``gc.freeze``, O(1)): later full collections walk
only what came after.

A long conversation is the third time (``settle_long``, when it is shown
and again once its earlier history is in place): its messages and items
are ~5 tracked objects a message, and the burst of making them set off full
collections of 20–30 ms (26,554 messages; the doctor's stall report names
them). A frozen object is never collected *as part of a cycle*, but it is
freed as usual when its last reference goes, and a conversation's messages
and items hold no cycles: leaving a frozen 3 M-character conversation gave
back all but ~1,200 of its ~57,000 frozen objects the first time and ~0 the
next times (measured in docs/PERFORMANCE.md, tested in
tests/ui/services/test_collector.py). The young generations are collected
first (~1.5 ms), so the short-lived cycles of the last moments are not
frozen; only conversations of ``LONG_CONVERSATION`` messages or more, so
what a short one leaves behind (a closed dialog's cycles) is collected as
usual.

Only in the application (``enable``, from ``make_application``): a test
process opens hundreds of windows, and a frozen window would never be
collected after it closed.

GUI thread only (any thread would do; the calls are cheap).
"""

from __future__ import annotations

import gc
from typing import Any

_enabled = False

#: Messages from which a shown conversation is frozen (``settle_long``).
LONG_CONVERSATION = 2000


def enable() -> None:
    """Freeze long-lived objects from now on (the application does)."""
    global _enabled
    _enabled = True


def freeze_long_lived() -> int:
    """Move every object tracked now into the collector's permanent
    generation (when enabled); returns how many are frozen in all."""
    if _enabled:
        gc.freeze()
    return gc.get_freeze_count()


def freeze_after_first(signal: Any) -> None:
    """``freeze_long_lived`` once, the first time ``signal`` (a bound Qt
    signal) is emitted."""
    def once(*_args: object) -> None:
        signal.disconnect(once)
        freeze_long_lived()
    signal.connect(once)


def settle_long(messages: int) -> bool:
    """A conversation of ``messages`` messages is in place: when it is a
    long one (and freezing is enabled), collect the young generations and
    freeze what is alive; returns whether it did. (Not the frozen count:
    ``gc.get_freeze_count`` walks the frozen list, 10 ms at 250,000.)"""
    if not (_enabled and messages >= LONG_CONVERSATION):
        return False
    gc.collect(1)
    gc.freeze()
    return True
