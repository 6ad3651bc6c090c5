"""RenderService: Markdown rendered off the GUI thread, by priority, coalesced by key."""

from __future__ import annotations

from typing import Any

import pytest

from app.ui.services.render import (
    PRIORITY_BACKGROUND,
    RenderJob,
    RenderService,
    render_job,
)


@pytest.fixture
def service(qtbot: Any) -> Any:
    s = RenderService()
    yield s
    assert s.shutdown(5000)


def test_a_job_comes_back_rendered_on_the_gui_thread(qtbot: Any, service: RenderService) -> None:
    job = RenderJob("m1", "final", "# Title\n\nsome *text*")
    with qtbot.waitSignal(service.rendered, timeout=5000) as blocker:
        service.request(job)
    result = blocker.args[0]
    assert result.job is job and result.units == render_job(job) and result.units


def test_a_newer_job_for_the_same_key_wins(qtbot: Any, service: RenderService) -> None:
    got: list[str] = []
    service.rendered.connect(lambda r: got.append(r.job.text))
    service.request(RenderJob("m", "final", "old"), PRIORITY_BACKGROUND)
    service.request(RenderJob("m", "final", "new"), PRIORITY_BACKGROUND)
    qtbot.waitUntil(lambda: bool(got) and got[-1] == "new", timeout=5000)
    assert got in (["new"], ["old", "new"]), "the old one is either replaced or done before"
    assert service.pending() == 0


def test_cancel_drops_pending_jobs(service: RenderService) -> None:
    service.cancel_all()
    assert service.pending() == 0
    service.cancel("nothing")  # unknown ids are harmless


def test_after_request_stop_nothing_is_queued(service: RenderService) -> None:
    service.request_stop()
    service.request(RenderJob("m", "final", "late"))
    assert service.pending() == 0


def test_with_a_worker_process_the_results_are_the_same_and_shutdown_ends_it(qtbot: Any) -> None:
    import multiprocessing

    service = RenderService(processes=True)
    pool = service.pool
    assert pool is not None
    try:
        qtbot.waitUntil(lambda: pool.ready, timeout=60_000)   # started by the render thread, off the GUI thread
        job = RenderJob("m1", "final", "# Title\n\n```python\nx = 1\n```\n\n| a |\n|---|\n| 1 |\n")
        with qtbot.waitSignal(service.rendered, timeout=10_000) as blocker:
            service.request(job)
        assert blocker.args[0].units == render_job(job)
        assert pool.in_worker == 1
        assert multiprocessing.active_children(), "the render process runs"
    finally:
        assert service.shutdown(10_000)
    assert not multiprocessing.active_children(), "the render thread ended its process before it ended"
