"""What the Get More Models window asks, as blocking calls (Qt-free).

Each call builds its own client for the current endpoint and token (the
settings file and the keyring are read, so call it off the GUI thread) and
returns plain data or raises ``HubError``:

* :func:`search` — repositories matching the words;
* :func:`repo_files` — a repository's details and models;
* :func:`remote_details` — a model file's GGUF header, read by range requests;
* :func:`requests_for` — the ``DownloadRequest`` of each part of a model.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from app.core.hub.api import HubClient, ModelFile, RepoSummary
from app.core.hub.download import DownloadRequest
from app.core.hub.endpoint import HubToken, file_url, hub_endpoint, make_client
from app.core.hub.partial import CancelToken
from app.core.hub.remote_gguf import read_remote_info
from app.core.models.gguf_info import GGUFInfo
from app.core.models.paths import DEFAULT_N_CTX

__all__ = ["RepoFiles", "remote_details", "repo_files", "requests_for", "search"]


@dataclass(frozen=True)
class RepoFiles:
    summary: RepoSummary
    models: tuple[ModelFile, ...]


def _client(token: HubToken | None = None) -> HubClient:
    return HubClient(hub_endpoint(), (token or HubToken()).get())


def search(text: str, limit: int = 30, token: HubToken | None = None) -> list[RepoSummary]:
    with _client(token) as client:
        return client.search(text, limit)


def repo_files(repo: str, token: HubToken | None = None) -> RepoFiles:
    with _client(token) as client:
        models = client.model_files(repo)
        summary = client.repo_info(repo)
    return RepoFiles(summary, tuple(models))


def remote_details(model: ModelFile, n_ctx: int = DEFAULT_N_CTX, token: HubToken | None = None,
                   cancel: CancelToken | None = None) -> GGUFInfo:
    """The model's header (its first part's), without downloading it;
    ``cancel`` set stops it at once (see ``app.core.hub.remote_gguf``)."""
    secret = (token or HubToken()).get()
    first = model.parts[0]
    url = file_url(hub_endpoint(), model.repo, first.path)
    with make_client(secret) as client:
        info, _ = read_remote_info(client, url, first.size, first.name, n_ctx,
                                   parts_total=model.size if len(model.parts) > 1 else None, token=secret,
                                   cancel=cancel)
    return info


def requests_for(model: ModelFile, folder: Path, endpoint: str | None = None) -> list[DownloadRequest]:
    """One request per part (a split model's parts are downloaded one after another)."""
    base = endpoint or hub_endpoint()
    return [DownloadRequest(model.repo, p.path, file_url(base, model.repo, p.path), folder, p.size, p.sha256)
            for p in model.parts]
