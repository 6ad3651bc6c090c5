"""Resumable, verified downloads from the fake Hub: drops, restarts, faults."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from app.core.hub.download import DownloadRequest, FileDownload, Progress, discard_partial
from app.core.hub.endpoint import (
    KIND_CANCELLED,
    KIND_CHECKSUM,
    KIND_DISK,
    KIND_GATED,
    KIND_NETWORK,
    KIND_NOT_FOUND,
    KIND_RATE_LIMITED,
    KIND_STALLED,
    HubError,
    file_url,
)
from tests.core.hub.conftest import GATED, MODEL, REPO
from tests.helpers.fake_hub import FakeHub, Fault

MB = 1024 * 1024


def request_for(hub: FakeHub, folder: Path, repo: str = REPO, path: str = MODEL, sha: str | None = None) -> DownloadRequest:
    blob = hub.repos[repo].files[path]
    return DownloadRequest(repo, path, file_url(hub.url, repo, path), folder, len(blob),
                           hashlib.sha256(blob).hexdigest() if sha is None else sha)


def cdn(hub: FakeHub) -> FakeHub:
    assert hub.cdn is not None
    return hub.cdn


def test_download_verifies_and_renames(hub: FakeHub, models_dir: Path) -> None:
    req = request_for(hub, models_dir)
    seen: list[Progress] = []
    result = FileDownload(req, on_progress=seen.append).run()
    assert result.verified and result.path == req.target
    assert req.target.read_bytes() == hub.repos[REPO].files[MODEL]
    assert not req.partial.exists() and not req.sidecar.exists()
    assert seen and seen[-1].phase == "verifying" and seen[-1].done == req.size
    # the bytes came from the CDN, where the Hub sent the client
    assert cdn(hub).body_bytes == req.size and hub.body_bytes == 0
    again = FileDownload(req).run()
    assert again.already_there and again.fetched == 0


def test_a_dropped_connection_resumes_where_it_stopped(hub: FakeHub, models_dir: Path) -> None:
    req = request_for(hub, models_dir)
    cdn(hub).faults.append(Fault("drop", n=MB + 12345))
    result = FileDownload(req).run()
    assert result.verified
    ranges = [r.headers.get("range") for r in cdn(hub).file_requests()]
    assert ranges[0] is None and ranges[1] is not None and ranges[1].startswith("bytes=")
    resumed_at = int(ranges[1].removeprefix("bytes=").rstrip("-"))
    assert 0 < resumed_at <= MB + 12345
    assert cdn(hub).body_bytes - req.size <= MB   # at most 1 MB of what was on disk fetched again


def test_a_restart_continues_the_partial_file(hub: FakeHub, models_dir: Path) -> None:
    req = request_for(hub, models_dir)
    cdn(hub).faults.append(Fault("drop", n=2 * MB))
    with pytest.raises(HubError) as exc:
        FileDownload(req, retries=0).run()
    assert exc.value.kind == KIND_NETWORK
    assert req.partial.stat().st_size > 0 and not req.target.exists()
    sidecar = json.loads(req.sidecar.read_text())
    assert sidecar["sha256"] == req.sha256 and sidecar["size"] == req.size and sidecar["etag"]
    kept = req.partial.stat().st_size
    # Rill restarted: a new downloader, the same files on disk.
    result = FileDownload(req).run()
    assert result.verified and result.resumed_from == kept and result.fetched == req.size - kept
    assert cdn(hub).file_requests()[-1].headers["range"] == f"bytes={kept}-"


def test_a_wrong_checksum_deletes_the_download(hub: FakeHub, models_dir: Path) -> None:
    req = request_for(hub, models_dir, sha="ab" * 32)
    with pytest.raises(HubError) as exc:
        FileDownload(req).run()
    assert exc.value.kind == KIND_CHECKSUM and "sha256" in str(exc.value)
    assert not req.target.exists() and not req.partial.exists() and not req.sidecar.exists()


def test_gated_needs_the_token_and_the_cdn_never_sees_it(hub: FakeHub, models_dir: Path) -> None:
    req = request_for(hub, models_dir, repo=GATED)
    with pytest.raises(HubError) as exc:
        FileDownload(req).run()
    assert exc.value.kind == KIND_GATED and "token" in str(exc.value)
    with pytest.raises(HubError) as wrong:
        FileDownload(req, token="hf_wrong_token_999").run()
    assert wrong.value.kind == KIND_GATED and "hf_wrong_token_999" not in str(wrong.value)
    assert FileDownload(req, token=hub.token).run().verified
    assert all("authorization" not in r.headers for r in cdn(hub).requests)


def test_not_found(hub: FakeHub, models_dir: Path) -> None:
    req = DownloadRequest(REPO, "nope.gguf", file_url(hub.url, REPO, "nope.gguf"), models_dir, 10)
    with pytest.raises(HubError) as exc:
        FileDownload(req).run()
    assert exc.value.kind == KIND_NOT_FOUND and "nope.gguf" in str(exc.value)


def test_429_waits_a_short_retry_after_and_stops_on_a_long_one(hub: FakeHub, models_dir: Path) -> None:
    req = request_for(hub, models_dir)
    cdn(hub).faults.append(Fault("status", status=429, retry_after="0"))
    assert FileDownload(req).run().verified
    req.target.unlink()
    cdn(hub).faults.append(Fault("status", status=429, retry_after="3600"))
    with pytest.raises(HubError) as exc:
        FileDownload(req).run()
    assert exc.value.kind == KIND_RATE_LIMITED and "3600 s" in str(exc.value)


def test_a_trickling_server_is_a_stall_and_the_part_is_kept(hub: FakeHub, models_dir: Path) -> None:
    req = request_for(hub, models_dir)
    cdn(hub).faults.append(Fault("trickle", n=512, delay=0.005))
    with pytest.raises(HubError) as exc:
        FileDownload(req, retries=0, min_rate=10 * MB, rate_window_s=0.3).run()
    assert exc.value.kind == KIND_STALLED and "too slowly" in str(exc.value)
    assert req.partial.exists() and req.sidecar.exists()


def test_a_silent_server_is_a_stall(hub: FakeHub, models_dir: Path) -> None:
    req = request_for(hub, models_dir)
    cdn(hub).faults.append(Fault("trickle", n=64 * 1024, delay=5.0))
    with pytest.raises(HubError) as exc:
        FileDownload(req, retries=0, stall_s=0.3).run()
    assert exc.value.kind == KIND_STALLED


def test_pause_keeps_the_part_and_cancel_discards_it(hub: FakeHub, models_dir: Path) -> None:
    req = request_for(hub, models_dir)
    cdn(hub).faults.append(Fault("trickle", n=64 * 1024, delay=0.01))
    download = FileDownload(req, on_progress=lambda p: download.cancel.set() if p.done >= 256 * 1024 else None)
    with pytest.raises(HubError) as exc:
        download.run()
    assert exc.value.kind == KIND_CANCELLED
    assert req.partial.stat().st_size >= 256 * 1024
    discard_partial(req)
    assert not req.partial.exists() and not req.sidecar.exists()


def test_not_enough_disk_is_said_before_any_byte(hub: FakeHub, models_dir: Path) -> None:
    req = request_for(hub, models_dir)
    with pytest.raises(HubError) as exc:
        FileDownload(req, disk_margin=1 << 62).run()
    assert exc.value.kind == KIND_DISK and "disk space" in str(exc.value)
    assert cdn(hub).file_requests() == [] and hub.file_requests() == []


def test_a_server_ignoring_ranges_starts_over_and_still_verifies(hub: FakeHub, models_dir: Path) -> None:
    req = request_for(hub, models_dir)
    cdn(hub).faults += [Fault("drop", n=MB), Fault("ignore_range")]
    assert FileDownload(req).run().verified


@pytest.mark.parametrize("listed_size", [True, False])
def test_a_complete_partial_is_verified_without_fetching(hub: FakeHub, models_dir: Path, listed_size: bool) -> None:
    """Every byte arrived before Rill stopped: with the size listed, no request;
    without it, the server's 416 for a range past the end says it is complete."""
    req = request_for(hub, models_dir)
    if not listed_size:
        req = DownloadRequest(req.repo, req.path, req.url, req.folder, 0, req.sha256)
    models_dir.mkdir(parents=True)
    req.partial.write_bytes(hub.repos[REPO].files[MODEL])
    req.sidecar.write_text(json.dumps({"repo": REPO, "path": MODEL, "size": req.size, "sha256": req.sha256}))
    result = FileDownload(req).run()
    assert result.verified and result.fetched == 0 and cdn(hub).body_bytes == 0
    assert len(cdn(hub).file_requests()) == (0 if listed_size else 1)


def test_a_partial_of_another_file_is_not_continued(hub: FakeHub, models_dir: Path) -> None:
    req = request_for(hub, models_dir)
    models_dir.mkdir(parents=True)
    req.partial.write_bytes(b"GGUF" + b"\0" * 5000)
    req.sidecar.write_text(json.dumps({"repo": REPO, "path": MODEL, "size": req.size, "sha256": "cd" * 32}))
    result = FileDownload(req).run()
    assert result.verified and result.resumed_from == 0


def test_a_server_answering_from_the_wrong_place_is_given_up(hub: FakeHub, models_dir: Path) -> None:
    req = request_for(hub, models_dir)
    cdn(hub).faults += [Fault("bad_range") for _ in range(3)]
    with pytest.raises(HubError) as exc:
        FileDownload(req).run()
    assert exc.value.kind == "bad_reply" and "wrong place" in str(exc.value)
    cdn(hub).faults.append(Fault("bad_range"))   # once: started over, then fine
    assert FileDownload(req).run().verified


def test_a_second_downloader_of_the_same_file_is_refused(hub: FakeHub, models_dir: Path) -> None:
    import fcntl

    req = request_for(hub, models_dir)
    models_dir.mkdir(parents=True)
    with open(req.partial, "ab") as held:
        fcntl.flock(held.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        with pytest.raises(HubError) as exc:
            FileDownload(req).run()
    assert exc.value.kind == "busy" and "already" in str(exc.value)
    assert FileDownload(req).run().verified   # the lock is gone: it downloads


def test_the_rate_watch_and_the_partial_helpers(tmp_path: Path) -> None:
    from app.core.hub.partial import CancelToken, request_from_sidecar, write_sidecar
    from app.core.hub.rate import RateWatch

    watch = RateWatch(min_rate=100, window_s=1.0)
    watch.start(0.0, 0)
    watch.add(0.5, 40)
    assert not watch.too_slow(0.5, 40)           # the window has not passed
    watch.add(1.5, 90)
    assert watch.too_slow(1.5, 90)                # 90 bytes in 1.5 s: under 100/s
    assert watch.speed(1.5, 90) == pytest.approx(60.0)
    fast = RateWatch(min_rate=100, window_s=1.0)
    fast.start(0.0, 0)
    fast.add(1.2, 500)
    assert not fast.too_slow(1.2, 500)
    request = DownloadRequest("a/b", "m.gguf", "http://127.0.0.1:1/a/b/resolve/main/m.gguf", tmp_path, 10, "ab" * 32)
    write_sidecar(request, '"etag"')
    assert request_from_sidecar(tmp_path, request.sidecar) == request
    token = CancelToken()
    token.attach(None)
    token.set()
    assert token.is_set()


def test_a_full_disk_mid_download_keeps_the_part(hub: FakeHub, models_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The disk fills after 1 MB: a sentence saying so, the part kept for a resume."""
    import errno
    import io

    req = request_for(hub, models_dir)
    written = [0]
    real_write = io.BufferedWriter.write

    class FillingFile(io.BufferedWriter):
        def write(self, data):  # type: ignore[no-untyped-def, override]
            if written[0] >= 1024 * 1024:
                raise OSError(errno.ENOSPC, "No space left on device")
            written[0] += len(data)
            return real_write(self, data)

    import builtins

    real_open = builtins.open

    def opener(file, mode="r", *args, **kwargs):  # type: ignore[no-untyped-def]
        handle = real_open(file, mode, *args, **kwargs)
        if str(file) == str(req.partial) and mode == "ab" and hasattr(handle, "raw") and written[0] == 0 \
                and opener.calls > 0:
            return FillingFile(handle.detach())
        opener.calls += 1
        return handle

    opener.calls = 0  # type: ignore[attr-defined]
    monkeypatch.setattr("app.core.hub.download.open", opener, raising=False)
    with pytest.raises(HubError) as exc:
        FileDownload(req, retries=0).run()
    assert exc.value.kind == KIND_DISK and "disk is full" in str(exc.value)
    monkeypatch.undo()
    assert req.partial.stat().st_size >= 1024 * 1024 and req.sidecar.exists()
    assert FileDownload(req).run().verified
