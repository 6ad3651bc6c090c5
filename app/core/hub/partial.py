"""A download's files and helpers (Qt-free): the request, the ``.partial``
file and its sidecar, the cancel token that cuts a connection, and the
sha256 computed on a thread of its own (``app.core.hub.download`` uses them;
``app.core.hub.queue`` brings back unfinished downloads from sidecars).

The sidecar ``<file>.partial.json`` names the download the partial file
belongs to (repository, path, URL, size, sha256, ETag): a partial file is
continued only when its sidecar names the very same file.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import queue
import socket
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["PARTIAL_SUFFIX", "SIDECAR_SUFFIX", "CancelToken", "DownloadRequest", "Sha256Pipe", "discard_partial",
           "partial_size", "read_sidecar", "request_from_sidecar", "write_sidecar"]

PARTIAL_SUFFIX = ".partial"
SIDECAR_SUFFIX = ".partial.json"
#: The hashing thread is handed this much at a time, and holds at most HASH_QUEUE_CHUNKS of them waiting.
HASH_BATCH_BYTES = 1024 * 1024
HASH_QUEUE_CHUNKS = 8
#: A sidecar is small; more than this is not ours.
MAX_SIDECAR_BYTES = 64 * 1024


@dataclass(frozen=True)
class DownloadRequest:
    """What to download and where: ``url`` is the file's ``resolve`` address;
    ``size`` and ``sha256`` come from the repository's file list (0 / "":
    unknown, then only what the server says is checked)."""

    repo: str
    path: str
    url: str
    folder: Path
    size: int = 0
    sha256: str = ""

    @property
    def name(self) -> str:
        return self.path.rsplit("/", 1)[-1]

    @property
    def target(self) -> Path:
        return self.folder / self.name

    @property
    def partial(self) -> Path:
        return self.folder / (self.name + PARTIAL_SUFFIX)

    @property
    def sidecar(self) -> Path:
        return self.folder / (self.name + SIDECAR_SUFFIX)


class CancelToken(threading.Event):
    """A cancel event that also cuts the connection being read: a read
    blocked on a silent server returns at once (a pause or a quit does not
    wait for the stall timeout). ``set()`` from any thread."""

    def __init__(self) -> None:
        super().__init__()
        self._lock = threading.Lock()
        self._socket: socket.socket | None = None

    def attach(self, sock: socket.socket | None) -> None:
        with self._lock:
            self._socket = sock
        if self.is_set():
            self._cut()

    def detach(self) -> None:
        with self._lock:
            self._socket = None

    def set(self) -> None:
        super().set()
        self._cut()

    def _cut(self) -> None:
        with self._lock:
            sock = self._socket
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)


class Sha256Pipe:
    """sha256 on a thread of its own, fed the chunks as they are written
    (``hashlib`` releases the GIL for large buffers: the hash runs beside the
    network reads instead of after each one). ``close()`` joins it."""

    def __init__(self) -> None:
        self._hash = hashlib.sha256()
        self._chunks: queue.Queue[bytes | None] = queue.Queue(maxsize=HASH_QUEUE_CHUNKS)
        self._thread: threading.Thread | None = None
        self._batch: list[bytes] = []
        self._batched = 0

    def update(self, chunk: bytes) -> None:
        """Hand ``chunk`` on; small ones are gathered into HASH_BATCH_BYTES first
        (one hand-over per MB, not per network read)."""
        self._batch.append(chunk)
        self._batched += len(chunk)
        if self._batched >= HASH_BATCH_BYTES:
            self._flush()

    def _flush(self) -> None:
        if not self._batch:
            return
        data = self._batch[0] if len(self._batch) == 1 else b"".join(self._batch)
        self._batch, self._batched = [], 0
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="rill-hub-sha256", daemon=True)
            self._thread.start()
        self._chunks.put(data)

    def _run(self) -> None:
        while True:
            chunk = self._chunks.get()
            if chunk is None:
                return
            self._hash.update(chunk)

    def close(self) -> None:
        self._flush()
        if self._thread is not None:
            self._chunks.put(None)
            self._thread.join()
            self._thread = None

    def hexdigest(self) -> str:
        self.close()
        return self._hash.hexdigest()


def partial_size(request: DownloadRequest) -> int:
    try:
        return request.partial.stat().st_size
    except OSError:
        return 0


def discard_partial(request: DownloadRequest) -> None:
    """Delete the partial file and its sidecar (a cancelled download)."""
    for path in (request.partial, request.sidecar):
        with contextlib.suppress(OSError):
            path.unlink()


def write_sidecar(request: DownloadRequest, etag: str) -> None:
    data = {"version": 1, "repo": request.repo, "path": request.path, "url": request.url, "size": request.size,
            "sha256": request.sha256, "etag": etag}
    fd, tmp = tempfile.mkstemp(prefix=".", suffix=".tmp", dir=request.folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f)
        os.replace(tmp, request.sidecar)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def read_sidecar(request: DownloadRequest) -> dict[str, Any] | None:
    return read_sidecar_file(request.sidecar)


def read_sidecar_file(sidecar: Path) -> dict[str, Any] | None:
    try:
        with open(sidecar, "rb") as f:
            data = json.loads(f.read(MAX_SIDECAR_BYTES).decode("utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def request_from_sidecar(folder: Path, sidecar: Path) -> DownloadRequest | None:
    """The DownloadRequest a sidecar describes (None when it is not one of ours)."""
    meta = read_sidecar_file(sidecar)
    if meta is None:
        return None
    repo, path, url = meta.get("repo"), meta.get("path"), meta.get("url")
    size, sha = meta.get("size"), meta.get("sha256")
    if not (isinstance(repo, str) and isinstance(path, str) and isinstance(url, str) and isinstance(size, int)
            and isinstance(sha, str)) or not url.startswith(("http://", "https://")):
        return None
    request = DownloadRequest(repo, path, url, folder, size, sha)
    return request if request.sidecar == sidecar else None
