"""A GGUF header read on the (fake) Hub by range requests, without the file."""

from __future__ import annotations

from pathlib import Path

import httpx

from app.core.hub.endpoint import file_url
from app.core.hub.remote_gguf import read_remote_info
from app.core.models.gguf_info import read_gguf_info
from tests.core.hub.conftest import MODEL, REPO
from tests.helpers.fake_hub import FakeHub, FakeRepo
from tests.helpers.gguf_files import tiny_model


def test_header_facts_through_the_cdn_redirect_in_one_request(hub: FakeHub, tmp_path: Path) -> None:
    blob = hub.repos[REPO].files[MODEL]
    local = tmp_path / MODEL
    local.write_bytes(blob)
    with httpx.Client(follow_redirects=True) as client:
        info, requests = read_remote_info(client, file_url(hub.url, REPO, MODEL), len(blob), MODEL)
    assert info.ok, info.error
    assert requests == 1
    expected = read_gguf_info(local)
    assert (info.architecture, info.context_length, info.chat_template_kind, info.kv_cache_bytes(4096)) == (
        expected.architecture, expected.context_length, expected.chat_template_kind, expected.kv_cache_bytes(4096))
    assert info.chat_template_kind == "ChatML" and info.context_length == 4096
    assert hub.cdn is not None and hub.cdn.body_bytes <= 2 * 1024 * 1024   # the header, not the 3 MB file
    assert all(r.headers.get("range", "").startswith("bytes=0-") for r in hub.file_requests())


def test_a_large_vocabulary_takes_at_most_three_requests(tmp_path: Path) -> None:
    blob = tiny_model(tmp_path / "big-vocab-Q8_0.gguf", vocab=250_000, data_bytes=64 * 1024).read_bytes()
    assert len(blob) > 4 * 1024 * 1024   # the metadata is larger than the first 2 MB read
    with FakeHub() as hub:
        hub.repos["t/Big"] = FakeRepo({"big-vocab-Q8_0.gguf": blob})
        with httpx.Client(follow_redirects=True) as client:
            info, requests = read_remote_info(client, file_url(hub.url, "t/Big", "big-vocab-Q8_0.gguf"),
                                              len(blob), "big-vocab-Q8_0.gguf")
    assert info.ok, info.error
    assert info.vocab_size == 250_000
    assert 2 <= requests <= 3


def test_failures_are_in_the_info_error(hub: FakeHub) -> None:
    with httpx.Client(follow_redirects=True) as client:
        info, _ = read_remote_info(client, file_url(hub.url, REPO, "missing.gguf"), 1000, "missing.gguf")
        assert not info.ok and "404" in info.error and ".." not in info.error
        readme, _ = read_remote_info(client, file_url(hub.url, REPO, "README.md"), 7, "README.md")
        assert not readme.ok and "GGUF" in readme.error
        unknown, requests = read_remote_info(client, file_url(hub.url, REPO, MODEL), 0, MODEL)
        assert not unknown.ok and requests == 0


def test_a_server_that_ignores_ranges(hub: FakeHub) -> None:
    from tests.helpers.fake_hub import Fault

    assert hub.cdn is not None
    hub.cdn.faults.append(Fault("ignore_range"))
    blob = hub.repos[REPO].files[MODEL]
    with httpx.Client(follow_redirects=True) as client:
        info, _ = read_remote_info(client, file_url(hub.url, REPO, MODEL), len(blob), MODEL)
    assert info.ok, info.error


def test_a_cancelled_read_asks_nothing_more_and_says_so(hub: FakeHub) -> None:
    from app.core.hub.partial import CancelToken

    blob = hub.repos[REPO].files[MODEL]
    cancel = CancelToken()
    cancel.set()
    before = len(hub.file_requests())
    with httpx.Client(follow_redirects=True) as client:
        info, requests = read_remote_info(client, file_url(hub.url, REPO, MODEL), len(blob), MODEL, cancel=cancel)
    assert not info.ok and "cancelled" in info.error
    assert requests == 0 and len(hub.file_requests()) == before
