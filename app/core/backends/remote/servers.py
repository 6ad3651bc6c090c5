"""The servers the user configured, and where their API keys live (Qt-free).

A server is a name, a kind (``openai`` or ``ollama``), a base URL and a
default model, stored under ``servers`` in the settings file. Its API key is
NEVER written there: it goes to the system keyring (``keyring``), service
``rill``, user = the server's id. Where no keyring backend exists (a bare
Linux session, CI), the key is kept in memory for this session only and
``SecretStore.notice`` says so.
"""

from __future__ import annotations

import logging
import re
import threading
import uuid
from dataclasses import asdict, dataclass, field, replace
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from app.core.base import settings
from app.core.base.i18n import QT_TRANSLATE_NOOP, translate

log = logging.getLogger(__name__)

SERVERS_KEY = "servers"
KEYRING_SERVICE = "rill"

OPENAI = "openai"
OLLAMA = "ollama"
KINDS = (OPENAI, OLLAMA)
#: What the kinds are called for the user: English, translated where shown
#: (``translate("Servers", label)``).
KIND_LABELS = {OPENAI: QT_TRANSLATE_NOOP("Servers", "OpenAI-compatible"), OLLAMA: "Ollama"}
DEFAULT_URLS = {OPENAI: "http://127.0.0.1:8080", OLLAMA: "http://127.0.0.1:11434"}

#: Default seconds without a single byte from the server before a reply is
#: given up as stalled (also the connect timeout's upper bound).
DEFAULT_STALL_S = 60.0

_VERSION_SEGMENT = re.compile(r"^v\d+[a-z0-9]*$", re.IGNORECASE)


class ServerConfigError(ValueError):
    """A server's settings are not usable; the message is for the user."""


@dataclass(frozen=True)
class ServerConfig:
    name: str
    kind: str
    base_url: str
    model: str = ""
    id: str = field(default_factory=lambda: uuid.uuid4().hex)
    stall_s: float = DEFAULT_STALL_S

    def validated(self) -> ServerConfig:
        """This config with its URL normalized; ServerConfigError if unusable."""
        name = self.name.strip()
        if not name:
            raise ServerConfigError(translate("Servers", "A server needs a name."))
        if self.kind not in KINDS:
            raise ServerConfigError(translate("Servers", "Unknown server kind {kind}: use one of {kinds}.").format(
                kind=repr(self.kind), kinds=", ".join(KINDS)))
        if not (1.0 <= float(self.stall_s) <= 3600.0):
            raise ServerConfigError(translate("Servers", "The stall timeout must be between 1 and 3600 seconds."))
        return replace(self, name=name, base_url=normalize_base_url(self.base_url), model=self.model.strip())

    @property
    def api_root(self) -> str:
        """Where the API's paths start: ``…/v1`` for OpenAI-compatible servers
        (a pasted ``/v1`` or another version segment is kept, not doubled),
        the bare server URL for Ollama (a pasted ``/api`` or ``/v1`` dropped)."""
        url = normalize_base_url(self.base_url)
        path = urlsplit(url).path.rstrip("/")
        last = path.rsplit("/", 1)[-1]
        if self.kind == OLLAMA:
            if last.lower() in ("api", "v1"):
                return url[: len(url) - len(last) - 1]
            return url
        if any(_VERSION_SEGMENT.match(seg) for seg in path.split("/") if seg):
            return url
        return url + "/v1"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Any) -> ServerConfig:
        if not isinstance(data, dict):
            raise ServerConfigError("not a server entry")
        try:
            return cls(
                name=str(data["name"]),
                kind=str(data["kind"]),
                base_url=str(data["base_url"]),
                model=str(data.get("model", "") or ""),
                id=str(data.get("id") or uuid.uuid4().hex),
                stall_s=float(data.get("stall_s", DEFAULT_STALL_S)),
            ).validated()
        except (KeyError, TypeError, ValueError) as exc:
            raise ServerConfigError(str(exc)) from exc


def normalize_base_url(url: str) -> str:
    """``url`` stripped, with a scheme (``http://`` when none was typed) and no
    trailing slash, query or fragment. ServerConfigError when it is not a URL."""
    text = (url or "").strip()
    if not text:
        raise ServerConfigError(translate("Servers", "A server needs a URL, e.g. http://127.0.0.1:8080."))
    if "://" not in text:
        text = "http://" + text
    parts = urlsplit(text)
    if parts.scheme.lower() not in ("http", "https"):
        raise ServerConfigError(translate("Servers", "Only http:// and https:// URLs are supported, not {scheme}://.")
                                .format(scheme=parts.scheme))
    if not parts.hostname:
        raise ServerConfigError(translate("Servers", "{url} has no host name.").format(url=repr(url.strip())))
    try:
        parts.port  # noqa: B018 - raises on a bad port
    except ValueError as exc:
        raise ServerConfigError(translate("Servers", "{url} has a bad port number.").format(url=repr(url.strip()))) from exc
    if any(ch.isspace() for ch in text):
        raise ServerConfigError(translate("Servers", "{url} contains spaces.").format(url=repr(url.strip())))
    return urlunsplit((parts.scheme.lower(), parts.netloc, parts.path.rstrip("/"), "", ""))


def display_url(url: str) -> str:
    """A URL safe to show or log: any ``user:password@`` part removed."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return translate("Servers", "(invalid URL)")
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


def load_servers(path: Any = None) -> list[ServerConfig]:
    """The configured servers; entries that are not valid are skipped (logged)."""
    raw = settings.load_settings(path).get(SERVERS_KEY, [])
    if not isinstance(raw, list):
        log.warning("ignoring the settings key %r: not a list", SERVERS_KEY)
        return []
    out: list[ServerConfig] = []
    for entry in raw:
        try:
            out.append(ServerConfig.from_dict(entry))
        except ServerConfigError as exc:
            log.warning("ignoring a server entry in the settings: %s", exc)
    return out


def save_servers(servers: list[ServerConfig], path: Any = None) -> bool:
    """Write the servers (never their keys) to the settings file, atomically."""
    data = settings.load_settings(path)
    data[SERVERS_KEY] = [s.to_dict() for s in servers]
    return settings.save_settings(data, path)


class SecretStore:
    """API keys by server id: the system keyring, else this session's memory.

    Thread-safe (the Test button and the inference worker read keys off the
    GUI thread). Never logs a key; errors are logged by server id only.
    """

    def __init__(self, keyring_module: Any = None) -> None:
        self._lock = threading.Lock()
        self._session: dict[str, str] = {}
        self._keyring = keyring_module
        self._persistent: bool | None = None if keyring_module is None else True

    def _backend(self) -> Any:
        if self._keyring is None:
            try:
                import keyring as found
                from keyring.backends import fail

                keyring: Any = found

                backend = keyring.get_keyring()
                usable = not isinstance(backend, fail.Keyring) and getattr(backend, "priority", 1) > 0
            except Exception as exc:  # noqa: BLE001 - a broken keyring is "no keyring"
                log.warning("no usable system keyring: %s", exc)
                keyring, usable = None, False
            self._keyring = keyring if usable else False
            self._persistent = bool(usable)
        return self._keyring or None

    @property
    def persistent(self) -> bool:
        """True when keys survive a restart (a system keyring is in use)."""
        with self._lock:
            self._backend()
            return bool(self._persistent)

    @property
    def notice(self) -> str:
        """"" with a keyring; else what the user should know about their keys."""
        if self.persistent:
            return ""
        return translate("Servers", "No system keyring is available, so API keys are kept for this session "
                                    "only and must be entered again after Rill restarts.")

    def get(self, server_id: str) -> str:
        with self._lock:
            if server_id in self._session:
                return self._session[server_id]
            backend = self._backend()
            if backend is None:
                return ""
            try:
                return backend.get_password(KEYRING_SERVICE, server_id) or ""
            except Exception as exc:  # noqa: BLE001 - any keyring failure: no key, said in the log
                log.warning("cannot read the API key of server %s from the keyring: %s", server_id, type(exc).__name__)
                return ""

    def set(self, server_id: str, key: str) -> bool:
        """Store ``key`` (""/None deletes it). True when it went to the keyring."""
        if not key:
            self.delete(server_id)
            return self.persistent
        with self._lock:
            backend = self._backend()
            if backend is not None:
                try:
                    backend.set_password(KEYRING_SERVICE, server_id, key)
                    self._session.pop(server_id, None)
                    return True
                except Exception as exc:  # noqa: BLE001 - any keyring failure: kept for the session
                    log.warning("cannot save the API key of server %s to the keyring: %s", server_id, type(exc).__name__)
            self._session[server_id] = key
            return False

    def delete(self, server_id: str) -> None:
        with self._lock:
            self._session.pop(server_id, None)
            backend = self._backend()
            if backend is None:
                return
            try:
                backend.delete_password(KEYRING_SERVICE, server_id)
            except Exception:  # noqa: BLE001, S110 - not there is fine
                pass


_SECRETS: SecretStore | None = None
_SECRETS_LOCK = threading.Lock()


def secrets() -> SecretStore:
    """The process's one SecretStore."""
    global _SECRETS
    with _SECRETS_LOCK:
        if _SECRETS is None:
            _SECRETS = SecretStore()
        return _SECRETS


def redact(text: str, *keys: str) -> str:
    """``text`` with every non-empty key replaced by ``***`` (error messages,
    logs: a server may echo the key back)."""
    for key in keys:
        if key and len(key) >= 4:
            text = text.replace(key, "***")
    return text
