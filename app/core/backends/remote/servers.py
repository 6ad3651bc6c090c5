"""The servers the user configured, and where their API keys live (Qt-free).

A server is a name, a kind (``openai`` or ``ollama``), a base URL and a
default model, stored under ``servers`` in the settings file. Its API key is
NEVER written there: it goes to the system keyring (``keyring``), service
``rill``, user = the server's id. Where no keyring backend exists (a bare
Linux session, CI), the key is kept in memory for this session only and
``SecretStore.notice`` says so.

A ``user:password@`` typed in a base URL is a secret too: ``save_servers``
(and ``load_servers``, for a settings file written before this rule) moves it
to the keyring (user = ``<id>:url-login``, bound to the URL's scheme, host and
port) and stores the URL without it; ``with_login`` puts it back, in memory
only, for a request to that same address. The settings entry says
``"url_login": true`` so that removing the server removes its login too.

Keys are checked before use (``validate_api_key``): whitespace around them
is dropped, and a key with a control, space or non-ASCII character is refused
in words that never quote it.
"""

from __future__ import annotations

import json
import logging
import re
import threading
import uuid
from dataclasses import asdict, dataclass, field, replace
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from app.core.backends.remote.redaction import Redactor
from app.core.base import settings
from app.core.base.i18n import QT_TRANSLATE_NOOP, translate

log = logging.getLogger(__name__)

SERVERS_KEY = "servers"
KEYRING_SERVICE = "rill"
#: The keyring user of a server's URL login: ``<server id>`` + this.
LOGIN_SUFFIX = ":url-login"
#: The settings entry's flag: this server's URL login is in the keyring.
LOGIN_FLAG = "url_login"

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


def split_login(url: str) -> tuple[str, str]:
    """``url`` without its ``user:password@`` part, and that part ("" when none;
    percent-encoding kept as typed)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return url, ""
    if "@" not in parts.netloc:
        return url, ""
    login, _, host = parts.netloc.rpartition("@")
    return urlunsplit((parts.scheme, host, parts.path, parts.query, parts.fragment)), login


def origin(url: str) -> str:
    """``scheme://host:port`` of ``url`` (the port spelt out), lower case, no login."""
    try:
        parts = urlsplit(url)
        port = parts.port or (443 if parts.scheme.lower() == "https" else 80)
    except ValueError:
        return ""
    host = (parts.hostname or "").lower()
    if ":" in host:
        host = f"[{host}]"
    return f"{parts.scheme.lower()}://{host}:{port}"


def with_login(server: ServerConfig, store: SecretStore | None = None) -> ServerConfig:
    """``server`` with the URL login kept for it in the keyring put back into
    its URL (in memory only), if the login was stored for this same address.
    A URL that has a login already is left alone. BLOCKS on the keyring:
    worker threads only."""
    url, login = split_login(server.base_url)
    if login:
        return server
    found = (store or secrets()).get_login(server.id, origin(url))
    if not found:
        return server
    parts = urlsplit(url)
    return replace(server, base_url=urlunsplit((parts.scheme, f"{found}@{parts.netloc}", parts.path, "", "")))


def load_servers(path: Any = None, store: SecretStore | None = None) -> list[ServerConfig]:
    """The configured servers; entries that are not valid are skipped (logged).
    A login found in a stored URL (a settings file from before the keyring
    rule) is moved to the keyring and the file rewritten without it."""
    data = settings.load_settings(path)
    raw = data.get(SERVERS_KEY, [])
    if not isinstance(raw, list):
        log.warning("ignoring the settings key %r: not a list", SERVERS_KEY)
        return []
    out: list[ServerConfig] = []
    flagged: set[str] = set()
    migrate = False
    for entry in raw:
        try:
            server = ServerConfig.from_dict(entry)
        except ServerConfigError as exc:
            log.warning("ignoring a server entry in the settings: %s", exc)
            continue
        if split_login(server.base_url)[1]:
            migrate = True
        elif isinstance(entry, dict) and entry.get(LOGIN_FLAG):
            flagged.add(server.id)
        out.append(server)
    if migrate:
        log.info("moving the logins found in server URLs to the keyring")
        _write(data, out, flagged, path, store)
        out = [replace(s, base_url=split_login(s.base_url)[0]) for s in out]
    return out


def url_login_ids(path: Any = None) -> set[str]:
    """The ids of the servers whose URL login the keyring keeps (as the
    settings file records it: reading it never touches the keyring)."""
    raw = settings.load_settings(path).get(SERVERS_KEY, [])
    return {
        entry["id"] for entry in (raw if isinstance(raw, list) else [])
        if isinstance(entry, dict) and entry.get(LOGIN_FLAG) and isinstance(entry.get("id"), str)
    }


def save_servers(servers: list[ServerConfig], path: Any = None, store: SecretStore | None = None,
                 forget_logins: set[str] | frozenset[str] = frozenset()) -> bool:
    """Write the servers (never their keys, never a URL's login) to the
    settings file, atomically. A URL login goes to the keyring first (this
    then BLOCKS on the keyring; only a URL with ``user:password@`` does);
    the logins of servers no longer listed are deleted. ``forget_logins``:
    servers whose kept login is no longer theirs (the caller deletes it from
    the keyring: ``SecretStore.delete_login``, off the GUI thread)."""
    data = settings.load_settings(path)
    return _write(data, servers, url_login_ids(path) - set(forget_logins), path, store)


def _write(data: dict[str, Any], servers: list[ServerConfig], flagged: set[str], path: Any,
           store: SecretStore | None) -> bool:
    """``servers`` into ``data`` and the file; ``flagged``: the ids whose
    login the keyring had before."""
    entries: list[dict[str, Any]] = []
    has_login: set[str] = set()
    for server in servers:
        url, login = split_login(server.base_url)
        entry = replace(server, base_url=url).to_dict()
        if login:
            (store or secrets()).set_login(server.id, origin(url), login)
            has_login.add(server.id)
        elif server.id in flagged:
            has_login.add(server.id)
        if server.id in has_login:
            entry[LOGIN_FLAG] = True
        entries.append(entry)
    for gone in flagged - {s.id for s in servers}:
        (store or secrets()).delete_login(gone)
    data[SERVERS_KEY] = entries
    return settings.save_settings(data, path)


def validate_api_key(key: str) -> str:
    """``key`` without surrounding whitespace; ServerConfigError (a message
    that never quotes the key) when it holds a character HTTP cannot carry
    or keys never contain: a control character, an inner space, non-ASCII."""
    key = (key or "").strip()
    for ch in key:
        if not ("!" <= ch <= "~"):
            if ch == " " or ch == "\t":
                problem = translate("Servers", "The API key contains a space. Paste it again in Model › Servers….")
            elif ord(ch) < 32 or ord(ch) == 127:
                problem = translate("Servers", "The API key contains a control character (such as a line break). "
                                               "Paste it again in Model › Servers….")
            else:
                problem = translate("Servers", "The API key contains a character that is not plain ASCII "
                                               "(such as a typographic quote or an invisible space). "
                                               "Paste it again in Model › Servers….")
            raise ServerConfigError(problem)
    return key


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

    def get_login(self, server_id: str, url_origin: str) -> str:
        """The URL login ("user:password") kept for ``server_id``, if it was
        kept for ``url_origin`` (``origin()``); else ""."""
        stored = self.get(server_id + LOGIN_SUFFIX)
        if not stored:
            return ""
        try:
            found = json.loads(stored)
        except ValueError:
            return ""
        if not isinstance(found, dict) or found.get("origin") != url_origin:
            return ""
        login = found.get("login")
        return login if isinstance(login, str) else ""

    def set_login(self, server_id: str, url_origin: str, login: str) -> bool:
        """Keep the URL login for ``server_id``, bound to ``url_origin``."""
        return self.set(server_id + LOGIN_SUFFIX, json.dumps({"origin": url_origin, "login": login}))

    def delete_login(self, server_id: str) -> None:
        self.delete(server_id + LOGIN_SUFFIX)


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
    """``text`` with every key, every 8-character run of one and anything
    that looks like a key replaced by ``***`` (error messages, logs: a server
    may echo the key back). See ``app.core.backends.remote.redaction``."""
    return Redactor(*keys).redact(text)
