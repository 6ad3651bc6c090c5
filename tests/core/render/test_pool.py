"""app.core.render.pool and .jobs: Markdown and Pygments rendered in a
spawned worker process give exactly the units of the same job rendered here;
a job the process cannot finish in time comes back as plain text, and the
next job gets a new process (issue #18)."""

from __future__ import annotations

import multiprocessing
from collections.abc import Iterator

import pytest

from app.core.conversation.sample import SAMPLE_MARKDOWN
from app.core.render.jobs import RenderJob, plain_units, render_job
from app.core.render.pool import RenderPool, default_enabled

JOBS = [
    RenderJob("a", "final", SAMPLE_MARKDOWN),
    RenderJob("b", "stream", "A paragraph with `code` and **bold**.\n\n"),
    RenderJob("c", "user", "a user's <b>text</b>\nover two lines"),
    RenderJob("d", "history", "| a | b |\n|---|---|\n| 1 | 2 |\n\n```python\nprint('hi')\n```\n"),
]


@pytest.fixture
def pool() -> Iterator[RenderPool]:
    p = RenderPool()
    p.start()
    yield p
    p.close()
    assert not multiprocessing.active_children(), "the worker process outlived close()"


def wait_ready(p: RenderPool) -> None:
    assert p.wait_ready(60)   # the warm-up job's answer: the process imported Markdown and Pygments


def test_the_process_renders_exactly_what_this_process_renders(pool: RenderPool) -> None:
    wait_ready(pool)
    for job in JOBS:
        assert pool.render(job) == render_job(job), job.message_id
    assert pool.in_worker == len(JOBS) and pool.restarts == 0


def test_until_the_process_is_ready_jobs_render_here() -> None:
    p = RenderPool()
    try:
        assert p.render(JOBS[1]) == render_job(JOBS[1])   # never started: here
        assert p.in_process == 1 and p.in_worker == 0
    finally:
        p.close()


def test_a_process_that_cannot_start_leaves_every_job_rendered_here(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_processes(method: str) -> object:
        raise OSError("no processes here")

    monkeypatch.setattr(multiprocessing, "get_context", no_processes)
    p = RenderPool()
    try:
        p.start()   # logged, not raised: the render thread goes on
        assert p.render(JOBS[0]) == render_job(JOBS[0])
        assert p.in_process == 1 and p.in_worker == 0 and not p.ready
    finally:
        p.close()


def test_a_job_past_the_timeout_is_plain_text_and_the_next_gets_a_new_process(pool: RenderPool) -> None:
    wait_ready(pool)
    pool.timeout_s = 0.001   # no render of a megabyte of Markdown crosses two processes in 1 ms
    big = RenderJob("big", "final", SAMPLE_MARKDOWN * 200)
    assert pool.render(big) == plain_units(big.text)
    assert pool.restarts == 1
    pool.timeout_s = 60
    wait_ready(pool)
    assert pool.render(JOBS[0]) == render_job(JOBS[0])


def test_a_failing_render_is_plain_text(monkeypatch: pytest.MonkeyPatch) -> None:
    from app.core.render import blocks

    def boom(text: str) -> tuple[blocks.Unit, ...]:
        raise RecursionError("hostile nesting")

    monkeypatch.setattr(blocks, "render_units", boom)
    job = RenderJob("x", "final", "> " * 50 + "deep")
    assert render_job(job) == plain_units(job.text)


def test_the_switch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RILL_RENDER_PROCESS", "0")
    assert not default_enabled()
    monkeypatch.delenv("RILL_RENDER_PROCESS")
    assert default_enabled()


def test_the_worker_runs_at_a_lower_priority(pool: RenderPool) -> None:
    import os

    wait_ready(pool)
    niceness = pool.call(os.nice, 0)   # os.nice(0) reads the worker's niceness
    assert niceness >= os.nice(0) + 10 or niceness == 19


def test_a_job_with_math_waits_for_the_starting_process_instead_of_typesetting_here() -> None:
    """ziamath is never imported into the window's process for a job that
    arrives while the render process starts: that job waits for it."""
    p = RenderPool()
    try:
        p.start()
        math = RenderJob("m", "final", "Roots: $x^2$ here.\n")
        assert [u.body for u in p.render(math)] == [u.body for u in render_job(math)]
        assert p.in_worker == 1 and p.in_process == 0
    finally:
        p.close()

