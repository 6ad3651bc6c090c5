"""A file's text read in a process of its own (``read_out_of_process``).

Reading a document is Python (DOCX, HTML, chunking) and Qt work (QtPdf's
text per page), and both hold the GIL however they are threaded: on a
background thread of the window's process, a 300-page PDF made the window
wait 10–35 ms again and again for a second. So each read runs ``extract`` and
``chunk`` in a spawned child process (started for the read, ~0.25 s, ended
with it): the worker thread that called it only waits, relays the child's
progress and passes Cancel on (a ``multiprocessing`` event the child checks
per page and piece). What comes back is the attachment record, its text and
its chunks (unpickled in one call each), each chunk with its short-index terms
(``Chunk.terms``: the store then indexes them without Python in this process).

Threading rule: a worker thread (``AttachmentService``'s background calls).
"""

from __future__ import annotations

import multiprocessing
import queue
import threading
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import replace
from typing import Any

from app.core.attachments.chunking import Chunk, chunk
from app.core.attachments.extract import extract
from app.core.attachments.record import Attachment, Extracted
from app.core.store.search import short_terms

__all__ = ["read_out_of_process"]

_POLL_S = 0.05
_state: dict[str, Any] = {}  # in the child: its cancel event and progress queue


def _start_child(cancel: Any, progress: Any) -> None:
    _state["cancel"], _state["progress"] = cancel, progress


def _read(path: str) -> tuple[Attachment, Extracted | None, tuple[Chunk, ...]]:
    from app.ui.attachments.pdf_reader import open_pdf  # QtPdf, in this process only

    progress = _state["progress"]
    att, extracted = extract(path, pdf_opener=open_pdf, cancel=_state["cancel"], progress=progress.put)
    if not att.ok or extracted is None:
        return att, extracted, ()
    # the short-index terms too: the store then indexes without running Python in the window's process
    return att, extracted, tuple(replace(c, terms=short_terms(c.text)) for c in chunk(extracted))


def read_out_of_process(
    path: str, cancel: threading.Event, progress: Callable[[float], None] | None = None,
) -> tuple[Attachment, Extracted | None, tuple[Chunk, ...]]:
    """``extract`` and ``chunk`` for ``path``, in a child process (see the
    module docstring); ``cancel`` stops it, ``progress(fraction)`` relays it."""
    context = multiprocessing.get_context("spawn")
    stop = context.Event()
    reports = context.SimpleQueue()
    with ProcessPoolExecutor(1, mp_context=context, initializer=_start_child, initargs=(stop, reports)) as pool:
        future = pool.submit(_read, path)
        while True:
            if cancel.is_set():
                stop.set()
            try:
                result = future.result(timeout=_POLL_S)
            except FutureTimeout:
                _relay(reports, progress)
                continue
            _relay(reports, progress)
            return result


def _relay(reports: Any, progress: Callable[[float], None] | None) -> None:
    last = None
    try:
        while not reports.empty():
            last = reports.get()
    except (OSError, EOFError, queue.Empty):
        return
    if last is not None and progress is not None:
        progress(float(last))
