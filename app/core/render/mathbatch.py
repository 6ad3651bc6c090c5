"""Many formulas typeset at once, on every core (exports; Qt-free).

An export typesets every formula of the conversations it writes (ziamath:
pure Python, 8–20 ms each), one after another in one process: 1,000
formulas took 16 s. :class:`AheadTypesetter` typesets the formulas of the
next messages in a pool of spawned processes (one per core, at most
``MAX_WORKERS``, each at a lower priority than the window) before they are
rendered (``RILL_MATH_WORKERS`` sets how many; 1: none); what comes back joins ``mathsvg``'s cache, where the render finds
it (``render_markdown_math`` typesets only what is not cached, so the output
is the same with or without it). Few formulas (under ``MIN_FORMULAS``) are not
worth starting processes for: they are typeset where they are rendered.

Threading rule: the caller's thread (an export's); the pool is its own.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import threading
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import BrokenExecutor, Executor, ProcessPoolExecutor

from app.core.render import mathsvg
from app.core.render.mathscan import find_math
from app.core.render.mathsvg import Formula

__all__ = ["MAX_WORKERS", "MIN_FORMULAS", "AheadTypesetter", "formulas_in"]

log = logging.getLogger(__name__)

#: At most this many typesetting processes.
MAX_WORKERS = 4
#: Fewer formulas than this are typeset in place (a process costs ~0.5 s to start).
MIN_FORMULAS = 48
#: Formulas sent to a process at a time.
_BATCH = 16
#: How much lower than the caller the processes run (the window stays first).
_NICENESS = 5
#: How often a typesetting process looks whether its parent is still there.
_PARENT_CHECK_S = 0.5

Wanted = tuple[str, str, bool]  # (source, tex, display)


def formulas_in(text: str) -> list[Wanted]:
    """The formulas of Markdown ``text``, as ``render_markdown_math`` finds them."""
    return [(span.source, span.tex, span.display) for span in find_math(text)]


def _start_process(parent: int) -> None:
    """A typesetting process's start: a lower priority, and an end of its own
    when its parent is gone (a render process that was killed cannot shut
    its pool down)."""
    try:
        os.nice(_NICENESS)
    except OSError:  # not allowed here: same priority, still correct
        pass
    threading.Thread(target=_end_with, args=(parent,), name="rill-math-parent", daemon=True).start()


def _end_with(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(_PARENT_CHECK_S)
    os._exit(0)


def _typeset(batch: Sequence[Wanted]) -> list[tuple[Wanted, Formula]]:
    return [((source, tex, display), mathsvg.render_formula(source, tex, display)) for source, tex, display in batch]


class AheadTypesetter:
    """Typesets formulas ahead of their render (see the module docstring).
    Use as a context manager: the processes end with it."""

    def __init__(self, workers: int | None = None, min_formulas: int = 0) -> None:
        if workers is None:
            try:  # the environment's choice (1: one after another, as before; the benchmark)
                workers = int(os.environ.get("RILL_MATH_WORKERS", "") or (os.cpu_count() or 1))
            except ValueError:
                workers = os.cpu_count() or 1
        self._workers = max(1, min(MAX_WORKERS, workers))
        self._min = min_formulas or MIN_FORMULAS
        self._pool: Executor | None = None
        self.typeset = 0  # formulas typeset by the processes (for tests and the benchmark)

    def __enter__(self) -> AheadTypesetter:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def close(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)

    def _drop_pool(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)
        self._workers = 1

    def ahead(self, wanted: Iterable[Wanted]) -> int:
        """Typeset what of ``wanted`` is not cached yet (all of it, or none when
        there are fewer than ``min_formulas`` (default ``MIN_FORMULAS``) or one
        core); how many were."""
        todo = [w for w in dict.fromkeys(wanted) if mathsvg.cached_formula(*w) is None]
        todo = todo[: mathsvg.CACHE_SIZE // 2]  # never more than the cache keeps
        if len(todo) < self._min or self._workers < 2:
            return 0
        if self._pool is None:
            try:
                self._pool = ProcessPoolExecutor(
                    self._workers, mp_context=multiprocessing.get_context("spawn"), initializer=_start_process,
                    initargs=(os.getpid(),))
            except Exception as exc:  # noqa: BLE001 - no processes here: typeset in place, as before
                log.warning("math: no typesetting processes (%s); typesetting in place", exc)
                self._drop_pool()
                return 0
        # as many batches as processes at least, so that every one of them works
        size = max(1, min(_BATCH, -(-len(todo) // self._workers)))
        batches = [todo[i : i + size] for i in range(0, len(todo), size)]
        done = 0
        try:
            for typeset in self._pool.map(_typeset, batches):
                for (source, tex, display), formula in typeset:
                    mathsvg.remember(source, tex, display, formula)
                done += len(typeset)
        except (BrokenExecutor, OSError) as exc:  # a process died: the rest is typeset in place
            log.warning("math: typesetting processes failed (%s); typesetting in place", exc)
            self._drop_pool()
        self.typeset += done
        return done
