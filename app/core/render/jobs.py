"""One render job and what renders it (Qt-free, importable by a worker process).

``render_job`` is what the render thread runs, in a worker process
(``app.core.render.pool``) or, until that process is ready, in the thread
itself; both give the same units. A job that raises gets its text as plain
units: hostile text never breaks a reply.
"""

from __future__ import annotations

import logging
import multiprocessing
import pickle
from dataclasses import dataclass

from app.core.render import blocks
from app.core.render.mathbatch import AheadTypesetter, formulas_in
from app.core.text.textbreak import display_pieces

log = logging.getLogger(__name__)

__all__ = ["RenderJob", "math_typeset_ahead", "plain_units", "render_job", "render_job_pickled", "stop_math_processes",
           "use_math_processes", "warm_up_math"]


@dataclass(frozen=True)
class RenderJob:
    message_id: str
    kind: str          # "stream" | "stream_plain" (a piece of a too-long open block) | "final" | "history" | "user"
    text: str
    token: int = 0     # the caller's own tag (e.g. the start offset of a stream commit)


def plain_units(text: str) -> tuple[blocks.Unit, ...]:
    """``text`` as plain units (what a failed render shows)."""
    return tuple(blocks.Unit("plain", p) for p in display_pieces(text))


#: In the render worker process (``use_math_processes``): a reply's formulas
#: typeset on the other cores before its blocks are rendered.
_math_ahead: AheadTypesetter | None = None
#: A job with at least this many new formulas is typeset ahead in parallel.
STREAM_MIN_FORMULAS = 3
#: The helper processes end after this long without a formula (their memory back).
MATH_IDLE_S = 60.0


def use_math_processes(workers: int | None = None) -> None:
    """Typeset the formulas of math-heavy jobs in helper processes from now
    on (the render worker process; they start on first use, end when idle)."""
    global _math_ahead
    # A multiprocessing.Pool worker is daemonic, and a daemonic process may
    # not start children: Python's guard against orphans. The typesetting
    # processes end by themselves when their parent is gone (mathbatch's
    # parent watch, tested), so this worker may have them.
    multiprocessing.current_process()._config["daemon"] = False  # type: ignore[attr-defined]  # no public API
    _math_ahead = AheadTypesetter(workers, min_formulas=STREAM_MIN_FORMULAS, idle_close_s=MATH_IDLE_S, start_at=1)


def math_typeset_ahead() -> int:
    """Formulas the helper processes typeset so far (run in the worker: tests, the doctor)."""
    ahead = _math_ahead
    return -1 if ahead is None else ahead.typeset


def stop_math_processes() -> None:
    """End the helper processes (the worker process ends)."""
    global _math_ahead
    ahead, _math_ahead = _math_ahead, None
    if ahead is not None:
        ahead.close()


def render_job(job: RenderJob) -> tuple[blocks.Unit, ...]:
    ahead = _math_ahead
    if ahead is not None and job.kind in ("stream", "final", "history") and ("$" in job.text or "\\" in job.text):
        try:
            ahead.ahead(formulas_in(job.text))
        except Exception:  # noqa: BLE001 - typeset in place then
            log.exception("typesetting ahead failed")
    try:
        if job.kind == "user":
            return blocks.user_units(job.text)
        if job.kind == "stream":
            return blocks.render_stream_units(job.text)
        if job.kind == "stream_plain":
            return blocks.render_plain_stream_units(job.text)
        return blocks.render_units(job.text)
    except Exception:  # noqa: BLE001 - never let hostile text break a reply
        log.exception("rendering failed; showing plain text")
        return plain_units(job.text)


def render_job_pickled(job: RenderJob) -> list[bytes]:
    """``render_job(job)``, each unit pickled on its own (what the worker
    process sends back): the receiving process unpickles the list of bytes in
    one cheap call, then the units one at a time, so no single unpickling of
    a long reply's units holds the GIL for tens of milliseconds."""
    return [pickle.dumps(unit, protocol=pickle.HIGHEST_PROTOCOL) for unit in render_job(job)]


def warm_up_math() -> None:
    """Import ziamath and load its font by typesetting one formula (the
    render process does it at start, on a thread of its own)."""
    from app.core.render.mathsvg import render_formula

    render_formula("$x^2$", "x^2", False)
