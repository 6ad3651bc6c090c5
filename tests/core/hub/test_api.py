"""Search, repository details and file lists against the fake Hub."""

from __future__ import annotations

import hashlib

import pytest

from app.core.hub.api import HubClient, group_models, parse_repo, parse_tree_entry, valid_filename, valid_repo_id
from app.core.hub.endpoint import (
    DEFAULT_ENDPOINT,
    KIND_BAD_REPLY,
    KIND_GATED,
    KIND_NETWORK,
    KIND_NOT_FOUND,
    HubError,
    hub_endpoint,
    retry_after_seconds,
)
from app.core.hub.quant import KIND_MODEL, KIND_PROJECTOR
from tests.core.hub.conftest import GATED, MMPROJ, MODEL, MODEL_Q8, REPO
from tests.helpers.fake_hub import FakeHub


def test_search_finds_gguf_repositories_with_their_facts(hub: FakeHub) -> None:
    with HubClient(hub.url) as client:
        found = client.search("tiny")
    assert [r.repo for r in found] == [REPO]
    repo = found[0]
    assert (repo.downloads, repo.likes, repo.license, repo.updated, repo.gated) == (1234, 56, "apache-2.0",
                                                                                    "2025-01-02", False)
    query = hub.requests[-1].path
    assert "search=tiny" in query and "filter=gguf" in query and "expand=downloads" in query


def test_repo_info_and_gated_flag(hub: FakeHub) -> None:
    with HubClient(hub.url) as client:
        info = client.repo_info(GATED)
    assert info.gated and info.license == "llama3.2"


def test_files_with_sizes_sha256_and_companions(hub: FakeHub) -> None:
    hub.page_size = 2   # two pages of 2 files: the Link header is followed
    with HubClient(hub.url) as client:
        files = client.list_files(REPO)
        models = client.model_files(REPO)
    by_path = {f.path: f for f in files}
    assert set(by_path) == {MODEL, MODEL_Q8, MMPROJ, "README.md"}
    assert by_path["README.md"].sha256 == ""      # not an LFS file: no sha256 to check
    blob = hub.repos[REPO].files[MODEL]
    assert by_path[MODEL].sha256 == hashlib.sha256(blob).hexdigest() and by_path[MODEL].size == len(blob)
    chat = [m for m in models if m.kind == KIND_MODEL]
    assert [m.quant for m in chat] == ["Q4_K_M", "Q8_0"]       # smallest first
    assert all(m.companions and m.companions[0].path == MMPROJ for m in chat)
    assert [m.kind for m in models if m.path == MMPROJ] == [KIND_PROJECTOR]
    assert sum("/tree/" in r.path for r in hub.requests) == 4  # two listings of two pages


def test_split_models_are_one_entry_and_incomplete_ones_are_left_out() -> None:
    from app.core.hub.api import HubFile

    files = [HubFile("Big-Q4_K_M-00001-of-00002.gguf", 10), HubFile("Big-Q4_K_M-00002-of-00002.gguf", 7),
             HubFile("Half-Q8_0-00001-of-00002.gguf", 3)]
    models = group_models("a/b", files)
    assert len(models) == 1 and models[0].size == 17 and len(models[0].parts) == 2


def test_errors_are_sentences(hub: FakeHub) -> None:
    with HubClient(hub.url) as client:
        with pytest.raises(HubError) as missing:
            client.list_files("nobody/nothing")
        assert missing.value.kind == KIND_NOT_FOUND and "nobody/nothing" in str(missing.value)
        with pytest.raises(HubError) as bad:
            client.list_files("not a repo")
        assert bad.value.kind == KIND_BAD_REPLY
    with HubClient("http://127.0.0.1:9") as client, pytest.raises(HubError) as down:
        client.search("x")
    assert down.value.kind == KIND_NETWORK and "127.0.0.1" in str(down.value)


def test_a_server_that_is_not_a_hub(hub: FakeHub) -> None:
    with HubClient(hub.url + "/blobs") as client, pytest.raises(HubError) as exc:
        client.search("x")
    assert exc.value.kind in (KIND_NOT_FOUND, KIND_BAD_REPLY)


def test_gated_file_without_token_is_a_gated_error(hub: FakeHub) -> None:
    import httpx

    from app.core.backends.remote.redaction import Redactor
    from app.core.hub.endpoint import file_url, status_error

    with httpx.Client() as client:
        r = client.get(file_url(hub.url, GATED, MODEL))
    error = status_error(r, GATED, Redactor(), has_token=False)
    assert error.kind == KIND_GATED and "token" in str(error)


def test_endpoint_from_environment_then_settings() -> None:
    assert hub_endpoint({"HF_ENDPOINT": "https://hf-mirror.com/"}, {}) == "https://hf-mirror.com"
    assert hub_endpoint({}, {"hub_endpoint": "http://127.0.0.1:8000"}) == "http://127.0.0.1:8000"
    assert hub_endpoint({"HF_ENDPOINT": "not a url"}, {"hub_endpoint": 5}) == DEFAULT_ENDPOINT


def test_parsers_reject_bad_entries() -> None:
    assert parse_repo({"id": "../etc"}) is None
    assert parse_repo([1]) is None
    assert parse_tree_entry({"type": "file", "path": "../x.gguf", "size": 1}) is None
    assert parse_tree_entry({"type": "directory", "path": "x"}) is None
    entry = parse_tree_entry({"type": "file", "path": "a.gguf", "size": -5, "lfs": {"oid": "zz", "size": 9}})
    assert entry is not None and entry.size == 9 and entry.sha256 == ""
    assert valid_repo_id("Qwen/Qwen2.5-0.5B-Instruct-GGUF") and not valid_repo_id("a--b/c")
    assert not valid_filename("a/\x1b[31m.gguf") and valid_filename("Q4/a.gguf")


def test_retry_after() -> None:
    assert retry_after_seconds("7") == 7
    assert retry_after_seconds("garbage") is None
    assert retry_after_seconds("Wed, 21 Oct 2015 07:28:00 GMT") == 0
