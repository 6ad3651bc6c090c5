"""A keyring in a dict for tests: the machine's own keyring is never touched."""

from __future__ import annotations

from keyring.backend import KeyringBackend

from tests.helpers.secrets import KEYRING_SECRETS


class MemoryKeyring(KeyringBackend):
    """A keyring in a dict; ``writes`` counts the passwords set."""

    priority = 10

    def __init__(self) -> None:
        super().__init__()
        self.data: dict[tuple[str, str], str] = {}
        self.writes = 0

    def get_password(self, service: str, username: str) -> str | None:
        return self.data.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.writes += 1
        KEYRING_SECRETS.add(password)  # it must never be found outside the keyring (tests/conftest.py)
        self.data[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        self.data.pop((service, username), None)


# Subclassing registered it with keyring's own backend discovery: only tests choose it.
KeyringBackend._classes.discard(MemoryKeyring)  # type: ignore[attr-defined]  # keyring's private registry
