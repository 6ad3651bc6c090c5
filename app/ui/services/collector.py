"""Python's garbage collector and the GUI thread (``freeze_long_lived``).

A full collection walks every object the collector tracks and holds the GIL
while it does, whichever thread set it off: with the app's modules, classes
and Qt wrappers it took 20-40 ms here, a stall of the window each time a
burst of allocation (a long paste, a long reply's units) triggered one.
What exists once the window is up and once the first model has loaded (its
library's modules) lives as long as the process, so it is moved out of the
collector's generations (``gc.freeze``, O(1)): later full collections walk
only what came after. Only those two times: a frozen object is never
collected as part of a cycle, so conversations opened later must stay
collectable.

Only in the application (``enable``, from ``make_application``): a test
process opens hundreds of windows, and a frozen window would never be
collected after it closed.

GUI thread only (any thread would do; the calls are cheap).
"""

from __future__ import annotations

import gc
from typing import Any

_enabled = False


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
