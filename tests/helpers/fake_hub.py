"""A fake Hugging Face Hub on 127.0.0.1 for the hub tests (stdlib only).

It answers what ``huggingface_hub``'s ``HfApi`` and Rill's client ask
(app.core.hub.api), with the Hub's JSON shapes:

* ``GET /api/models?search=&filter=gguf&sort=&direction=&limit=&expand=…``
* ``GET /api/models/{owner}/{name}`` (``expand=…``)
* ``GET /api/models/{owner}/{name}/tree/{revision}?recursive=…`` in pages of
  ``page_size`` entries, linked by ``Link: <…>; rel="next"``; an LFS entry
  carries ``lfs: {oid: sha256, size, pointerSize}``
* ``GET|HEAD /{owner}/{name}/resolve/{revision}/{path}``: with ``cdn`` set
  (another FakeHub), a 302 to ``{cdn}/blobs/{owner}/{name}/{path}`` with
  ``X-Linked-Size`` / ``X-Linked-Etag`` / ``ETag``, as the Hub sends LFS files
  to its CDN; otherwise the bytes themselves. ``Range: bytes=N-`` / ``N-M``
  give a 206 with ``Content-Range``, past the end a 416.

A gated repository's files need ``Authorization: Bearer <token>`` (401
otherwise). Faults (``server.faults``, each used once then removed, in
order): ``drop`` (close the connection after ``n`` body bytes), ``trickle``
(``n`` bytes every ``delay`` seconds), ``status`` (e.g. 429 with
``retry_after``, 404, 500), ``ignore_range`` (a 200 with the whole file),
``bad_range`` (a 206 starting one byte after where it was asked to),
``hold`` (``n`` bytes, then nothing until ``release`` is set or the server
stops, then the rest: a download that is surely still running).
A repository's ``wrong_sha`` lists a wrong sha256 for its files.

Everything is recorded: ``requests`` (method, path, headers), ``body_bytes``
(bytes of file bodies sent, in all).
"""

from __future__ import annotations

import hashlib
import json
import re
import socket
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, quote, unquote, urlsplit

__all__ = ["FakeHub", "FakeRepo", "Fault"]


@dataclass
class FakeRepo:
    files: dict[str, bytes]
    downloads: int = 100
    likes: int = 5
    last_modified: str = "2025-01-02T03:04:05.000Z"
    license: str = "apache-2.0"
    gated: bool = False
    wrong_sha: bool = False
    #: Files listed as plain git files (no LFS sha256).
    no_lfs: set[str] = field(default_factory=set)
    #: Sizes the file list gives instead of the real ones (screenshots: a
    #: 4 GB file whose header is real; downloading it fails on the size).
    listed_sizes: dict[str, int] = field(default_factory=dict)

    def size(self, path: str) -> int:
        return self.listed_sizes.get(path, len(self.files[path]))

    def sha256(self, path: str) -> str:
        if self.wrong_sha:
            return "0" * 64
        return hashlib.sha256(self.files[path]).hexdigest()


@dataclass
class Fault:
    kind: str  # "drop", "trickle", "status", "ignore_range", "bad_range", "hold"
    n: int = 0
    delay: float = 0.0
    status: int = 0
    retry_after: str = ""
    #: Only for requests whose path contains this ("" = any file request).
    path: str = ""
    #: ``hold``: set to send the rest.
    release: threading.Event = field(default_factory=threading.Event)


@dataclass
class Recorded:
    method: str
    path: str
    headers: dict[str, str]


class FakeHub:
    """``with FakeHub() as hub: hub.repos["me/x-GGUF"] = FakeRepo({...})``; ``hub.url``."""

    def __init__(self, token: str = "hf_secret_token_123", page_size: int = 1000, cdn: FakeHub | None = None) -> None:
        self.repos: dict[str, FakeRepo] = {}
        self.token = token
        self.page_size = page_size
        self.cdn = cdn
        self.faults: list[Fault] = []
        self.requests: list[Recorded] = []
        self.body_bytes = 0
        self.lock = threading.Lock()
        #: Set when the server stops: a trickle or a silence ends at once.
        self.closing = threading.Event()
        self._server = _QuietServer(("127.0.0.1", 0), _Handler)
        self._server.daemon_threads = True
        self._server.hub = self  # type: ignore[attr-defined]
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> FakeHub:
        self._thread = threading.Thread(target=self._server.serve_forever, name="fake-hub", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.closing.set()
        self._server.shutdown()
        self._server.server_close()
        if self._thread is not None:
            self._thread.join(5)

    def take_fault(self, path: str) -> Fault | None:
        with self.lock:
            for i, fault in enumerate(self.faults):
                if not fault.path or fault.path in path:
                    return self.faults.pop(i)
        return None

    def file_requests(self) -> list[Recorded]:
        return [r for r in self.requests if "/resolve/" in r.path or r.path.startswith("/blobs/")]


_RANGE = re.compile(r"bytes=(\d+)-(\d*)$")


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that went away (a cut connection, a test's end) is no error to print."""
        import sys

        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: Any

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet
        pass

    @property
    def hub(self) -> FakeHub:
        return self.server.hub  # type: ignore[no-any-return]

    def do_HEAD(self) -> None:  # noqa: N802
        self._route(head=True)

    def do_GET(self) -> None:  # noqa: N802
        self._route(head=False)

    # -- routing ---------------------------------------------------------------------------

    def _route(self, head: bool) -> None:
        hub = self.hub
        with hub.lock:
            hub.requests.append(Recorded(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}))
        parts = urlsplit(self.path)
        path = unquote(parts.path)
        query = parse_qs(parts.query)
        try:
            if path == "/api/models":
                self._search(query)
            elif m := re.fullmatch(r"/api/models/([^/]+/[^/]+)/tree/([^/]+)", path):
                self._tree(m.group(1), query)
            elif m := re.fullmatch(r"/api/models/([^/]+/[^/]+)", path):
                self._info(m.group(1))
            elif m := re.fullmatch(r"/([^/]+/[^/]+)/resolve/([^/]+)/(.+)", path):
                self._resolve(m.group(1), m.group(3), head)
            elif m := re.fullmatch(r"/blobs/([^/]+/[^/]+)/(.+)", path):
                self._file(m.group(1), m.group(2), head, check_token=False)
            else:
                self._json(404, {"error": "Not Found"})
        except (BrokenPipeError, ConnectionResetError):
            pass

    def _json(self, code: int, data: Any, headers: dict[str, str] | None = None) -> None:
        body = json.dumps(data).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def _repo_json(self, repo_id: str, repo: FakeRepo, expand: list[str]) -> dict[str, Any]:
        full: dict[str, Any] = {
            "id": repo_id, "_id": hashlib.md5(repo_id.encode()).hexdigest()[:24],  # noqa: S324 - an id
            "downloads": repo.downloads, "likes": repo.likes, "lastModified": repo.last_modified,
            "tags": ["gguf", f"license:{repo.license}"], "gated": "auto" if repo.gated else False,
            "cardData": {"license": repo.license},
        }
        if not expand:
            return full
        return {k: v for k, v in full.items() if k in ("id", "_id") or k in expand}

    def _search(self, query: dict[str, list[str]]) -> None:
        text = (query.get("search") or [""])[0].lower()
        limit = int((query.get("limit") or ["50"])[0])
        expand = query.get("expand") or []
        hits = [(rid, repo) for rid, repo in self.hub.repos.items() if text in rid.lower()]
        hits.sort(key=lambda h: -h[1].downloads)
        self._json(200, [self._repo_json(rid, repo, expand) for rid, repo in hits[:limit]])

    def _info(self, repo_id: str) -> None:
        repo = self.hub.repos.get(repo_id)
        if repo is None:
            self._json(404, {"error": "Repository not found"})
            return
        parts = urlsplit(self.path)
        self._json(200, self._repo_json(repo_id, repo, parse_qs(parts.query).get("expand") or []))

    def _tree(self, repo_id: str, query: dict[str, list[str]]) -> None:
        repo = self.hub.repos.get(repo_id)
        if repo is None:
            self._json(404, {"error": "Repository not found"})
            return
        entries: list[dict[str, Any]] = []
        folders = sorted({p.rsplit("/", 1)[0] for p in repo.files if "/" in p})
        entries += [{"type": "directory", "oid": "d" * 40, "size": 0, "path": f} for f in folders]
        for path in sorted(repo.files):
            data = repo.files[path]
            entry: dict[str, Any] = {"type": "file", "oid": hashlib.sha1(data).hexdigest(),  # noqa: S324
                                     "size": repo.size(path), "path": path}
            if path not in repo.no_lfs:
                entry["lfs"] = {"oid": repo.sha256(path), "size": repo.size(path), "pointerSize": 134}
            entries.append(entry)
        start = int((query.get("cursor") or ["0"])[0])
        page = entries[start:start + self.hub.page_size]
        headers = {}
        if start + self.hub.page_size < len(entries):
            nxt = f"{self.hub.url}/api/models/{repo_id}/tree/main?recursive=true&cursor={start + self.hub.page_size}"
            headers["Link"] = f'<{nxt}>; rel="next"'
        self._json(200, page, headers)

    def _resolve(self, repo_id: str, path: str, head: bool) -> None:
        hub = self.hub
        repo = hub.repos.get(repo_id)
        if repo is None or path not in repo.files:
            self._json(404, {"error": "Entry not found"}, {"X-Error-Code": "EntryNotFound"})
            return
        if not self._authorized(repo):
            return
        if hub.cdn is not None:
            hub.cdn.repos[repo_id] = repo
            self.send_response(302)
            self.send_header("Location", f"{hub.cdn.url}/blobs/{repo_id}/{quote(path)}")
            self.send_header("X-Repo-Commit", "c0ffee" * 6 + "c0ff")
            self.send_header("X-Linked-Size", str(len(repo.files[path])))
            self.send_header("X-Linked-Etag", f'"{repo.sha256(path)}"')
            self.send_header("ETag", f'"{repo.sha256(path)}"')
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self._file(repo_id, path, head, check_token=False)

    def _authorized(self, repo: FakeRepo) -> bool:
        if not repo.gated:
            return True
        if self.headers.get("Authorization", "") == f"Bearer {self.hub.token}":
            return True
        self._json(401, {"error": "Access to model is restricted. You must have access to it and be authenticated."},
                   {"X-Error-Code": "GatedRepo"})
        return False

    def _file(self, repo_id: str, path: str, head: bool, check_token: bool) -> None:
        hub = self.hub
        repo = hub.repos.get(repo_id)
        if repo is None or path not in repo.files:
            self._json(404, {"error": "Entry not found"})
            return
        data = repo.files[path]
        fault = hub.take_fault(self.path)
        if fault is not None and fault.kind == "status":
            headers = {"Retry-After": fault.retry_after} if fault.retry_after else {}
            self._json(fault.status, {"error": f"fault {fault.status}"}, headers)
            return
        etag = f'"{hashlib.sha256(data).hexdigest()}"'
        start, end, code = 0, len(data) - 1, 200
        rng = self.headers.get("Range")
        if_range = self.headers.get("If-Range")
        if rng and not (fault is not None and fault.kind == "ignore_range") and (not if_range or if_range == etag):
            m = _RANGE.match(rng.strip())
            if m:
                start = int(m.group(1))
                end = min(int(m.group(2)), len(data) - 1) if m.group(2) else len(data) - 1
                if start >= len(data):
                    self.send_response(416)
                    self.send_header("Content-Range", f"bytes */{len(data)}")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                code = 206
        if fault is not None and fault.kind == "bad_range":  # a 206 from the wrong place, asked for or not
            start, code = start + 1, 206
        body = data[start:end + 1]
        self.send_response(code)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Accept-Ranges", "bytes")
        self.send_header("ETag", etag)
        if code == 206:
            self.send_header("Content-Range", f"bytes {start}-{end}/{len(data)}")
        self.end_headers()
        if head:
            return
        if fault is not None and fault.kind == "drop":
            self._send(body[:fault.n])
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)
            self.close_connection = True
            return
        if fault is not None and fault.kind == "hold":
            self._send(body[:fault.n])
            self.wfile.flush()
            while not fault.release.wait(0.05):
                if self.hub.closing.is_set():
                    return
            self._send(body[fault.n:])
            return
        if fault is not None and fault.kind == "trickle":
            for i in range(0, len(body), max(1, fault.n)):
                self._send(body[i:i + max(1, fault.n)])
                self.wfile.flush()
                if self.hub.closing.wait(fault.delay):
                    break
            return
        for i in range(0, len(body), 256 * 1024):
            self._send(body[i:i + 256 * 1024])

    def _send(self, piece: bytes) -> None:
        self.wfile.write(piece)
        with self.hub.lock:
            self.hub.body_bytes += len(piece)
