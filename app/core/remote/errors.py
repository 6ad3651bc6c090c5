"""Plain-language messages for everything a server can do wrong (Qt-free).

Every message names the server (its name and URL without credentials) and
never contains an API key: ``redact`` removes it even from a body the server
echoed back. No traceback ever reaches the user; the technical detail goes to
the log.
"""

from __future__ import annotations

import json
import logging
import ssl

import httpx

from app.core.backend import BackendError
from app.core.remote.servers import ServerConfig, display_url, redact

log = logging.getLogger(__name__)

#: At most this much of an error body is quoted to the user.
MAX_QUOTED = 300


def where(server: ServerConfig) -> str:
    return f"{server.name} ({display_url(server.base_url)})"


def transport_error(server: ServerConfig, exc: Exception, *, during: str = "") -> BackendError:
    """A BackendError for an httpx / network exception."""
    at = where(server)
    when = f" {during}" if during else ""
    log.info("request to %s failed%s: %r", display_url(server.base_url), when, exc)
    if isinstance(exc, httpx.ConnectTimeout):
        return BackendError(f"Could not connect to {at}: no answer within the time limit. Is the address right and the server running?")
    if isinstance(exc, httpx.ReadTimeout):
        return BackendError(
            f"{at} stopped sending{when}: nothing arrived for {server.stall_s:g} s. "
            "The server may be overloaded or stuck; the stall timeout is in the server's settings."
        )
    if isinstance(exc, (httpx.WriteTimeout, httpx.PoolTimeout)):
        return BackendError(f"{at} did not accept the request in time.")
    if isinstance(exc, httpx.ConnectError):
        text = str(exc)
        cause = exc.__cause__ or exc.__context__
        lowered = text.lower()
        if isinstance(cause, ssl.SSLError) or "ssl" in lowered or "certificate" in lowered or "tls" in lowered:
            return BackendError(f"Could not make a secure (TLS) connection to {at}: {_short(text)}. "
                                "Check that the URL's http/https matches the server and that its certificate is valid.")
        if "name or service not known" in lowered or "nodename nor servname" in lowered or "getaddrinfo" in lowered \
                or "temporary failure in name resolution" in lowered or "no address associated" in lowered:
            return BackendError(f"Unknown host: the name in {at} could not be found. Check the URL.")
        if "refused" in lowered:
            return BackendError(f"{at} refused the connection: the server is not running on that port, or the port is wrong.")
        return BackendError(f"Could not connect to {at}: {_short(text)}.")
    if isinstance(exc, (httpx.RemoteProtocolError, httpx.ReadError)):
        return BackendError(f"{at} closed the connection{when} before the reply was complete.")
    if isinstance(exc, httpx.UnsupportedProtocol):
        return BackendError(f"{at}: the URL must start with http:// or https://.")
    if isinstance(exc, httpx.HTTPError):
        return BackendError(f"The request to {at} failed: {_short(str(exc))}.")
    return BackendError(f"The request to {at} failed: {type(exc).__name__}.")


def status_error(server: ServerConfig, response: httpx.Response, body: bytes, *, model: str = "", key: str = "") -> BackendError:
    """A BackendError for a non-2xx response (``body``: what was read of it)."""
    at = where(server)
    code = response.status_code
    detail = redact(_error_detail(body), key)
    detail_part = f" The server said: {detail}" if detail else ""
    if code in (401, 403):
        what = "rejected the API key" if code == 401 else "refused access"
        return BackendError(f"{at} {what} ({code}). Check the API key in Model › Servers….{detail_part}")
    if code == 404:
        thing = f"the model {model!r} or the API path" if model else "the API path"
        return BackendError(f"{at} does not know {thing} (404). Check the model name and the server kind "
                            f"(OpenAI-compatible or Ollama).{detail_part}")
    if code == 429:
        retry = response.headers.get("retry-after", "").strip()
        wait = f" Try again in {retry} s." if retry.isdigit() else (f" Try again after {retry}." if retry else " Try again shortly.")
        return BackendError(f"{at} is rate-limiting requests (429 Too Many Requests).{wait}{detail_part}")
    if 500 <= code < 600:
        return BackendError(f"{at} had an internal error ({code}).{detail_part}")
    return BackendError(f"{at} answered {code} {response.reason_phrase}.{detail_part}")


def stream_error(server: ServerConfig, error: object, *, key: str = "") -> BackendError:
    """A BackendError for an ``error`` object inside a stream."""
    return BackendError(f"{where(server)} reported an error during the reply: {redact(_error_text(error), key) or 'no details'}")


def bad_data(server: ServerConfig, what: str) -> BackendError:
    return BackendError(f"{where(server)} sent data Rill cannot read: {what}.")


def _error_detail(body: bytes) -> str:
    text = body.decode("utf-8", errors="replace").strip()
    if not text:
        return ""
    try:
        data = json.loads(text)
    except ValueError:
        if text.lstrip().startswith("<"):
            return "(an HTML page)"
        return _short(text)
    if isinstance(data, dict) and "error" in data:
        return _error_text(data["error"])
    if isinstance(data, dict) and "detail" in data:
        return _error_text(data["detail"])
    return _short(text)


def _error_text(error: object) -> str:
    if isinstance(error, dict):
        message = error.get("message") or error.get("msg") or ""
        if message:
            return _short(str(message))
        return _short(json.dumps(error, ensure_ascii=False))
    if isinstance(error, list) and error:
        return "; ".join(_error_text(e) for e in error[:3])
    return _short(str(error))


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_QUOTED else text[: MAX_QUOTED - 1] + "…"
