"""One render job and what renders it (Qt-free, importable by a worker process).

``render_job`` is what the render thread runs, in a worker process
(``app.core.render.pool``) or, until that process is ready, in the thread
itself; both give the same units. A job that raises gets its text as plain
units: hostile text never breaks a reply.
"""

from __future__ import annotations

import logging
import pickle
from dataclasses import dataclass

from app.core.render import blocks
from app.core.text.textbreak import display_pieces

log = logging.getLogger(__name__)

__all__ = ["RenderJob", "plain_units", "render_job", "render_job_pickled", "warm_up_math"]


@dataclass(frozen=True)
class RenderJob:
    message_id: str
    kind: str          # "stream" | "stream_plain" (a piece of a too-long open block) | "final" | "history" | "user"
    text: str
    token: int = 0     # the caller's own tag (e.g. the start offset of a stream commit)


def plain_units(text: str) -> tuple[blocks.Unit, ...]:
    """``text`` as plain units (what a failed render shows)."""
    return tuple(blocks.Unit("plain", p) for p in display_pieces(text))


def render_job(job: RenderJob) -> tuple[blocks.Unit, ...]:
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
