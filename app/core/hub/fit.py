"""Will a model fit this machine? (Qt-free)

Jan's rule, for a CPU build (no VRAM to count; a GPU build would add the
"weights + KV cache in VRAM" case):

* **Won't fit**: what loading takes is more than ``WONT_FIT_SHARE`` of the
  machine's physical memory (the system and the window need the rest);
* **May be slow**: it fits in the physical memory but not in what is
  available now (other programs must give memory back, or it swaps);
* **Fits**: it fits in the memory available now.

What loading takes is ``GGUFInfo.memory_estimate`` (file + f16 KV cache at
the chosen context + compute buffer, app.core.models.gguf_info) when the
header has been read; before that, from the file size alone:
``size + ESTIMATE_OVERHEAD`` of it plus ``ESTIMATE_BASE`` bytes (the KV cache
and buffers of a small model at 4096 tokens run 10-20 % of its size).

RAM comes from ``os.sysconf`` (physical pages) and
``app.core.models.catalog.available_memory`` (``MemAvailable``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from app.core.base.i18n import QT_TRANSLATE_NOOP, translate
from app.core.models.catalog import available_memory
from app.core.models.gguf_info import GGUFInfo
from app.core.models.paths import DEFAULT_N_CTX
from app.core.models.sizes import format_bytes

__all__ = ["FITS", "MAY_BE_SLOW", "WONT_FIT", "Fit", "Machine", "estimate_needed", "fit_for", "this_machine"]

FITS = "fits"
MAY_BE_SLOW = "slow"
WONT_FIT = "wont_fit"
UNKNOWN = "unknown"

LABELS = {
    FITS: QT_TRANSLATE_NOOP("HubFit", "Fits"),
    MAY_BE_SLOW: QT_TRANSLATE_NOOP("HubFit", "May be slow"),
    WONT_FIT: QT_TRANSLATE_NOOP("HubFit", "Won't fit"),
    UNKNOWN: QT_TRANSLATE_NOOP("HubFit", "Unknown"),
}

WONT_FIT_SHARE = 0.85
ESTIMATE_OVERHEAD = 0.15
ESTIMATE_BASE = 128 * 1024 * 1024


@dataclass(frozen=True)
class Machine:
    """Memory facts, in bytes (None: unknown)."""

    total: int | None
    available: int | None


def physical_memory() -> int | None:
    try:
        pages, page_size = os.sysconf("SC_PHYS_PAGES"), os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None
    return pages * page_size if pages > 0 and page_size > 0 else None


def this_machine() -> Machine:
    """This machine's memory now (reads /proc/meminfo: cheap, but not free)."""
    total = physical_memory()
    available = available_memory()
    if total is not None and available is not None:
        available = min(available, total)
    return Machine(total, available)


def estimate_needed(size: int, info: GGUFInfo | None = None, n_ctx: int = DEFAULT_N_CTX) -> int:
    """Bytes loading a ``size``-byte model takes: from its header when read, else from its size."""
    if info is not None and info.ok:
        estimate = info.memory_estimate(n_ctx)
        if estimate is not None:
            return max(estimate, size)
    return size + int(size * ESTIMATE_OVERHEAD) + ESTIMATE_BASE


@dataclass(frozen=True)
class Fit:
    """A fit verdict: ``level`` (FITS, MAY_BE_SLOW, WONT_FIT, UNKNOWN) and the bytes it needs."""

    level: str
    needed: int
    machine: Machine

    @property
    def label(self) -> str:
        return translate("HubFit", LABELS[self.level])

    @property
    def explanation(self) -> str:
        """A sentence: what it needs against what there is."""
        m = self.machine
        if self.level == UNKNOWN:
            return translate("HubFit", "Needs about {needed}; this machine's memory is unknown.").format(
                needed=format_bytes(self.needed))
        return translate("HubFit", "Needs about {needed}; {available} of {total} is available now.").format(
            needed=format_bytes(self.needed), available=format_bytes(m.available or m.total),
            total=format_bytes(m.total or m.available))


def fit_for(needed: int, machine: Machine) -> Fit:
    total = machine.total or machine.available
    if total is None:
        return Fit(UNKNOWN, needed, machine)
    if needed > total * WONT_FIT_SHARE:
        return Fit(WONT_FIT, needed, machine)
    available = machine.available if machine.available is not None else total
    if needed > available:
        return Fit(MAY_BE_SLOW, needed, machine)
    return Fit(FITS, needed, machine)
