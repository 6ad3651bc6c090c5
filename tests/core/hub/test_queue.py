"""The downloads queue: one after another, pause, resume, cancel."""

from __future__ import annotations

import hashlib
from pathlib import Path

from app.core.hub.download import DownloadRequest
from app.core.hub.endpoint import file_url
from app.core.hub.queue import CANCELLED, DONE, DOWNLOADING, FAILED, PAUSED, QUEUED, DownloadQueue, Job, run_next
from tests.core.hub.conftest import GATED, MODEL, MODEL_Q8, REPO
from tests.helpers.fake_hub import FakeHub, Fault


def req(hub: FakeHub, folder: Path, path: str, repo: str = REPO) -> DownloadRequest:
    blob = hub.repos[repo].files[path]
    return DownloadRequest(repo, path, file_url(hub.url, repo, path), folder, len(blob), hashlib.sha256(blob).hexdigest())


def test_jobs_run_in_order_and_report_progress(hub: FakeHub, models_dir: Path) -> None:
    changes: list[Job] = []
    queue = DownloadQueue(changes.append)
    first = queue.add(req(hub, models_dir, MODEL))
    second = queue.add(req(hub, models_dir, MODEL_Q8))
    assert queue.add(req(hub, models_dir, MODEL)).id == first.id   # the same file is not queued twice
    assert [j.state for j in queue.jobs()] == [QUEUED, QUEUED]
    done = run_next(queue)
    assert done is not None and done.id == first.id and done.state == DONE and Path(done.path).is_file()
    assert queue.get(second.id).state == QUEUED  # type: ignore[union-attr]
    assert run_next(queue).state == DONE  # type: ignore[union-attr]
    assert run_next(queue) is None
    states = [c.state for c in changes if c.id == first.id]
    assert states[0] == QUEUED and DOWNLOADING in states and states[-1] == DONE
    assert any(c.progress is not None and c.progress.done for c in changes)


def test_failure_is_kept_with_its_sentence_and_resume_retries(hub: FakeHub, models_dir: Path) -> None:
    queue = DownloadQueue()
    job = queue.add(req(hub, models_dir, MODEL, repo=GATED))
    failed = run_next(queue)
    assert failed is not None and failed.state == FAILED and "token" in failed.error
    queue.resume(job.id)
    assert queue.get(job.id).state == QUEUED  # type: ignore[union-attr]
    assert run_next(queue, token=hub.token).state == DONE  # type: ignore[union-attr]


def test_pause_then_resume_continues_and_cancel_deletes(hub: FakeHub, models_dir: Path) -> None:
    assert hub.cdn is not None
    queue = DownloadQueue()
    request = req(hub, models_dir, MODEL)
    job = queue.add(request)

    def pause_when_started(changed: Job) -> None:
        if changed.progress is not None and changed.progress.done >= 128 * 1024 and changed.state == DOWNLOADING:
            queue.pause(changed.id)

    queue._on_change = pause_when_started
    hub.cdn.faults.append(Fault("trickle", n=64 * 1024, delay=0.005))
    paused = run_next(queue)
    assert paused is not None and paused.state == PAUSED and request.partial.stat().st_size >= 128 * 1024
    queue._on_change = None
    queue.resume(job.id)
    assert run_next(queue).state == DONE  # type: ignore[union-attr]
    assert hub.cdn.file_requests()[-1].headers.get("range", "").startswith("bytes=")

    other = queue.add(req(hub, models_dir, MODEL_Q8))
    queue.pause(other.id)
    assert queue.get(other.id).state == PAUSED  # type: ignore[union-attr]
    queue.cancel(other.id)
    assert queue.get(other.id).state == CANCELLED  # type: ignore[union-attr]
    assert run_next(queue) is None


def test_cancel_while_running_deletes_the_partial(hub: FakeHub, models_dir: Path) -> None:
    assert hub.cdn is not None
    queue = DownloadQueue()
    request = req(hub, models_dir, MODEL)

    def cancel_when_started(changed: Job) -> None:
        if changed.progress is not None and changed.progress.done and changed.state == DOWNLOADING:
            queue.cancel(changed.id)

    queue._on_change = cancel_when_started
    hub.cdn.faults.append(Fault("trickle", n=64 * 1024, delay=0.005))
    job = queue.add(request)
    ended = run_next(queue)
    assert ended is not None and ended.id == job.id and ended.state == CANCELLED
    assert not request.partial.exists() and not request.sidecar.exists()


def test_pause_cuts_a_read_blocked_on_a_silent_server(hub: FakeHub, models_dir: Path) -> None:
    """The server sends 64 KB then nothing for 60 s (the stall timeout is 30 s):
    Pause must not wait for either."""
    import threading

    assert hub.cdn is not None
    queue = DownloadQueue()
    job = queue.add(req(hub, models_dir, MODEL))
    hub.cdn.faults.append(Fault("trickle", n=64 * 1024, delay=60.0))
    ended: list[Job | None] = []
    runner = threading.Thread(target=lambda: ended.append(run_next(queue)))
    runner.start()
    try:
        while not (queue.get(job.id).progress and queue.get(job.id).progress.done):  # type: ignore[union-attr]
            runner.join(0.01)
            assert runner.is_alive()
        queue.pause(job.id)
        runner.join(10)
        assert not runner.is_alive(), "Pause waited for the silent server"
    finally:
        queue.cancel(job.id)
        runner.join(60)
    assert ended[0] is not None and ended[0].state == PAUSED


def test_unfinished_downloads_come_back_paused(hub: FakeHub, models_dir: Path) -> None:
    from app.core.hub.download import FileDownload

    request = req(hub, models_dir, MODEL)
    assert hub.cdn is not None
    hub.cdn.faults.append(Fault("drop", n=1024 * 1024))
    try:
        FileDownload(request, retries=0).run()
    except Exception:  # noqa: BLE001 - the drop
        pass
    (models_dir / "junk.gguf.partial.json").write_text("{not json")
    queue = DownloadQueue()
    (restored,) = queue.restore_partials(models_dir)
    assert restored.state == PAUSED and restored.request == request and restored.done_bytes > 0
    assert queue.restore_partials(models_dir) == []     # not twice
    queue.resume(restored.id)
    assert run_next(queue).state == DONE  # type: ignore[union-attr]
