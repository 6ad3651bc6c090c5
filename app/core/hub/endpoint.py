"""Where the Hub is, who Rill is there, and what its HTTP failures mean (Qt-free).

* The endpoint (:func:`hub_endpoint`): ``HF_ENDPOINT`` from the environment
  (as ``huggingface_hub`` reads it; mirrors such as ``https://hf-mirror.com``),
  else the ``hub_endpoint`` setting (Settings › Models), else
  ``https://huggingface.co``.
* The token for gated repositories (:class:`HubToken`): ``HF_TOKEN`` from the
  environment, else the system keyring (service ``rill``, user
  ``huggingface-hub``), the same store as servers' API keys
  (``app.core.backends.remote.servers.SecretStore``). It is sent only to the
  endpoint's host (httpx drops ``Authorization`` on a redirect to another
  host, such as the Hub's CDN) and never logged: every message quoting a
  server goes through a ``Redactor`` holding it.
* :func:`make_client`: an ``httpx.Client`` that honours ``HTTP(S)_PROXY`` /
  ``NO_PROXY`` (``trust_env``) and follows redirects (the Hub sends a file
  to its CDN).
* :class:`HubError`: every failure as a sentence for the user, with a kind
  (gated, not found, rate limited, network...).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote, urlsplit

import httpx

from app import __version__
from app.core.backends.remote.redaction import Redactor
from app.core.base import settings
from app.core.base.i18n import translate
from app.core.base.limits import HUB_TIMEOUT_S, MAX_ERROR_BODY_BYTES

DEFAULT_ENDPOINT = "https://huggingface.co"
ENDPOINT_SETTING = "hub_endpoint"
TOKEN_KEYRING_USER = "huggingface-hub"

KIND_GATED = "gated"
KIND_NOT_FOUND = "not_found"
KIND_RATE_LIMITED = "rate_limited"
KIND_NETWORK = "network"
KIND_SERVER = "server"
KIND_BAD_REPLY = "bad_reply"
KIND_STALLED = "stalled"
KIND_DISK = "disk"
KIND_CHECKSUM = "checksum"
KIND_CANCELLED = "cancelled"
KIND_BUSY = "busy"


class HubError(Exception):
    """A Hub request failed; ``str()`` is the sentence for the user.
    ``retry_after``: seconds the server asked to wait (429), else None."""

    def __init__(self, message: str, kind: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.retry_after = retry_after


def valid_endpoint(text: str) -> str:
    """``text`` as an endpoint URL without a trailing slash, or "" when it
    is not an http(s) URL with a host."""
    text = text.strip().rstrip("/")
    try:
        parts = urlsplit(text)
    except ValueError:
        return ""
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.query or parts.fragment:
        return ""
    return text


def hub_endpoint(environ: Mapping[str, str] | None = None, settings_data: Mapping[str, Any] | None = None) -> str:
    """HF_ENDPOINT, else the ``hub_endpoint`` setting, else the Hub itself."""
    env = os.environ if environ is None else environ
    from_env = valid_endpoint(env.get("HF_ENDPOINT", ""))
    if from_env:
        return from_env
    data = settings.load_settings() if settings_data is None else settings_data
    value = data.get(ENDPOINT_SETTING)
    from_settings = valid_endpoint(value) if isinstance(value, str) else ""
    return from_settings or DEFAULT_ENDPOINT


def save_endpoint(endpoint: str) -> bool:
    """Keep ``endpoint`` in the settings ("" forgets it). False when it is
    not a URL or cannot be saved."""
    value = valid_endpoint(endpoint) if endpoint.strip() else ""
    if endpoint.strip() and not value:
        return False
    data = settings.load_settings()
    if value:
        data[ENDPOINT_SETTING] = value
    else:
        data.pop(ENDPOINT_SETTING, None)
    return settings.save_settings(data)


class HubToken:
    """The access token for gated repositories: ``HF_TOKEN``, else the keyring
    (``secrets``: a ``SecretStore``; built on first use). Never logged."""

    def __init__(self, secrets: Any = None, environ: Mapping[str, str] | None = None) -> None:
        self._secrets = secrets
        self._environ = environ

    def _store(self) -> Any:
        if self._secrets is None:
            from app.core.backends.remote.servers import SecretStore

            self._secrets = SecretStore()
        return self._secrets

    def get(self) -> str:
        env = os.environ if self._environ is None else self._environ
        value = env.get("HF_TOKEN", "").strip()
        if value:
            return value
        return str(self._store().get(TOKEN_KEYRING_USER) or "").strip()

    def set(self, token: str) -> bool:
        """Keep ``token`` in the keyring ("" deletes it); True when it survives a restart."""
        return bool(self._store().set(TOKEN_KEYRING_USER, token.strip()))

    @property
    def from_environment(self) -> bool:
        env = os.environ if self._environ is None else self._environ
        return bool(env.get("HF_TOKEN", "").strip())


def user_agent() -> str:
    return f"Rill/{__version__}"


def make_client(token: str = "", timeout_s: float = HUB_TIMEOUT_S, read_timeout_s: float | None = None) -> httpx.Client:
    """A client for the Hub: proxies from the environment, redirects followed,
    ``Authorization: Bearer`` when there is a token."""
    headers = {"User-Agent": user_agent(), "Accept-Encoding": "identity"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    timeout = httpx.Timeout(timeout_s, read=read_timeout_s if read_timeout_s is not None else timeout_s)
    return httpx.Client(headers=headers, timeout=timeout, follow_redirects=True, trust_env=True, max_redirects=5)


def repo_url(endpoint: str, repo: str) -> str:
    return f"{endpoint}/{quote(repo, safe='/')}"


def file_url(endpoint: str, repo: str, filename: str, revision: str = "main") -> str:
    """The file's download address (``resolve``), as the Hub names it."""
    return f"{endpoint}/{quote(repo, safe='/')}/resolve/{quote(revision, safe='')}/{quote(filename, safe='/')}"


def retry_after_seconds(value: str | None) -> float | None:
    """A ``Retry-After`` header's seconds (a number of seconds or an HTTP date)."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    import email.utils
    import time

    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    return max(0.0, when.timestamp() - time.time())


def read_bounded(response: httpx.Response, limit: int) -> tuple[bytes, bool]:
    """(at most ``limit`` bytes of a streamed body, whether there was more)."""
    if response.is_stream_consumed:
        return response.content[:limit], len(response.content) > limit
    parts: list[bytes] = []
    size = 0
    for chunk in response.iter_bytes():
        parts.append(chunk)
        size += len(chunk)
        if size > limit:
            return b"".join(parts)[:limit], True
    return b"".join(parts), False


def status_error(response: httpx.Response, what: str, redactor: Redactor, has_token: bool) -> HubError:
    """The HubError for a non-2xx reply about ``what`` (a repository or a file)."""
    code = response.status_code
    try:
        body, _ = read_bounded(response, MAX_ERROR_BODY_BYTES)
        said = redactor.quote(body.decode("utf-8", errors="replace"))
    except (httpx.HTTPError, OSError):
        said = ""
    if code in (401, 403):
        if has_token:
            message = translate("Hub", "{what} is gated or private, and the token given has no access to it. "
                                       "Accept its terms on the Hub with that account, or use another token.")
        else:
            message = translate("Hub", "{what} is gated or private: it needs a Hugging Face access token. "
                                       "Accept its terms on the Hub, then give a token in Settings (or HF_TOKEN).")
        return HubError(message.format(what=what), KIND_GATED)
    if code == 404:
        return HubError(translate("Hub", "{what} was not found on the Hub (HTTP 404).").format(what=what), KIND_NOT_FOUND)
    if code == 429:
        wait = retry_after_seconds(response.headers.get("Retry-After"))
        if wait is not None:
            message = translate("Hub", "The Hub is limiting requests (HTTP 429): try again in {seconds} s.").format(
                seconds=max(1, round(wait)))
        else:
            message = translate("Hub", "The Hub is limiting requests (HTTP 429): try again in a while.")
        return HubError(message, KIND_RATE_LIMITED, retry_after=wait)
    message = translate("Hub", "The Hub answered HTTP {code} for {what}.").format(code=code, what=what)
    if said:
        message += " " + translate("Hub", "It said: {text}").format(text=said)
    return HubError(message, KIND_SERVER if code >= 500 else KIND_BAD_REPLY)


def network_error(exc: BaseException, endpoint: str) -> HubError:
    """The HubError for a failure to reach ``endpoint`` or a connection lost."""
    host = urlsplit(endpoint).hostname or endpoint
    if isinstance(exc, httpx.TimeoutException):
        return HubError(translate("Hub", "{host} did not answer in time.").format(host=host), KIND_STALLED)
    if isinstance(exc, httpx.ConnectError):
        return HubError(translate("Hub", "Cannot reach {host}: check the network, the proxy (HTTPS_PROXY) or "
                                         "the Hub address (HF_ENDPOINT, Settings).").format(host=host), KIND_NETWORK)
    if isinstance(exc, httpx.TooManyRedirects):
        return HubError(translate("Hub", "{host} redirected too many times.").format(host=host), KIND_BAD_REPLY)
    return HubError(translate("Hub", "The connection to {host} was lost.").format(host=host), KIND_NETWORK)
