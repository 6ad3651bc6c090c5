"""The servers as Model › Servers… edits them (``app.ui.dialogs.servers``):
one ``ServerDraft`` per server and ``ServerDrafts``, their list, with the
removals Undo brings back, the rule that names are unique, and what Save
writes to the keyring. Nothing here writes anything or shows anything.

Its strings keep the translation context "ServersDialog" (they were its).
Threading rule: GUI thread only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from PyQt6.QtCore import QCoreApplication

from app.core.backends.remote.servers import (
    DEFAULT_STALL_S,
    DEFAULT_URLS,
    OPENAI,
    ServerConfig,
    ServerConfigError,
    normalize_base_url,
)

__all__ = ["ServerDraft", "ServerDrafts", "is_default_url"]


@dataclass
class ServerDraft:
    """One server as edited in the dialog (nothing is saved until Save)."""

    id: str
    name: str = ""
    kind: str = OPENAI
    base_url: str = ""
    model: str = ""
    stall_s: float = DEFAULT_STALL_S
    #: The key as typed; None: not read from the keyring yet (left unchanged).
    key: str | None = ""
    #: The key as stored; None: not read yet.
    saved_key: str | None = ""
    models: list[str] = field(default_factory=list)
    status: tuple[str, str] = ("", "")  # (text, kind in app.ui.dialogs.server_form.STATUS_STYLES)
    token: int = 0  # bumped by every fetch and every edit that makes one stale
    busy: bool = False
    #: The keyring keeps a login (user:password@) typed in this server's URL.
    url_login: bool = False
    #: Forget that login at Save.
    forget_login: bool = False

    @classmethod
    def of(cls, server: ServerConfig, models: list[str]) -> ServerDraft:
        return cls(
            id=server.id, name=server.name, kind=server.kind, base_url=server.base_url,
            model=server.model, stall_s=server.stall_s, key=None, saved_key=None, models=list(models),
        )

    def config(self) -> ServerConfig:
        """The server as typed, validated; ServerConfigError (for the user) if not usable."""
        return ServerConfig(
            name=self.name, kind=self.kind, base_url=self.base_url, model=self.model, id=self.id, stall_s=self.stall_s
        ).validated()

    def label(self) -> str:
        """What the list shows for it."""
        return self.name.strip() or QCoreApplication.translate("ServersDialog", "(no name)")

    def start_fetch(self, busy_text: str) -> int:
        """A test or model list starts (``busy_text`` is its status): its
        token; an answer with another one is stale."""
        self.token += 1
        self.busy = True
        self.status = (busy_text, "busy")
        return self.token

    def take_answer(
        self, token: int, config: ServerConfig, testing: bool, result: Any, error: BaseException | None
    ) -> bool:
        """The answer of the fetch ``token`` (``result``: (models, message),
        message "" on success; ``error``: the call raised): the status says
        it, the models are kept. False (nothing changes) when it is stale:
        the draft was edited, removed or asked again meanwhile."""
        if token != self.token:
            return False
        self.busy = False
        if error is None:
            models, message = result
        else:
            models, message = [], QCoreApplication.translate(
                "ServersDialog", "Could not list the models of {name}."
            ).format(name=config.name)
        if message:
            self.status = (message, "error")
            return True
        self.models = list(models)
        n = len(models)
        if testing:
            text = (QCoreApplication.translate("ServersDialog", "Connected — {n} model") if n == 1
                    else QCoreApplication.translate("ServersDialog", "Connected — {n} models"))
        else:
            text = (QCoreApplication.translate("ServersDialog", "{n} model found") if n == 1
                    else QCoreApplication.translate("ServersDialog", "{n} models found"))
        self.status = (text.format(n=n), "ok")
        return True

    def forget_answer(self) -> None:
        """A test or model list under way answers for settings that are no
        longer these (or a server removed): its answer is dropped."""
        self.token += 1
        self.busy = False


def is_default_url(url: str) -> bool:
    """``url`` is empty or one of the kinds' default addresses (changing the
    kind may replace it)."""
    if not url.strip():
        return True
    try:
        return normalize_base_url(url) in {normalize_base_url(u) for u in DEFAULT_URLS.values()}
    except ServerConfigError:
        return False


class ServerDrafts:
    """The drafts in the dialog's order; the removed ones, undoable until
    Save or Cancel; which servers the settings file holds."""

    def __init__(self, servers: list[ServerConfig], known_models: dict[str, list[str]] | None = None) -> None:
        known = known_models or {}
        self._drafts = [ServerDraft.of(s, known.get(s.id, [])) for s in servers]
        self._saved_ids = {d.id for d in self._drafts}
        self._removed: list[tuple[int, ServerDraft]] = []  # (row, draft), the last one removed last

    def __len__(self) -> int:
        return len(self._drafts)

    def at(self, row: int) -> ServerDraft | None:
        return self._drafts[row] if 0 <= row < len(self._drafts) else None

    def all(self) -> list[ServerDraft]:
        return list(self._drafts)

    def with_removed(self) -> list[ServerDraft]:
        """Every draft, the removed ones too (an Undo brings them back)."""
        return self._drafts + [d for _, d in self._removed]

    def row_of(self, server_id: str) -> int:
        """The row of the draft with ``server_id``, -1 when there is none."""
        return next((row for row, d in enumerate(self._drafts) if d.id == server_id), -1)

    @property
    def last_removed(self) -> ServerDraft | None:
        """The draft the next Undo brings back."""
        return self._removed[-1][1] if self._removed else None

    # -- editing ------------------------------------------------------------------------

    def add(self, server_id: str) -> ServerDraft:
        """A new server at the end, named "New server" (or "New server 2"...:
        names are unique)."""
        taken = {d.name.strip().casefold() for d in self._drafts}
        name, n = QCoreApplication.translate("ServersDialog", "New server"), 2
        while name.casefold() in taken:
            name, n = QCoreApplication.translate("ServersDialog", "New server {n}").format(n=n), n + 1
        draft = ServerDraft(id=server_id, name=name, kind=OPENAI, base_url=DEFAULT_URLS[OPENAI])
        self._drafts.append(draft)
        return draft

    def remove(self, row: int) -> ServerDraft | None:
        """Take the draft at ``row`` out (undoable); None when there is none."""
        if not 0 <= row < len(self._drafts):
            return None
        draft = self._drafts.pop(row)
        draft.forget_answer()  # an answer for it is not wanted any more
        self._removed.append((row, draft))
        return draft

    def undo_remove(self) -> tuple[int, ServerDraft] | None:
        """Put the last removed draft back where it was: (its row, it)."""
        if not self._removed:
            return None
        row, draft = self._removed.pop()
        row = min(row, len(self._drafts))
        self._drafts.insert(row, draft)
        return row, draft

    def validate(self, draft: ServerDraft) -> tuple[ServerConfig | None, str]:
        """(the server as typed, "") when it can be saved, else (None, why)."""
        try:
            config = draft.config()
        except ServerConfigError as exc:
            return None, str(exc)
        for other in self._drafts:
            if other is not draft and other.name.strip().casefold() == config.name.casefold():
                return None, QCoreApplication.translate(
                    "ServersDialog", "Another server is already named “{name}”."
                ).format(name=config.name)
        return config, ""

    def configs(self) -> tuple[list[ServerConfig], int]:
        """(every server as typed, -1), or ([], the row of the first one that
        cannot be saved)."""
        configs: list[ServerConfig] = []
        for row, draft in enumerate(self._drafts):
            config = self.validate(draft)[0]
            if config is None:
                return [], row
            configs.append(config)
        return configs, -1

    # -- the keyring ----------------------------------------------------------------------

    def unread_keys(self) -> list[str]:
        """The ids of the servers whose key has not been read yet."""
        return [d.id for d in self._drafts if d.key is None]

    def keys_read(self, keys: dict[str, str]) -> None:
        """The keyring's answer: the key of each server not read yet (removed
        ones too), "" when it has none."""
        for draft in self.with_removed():
            if draft.key is None:
                draft.saved_key = draft.key = keys.get(draft.id, "")

    # -- saving -------------------------------------------------------------------------

    def key_changes(self) -> list[tuple[str, str]]:
        """What the keyring is to be told: (server id, key), "" to delete it:
        the keys typed and changed, and those of saved servers removed."""
        changes = [(d.id, d.key) for d in self._drafts if d.key is not None and d.key != d.saved_key]
        current = {d.id for d in self._drafts}
        changes += [(d.id, "") for _, d in self._removed if d.id in self._saved_ids and d.id not in current]
        return changes

    def forgotten_logins(self) -> set[str]:
        """The servers whose kept URL login is to be forgotten at Save."""
        return {d.id for d in self._drafts if d.url_login and d.forget_login}

    def mark_saved(self) -> None:
        """The servers are in the settings file now: they are the baseline
        (a failed key write can be retried) and the removals final."""
        self._saved_ids = {d.id for d in self._drafts}
        self._removed.clear()

    def keys_written(self, changes: list[tuple[str, str]]) -> None:
        """``changes`` are in the keyring: a key still as written is saved."""
        for server_id, key in changes:
            row = self.row_of(server_id)
            if row >= 0 and self._drafts[row].key == key:
                self._drafts[row].saved_key = key
