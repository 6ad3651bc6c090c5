"""The Hub's metadata: search, a repository's details, its files (Qt-free).

Three JSON endpoints, called the way ``huggingface_hub``'s ``HfApi`` calls
them (``list_models(search=…, filter="gguf", expand=[…])``, ``model_info``,
``list_repo_tree(recursive=True)``), over Rill's own httpx client:

* ``GET /api/models?search=TEXT&filter=gguf&sort=downloads&direction=-1&limit=N&expand=…``
* ``GET /api/models/{repo}?expand=…``
* ``GET /api/models/{repo}/tree/{revision}?recursive=true`` (pages linked by
  ``Link: <…>; rel="next"``); an LFS file's entry holds its sha256 (``lfs.oid``).

Why not ``huggingface_hub`` itself: its 2.x releases require ``hf-xet``
(a native transfer library) and ``httpx2`` (a second HTTP stack beside
Rill's httpx, with its own proxy and TLS handling) plus click, fsspec and
pyyaml, for three GET requests; its downloader deletes a partial file when
a download fails (``_download_to_tmp_and_move``), so the transfer would be
Rill's anyway (``app.core.hub.download``). Here every reply is read up to
``MAX_HUB_JSON_BYTES``, every name checked, every failure a sentence
(``app.core.hub.endpoint.HubError``), the token redacted from anything quoted.

Everything blocks on the network: call it off the GUI thread.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

import httpx

from app.core.backends.remote.redaction import Redactor
from app.core.base.i18n import translate
from app.core.base.limits import (
    MAX_HUB_FILENAME_CHARS,
    MAX_HUB_FILES,
    MAX_HUB_JSON_BYTES,
    MAX_HUB_SEARCH_RESULTS,
    MAX_HUB_TREE_PAGES,
    size_text,
)
from app.core.hub.endpoint import (
    KIND_BAD_REPLY,
    HubError,
    file_url,
    make_client,
    network_error,
    read_bounded,
    status_error,
)
from app.core.hub.quant import KIND_MODEL, bits_per_weight, file_kind, quantization
from app.core.models.gguf_splits import split_part

__all__ = ["HubClient", "HubFile", "ModelFile", "RepoSummary", "valid_filename", "valid_repo_id"]

#: What is asked of a repository (``expand``), in search results and details alike.
EXPAND = ("downloads", "likes", "lastModified", "tags", "gated", "cardData")

_REPO_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,95}/[A-Za-z0-9][A-Za-z0-9._-]{0,95}$")
_NEXT_LINK = re.compile(r'<([^>]+)>\s*;\s*rel="?next"?')


def valid_repo_id(repo: str) -> bool:
    """``owner/name`` as the Hub allows it (no ``--`` or ``..``)."""
    return bool(_REPO_ID.match(repo)) and "--" not in repo and ".." not in repo and not repo.endswith(".git")


def valid_filename(path: str) -> bool:
    """A file path inside a repository that is safe to ask for and to name a
    local file after: no ``..``, no absolute path, no control characters."""
    if not path or len(path) > MAX_HUB_FILENAME_CHARS or path.startswith("/") or "\\" in path:
        return False
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in path):
        return False
    return all(part not in ("", ".", "..") for part in path.split("/"))


@dataclass(frozen=True)
class RepoSummary:
    """One repository as a search or its details show it."""

    repo: str
    downloads: int = 0
    likes: int = 0
    #: ISO 8601 as the Hub gives it ("2024-10-31T12:00:00.000Z"), or "".
    last_modified: str = ""
    license: str = ""
    gated: bool = False
    tags: tuple[str, ...] = ()

    @property
    def updated(self) -> str:
        """The update date, ``YYYY-MM-DD`` (or "")."""
        return self.last_modified[:10]

    def to_dict(self) -> dict[str, Any]:
        return {"repo": self.repo, "downloads": self.downloads, "likes": self.likes,
                "last_modified": self.last_modified, "license": self.license, "gated": self.gated}


@dataclass(frozen=True)
class HubFile:
    """One file of a repository: its path, size and (LFS files) sha256."""

    path: str
    size: int
    sha256: str = ""

    @property
    def name(self) -> str:
        return self.path.rsplit("/", 1)[-1]


@dataclass(frozen=True)
class ModelFile:
    """One GGUF model as a user picks it: a file, or all the parts of a
    split model (``…-00001-of-00003.gguf`` first)."""

    repo: str
    parts: tuple[HubFile, ...]
    quant: str = ""
    kind: str = KIND_MODEL
    companions: tuple[HubFile, ...] = field(default=(), compare=False)

    @property
    def name(self) -> str:
        return self.parts[0].name

    @property
    def path(self) -> str:
        return self.parts[0].path

    @property
    def size(self) -> int:
        return sum(p.size for p in self.parts)

    @property
    def bits(self) -> float | None:
        return bits_per_weight(self.quant)

    def to_dict(self) -> dict[str, Any]:
        return {"repo": self.repo, "file": self.path, "size": self.size, "quant": self.quant, "kind": self.kind,
                "parts": [{"file": p.path, "size": p.size, "sha256": p.sha256} for p in self.parts]}


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def _license(data: dict[str, Any], tags: tuple[str, ...]) -> str:
    card = data.get("cardData")
    if isinstance(card, dict) and isinstance(card.get("license"), str):
        return str(card["license"])[:64]
    for tag in tags:
        if tag.startswith("license:"):
            return tag.removeprefix("license:")[:64]
    return ""


def parse_repo(data: Any) -> RepoSummary | None:
    """A RepoSummary from one entry of ``/api/models`` (None when it is not one)."""
    if not isinstance(data, dict):
        return None
    repo = data.get("id") or data.get("modelId")
    if not isinstance(repo, str) or not valid_repo_id(repo):
        return None
    raw_tags = data.get("tags")
    tags = tuple(t[:100] for t in raw_tags[:200] if isinstance(t, str)) if isinstance(raw_tags, list) else ()
    modified = data.get("lastModified")
    gated = data.get("gated")
    return RepoSummary(
        repo=repo,
        downloads=_int(data.get("downloads")),
        likes=_int(data.get("likes")),
        last_modified=modified[:40] if isinstance(modified, str) else "",
        license=_license(data, tags),
        gated=bool(gated) and gated != "false",
        tags=tags,
    )


def parse_tree_entry(data: Any) -> HubFile | None:
    """A HubFile from one entry of ``/tree`` (None for folders and bad entries)."""
    if not isinstance(data, dict) or data.get("type") != "file":
        return None
    path = data.get("path")
    if not isinstance(path, str) or not valid_filename(path):
        return None
    lfs = data.get("lfs")
    sha = ""
    size = _int(data.get("size"))
    if isinstance(lfs, dict):
        oid = lfs.get("oid") or lfs.get("sha256")
        if isinstance(oid, str) and re.fullmatch(r"[0-9a-f]{64}", oid):
            sha = oid
        size = _int(lfs.get("size")) or size
    return HubFile(path, size, sha)


def group_models(repo: str, files: list[HubFile]) -> list[ModelFile]:
    """The repository's GGUF files as models (split parts together), with
    vision projectors attached to the chat models as companions; sorted by
    size. Projectors and embedding models are listed too (their ``kind`` says)."""
    ggufs = [f for f in files if f.path.lower().endswith(".gguf")]
    by_path = {f.path: f for f in ggufs}
    models: list[ModelFile] = []
    for f in ggufs:
        part = split_part(f.path)
        if part is not None and part[0] > 1:
            continue
        parts: tuple[HubFile, ...] = (f,)
        if part is not None:
            stem = f.path[: -len("-00001-of-00000.gguf")]
            found = [by_path.get(f"{stem}-{no:05d}-of-{part[1]:05d}.gguf") for no in range(1, part[1] + 1)]
            if any(p is None for p in found):
                continue  # an incomplete split model cannot be loaded
            parts = tuple(p for p in found if p is not None)
        models.append(ModelFile(repo, parts, quantization(f.path), file_kind(f.path, repo)))
    projectors = tuple(p for m in models if m.kind != KIND_MODEL and "mmproj" in m.name.lower() for p in m.parts)
    if projectors:
        models = [ModelFile(m.repo, m.parts, m.quant, m.kind, projectors) if m.kind == KIND_MODEL else m
                  for m in models]
    models.sort(key=lambda m: (m.kind != KIND_MODEL, m.size, m.path))
    return models


class HubClient:
    """The Hub's metadata API at ``endpoint`` (see the module docstring).
    One thread at a time; ``close()`` when done."""

    def __init__(self, endpoint: str, token: str = "", client: httpx.Client | None = None) -> None:
        self.endpoint = endpoint.rstrip("/")
        self.token = token
        self.redactor = Redactor(token)
        self._client = client or make_client(token)

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> HubClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- requests ----------------------------------------------------------------------------

    def get_json(self, url: str, what: str, params: Any = None) -> tuple[Any, httpx.Headers]:
        """(the parsed JSON reply, its headers); HubError for anything else."""
        try:
            with self._client.stream("GET", url, params=params, headers={"Accept": "application/json"}) as r:
                if r.status_code >= 300:
                    raise status_error(r, what, self.redactor, bool(self.token))
                body, more = read_bounded(r, MAX_HUB_JSON_BYTES)
                headers = r.headers
        except httpx.HTTPError as exc:
            raise network_error(exc, self.endpoint) from None
        if more:
            raise HubError(translate("Hub", "The Hub's reply about {what} is larger than {limit}.").format(
                what=what, limit=size_text(MAX_HUB_JSON_BYTES)), KIND_BAD_REPLY)
        try:
            return json.loads(body.decode("utf-8")), headers
        except (UnicodeDecodeError, ValueError):
            raise HubError(translate("Hub", "The Hub's reply about {what} is not JSON: is {endpoint} a Hugging "
                                            "Face Hub?").format(what=what, endpoint=self.endpoint),
                           KIND_BAD_REPLY) from None

    def search(self, text: str, limit: int = 30) -> list[RepoSummary]:
        """GGUF repositories matching ``text``, most downloaded first."""
        limit = max(1, min(limit, MAX_HUB_SEARCH_RESULTS))
        params: list[tuple[str, str | int]] = [("search", text.strip()), ("filter", "gguf"), ("sort", "downloads"),
                                               ("direction", -1), ("limit", limit)]
        params += [("expand", e) for e in EXPAND]
        data, _ = self.get_json(f"{self.endpoint}/api/models", translate("Hub", "the search"), params)
        if not isinstance(data, list):
            raise HubError(translate("Hub", "The Hub's search reply is not a list."), KIND_BAD_REPLY)
        found = [parse_repo(item) for item in data[:limit]]
        return [r for r in found if r is not None]

    def repo_info(self, repo: str) -> RepoSummary:
        """One repository's downloads, likes, update date, licence."""
        self._check_repo(repo)
        params = [("expand", e) for e in EXPAND]
        data, _ = self.get_json(f"{self.endpoint}/api/models/{quote(repo, safe='/')}", repo, params)
        found = parse_repo(data if not isinstance(data, dict) or "id" in data else {**data, "id": repo})
        if found is None:
            raise HubError(translate("Hub", "The Hub's reply about {repo} is not a repository's.").format(repo=repo),
                           KIND_BAD_REPLY)
        return found

    def list_files(self, repo: str, revision: str = "main") -> list[HubFile]:
        """Every file of the repository (all folders), up to MAX_HUB_FILES."""
        self._check_repo(repo)
        url: str | None = f"{self.endpoint}/api/models/{quote(repo, safe='/')}/tree/{quote(revision, safe='')}"
        params: Any = {"recursive": "true", "expand": "false"}
        files: list[HubFile] = []
        for _ in range(MAX_HUB_TREE_PAGES):
            if url is None or len(files) >= MAX_HUB_FILES:
                break
            data, headers = self.get_json(url, repo, params)
            if not isinstance(data, list):
                raise HubError(translate("Hub", "The Hub's file list of {repo} is not a list.").format(repo=repo),
                               KIND_BAD_REPLY)
            files += [f for f in (parse_tree_entry(item) for item in data) if f is not None]
            match = _NEXT_LINK.search(headers.get("Link", ""))
            url, params = (match.group(1), None) if match else (None, None)
        return files[:MAX_HUB_FILES]

    def model_files(self, repo: str, revision: str = "main") -> list[ModelFile]:
        """The repository's GGUF models (``group_models``)."""
        return group_models(repo, self.list_files(repo, revision))

    def file_url(self, repo: str, path: str, revision: str = "main") -> str:
        return file_url(self.endpoint, repo, path, revision)

    def _check_repo(self, repo: str) -> None:
        if not valid_repo_id(repo):
            raise HubError(translate("Hub", "“{repo}” is not a Hub repository name (owner/name).").format(
                repo=repo[:100]), KIND_BAD_REPLY)
