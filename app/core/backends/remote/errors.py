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

from app.core.backends.base import BackendError
from app.core.backends.remote.servers import ServerConfig, display_url, redact
from app.core.base.i18n import translate

log = logging.getLogger(__name__)

#: At most this much of an error body is quoted to the user.
MAX_QUOTED = 300


def where(server: ServerConfig) -> str:
    return f"{server.name} ({display_url(server.base_url)})"


def transport_error(server: ServerConfig, exc: Exception, *, during_reply: bool = False) -> BackendError:
    """A BackendError for an httpx / network exception (``during_reply``: it
    happened while the reply streamed)."""
    at = where(server)
    log.info("request to %s failed%s: %r", display_url(server.base_url), " during the reply" if during_reply else "", exc)
    if isinstance(exc, httpx.ConnectTimeout):
        return BackendError(translate(
            "RemoteErrors", "Could not connect to {server}: no answer within the time limit. "
            "Is the address right and the server running?").format(server=at))
    if isinstance(exc, httpx.ReadTimeout):
        if during_reply:
            text = translate(
                "RemoteErrors", "{server} stopped sending during the reply: nothing arrived for {seconds} s. "
                "The server may be overloaded or stuck; the stall timeout is in the server's settings.")
        else:
            text = translate(
                "RemoteErrors", "{server} stopped sending: nothing arrived for {seconds} s. "
                "The server may be overloaded or stuck; the stall timeout is in the server's settings.")
        return BackendError(text.format(server=at, seconds=f"{server.stall_s:g}"))
    if isinstance(exc, (httpx.WriteTimeout, httpx.PoolTimeout)):
        return BackendError(translate("RemoteErrors", "{server} did not accept the request in time.").format(server=at))
    if isinstance(exc, httpx.ConnectError):
        text = str(exc)
        cause = exc.__cause__ or exc.__context__
        lowered = text.lower()
        if isinstance(cause, ssl.SSLError) or "ssl" in lowered or "certificate" in lowered or "tls" in lowered:
            return BackendError(translate(
                "RemoteErrors", "Could not make a secure (TLS) connection to {server}: {detail}. "
                "Check that the URL's http/https matches the server and that its certificate is valid."
            ).format(server=at, detail=_short(text)))
        if "name or service not known" in lowered or "nodename nor servname" in lowered or "getaddrinfo" in lowered \
                or "temporary failure in name resolution" in lowered or "no address associated" in lowered:
            return BackendError(translate(
                "RemoteErrors", "Unknown host: the name in {server} could not be found. Check the URL.").format(server=at))
        if "refused" in lowered:
            return BackendError(translate(
                "RemoteErrors", "{server} refused the connection: the server is not running on that port, "
                "or the port is wrong.").format(server=at))
        return BackendError(translate("RemoteErrors", "Could not connect to {server}: {detail}.").format(
            server=at, detail=_short(text)))
    if isinstance(exc, (httpx.RemoteProtocolError, httpx.ReadError)):
        if during_reply:
            text = translate("RemoteErrors", "{server} closed the connection during the reply before the reply was complete.")
        else:
            text = translate("RemoteErrors", "{server} closed the connection before the reply was complete.")
        return BackendError(text.format(server=at))
    if isinstance(exc, httpx.UnsupportedProtocol):
        return BackendError(translate("RemoteErrors", "{server}: the URL must start with http:// or https://.").format(server=at))
    if isinstance(exc, httpx.HTTPError):
        return BackendError(translate("RemoteErrors", "The request to {server} failed: {detail}.").format(
            server=at, detail=_short(str(exc))))
    return BackendError(translate("RemoteErrors", "The request to {server} failed: {detail}.").format(
        server=at, detail=type(exc).__name__))


def status_error(server: ServerConfig, response: httpx.Response, body: bytes, *, model: str = "", key: str = "") -> BackendError:
    """A BackendError for a non-2xx response (``body``: what was read of it).
    Its ``status`` attribute is the HTTP status code."""
    at = where(server)
    code = response.status_code
    detail = redact(_error_detail(body), key)
    wait = ""
    if code == 401:
        text = translate("RemoteErrors", "{server} rejected the API key ({code}). Check the API key in Model › Servers….")
    elif code == 403:
        text = translate("RemoteErrors", "{server} refused access ({code}). Check the API key in Model › Servers….")
    elif code == 404 and model:
        text = translate("RemoteErrors", "{server} does not know the model {model} or the API path (404). "
                                         "Check the model name and the server kind (OpenAI-compatible or Ollama).")
    elif code == 404:
        text = translate("RemoteErrors", "{server} does not know the API path (404). "
                                         "Check the model name and the server kind (OpenAI-compatible or Ollama).")
    elif code == 429:
        text = translate("RemoteErrors", "{server} is rate-limiting requests (429 Too Many Requests).")
        retry = response.headers.get("retry-after", "").strip()
        # Sentences of their own, appended: each translation carries its own
        # leading space (or none).
        if retry.isdigit():
            wait = translate("RemoteErrors", " Try again in {seconds} s.").format(seconds=retry)
        elif retry:
            wait = translate("RemoteErrors", " Try again after {time}.").format(time=retry)
        else:
            wait = translate("RemoteErrors", " Try again shortly.")
    elif 500 <= code < 600:
        text = translate("RemoteErrors", "{server} had an internal error ({code}).")
    else:
        text = translate("RemoteErrors", "{server} answered {code} {reason}.")
    said = translate("RemoteErrors", " The server said: {detail}").format(detail=detail) if detail else ""
    message = text.format(server=at, code=code, model=repr(model), reason=response.reason_phrase) + wait + said
    error = BackendError(message)
    error.status = code  # type: ignore[attr-defined]  # an extra attribute the callers read
    return error


def stream_error(server: ServerConfig, error: object, *, key: str = "") -> BackendError:
    """A BackendError for an ``error`` object inside a stream."""
    detail = redact(_error_text(error), key) or translate("RemoteErrors", "no details")
    return BackendError(translate("RemoteErrors", "{server} reported an error during the reply: {detail}").format(
        server=where(server), detail=detail))


def bad_data(server: ServerConfig, what: str) -> BackendError:
    """``what``: what was wrong, in the user's language (a clause)."""
    return BackendError(translate("RemoteErrors", "{server} sent data Rill cannot read: {what}.").format(
        server=where(server), what=what))


def _error_detail(body: bytes) -> str:
    text = body.decode("utf-8", errors="replace").strip()
    if not text:
        return ""
    try:
        data = json.loads(text)
    except ValueError:
        if text.lstrip().startswith("<"):
            return translate("RemoteErrors", "(an HTML page)")
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
