"""One file from the Hub to the models folder, resumable and verified (Qt-free).

Rill's own transfer over httpx (``huggingface_hub``'s deletes a partial file
when a download fails: app.core.hub.api says why that matters):

* the bytes go to ``<models folder>/<file>.partial``, with a small sidecar
  ``<file>.partial.json`` (repository, path, URL, size, sha256, ETag): a
  partial file survives a dropped connection, a crash and a restart of Rill;
* a partial file is resumed with ``Range: bytes=N-`` (``If-Range`` with the
  ETag): a 206 appends, a 200 (the server ignores ranges, or the file
  changed) starts again from zero, a 416 at the full size is complete; a
  sidecar that names another size or sha256 means another file: start again;
* the sha256 is computed while the bytes arrive (the part already on disk is
  hashed first), checked at the end against the Hub's LFS metadata: a
  mismatch deletes the partial file and says so, and the file never appears
  under its name; a good file is renamed into place atomically;
* before starting: the free disk space (``shutil.disk_usage``) must hold the
  rest of the file plus ``HUB_DISK_MARGIN_BYTES``;
* a dropped connection or a stall (nothing for ``HUB_STALL_S``, or less than
  ``HUB_MIN_RATE_BYTES_S`` over ``HUB_RATE_WINDOW_S``: a trickling server) is
  resumed ``HUB_RETRIES`` times; a 429 waits its ``Retry-After`` when short;
* ``cancel`` (a ``threading.Event``) is checked at every read: set, the
  download stops with ``HubError(kind=KIND_CANCELLED)`` and keeps its
  partial file (pause); :func:`discard_partial` deletes it (cancel). A
  :class:`CancelToken` also cuts the connection when set, so a read blocked
  on a silent server ends at once.

Progress (:class:`Progress`: bytes, total, speed, time left) goes to
``on_progress`` at most every ``PROGRESS_INTERVAL_S`` and at the end, from the
downloading thread.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import shutil
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from app.core.backends.remote.redaction import Redactor
from app.core.base.i18n import translate
from app.core.base.limits import (
    HUB_DISK_MARGIN_BYTES,
    HUB_MAX_RETRY_AFTER_S,
    HUB_MIN_RATE_BYTES_S,
    HUB_RATE_WINDOW_S,
    HUB_RETRIES,
    HUB_STALL_S,
    HUB_TIMEOUT_S,
)
from app.core.hub.endpoint import (
    KIND_BAD_REPLY,
    KIND_BUSY,
    KIND_CANCELLED,
    KIND_CHECKSUM,
    KIND_DISK,
    KIND_NETWORK,
    KIND_RATE_LIMITED,
    KIND_STALLED,
    HubError,
    make_client,
    network_error,
    status_error,
)
from app.core.hub.partial import (
    CancelToken,
    DownloadRequest,
    Sha256Pipe,
    discard_partial,
    partial_size,
    read_sidecar,
    request_from_sidecar,
    write_sidecar,
)
from app.core.hub.rate import RateWatch
from app.core.models.sizes import format_bytes

# DownloadRequest, CancelToken, discard_partial, partial_size, request_from_sidecar: from app.core.hub.partial.
__all__ = ["CancelToken", "DownloadRequest", "DownloadResult", "FileDownload", "Progress", "discard_partial",
           "partial_size", "request_from_sidecar"]

CHUNK_BYTES = 1024 * 1024
PROGRESS_INTERVAL_S = 0.2
_CONTENT_RANGE = re.compile(r"bytes\s+(\d+)-(\d+)/(\d+|\*)")

#: A download that must start again from zero more often than this stops (a broken server).
MAX_START_OVERS = 2

PHASE_CHECKING = "checking"
PHASE_DOWNLOADING = "downloading"
PHASE_VERIFYING = "verifying"


@dataclass(frozen=True)
class Progress:
    done: int
    total: int
    #: Bytes a second over the last few seconds.
    speed: float
    #: Seconds left at that speed (None: unknown).
    eta: float | None
    phase: str = PHASE_DOWNLOADING

    @property
    def fraction(self) -> float | None:
        return self.done / self.total if self.total else None


@dataclass(frozen=True)
class DownloadResult:
    path: Path
    size: int
    #: Bytes received from the network in this run (the rest was on disk already).
    fetched: int
    #: The size of the partial file this run started from.
    resumed_from: int
    already_there: bool = False
    verified: bool = False


class _Dropped(Exception):
    """The connection broke or stalled: resume (``error`` says what happened)."""

    def __init__(self, error: HubError) -> None:
        super().__init__(str(error))
        self.error = error


class _StartOver(Exception):
    """The partial file cannot be continued: start again from zero."""


class FileDownload:
    """Downloads one ``DownloadRequest`` (module docstring). ``run()`` blocks;
    call it off the GUI thread. One run at a time per object."""

    def __init__(
        self,
        request: DownloadRequest,
        token: str = "",
        *,
        client: httpx.Client | None = None,
        cancel: threading.Event | None = None,
        on_progress: Callable[[Progress], None] | None = None,
        stall_s: float = HUB_STALL_S,
        min_rate: float = HUB_MIN_RATE_BYTES_S,
        rate_window_s: float = HUB_RATE_WINDOW_S,
        retries: int = HUB_RETRIES,
        max_retry_after_s: float = HUB_MAX_RETRY_AFTER_S,
        disk_margin: int = HUB_DISK_MARGIN_BYTES,
    ) -> None:
        self.request = request
        self._token = token
        self._own_client = client is None
        self._client = client or make_client(token, timeout_s=HUB_TIMEOUT_S, read_timeout_s=stall_s)
        self.cancel = cancel or CancelToken()
        self._on_progress = on_progress
        self._retries = retries
        self._max_retry_after = max_retry_after_s
        self._margin = disk_margin
        self._redactor = Redactor(token)
        self._hasher = Sha256Pipe()
        self._have = 0
        self._size = request.size
        self._etag = ""
        self._fetched = 0
        self._last_report = 0.0
        self._rate = RateWatch(min_rate, rate_window_s)
        self._lock_handle: Any = None

    # -- the run -----------------------------------------------------------------------------

    def run(self) -> DownloadResult:
        """Download, verify, rename into place. HubError (with a sentence) on
        any failure; the partial file is kept unless its checksum was wrong."""
        try:
            return self._run()
        finally:
            if self._lock_handle is not None:
                self._lock_handle.close()  # releases the lock
                self._lock_handle = None
            self._hasher.close()
            if self._own_client:
                self._client.close()

    def _run(self) -> DownloadResult:
        req = self.request
        if req.target.is_file() and (not req.size or req.target.stat().st_size == req.size):
            size = req.target.stat().st_size
            return DownloadResult(req.target, size, 0, size, already_there=True)
        try:
            req.folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise self._disk_error(exc) from None
        self._lock_partial()
        self._adopt_partial()
        resumed_from = self._have
        self._check_disk()
        self._write_sidecar()
        self._hash_existing()
        attempt = starts = 0
        while True:
            self._check_cancel()
            try:
                self._transfer()
                break
            except _StartOver:
                self._truncate()
                starts += 1
                if starts > MAX_START_OVERS:
                    raise HubError(translate("Hub", "The Hub keeps sending {name} from the wrong place: it cannot "
                                                    "be downloaded now.").format(name=req.name), KIND_BAD_REPLY) from None
            except _Dropped as dropped:
                error = dropped.error
                attempt += 1
                if attempt > self._retries:
                    raise error from None
                wait = 0.5 * attempt
                if error.kind == KIND_RATE_LIMITED:
                    if error.retry_after is None or error.retry_after > self._max_retry_after:
                        raise error from None
                    wait = error.retry_after
                if self.cancel.wait(wait):
                    self._check_cancel()
        return self._finish(resumed_from)

    def _lock_partial(self) -> None:
        """Hold an exclusive lock on the partial file for the run: a second
        downloader of the same file (another Rill, ``rill pull``) is refused
        instead of writing into it too. No lock where ``fcntl`` is missing."""
        try:
            import fcntl
        except ImportError:  # pragma: no cover - not POSIX
            return
        try:
            handle = open(self.request.partial, "ab")  # noqa: SIM115 - held until the run ends
        except OSError as exc:
            raise self._disk_error(exc) from None
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.close()
            raise HubError(translate("Hub", "{name} is being downloaded already (by another Rill window or "
                                            "rill pull).").format(name=self.request.name), KIND_BUSY) from None
        self._lock_handle = handle

    def _adopt_partial(self) -> None:
        """Continue the partial file when its sidecar names this very file."""
        req = self.request
        have = partial_size(req)
        meta = read_sidecar(req)
        same = (meta is not None and meta.get("repo") == req.repo and meta.get("path") == req.path
                and meta.get("size") == req.size and meta.get("sha256") == req.sha256)
        if have and (not same or (req.size and have > req.size)):
            self._truncate()
            have = 0
        self._have = have
        self._etag = str(meta.get("etag") or "") if same and meta else ""

    def _check_disk(self) -> None:
        if not self._size:
            return
        need = self._size - self._have
        try:
            free = shutil.disk_usage(self.request.folder).free
        except OSError:
            return
        if free < need + self._margin:
            raise HubError(translate("Hub", "Not enough disk space for {name}: it needs {need} more, and {free} is "
                                            "free in {folder} (Rill keeps {margin} free).").format(
                name=self.request.name, need=format_bytes(need), free=format_bytes(free),
                folder=self.request.folder, margin=format_bytes(self._margin)), KIND_DISK)

    def _write_sidecar(self) -> None:
        try:
            write_sidecar(self.request, self._etag)
        except OSError as exc:
            raise self._disk_error(exc) from None

    def _hash_existing(self) -> None:
        """Hash the part already downloaded (a resumed download's sha256 covers the whole file)."""
        if not self._have:
            return
        done = 0
        try:
            with open(self.request.partial, "rb") as f:
                while done < self._have:
                    self._check_cancel()
                    block = f.read(min(CHUNK_BYTES * 4, self._have - done))
                    if not block:
                        break
                    self._hasher.update(block)
                    done += len(block)
                    self._report(done, PHASE_CHECKING)
        except OSError as exc:
            raise self._disk_error(exc) from None
        if done != self._have:  # the file shrank under us
            self._truncate()

    def _truncate(self) -> None:
        with contextlib.suppress(OSError):
            os.truncate(self.request.partial, 0)
        self._have = 0
        self._hasher.close()
        self._hasher = Sha256Pipe()
        self._etag = ""

    # -- one request -------------------------------------------------------------------------

    def _transfer(self) -> None:
        req = self.request
        if self._size and self._have == self._size:
            return  # complete already: verify
        headers = {}
        if self._have:
            headers["Range"] = f"bytes={self._have}-"
            if self._etag and not self._etag.startswith("W/"):  # If-Range needs a strong validator
                headers["If-Range"] = self._etag
        token = self.cancel if isinstance(self.cancel, CancelToken) else None
        try:
            with self._client.stream("GET", req.url, headers=headers) as r:
                if token is not None:
                    stream = r.extensions.get("network_stream")
                    token.attach(stream.get_extra_info("socket") if stream is not None else None)
                self._accept(r)
                self._receive(r)
        except httpx.TimeoutException as exc:
            self._check_cancel()
            raise _Dropped(self._stalled(exc)) from None
        except (httpx.TransportError, httpx.StreamError) as exc:
            self._check_cancel()  # the connection was cut by a pause or a cancel
            if isinstance(exc, httpx.ConnectError) and not self._fetched and not self._have:
                raise network_error(exc, req.url) from None
            raise _Dropped(network_error(exc, req.url)) from None
        finally:
            if token is not None:
                token.detach()
        if self._size and self._have < self._size:
            raise _Dropped(HubError(translate("Hub", "The connection was closed before the end of {name}.").format(
                name=req.name), KIND_NETWORK))

    def _accept(self, r: httpx.Response) -> None:
        """Check the reply's status and range; raise for what cannot be appended."""
        if r.status_code == 416:  # nothing at or after the offset: complete when the sizes agree
            match = re.match(r"bytes\s+\*/(\d+)", r.headers.get("Content-Range", ""))
            whole = int(match.group(1)) if match else self._size
            if whole and self._have == whole and (not self._size or self._size == whole):
                self._size = whole
                return
            raise _StartOver()
        if r.status_code >= 300:
            error = status_error(r, self.request.name, self._redactor, bool(self._token))
            if error.kind == KIND_RATE_LIMITED:
                raise _Dropped(error)
            raise error
        total: int | None = None
        if r.status_code == 206:
            match = _CONTENT_RANGE.match(r.headers.get("Content-Range", ""))
            if match is None or int(match.group(1)) != self._have:
                raise _StartOver()
            total = int(match.group(3)) if match.group(3) != "*" else None
        else:
            if self._have:
                self._truncate()  # the whole file again (no ranges, or it changed): from zero
            length = r.headers.get("Content-Length", "")
            total = int(length) if length.isdigit() else None
        if total is not None:
            if self._size and total != self._size:
                raise HubError(translate("Hub", "The Hub sends {name} with {got} bytes, but lists it with {listed}: "
                                                "the file may have changed. Look it up again.").format(
                    name=self.request.name, got=total, listed=self._size), KIND_BAD_REPLY)
            if not self._size:
                self._size = total
        etag = r.headers.get("ETag", "")
        if etag and etag != self._etag:
            self._etag = etag
            self._write_sidecar()

    def _receive(self, r: httpx.Response) -> None:
        if r.status_code == 416:
            return
        start = time.monotonic()
        self._rate.start(start, self._have)
        try:
            with open(self.request.partial, "ab") as out:
                for chunk in r.iter_raw():  # as they arrive (a chunk_size would wait for that much)
                    self._check_cancel()
                    if self._size and self._have + len(chunk) > self._size:
                        raise HubError(translate("Hub", "The Hub sent more of {name} than its size.").format(
                            name=self.request.name), KIND_BAD_REPLY)
                    out.write(chunk)
                    self._hasher.update(chunk)
                    self._have += len(chunk)
                    self._fetched += len(chunk)
                    now = time.monotonic()
                    self._check_rate(now)
                    self._report(self._have, PHASE_DOWNLOADING, now)
        except OSError as exc:
            raise self._disk_error(exc) from None

    def _check_rate(self, now: float) -> None:
        self._rate.add(now, self._have)
        if self._rate.too_slow(now, self._have):
            raise _Dropped(HubError(translate("Hub", "The Hub sends {name} too slowly (under {rate}/s for {seconds} "
                                                     "s).").format(name=self.request.name,
                                                                  rate=format_bytes(int(self._rate.min_rate)),
                                                                  seconds=round(self._rate.window_s)), KIND_STALLED))

    def _finish(self, resumed_from: int) -> DownloadResult:
        req = self.request
        self._report(self._have, PHASE_VERIFYING, force=True)
        verified = False
        if req.sha256:
            digest = self._hasher.hexdigest()
            if digest != req.sha256:
                discard_partial(req)
                raise HubError(translate("Hub", "{name} arrived damaged: its checksum (sha256) is not the one the "
                                                "Hub lists. The download was deleted; try again.").format(
                    name=req.name), KIND_CHECKSUM)
            verified = True
        try:
            with open(req.partial, "rb+") as f:
                os.fsync(f.fileno())
            os.replace(req.partial, req.target)
        except OSError as exc:
            raise self._disk_error(exc) from None
        with contextlib.suppress(OSError):
            req.sidecar.unlink()
        return DownloadResult(req.target, self._have, self._fetched, resumed_from, verified=verified)

    # -- helpers -----------------------------------------------------------------------------

    def _check_cancel(self) -> None:
        if self.cancel.is_set():
            raise HubError(translate("Hub", "The download of {name} was stopped.").format(name=self.request.name),
                           KIND_CANCELLED)

    def _stalled(self, exc: BaseException) -> HubError:
        return HubError(translate("Hub", "The Hub stopped sending {name}.").format(name=self.request.name),
                        KIND_STALLED)

    def _disk_error(self, exc: OSError) -> HubError:
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            return HubError(translate("Hub", "The disk is full: {name} could not be written to {folder}. What was "
                                             "downloaded is kept; free some space and resume.").format(
                name=self.request.name, folder=self.request.folder), KIND_DISK)
        return HubError(translate("Hub", "Cannot write {name} to {folder}: {error}.").format(
            name=self.request.name, folder=self.request.folder, error=exc.strerror or exc), KIND_DISK)

    def _report(self, done: int, phase: str, now: float | None = None, force: bool = False) -> None:
        if self._on_progress is None:
            return
        now = time.monotonic() if now is None else now
        if not force and now - self._last_report < PROGRESS_INTERVAL_S:
            return
        self._last_report = now
        speed = self._rate.speed(now, done) if phase == PHASE_DOWNLOADING else 0.0
        total = self._size
        eta = (total - done) / speed if speed > 0 and total else None
        self._on_progress(Progress(done, total, speed, eta, phase))
