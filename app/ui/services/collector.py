"""Python's garbage collector and the GUI thread (``freeze_long_lived``).

A full collection walks every object the collector tracks and holds the GIL
while it does, whichever thread set it off: with the app's modules, classes
and Qt wrappers it took 20-40 ms here, a stall of the window each time a
burst of allocation (a long paste, a long reply's units) triggered one.
What exists once the window is up and once a model has loaded lives as long
as the process, so it is moved out of the collector's generations
(``gc.freeze``, O(1)): later full collections walk only what came after.

Only in the application (``enable``, from ``make_application``): a test
process opens hundreds of windows, and a frozen window would never be
collected after it closed.

GUI thread only (any thread would do; the calls are cheap).
"""

from __future__ import annotations

import gc

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
