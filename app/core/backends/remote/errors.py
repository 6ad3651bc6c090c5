"""Plain-language messages for everything a server can do wrong (Qt-free).

Every message names the server (its name and URL without credentials) and
never contains an API key or a URL password: whatever is quoted from the
server (a body, its reason phrase, a header such as Retry-After, an error
event, a redirect's address) goes through ``Redactor.quote`` (redacted FIRST,
then cut to ``MAX_QUOTED_CHARS``), and the whole message is redacted once more
before it leaves. Messages about a limit name the limit. No traceback ever
reaches the user; the technical detail goes to the log, redacted too.

``key`` arguments take the API key or a ``Redactor`` that knows every secret
of the request (``RemoteBackend`` passes its own).
"""

from __future__ import annotations

import json
import logging
import ssl
from http import HTTPStatus
from urllib.parse import unquote

import httpx

from app.core.backends.base import BackendError
from app.core.backends.remote.http import connect_timeout
from app.core.backends.remote.reading import ReadLimitError
from app.core.backends.remote.redaction import Redactor
from app.core.backends.remote.servers import ServerConfig, display_url, origin, split_login
from app.core.base.i18n import translate
from app.core.base.limits import MAX_QUOTED_CHARS, size_text

log = logging.getLogger(__name__)

#: At most this much of what a server said is quoted to the user.
MAX_QUOTED = MAX_QUOTED_CHARS
#: At most this much of a Retry-After header is quoted.
MAX_RETRY_AFTER = 40

Secrets = str | Redactor


def redactor_for(server: ServerConfig, key: Secrets = "") -> Redactor:
    """A Redactor for ``key`` and the password (and user name) in ``server``'s URL."""
    base = key if isinstance(key, Redactor) else Redactor(key)
    login = split_login(server.base_url)[1]
    if login:
        user, _, password = login.partition(":")
        for secret in {user, password, unquote(user), unquote(password)}:
            base = base.with_secret(secret)
    return base


def _error(server: ServerConfig, key: Secrets, message: str) -> BackendError:
    return BackendError(redactor_for(server, key).redact(message))


def where(server: ServerConfig) -> str:
    return f"{server.name} ({display_url(server.base_url)})"


def transport_error(
    server: ServerConfig, exc: Exception, *, during_reply: bool = False, key: Secrets = "",
    seconds: float | None = None,
) -> BackendError:
    """A BackendError for an httpx / network exception (``during_reply``: it
    happened while the reply streamed; ``seconds``: the timeout in force,
    when not the server's stall timeout)."""
    at = where(server)
    secrets = redactor_for(server, key)
    log.info("request to %s failed%s: %s", display_url(server.base_url), " during the reply" if during_reply else "",
             secrets.quote(repr(exc), 500))
    limit = f"{(seconds if seconds is not None else server.stall_s):g}"
    if isinstance(exc, httpx.ConnectTimeout):
        connect = seconds if seconds is not None else connect_timeout(server.stall_s)
        return _error(server, secrets, translate(
            "RemoteErrors", "Could not connect to {server}: no answer within {seconds} s. "
            "Is the address right and the server running?").format(server=at, seconds=f"{connect:g}"))
    if isinstance(exc, httpx.ReadTimeout):
        if during_reply:
            text = translate(
                "RemoteErrors", "{server} stopped sending during the reply: nothing arrived for {seconds} s. "
                "The server may be overloaded or stuck; the stall timeout is in the server's settings.")
        else:
            text = translate(
                "RemoteErrors", "{server} stopped sending: nothing arrived for {seconds} s. "
                "The server may be overloaded or stuck; the stall timeout is in the server's settings.")
        return _error(server, secrets, text.format(server=at, seconds=limit))
    if isinstance(exc, (httpx.WriteTimeout, httpx.PoolTimeout)):
        return _error(server, secrets, translate("RemoteErrors", "{server} did not accept the request in time.")
                      .format(server=at))
    if isinstance(exc, httpx.ConnectError):
        text = str(exc)
        cause = exc.__cause__ or exc.__context__
        lowered = text.lower()
        if isinstance(cause, ssl.SSLError) or "ssl" in lowered or "certificate" in lowered or "tls" in lowered:
            return _error(server, secrets, translate(
                "RemoteErrors", "Could not make a secure (TLS) connection to {server}: {detail}. "
                "Check that the URL's http/https matches the server and that its certificate is valid."
            ).format(server=at, detail=secrets.quote(text)))
        if "name or service not known" in lowered or "nodename nor servname" in lowered or "getaddrinfo" in lowered \
                or "temporary failure in name resolution" in lowered or "no address associated" in lowered:
            return _error(server, secrets, translate(
                "RemoteErrors", "Unknown host: the name in {server} could not be found. Check the URL.").format(server=at))
        if "refused" in lowered:
            return _error(server, secrets, translate(
                "RemoteErrors", "{server} refused the connection: the server is not running on that port, "
                "or the port is wrong.").format(server=at))
        return _error(server, secrets, translate("RemoteErrors", "Could not connect to {server}: {detail}.").format(
            server=at, detail=secrets.quote(text)))
    if isinstance(exc, (httpx.RemoteProtocolError, httpx.ReadError)):
        if during_reply:
            text = translate("RemoteErrors", "{server} closed the connection during the reply before the reply was complete.")
        else:
            text = translate("RemoteErrors", "{server} closed the connection before the reply was complete.")
        return _error(server, secrets, text.format(server=at))
    if isinstance(exc, httpx.UnsupportedProtocol):
        return _error(server, secrets, translate("RemoteErrors", "{server}: the URL must start with http:// or https://.")
                      .format(server=at))
    if isinstance(exc, httpx.HTTPError):
        return _error(server, secrets, translate("RemoteErrors", "The request to {server} failed: {detail}.").format(
            server=at, detail=secrets.quote(str(exc))))
    return _error(server, secrets, translate("RemoteErrors", "The request to {server} failed: {detail}.").format(
        server=at, detail=type(exc).__name__))


def list_timeout(server: ServerConfig, seconds: float) -> BackendError:
    """The model list did not arrive whole within ``seconds``."""
    return BackendError(translate(
        "RemoteErrors", "{server} did not send its model list within {seconds} s, Rill's time limit for a model list. "
        "The server may be overloaded, or sending the list very slowly.").format(
        server=where(server), seconds=f"{seconds:g}"))


def stalled(server: ServerConfig, seconds: float, keepalives: bool) -> BackendError:
    """No reply data for ``seconds`` during a stream (``keepalives``: the
    server sent keep-alive messages meanwhile, which do not count)."""
    if keepalives:
        text = translate(
            "RemoteErrors", "{server} sent only keep-alive messages and no reply for {seconds} s. "
            "The server may be overloaded or stuck; the stall timeout is in the server's settings.")
    else:
        text = translate(
            "RemoteErrors", "{server} stopped sending during the reply: nothing arrived for {seconds} s. "
            "The server may be overloaded or stuck; the stall timeout is in the server's settings.")
    return BackendError(text.format(server=where(server), seconds=f"{seconds:g}"))


def limit_error(server: ServerConfig, exc: ReadLimitError, subject: str = "reply") -> BackendError:
    """A limit of app.core.base.limits was passed. ``subject``: "list" (a
    model list) or "reply" (a stream or a complete reply)."""
    limit = size_text(exc.limit)
    if exc.kind == "line":
        text = translate("RemoteErrors", "{server} sent a line longer than {limit}, Rill's limit for one line "
                                         "of a stream; Rill stopped reading there.")
    elif exc.kind == "event":
        text = translate("RemoteErrors", "{server} sent an event larger than {limit}, Rill's limit for one event "
                                         "of a stream; Rill stopped reading there.")
    elif subject == "list" and exc.kind == "inflated":
        text = translate("RemoteErrors", "{server} sent a compressed model list that unpacks to more than {limit}, "
                                         "Rill's limit for a model list.")
    elif subject == "list":
        text = translate("RemoteErrors", "{server} sent a model list larger than {limit}, Rill's limit for a model list.")
    elif exc.kind == "inflated":
        text = translate("RemoteErrors", "{server} sent a compressed reply that unpacks to more than {limit}, "
                                         "Rill's limit for a reply that is not streamed.")
    else:
        text = translate("RemoteErrors", "{server} sent a reply larger than {limit}, "
                                         "Rill's limit for a reply that is not streamed.")
    return BackendError(text.format(server=where(server), limit=limit))


def compressed(server: ServerConfig, encoding: str, *, stream: bool, key: Secrets = "") -> BackendError:
    """The answer is compressed (``encoding``) in a way Rill does not read:
    any compression on a stream (Rill asks for none), else anything but
    gzip and deflate."""
    if stream:
        text = translate("RemoteErrors", "{server} sent the reply compressed ({encoding}) although Rill asked for "
                                         "no compression; Rill does not read compressed streams. Turn compression "
                                         "off for this address in the server or the proxy in front of it.")
    else:
        text = translate("RemoteErrors", "{server} sent an answer compressed as {encoding}, which Rill does not read "
                                         "(gzip and deflate only).")
    secrets = redactor_for(server, key)
    return _error(server, secrets, text.format(server=where(server), encoding=secrets.quote(encoding, 40)))


def redirect_target(response: httpx.Response) -> httpx.URL | None:
    """Where a 3xx response points (None: no usable Location)."""
    location = response.headers.get("location", "")
    if not location:
        return None
    try:
        return response.request.url.join(location)
    except (httpx.InvalidURL, ValueError, RuntimeError):
        return None


def is_same_origin(a: str, b: str) -> bool:
    """Same scheme, host and port (the login is not part of it)."""
    return bool(origin(a)) and origin(a) == origin(b)


def redirect_error(server: ServerConfig, response: httpx.Response, *, key: Secrets = "") -> BackendError:
    """A redirect Rill does not follow: to another address (any request), or
    of a request that carries a conversation (POST), or one without a
    usable Location. The message says where the server pointed."""
    secrets = redactor_for(server, key)
    target = redirect_target(response)
    code = response.status_code
    at = where(server)
    if target is None:
        raw = response.headers.get("location", "")
        if not raw:
            return _error(server, secrets, translate(
                "RemoteErrors", "{server} answered {code} (a redirect) without saying where to.").format(
                server=at, code=code))
        shown = secrets.quote(raw)
    else:
        shown = secrets.quote(display_url(str(target)) + ("?…" if target.query else ""))
    if target is None or not is_same_origin(str(target), str(response.request.url)):
        text = translate("RemoteErrors", "{server} redirected the request ({code}) to {location}; Rill does not "
                                         "follow redirects to another address. If that address is right, put it "
                                         "in Model › Servers….")
    else:
        text = translate("RemoteErrors", "{server} redirected the chat request ({code}) to {location}; Rill does "
                                         "not send a conversation on to a redirected address. If that address is "
                                         "right, put it in Model › Servers….")
    return _error(server, secrets, text.format(server=at, code=code, location=shown))


def too_many_redirects(server: ServerConfig, hops: int) -> BackendError:
    return BackendError(translate("RemoteErrors", "{server} redirected the model list more than {n} times.").format(
        server=where(server), n=hops))


def status_error(server: ServerConfig, response: httpx.Response, body: bytes, *, model: str = "",
                 key: Secrets = "") -> BackendError:
    """A BackendError for a non-2xx response (``body``: what was read of it).
    Its ``status`` attribute is the HTTP status code."""
    secrets = redactor_for(server, key)
    at = where(server)
    code = response.status_code
    detail = _error_detail(body, secrets)
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
        retry = secrets.quote(response.headers.get("retry-after", ""), MAX_RETRY_AFTER)
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
    reason = secrets.quote(response.reason_phrase, 60) or _standard_phrase(code)
    model_text = secrets.quote(repr(model), 120)
    message = text.format(server=at, code=code, model=model_text, reason=reason).replace(" .", ".") + wait + said
    error = _error(server, secrets, message)
    error.status = code  # type: ignore[attr-defined]  # an extra attribute the callers read
    return error


def _standard_phrase(code: int) -> str:
    try:
        return HTTPStatus(code).phrase
    except ValueError:  # a code HTTPStatus does not know
        return ""


def stream_error(server: ServerConfig, error: object, *, key: Secrets = "") -> BackendError:
    """A BackendError for an ``error`` object inside a stream."""
    secrets = redactor_for(server, key)
    detail = _error_text(error, secrets) or translate("RemoteErrors", "no details")
    return _error(server, secrets, translate("RemoteErrors", "{server} reported an error during the reply: {detail}")
                  .format(server=where(server), detail=detail))


def bad_data(server: ServerConfig, what: str, *, key: Secrets = "") -> BackendError:
    """``what``: what was wrong, in the user's language (a clause; anything
    quoted in it went through ``quote`` already)."""
    return _error(server, key, translate("RemoteErrors", "{server} sent data Rill cannot read: {what}.").format(
        server=where(server), what=what))


def quote(server: ServerConfig, text: str, key: Secrets = "", limit: int = MAX_QUOTED_CHARS) -> str:
    """``text`` from the server, fit to quote in a message (redacted, then cut)."""
    return redactor_for(server, key).quote(text, limit)


def _error_detail(body: bytes, secrets: Redactor) -> str:
    text = body.decode("utf-8", errors="replace").strip()
    if not text:
        return ""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        if text.lstrip().startswith("<"):
            return translate("RemoteErrors", "(an HTML page)")
        return secrets.quote(text)
    if isinstance(data, dict) and "error" in data:
        return _error_text(data["error"], secrets)
    if isinstance(data, dict) and "detail" in data:
        return _error_text(data["detail"], secrets)
    return secrets.quote(text)


def _error_text(error: object, secrets: Redactor, depth: int = 0) -> str:
    if isinstance(error, dict):
        message = error.get("message") or error.get("msg") or ""
        if message:
            return secrets.quote(str(message))
        return secrets.quote(_dump(error))
    if isinstance(error, list) and error and depth < 3:
        return secrets.quote("; ".join(_error_text(e, secrets, depth + 1) for e in error[:3]))
    return secrets.quote(str(error))


def _dump(value: object) -> str:
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        return str(type(value).__name__)
