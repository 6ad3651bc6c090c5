"""What Manage Models (``app.ui.dialogs.model_manager``) reads off the GUI
thread: the catalog's scan (``app.core.models.catalog.scan``) and then the
files' headers (``app.core.models.gguf_info``), a few files per background
call (~10 ms a file), one call at a time, the file the user selects first.
Each call also reads the memory available now. The answers arrive on the
GUI thread as signals; ``cancel`` drops the ones still on their way.

Threading rule: created and called on the GUI thread; the scan and the reads
run on background threads (``app.ui.services.background.BackgroundCalls``).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from PyQt6.QtCore import QObject, pyqtSignal

from app.core.models.catalog import CatalogEntry
from app.core.models.gguf_info import GGUFInfo
from app.ui.services.background import BackgroundCalls

#: At most this many headers are read per background call (then the table updates).
READ_BATCH = 6
#: ...or fewer, once this much time (s) was spent in one call.
READ_BATCH_S = 0.05


class ModelReader(QObject):
    """Scans the catalog and reads headers in the background (see the module
    docstring). ``scan``, ``read_info`` and ``available_memory`` run on the
    background threads (tests replace them).

    Signals: ``scanned`` and ``scan_failed`` answer ``scan()``;
    ``headers_read`` follows each call of the reads ``read()`` queues,
    ``finished`` the last one."""

    #: The catalog was scanned; args: list[CatalogEntry], bytes of memory
    #: available now (None: unknown).
    scanned = pyqtSignal(list, object)
    #: The scan failed; arg: what went wrong.
    scan_failed = pyqtSignal(str)
    #: Some headers were read; args: list[tuple[str, GGUFInfo]] (path, what
    #: it is), bytes of memory available now (None: unknown).
    headers_read = pyqtSignal(list, object)
    #: Every header queued has been read; no args.
    finished = pyqtSignal()

    def __init__(
        self,
        scan: Callable[[], list[CatalogEntry]],
        read_info: Callable[[str], GGUFInfo],
        available_memory: Callable[[], int | None],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._scan = scan
        self._read_info = read_info
        self._available_memory = available_memory
        self._calls = BackgroundCalls(self)
        self._queue: list[str] = []  # headers still to read, next first
        self._reading = False

    @property
    def idle(self) -> bool:
        """Nothing is being read and nothing is queued."""
        return not self._queue and not self._reading

    def scan(self) -> None:
        """List the catalog (``scanned`` or ``scan_failed`` follows)."""
        scan, available = self._scan, self._available_memory

        def work(cancel: threading.Event) -> tuple[list[CatalogEntry], int | None]:
            return scan(), available()

        self._calls.run(work, self._on_scanned, name="rill-model-scan")

    def read(self, paths: list[str]) -> None:
        """Read the headers of ``paths`` (instead of any still queued), in order."""
        self._queue = list(paths)
        self._read_more()

    def read_first(self, path: str) -> None:
        """Read ``path``'s header before the others queued (a file just added)."""
        self._queue.insert(0, path)
        self._read_more()

    def prioritize(self, path: str) -> None:
        """Read ``path``'s header next, if it is queued (the row selected)."""
        if path in self._queue:
            self._queue.remove(path)
            self._queue.insert(0, path)

    def cancel(self) -> None:
        """Drop every answer on its way and every header queued."""
        self._calls.cancel_all()
        self._queue.clear()

    # -- background calls ----------------------------------------------------------------

    def _on_scanned(self, result: Any, error: BaseException | None) -> None:
        if error is not None:
            self.scan_failed.emit(str(error))
            return
        entries, available = result
        self.scanned.emit(list(entries), available)

    def _read_more(self) -> None:
        """Read the next few headers in the background (one call at a time)."""
        if self._reading or not self._queue:
            return
        batch, self._queue = self._queue[:READ_BATCH], self._queue[READ_BATCH:]
        read, available = self._read_info, self._available_memory

        def work(cancel: threading.Event) -> tuple[list[tuple[str, GGUFInfo]], list[str], int | None]:
            done: list[tuple[str, GGUFInfo]] = []
            started = time.monotonic()
            for i, path in enumerate(batch):
                if cancel.is_set():
                    break
                if done and time.monotonic() - started > READ_BATCH_S:
                    return done, batch[i:], available()
                done.append((path, read(path)))
            return done, [], available()

        self._reading = True
        self._calls.run(work, self._on_batch_read, name="rill-model-headers")

    def _on_batch_read(self, result: Any, error: BaseException | None) -> None:
        self._reading = False
        if error is None:  # read_gguf_info never raises for a bad file: an error is a bug
            done, left, available = result
            self.headers_read.emit(list(done), available)
            self._queue = left + [p for p in self._queue if p not in left]
        if self._queue:
            self._read_more()
        else:
            self.finished.emit()
