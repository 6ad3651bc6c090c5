"""The short index's terms of long texts, made in a helper process (Qt-free).

``search.short_terms`` is Python (two regular expressions and dict work,
~80 ms per MB) that SQLite's index triggers call on the store thread. In
the window's process that is GIL the GUI thread waits for: saving a 4 MB
prompt took ~320 ms of it, while the window was sending the prompt and
showing the reply (issue #18). ``TermsProcess`` makes the terms of a text of
``PROCESS_MIN_CHARS`` or more in one ``multiprocessing`` process started
with *spawn* (no fork of a Qt process); the store thread waits for the
answer without the GIL (the first long text waits for the process to
start, ~0.2 s, rather than hold the GIL for longer). Shorter texts and any
fault (the process cannot start, dies or takes longer than ``TIMEOUT_S``)
are made in the calling thread as before: the terms are the same either
way, so the index never depends on where they were made.

Threading rule: ``terms`` from the store's threads (a lock guards the
start); ``close`` once, from the thread that closes the store.
"""

from __future__ import annotations

import logging
import multiprocessing
import multiprocessing.pool
import threading

from app.core.store.search import local_terms

log = logging.getLogger(__name__)

__all__ = ["PROCESS_MIN_CHARS", "TIMEOUT_S", "TermsProcess"]

#: Texts at least this long have their terms made in the helper process
#: (shorter ones take under ~20 ms in the calling thread).
PROCESS_MIN_CHARS = 256 * 1024
#: A text whose terms take longer than this in the helper (or a helper that
#: takes longer to start) is done in the calling thread.
TIMEOUT_S = 30.0


def _ready() -> bool:
    """The helper's warm-up: its imports are done."""
    return True


class TermsProcess:
    """One helper process, started at the first long text (see the module docstring)."""

    def __init__(self, min_chars: int = PROCESS_MIN_CHARS) -> None:
        self.min_chars = min_chars
        self._pool: multiprocessing.pool.Pool | None = None
        self._warm: multiprocessing.pool.AsyncResult[bool] | None = None
        self._lock = threading.Lock()
        self._closed = False
        #: How many texts the helper made the terms of (tests and benchmarks).
        self.made_there = 0

    def terms(self, text: str | bytes) -> str:
        """``local_terms(text)``, made in the helper when ``text`` (or its UTF-8
        bytes: they cross to the helper as they are) is long and it is up."""
        if len(text) < self.min_chars:
            return local_terms(text)
        pool = self._started()
        if pool is not None:
            try:
                made: str = pool.apply_async(local_terms, (text,)).get(TIMEOUT_S)
                self.made_there += 1
                return made
            except Exception as exc:  # noqa: BLE001 - any fault: made here, as without the helper
                log.warning("the search-terms helper failed (%s); making them in this thread", exc)
                self._stop(broken=True)
        return local_terms(text)

    def _started(self) -> multiprocessing.pool.Pool | None:
        """The helper once it has answered its warm-up (waited for); started at the first ask."""
        with self._lock:
            if self._closed:
                return None
            if self._pool is None:
                try:
                    self._pool = multiprocessing.get_context("spawn").Pool(1)
                    self._warm = self._pool.apply_async(_ready)
                except Exception as exc:  # noqa: BLE001 - no helper: made in this thread
                    log.warning("could not start the search-terms helper (%s)", exc)
                    self._closed = True
                    return None
            pool, warm = self._pool, self._warm
        assert warm is not None
        warm.wait(TIMEOUT_S)  # without the lock: close() may end it meanwhile
        return pool if warm.ready() and warm.successful() else None

    def _stop(self, broken: bool = False) -> None:
        with self._lock:
            pool, self._pool, self._warm = self._pool, None, None
            self._closed = self._closed or broken
        if pool is not None:
            pool.terminate()
            pool.join()

    def close(self) -> None:
        """End the helper (if it was started) and join the pool's threads."""
        self._closed = True
        self._stop()
