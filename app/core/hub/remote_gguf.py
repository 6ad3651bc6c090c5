"""A GGUF file's header read on the Hub without downloading the file (Qt-free).

:class:`RangeFile` is a read-only file over HTTP ``Range`` requests: each
``read(n)`` is one ``GET`` with ``Range: bytes=POS-END``. The header walk is
``app.core.models.gguf_info``'s own (``read_gguf_stream``): a first read of
``FIRST_READ_BYTES`` (2 MB), then reads that double what it holds when the
metadata is larger, so a 49k-token vocabulary takes one request and a
Llama 3 (128k tokens + 280k merges, ~9 MB of metadata) three. The first
request follows the Hub's redirect (to its CDN); the next ones go straight
to where it led. At most ``HUB_HEADER_MAX_REQUESTS`` requests are made.

A server that ignores ``Range`` (a 200 with the whole file) is read only as
far as needed, then the connection is closed.

A ``CancelToken`` (``app.core.hub.partial``) stops the read: set before a
request, none is made; set during one, the connection is cut, so a read
blocked on a server that stopped sending ends at once instead of at the
read timeout (closing the window or quitting does not wait for it).
"""

from __future__ import annotations

import httpx

from app.core.backends.remote.redaction import Redactor
from app.core.base.i18n import translate
from app.core.base.limits import HUB_HEADER_MAX_REQUESTS
from app.core.hub.endpoint import HubError, network_error, status_error
from app.core.hub.partial import CancelToken
from app.core.models.gguf_info import GGUFInfo, read_gguf_stream
from app.core.models.paths import DEFAULT_N_CTX

__all__ = ["RangeFile", "read_remote_info"]


class RangeFile:
    """``read(n)`` of a remote file by ranges (see the module docstring).
    Raises OSError (with a sentence) on failure, as a local file would."""

    def __init__(self, client: httpx.Client, url: str, size: int, redactor: Redactor | None = None,
                 has_token: bool = False, max_requests: int = HUB_HEADER_MAX_REQUESTS,
                 cancel: CancelToken | None = None) -> None:
        self._client = client
        self._cancel = cancel
        self._url = url
        self.size = size
        self.pos = 0
        self.requests = 0
        self._max = max_requests
        self._redactor = redactor or Redactor()
        self._has_token = has_token

    def read(self, n: int = -1) -> bytes:
        if n < 0:
            n = self.size - self.pos
        n = min(n, self.size - self.pos)
        if n <= 0:
            return b""
        cancel = self._cancel
        if cancel is not None and cancel.is_set():
            raise OSError(translate("Hub", "the header read was cancelled"))
        if self.requests >= self._max:
            raise OSError(translate("Hub", "the header needs more than {n} requests").format(n=self._max))
        self.requests += 1
        end = self.pos + n - 1
        try:
            with self._client.stream("GET", self._url, headers={"Range": f"bytes={self.pos}-{end}"}) as r:
                if cancel is not None:
                    stream = r.extensions.get("network_stream")
                    cancel.attach(stream.get_extra_info("socket") if stream is not None else None)
                if r.status_code not in (200, 206):
                    raise OSError(str(status_error(r, self._url.rsplit("/", 1)[-1], self._redactor, self._has_token)).rstrip("."))
                self._url = str(r.url)  # after the redirect: the next ranges go straight there
                skip = self.pos if r.status_code == 200 else 0
                data = bytearray()
                for chunk in r.iter_bytes():
                    data += chunk
                    if len(data) >= skip + n:
                        break
        except httpx.HTTPError as exc:
            if cancel is not None and cancel.is_set():
                raise OSError(translate("Hub", "the header read was cancelled")) from None
            raise OSError(str(network_error(exc, self._url)).rstrip(".")) from None
        finally:
            if cancel is not None:
                cancel.detach()
        got = bytes(data[skip:skip + n])
        self.pos += len(got)
        return got


def read_remote_info(client: httpx.Client, url: str, size: int, label: str, n_ctx: int = DEFAULT_N_CTX,
                     parts_total: int | None = None, token: str = "",
                     cancel: CancelToken | None = None) -> tuple[GGUFInfo, int]:
    """(what the remote file's header says, how many requests it took). Never
    raises for a bad file or a failed request: the GGUFInfo's error says why."""
    if size <= 0:
        return GGUFInfo(label, 0, error=translate("Hub", "The Hub does not give this file's size.")), 0
    f = RangeFile(client, url, size, Redactor(token), bool(token), cancel=cancel)
    try:
        info = read_gguf_stream(label, f, size, n_ctx, parts_total)
    except HubError as exc:  # pragma: no cover - RangeFile raises OSError only
        info = GGUFInfo(label, size, error=str(exc))
    return info, f.requests
