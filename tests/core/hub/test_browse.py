"""The Get More Models window's blocking calls, at the endpoint HF_ENDPOINT names."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.core.hub import browse
from app.core.hub.endpoint import HubError, HubToken
from tests.core.hub.conftest import GATED, MODEL, REPO
from tests.helpers.fake_hub import FakeHub


@pytest.fixture(autouse=True)
def at_the_fake_hub(hub: FakeHub, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_ENDPOINT", hub.url)
    monkeypatch.delenv("HF_TOKEN", raising=False)


class NoKeyring:
    def get(self, _user: str) -> str:
        return ""


def test_search_files_details_requests(hub: FakeHub, tmp_path: Path) -> None:
    token = HubToken(NoKeyring(), {})
    assert [r.repo for r in browse.search("tiny", token=token)] == [REPO]
    files = browse.repo_files(REPO, token=token)
    assert files.summary.downloads == 1234 and files.models[0].path == MODEL
    info = browse.remote_details(files.models[0], 8192, token=token)
    assert info.ok and info.chat_template_kind == "ChatML"
    (request,) = browse.requests_for(files.models[0], tmp_path)
    assert request.url.startswith(hub.url) and request.target == tmp_path / MODEL and len(request.sha256) == 64


def test_the_token_comes_from_hf_token(hub: FakeHub) -> None:
    files = browse.repo_files(GATED, token=HubToken(NoKeyring(), {"HF_TOKEN": hub.token}))
    info = browse.remote_details(files.models[0], token=HubToken(NoKeyring(), {"HF_TOKEN": hub.token}))
    assert info.ok
    denied = browse.remote_details(files.models[0], token=HubToken(NoKeyring(), {}))
    assert not denied.ok and "token" in denied.error


def test_errors_raise_hub_errors() -> None:
    with pytest.raises(HubError):
        browse.repo_files("nobody/nothing", token=HubToken(NoKeyring(), {}))
