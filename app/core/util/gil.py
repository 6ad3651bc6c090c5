"""Letting the GUI thread have the GIL during a helper thread's long Python
loop (Qt-free).

A thread running Python keeps the GIL until it blocks, or until another
thread has waited a whole switch interval for it (1 ms in Rill,
``app.application``). The GUI thread needs the GIL for every slot and every
Qt call that returns to Python, so while a helper thread loops, each of
those waits lasts the whole interval: building the prompt of a
26,554-message conversation on the inference thread (~30 ms of Python)
made the first Enter's beat 15–25 ms late. ``handing_over`` lets the GIL go
(``time.sleep(0)``) every ``EVERY`` items, so a waiting GUI thread takes it
at once.

Only for threads other than the GUI thread: there, letting the GIL go
invites a helper thread in for up to an interval.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from typing import TypeVar

T = TypeVar("T")

__all__ = ["EVERY", "handing_over"]

#: Items between two hand-overs (a loop of ~1 µs an item: ~0.3 ms at a time).
EVERY = 256


def handing_over(items: Iterable[T], every: int = EVERY) -> Iterator[T]:
    """``items``, letting the GIL go after every ``every`` of them."""
    for n, item in enumerate(items, 1):
        yield item
        if not n % every:
            time.sleep(0)
