"""Model › Servers…: the remote servers Rill can chat through.

Left, the configured servers (Add, Remove: undoable until Save or Cancel);
right, the selected one's form (``app.ui.dialogs.server_form``): name, kind,
base URL, API key, default model, stall timeout, and Test (lists the
server's models). The servers as edited are ``ServerDrafts``
(``app.ui.dialogs.server_drafts``). Nothing is written before Save (or "Chat
with This Model", which saves first): the servers go to the settings file,
their API keys to the keyring (never the file).

Every network call and every keyring access runs on a background thread
(``app.ui.dialogs.server_calls``); the GUI thread only ever waits on the
settings file.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from typing import Any

from PyQt6.QtCore import Qt, pyqtSignal
from PyQt6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.core.backends.remote.servers import ServerConfig, load_servers, save_servers, url_login_ids
from app.core.base import settings
from app.ui.dialogs.server_calls import ServerCalls
from app.ui.dialogs.server_drafts import ServerDraft, ServerDrafts
from app.ui.dialogs.server_form import STATUS_STYLES, ServerForm
from app.ui.misc.theme import set_tone

log = logging.getLogger(__name__)

__all__ = ["ServersDialog"]


class ServersDialog(QDialog):
    """Add, edit, test and remove servers; optionally start chatting with one."""

    #: The servers were written to the settings file (Save, Chat with This
    #: Model); arg: list[ServerConfig], every configured server.
    servers_saved = pyqtSignal(list)
    #: A server listed its models (Test, Refresh); args: ServerConfig as
    #: tested (maybe not saved yet), list[str] of model ids.
    models_fetched = pyqtSignal(object, list)
    #: Saved, and the user wants to chat with a server (Chat with This Model);
    #: args: ServerConfig, model id ("" = whatever the server serves first).
    #: Emitted once its API key is in the keyring, just before the dialog closes.
    model_chosen = pyqtSignal(object, str)

    def __init__(self, parent: QWidget | None = None, known_models: dict[str, list[str]] | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("serversDialog")
        self.setWindowTitle(self.tr("Servers"))
        self.resize(780, 460)
        self._drafts = ServerDrafts(load_servers(), known_models)
        for server_id in url_login_ids():
            draft = self._drafts.at(self._drafts.row_of(server_id))
            if draft is not None:
                draft.url_login = True
        self._calls = ServerCalls(self)
        self._keys_loaded = False
        self._saving = False
        self._build()
        self._connect_signals()
        self._fill_list()
        self._load_keys()

    # -- building ----------------------------------------------------------------------

    def _build(self) -> None:
        self.list = QListWidget()
        self.list.setAccessibleName(self.tr("Servers"))
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.list.setMinimumWidth(200)
        self.add_button = QPushButton(self.tr("&Add"))
        self.add_button.setAccessibleName(self.tr("Add a server"))
        self.remove_button = QPushButton(self.tr("&Remove"))
        self.remove_button.setAccessibleName(self.tr("Remove the selected server"))
        self.undo_label = QLabel()
        self.undo_label.setWordWrap(True)
        self.undo_label.setAccessibleName(self.tr("Removed server"))
        self.undo_button = QPushButton(self.tr("&Undo Remove"))
        self.undo_button.setAccessibleName(self.tr("Undo removing the server"))
        left_buttons = QHBoxLayout()
        left_buttons.addWidget(self.add_button)
        left_buttons.addWidget(self.remove_button)
        left_buttons.addStretch(1)
        undo_row = QHBoxLayout()
        undo_row.addWidget(self.undo_label, 1)
        undo_row.addWidget(self.undo_button)
        left = QVBoxLayout()
        left.addWidget(self.list, 1)
        left.addLayout(left_buttons)
        left.addLayout(undo_row)

        self.form = ServerForm()
        self.empty_label = QLabel(
            self.tr(
                "No servers yet. Add one to chat through llama-server, LM Studio, vLLM, "
                "Ollama or a hosted OpenAI-compatible API."
            )
        )
        self.empty_label.setWordWrap(True)
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_label.setAccessibleName(self.tr("No servers"))
        right = QVBoxLayout()
        right.addWidget(self.form, 1)
        right.addWidget(self.empty_label, 1)

        body = QHBoxLayout()
        body.addLayout(left, 2)
        body.addSpacing(8)
        body.addLayout(right, 5)

        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
        )
        save_button = self.buttons.button(QDialogButtonBox.StandardButton.Save)
        cancel_button = self.buttons.button(QDialogButtonBox.StandardButton.Cancel)
        use_button = self.buttons.addButton(
            self.tr("C&hat with This Model"), QDialogButtonBox.ButtonRole.ActionRole
        )
        assert save_button is not None and cancel_button is not None and use_button is not None
        self.save_button = save_button
        self.save_button.setAccessibleName(self.tr("Save the servers"))
        self.cancel_button = cancel_button
        self.cancel_button.setAccessibleName(self.tr("Close without saving"))
        self.use_button = use_button
        self.use_button.setAccessibleName(self.tr("Save and chat with this server's default model"))
        self.save_status = QLabel()
        self.save_status.setAccessibleName(self.tr("Saving status"))
        self.save_status.setTextFormat(Qt.TextFormat.PlainText)
        bottom = QHBoxLayout()
        bottom.addWidget(self.save_status, 1)
        bottom.addWidget(self.buttons)
        layout = QVBoxLayout(self)
        layout.addLayout(body, 1)
        layout.addLayout(bottom)

    def _connect_signals(self) -> None:
        self.list.currentRowChanged.connect(self._on_current_row_changed)
        self.add_button.clicked.connect(self._on_add_clicked)
        self.remove_button.clicked.connect(self._on_remove_clicked)
        self.undo_button.clicked.connect(self._on_undo_clicked)
        self.form.draft_edited.connect(self._on_draft_edited)
        self.form.refresh_requested.connect(self._on_refresh_requested)
        self.form.test_requested.connect(self._on_test_requested)
        self.save_button.clicked.connect(self._on_save_clicked)
        self.cancel_button.clicked.connect(self.reject)
        self.use_button.clicked.connect(self._on_use_clicked)

    # -- state ---------------------------------------------------------------------------

    def current_draft(self) -> ServerDraft | None:
        return self._drafts.at(self.list.currentRow())

    @property
    def keys_loaded(self) -> bool:
        """The keyring has been read (the key field is editable)."""
        return self._keys_loaded

    def drafts(self) -> list[ServerDraft]:
        return self._drafts.all()

    def select_server(self, server_id: str) -> None:
        row = self._drafts.row_of(server_id)
        if row >= 0:
            self.list.setCurrentRow(row)

    def _fill_list(self) -> None:
        self.list.clear()
        for draft in self._drafts.all():
            QListWidgetItem(draft.label(), self.list)
        if len(self._drafts):
            self.list.setCurrentRow(0)
        self._show_draft(self.current_draft())

    def _show_draft(self, draft: ServerDraft | None) -> None:
        """Fill the form from ``draft`` (None: the "no servers" view)."""
        self.form.setVisible(draft is not None)
        self.empty_label.setVisible(draft is None)
        self.form.fill(draft)
        self.form.show_key_state(draft, self._saving)
        self.form.show_status(draft)
        self._validate_current()
        self._update_buttons()

    def _validate_current(self) -> bool:
        draft = self.current_draft()
        message = self._drafts.validate(draft)[1] if draft is not None else ""
        self.form.show_problem(message)
        return not message

    def _update_buttons(self) -> None:
        draft = self.current_draft()
        idle = not self._saving
        removed = self._drafts.last_removed
        self.add_button.setEnabled(idle)
        self.remove_button.setEnabled(idle and draft is not None)
        self.undo_button.setVisible(removed is not None)
        self.undo_label.setVisible(removed is not None)
        self.undo_button.setEnabled(idle)
        if removed is not None:
            self.undo_label.setText(self.tr("Removed “{name}”.").format(name=removed.label()))
        busy = draft is not None and draft.busy
        self.form.set_fetch_enabled(idle and draft is not None and not busy)
        self.save_button.setEnabled(idle)
        self.use_button.setEnabled(idle and draft is not None)
        self.list.setEnabled(idle)
        self.form.setEnabled(idle)

    # -- slots: the list ------------------------------------------------------------------

    def _on_current_row_changed(self, row: int) -> None:
        self._show_draft(self.current_draft())

    def _on_add_clicked(self) -> None:
        draft = self._drafts.add(uuid.uuid4().hex)
        QListWidgetItem(draft.label(), self.list)
        self.list.setCurrentRow(len(self._drafts) - 1)
        self.form.name_edit.setFocus()
        self.form.name_edit.selectAll()

    def _on_remove_clicked(self) -> None:
        row = self.list.currentRow()
        if self._drafts.remove(row) is None:
            return
        self.list.takeItem(row)
        if len(self._drafts):
            self.list.setCurrentRow(min(row, len(self._drafts) - 1))
        self._show_draft(self.current_draft())

    def _on_undo_clicked(self) -> None:
        undone = self._drafts.undo_remove()
        if undone is None:
            return
        row, draft = undone
        self.list.insertItem(row, draft.label())
        self.list.setCurrentRow(row)
        self._show_draft(draft)

    # -- slots: the form ----------------------------------------------------------------------

    def _on_draft_edited(self) -> None:
        draft = self.current_draft()
        item = self.list.item(self.list.currentRow())
        if draft is not None and item is not None:
            item.setText(draft.label())
        self._validate_current()
        self._update_buttons()

    # -- slots: Test and Refresh (off the GUI thread) --------------------------------------------

    def _on_test_requested(self) -> None:
        self._fetch_models(self.tr("Testing…"), testing=True)

    def _on_refresh_requested(self) -> None:
        self._fetch_models(self.tr("Fetching the model list…"), testing=False)

    def _fetch_models(self, busy_text: str, testing: bool) -> None:
        draft = self.current_draft()
        if draft is None or draft.busy:
            return
        config, message = self._drafts.validate(draft)
        if config is None:
            self._validate_current()
            draft.status = (message, "error")
            self.form.show_status(draft)
            return
        typed_key = draft.key  # None: not read yet, the thread reads the keyring
        token = draft.start_fetch(busy_text)
        self.form.show_status(draft)
        self._update_buttons()

        def done(result: Any, error: BaseException | None) -> None:
            self._on_models_fetched(draft, token, config, testing, result, error)

        self._calls.fetch_models(config, typed_key, done)

    def _on_models_fetched(
        self, draft: ServerDraft, token: int, config: ServerConfig, testing: bool, result: Any,
        error: BaseException | None,
    ) -> None:
        if not draft.take_answer(token, config, testing, result, error):
            return  # edited, removed or asked again meanwhile
        if draft.status[1] == "ok":
            self.models_fetched.emit(config, list(draft.models))
        if draft is self.current_draft():
            self.form.fill_models(draft)
            self.form.show_status(draft)
            self._update_buttons()

    # -- keys (off the GUI thread) --------------------------------------------------------------

    def _load_keys(self) -> None:
        """Read the keyring (and whether there is one) in the background."""
        self._calls.read_keys(self._drafts.unread_keys(), self._on_keys_loaded)

    def _on_keys_loaded(self, result: Any, error: BaseException | None) -> None:
        notice, keys = result if error is None else ("", {})
        if error is not None:
            log.warning("reading the API keys failed: %s", type(error).__name__)
        self._keys_loaded = True
        self._drafts.keys_read(keys)
        self.form.show_key_note(notice)
        current = self.current_draft()
        if current is not None:
            self.form.set_key(current.key or "")
        self.form.show_key_state(current, self._saving)

    # -- saving ------------------------------------------------------------------------------------

    def _on_save_clicked(self) -> None:
        self._save_then(lambda configs: self.accept())

    def _on_use_clicked(self) -> None:
        draft = self.current_draft()
        if draft is None:
            return
        server_id = draft.id

        def chosen(configs: list[ServerConfig]) -> None:
            config = next(c for c in configs if c.id == server_id)
            self.model_chosen.emit(config, config.model)
            self.accept()

        self._save_then(chosen)

    def _save_then(self, then: Callable[[list[ServerConfig]], None]) -> bool:
        """Validate every server, write them to the settings file, then the
        changed keys to the keyring (background), then ``then(configs)``.
        False: a server is not valid (it is selected, with its message) or the
        file could not be written; nothing else happens then."""
        configs, invalid = self._drafts.configs()
        invalid_draft = self._drafts.at(invalid)
        if invalid_draft is not None:
            self.list.setCurrentRow(invalid)
            self._validate_current()
            self.save_status.setText(self.tr("Not saved: fix “{name}” first.").format(name=invalid_draft.label()))
            set_tone(self.save_status, STATUS_STYLES["error"])
            return False
        forget = self._drafts.forgotten_logins()
        if not save_servers(configs, forget_logins=forget):
            self.save_status.setText(
                self.tr("Not saved: the settings file {path} could not be written.").format(
                    path=settings.settings_path()
                )
            )
            set_tone(self.save_status, STATUS_STYLES["error"])
            return False
        self.save_status.setText("")
        self.servers_saved.emit(list(configs))
        key_changes = self._drafts.key_changes()
        self._drafts.mark_saved()  # what is in the file now is the baseline
        for server_id in forget:
            draft = self._drafts.at(self._drafts.row_of(server_id))
            if draft is not None:
                draft.url_login = draft.forget_login = False

        if not key_changes and not forget:
            then(configs)
            return True
        self._saving = True
        self.save_status.setText(self.tr("Saving the API keys…"))
        set_tone(self.save_status, STATUS_STYLES["busy"])
        self.form.show_key_state(self.current_draft(), self._saving)
        self._update_buttons()

        def done(result: Any, error: BaseException | None) -> None:
            self._saving = False
            self._drafts.keys_written(key_changes)
            self.save_status.setText("")
            self.form.show_key_state(self.current_draft(), self._saving)
            self._update_buttons()
            if error is not None:
                log.warning("saving the API keys failed: %s", type(error).__name__)
                self.save_status.setText(self.tr("The API keys could not be saved."))
                set_tone(self.save_status, STATUS_STYLES["error"])
                return
            then(configs)

        self._calls.write_keys(key_changes, done, forget_logins=sorted(forget))
        return True

    # -- closing -------------------------------------------------------------------------------------

    def reject(self) -> None:
        if self._saving:
            return  # the keys are being written: Save finishes in a moment
        super().reject()

    def done(self, result: int) -> None:
        # Answers still on their way (Test, Refresh, the keyring) are dropped.
        self._calls.cancel_all()
        super().done(result)
