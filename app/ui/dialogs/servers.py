"""Model › Servers…: the remote servers Rill can chat through.

Left, the configured servers (Add, Remove: undoable until Save or Cancel);
right, the selected one's form: name, kind, base URL, API key, default model,
stall timeout, and Test (lists the server's models). Nothing is written
before Save (or "Chat with This Model", which saves first): the servers go
to the settings file, their API keys to the keyring (never the file).

Every network call and every keyring access runs on a background thread
(``BackgroundCalls``); the GUI thread only ever waits on the settings file.
"""

from __future__ import annotations

import logging
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from PyQt6.QtCore import QCoreApplication, Qt, pyqtSignal
from PyQt6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSpinBox,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.core.backends.remote.servers import (
    DEFAULT_STALL_S,
    DEFAULT_URLS,
    KIND_LABELS,
    KINDS,
    OPENAI,
    ServerConfig,
    ServerConfigError,
    load_servers,
    normalize_base_url,
    save_servers,
    secrets,
)
from app.core.base import settings
from app.ui.misc.theme import set_tone
from app.ui.services.background import BackgroundCalls
from app.ui.services.model_lists import fetch_model_list, list_models

log = logging.getLogger(__name__)

__all__ = ["ServersDialog", "list_models"]

#: The translation context of ``KIND_LABELS`` (marked with QT_TRANSLATE_NOOP
#: in ``app.core.backends.remote.servers``).
KIND_LABELS_CONTEXT = "Servers"

# Status kinds and their label tones (app.ui.misc.theme.set_tone).
STATUS_STYLES = {"": "", "busy": "muted", "ok": "success", "error": "error"}


@dataclass
class _Draft:
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
    status: tuple[str, str] = ("", "")  # (text, kind in STATUS_STYLES)
    token: int = 0  # bumped by every fetch and every edit that makes one stale
    busy: bool = False

    @classmethod
    def of(cls, server: ServerConfig, models: list[str]) -> _Draft:
        return cls(
            id=server.id, name=server.name, kind=server.kind, base_url=server.base_url,
            model=server.model, stall_s=server.stall_s, key=None, saved_key=None, models=list(models),
        )

    def config(self) -> ServerConfig:
        """The server as typed, validated; ServerConfigError (for the user) if not usable."""
        return ServerConfig(
            name=self.name, kind=self.kind, base_url=self.base_url, model=self.model, id=self.id, stall_s=self.stall_s
        ).validated()


def _is_default_url(url: str) -> bool:
    if not url.strip():
        return True
    try:
        return normalize_base_url(url) in {normalize_base_url(u) for u in DEFAULT_URLS.values()}
    except ServerConfigError:
        return False


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
        known = known_models or {}
        self._drafts: list[_Draft] = [_Draft.of(s, known.get(s.id, [])) for s in load_servers()]
        self._saved_ids = {d.id for d in self._drafts}
        self._removed: list[tuple[int, _Draft]] = []  # (row, draft), undoable until Save/Cancel
        self._calls = BackgroundCalls(self)
        self._keys_loaded = False
        self._saving = False
        self._filling = False  # the form is being filled from a draft: not user edits
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

        self.name_edit = QLineEdit()
        self.name_edit.setAccessibleName(self.tr("Server name"))
        self.name_edit.setPlaceholderText(self.tr("e.g. LM Studio on the desktop"))
        self.kind_combo = QComboBox()
        self.kind_combo.setAccessibleName(self.tr("Server kind"))
        for kind in KINDS:
            self.kind_combo.addItem(QCoreApplication.translate(KIND_LABELS_CONTEXT, KIND_LABELS[kind]), kind)
        self.url_edit = QLineEdit()
        self.url_edit.setAccessibleName(self.tr("Base URL"))
        self.url_edit.setPlaceholderText("http://127.0.0.1:8080")
        self.url_note = QLabel()
        self.url_note.setObjectName("serversNote")
        self.url_note.setWordWrap(True)
        self.key_edit = QLineEdit()
        self.key_edit.setAccessibleName(self.tr("API key"))
        self.key_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.key_edit.setToolTip(self.tr("Kept in the system keyring, never in Rill's settings file"))
        self.show_key_button = QToolButton()
        self.show_key_button.setText(self.tr("Show"))
        self.show_key_button.setCheckable(True)
        self.show_key_button.setAccessibleName(self.tr("Show the API key"))
        key_row = QHBoxLayout()
        key_row.setContentsMargins(0, 0, 0, 0)
        key_row.addWidget(self.key_edit, 1)
        key_row.addWidget(self.show_key_button)
        self.key_note = QLabel()
        self.key_note.setObjectName("serversNote")
        self.key_note.setWordWrap(True)
        self.key_note.setAccessibleName(self.tr("About API keys"))
        self.key_note.hide()
        self.model_combo = QComboBox()
        self.model_combo.setEditable(True)
        self.model_combo.setAccessibleName(self.tr("Default model"))
        self.model_combo.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.model_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.model_combo.setMinimumContentsLength(16)
        line = self.model_combo.lineEdit()
        if line is not None:
            line.setPlaceholderText(self.tr("The first model the server lists"))
        self.refresh_button = QPushButton(self.tr("Re&fresh"))
        self.refresh_button.setAccessibleName(self.tr("Fetch the server's models"))
        model_row = QHBoxLayout()
        model_row.setContentsMargins(0, 0, 0, 0)
        model_row.addWidget(self.model_combo, 1)
        model_row.addWidget(self.refresh_button)
        self.stall_spin = QSpinBox()
        self.stall_spin.setAccessibleName(self.tr("Stall timeout in seconds"))
        self.stall_spin.setRange(1, 3600)
        self.stall_spin.setSuffix(self.tr(" s"))
        self.stall_spin.setValue(int(DEFAULT_STALL_S))
        self.stall_spin.setToolTip(self.tr("A reply is given up when the server sends nothing for this long"))
        self.test_button = QPushButton(self.tr("&Test"))
        self.test_button.setAccessibleName(self.tr("Test the connection"))
        self.status_label = QLabel()
        self.status_label.setWordWrap(True)
        self.status_label.setAccessibleName(self.tr("Connection status"))
        self.status_label.setTextFormat(Qt.TextFormat.PlainText)
        self.status_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        test_row = QHBoxLayout()
        test_row.setContentsMargins(0, 0, 0, 0)
        test_row.addWidget(self.test_button)
        test_row.addWidget(self.status_label, 1)
        self.error_label = QLabel()
        self.error_label.setObjectName("serversError")
        self.error_label.setWordWrap(True)
        self.error_label.setTextFormat(Qt.TextFormat.PlainText)
        self.error_label.setAccessibleName(self.tr("Problem with these settings"))
        set_tone(self.error_label, STATUS_STYLES["error"])
        self.error_label.hide()

        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.addRow(self.tr("&Name:"), self.name_edit)
        form.addRow(self.tr("&Kind:"), self.kind_combo)
        form.addRow(self.tr("Base &URL:"), self.url_edit)
        form.addRow("", self.url_note)
        key_label = QLabel(self.tr("API &key:"))
        key_label.setBuddy(self.key_edit)  # a row holding a layout gets no buddy by itself
        form.addRow(key_label, key_row)
        form.addRow("", self.key_note)
        model_label = QLabel(self.tr("Default &model:"))
        model_label.setBuddy(self.model_combo)
        form.addRow(model_label, model_row)
        form.addRow(self.tr("&Stall timeout:"), self.stall_spin)
        self.form = QWidget()
        form_box = QVBoxLayout(self.form)
        form_box.setContentsMargins(0, 0, 0, 0)
        form_box.addLayout(form)
        form_box.addLayout(test_row)
        form_box.addWidget(self.error_label)
        form_box.addStretch(1)
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
        self.name_edit.textEdited.connect(self._on_name_edited)
        self.kind_combo.currentIndexChanged.connect(self._on_kind_changed)
        self.url_edit.textEdited.connect(self._on_url_edited)
        self.key_edit.textEdited.connect(self._on_key_edited)
        self.show_key_button.toggled.connect(self._on_show_key_toggled)
        self.model_combo.currentTextChanged.connect(self._on_model_edited)
        self.refresh_button.clicked.connect(self._on_refresh_clicked)
        self.stall_spin.valueChanged.connect(self._on_stall_changed)
        self.test_button.clicked.connect(self._on_test_clicked)
        self.save_button.clicked.connect(self._on_save_clicked)
        self.cancel_button.clicked.connect(self.reject)
        self.use_button.clicked.connect(self._on_use_clicked)

    # -- state ---------------------------------------------------------------------------

    def current_draft(self) -> _Draft | None:
        row = self.list.currentRow()
        return self._drafts[row] if 0 <= row < len(self._drafts) else None

    @property
    def keys_loaded(self) -> bool:
        """The keyring has been read (the key field is editable)."""
        return self._keys_loaded

    def drafts(self) -> list[_Draft]:
        return list(self._drafts)

    def select_server(self, server_id: str) -> None:
        for row, draft in enumerate(self._drafts):
            if draft.id == server_id:
                self.list.setCurrentRow(row)

    def _item_text(self, draft: _Draft) -> str:
        return draft.name.strip() or self.tr("(no name)")

    def _fill_list(self) -> None:
        self.list.clear()
        for draft in self._drafts:
            QListWidgetItem(self._item_text(draft), self.list)
        if self._drafts:
            self.list.setCurrentRow(0)
        self._show_draft(self.current_draft())

    def _show_draft(self, draft: _Draft | None) -> None:
        """Fill the form from ``draft`` (None: the "no servers" view)."""
        self.form.setVisible(draft is not None)
        self.empty_label.setVisible(draft is None)
        self._filling = True
        try:
            if draft is not None:
                self.name_edit.setText(draft.name)
                self.kind_combo.setCurrentIndex(max(0, self.kind_combo.findData(draft.kind)))
                self.url_edit.setText(draft.base_url)
                self.key_edit.setText(draft.key or "")
                self.stall_spin.setValue(int(round(draft.stall_s)))
                self._fill_models(draft)
                self._show_url_note(draft)
        finally:
            self._filling = False
        self._show_key_state(draft)
        self._show_status(draft)
        self._validate_current()
        self._update_buttons()

    def _fill_models(self, draft: _Draft) -> None:
        self._filling, was = True, self._filling
        try:
            self.model_combo.clear()
            self.model_combo.addItems(draft.models)
            self.model_combo.setEditText(draft.model)
        finally:
            self._filling = was

    def _show_url_note(self, draft: _Draft) -> None:
        if draft.kind == OPENAI:
            self.url_edit.setPlaceholderText(self.tr("e.g. http://127.0.0.1:8080 or https://api.example.com/v1"))
            self.url_note.setText(self.tr("With or without /v1: Rill adds it when it is missing."))
        else:
            self.url_edit.setPlaceholderText(DEFAULT_URLS[draft.kind])
            self.url_note.setText(
                self.tr("The Ollama server's address, e.g. {url}").format(url=DEFAULT_URLS[draft.kind])
            )

    def _show_key_state(self, draft: _Draft | None) -> None:
        loading = draft is not None and draft.key is None
        self.key_edit.setReadOnly(loading or self._saving)
        self.key_edit.setPlaceholderText(
            self.tr("Reading the keyring…") if loading else self.tr("None (not needed by most local servers)")
        )

    def _show_status(self, draft: _Draft | None) -> None:
        text, kind = draft.status if draft is not None else ("", "")
        self.status_label.setText(text)
        set_tone(self.status_label, STATUS_STYLES.get(kind, ""))

    def _validate(self, draft: _Draft) -> tuple[ServerConfig | None, str]:
        try:
            config = draft.config()
        except ServerConfigError as exc:
            return None, str(exc)
        for other in self._drafts:
            if other is not draft and other.name.strip().casefold() == config.name.casefold():
                return None, self.tr("Another server is already named “{name}”.").format(name=config.name)
        return config, ""

    def _validate_current(self) -> bool:
        draft = self.current_draft()
        message = self._validate(draft)[1] if draft is not None else ""
        self.error_label.setText(message)
        self.error_label.setVisible(bool(message))
        return not message

    def _update_buttons(self) -> None:
        draft = self.current_draft()
        idle = not self._saving
        self.add_button.setEnabled(idle)
        self.remove_button.setEnabled(idle and draft is not None)
        self.undo_button.setVisible(bool(self._removed))
        self.undo_label.setVisible(bool(self._removed))
        self.undo_button.setEnabled(idle)
        if self._removed:
            self.undo_label.setText(self.tr("Removed “{name}”.").format(name=self._item_text(self._removed[-1][1])))
        busy = draft is not None and draft.busy
        self.test_button.setEnabled(idle and draft is not None and not busy)
        self.refresh_button.setEnabled(idle and draft is not None and not busy)
        self.save_button.setEnabled(idle)
        self.use_button.setEnabled(idle and draft is not None)
        self.list.setEnabled(idle)
        self.form.setEnabled(idle)

    def _edited(self, draft: _Draft, stale: bool = False) -> None:
        """``draft`` changed; ``stale``: a test or model list under way answers
        for settings that are no longer these (its answer is dropped)."""
        if stale:
            draft.token += 1
            draft.busy = False
            draft.status = ("", "")
            self._show_status(draft)
        self._validate_current()
        self._update_buttons()

    # -- slots: the list ------------------------------------------------------------------

    def _on_current_row_changed(self, row: int) -> None:
        self._show_draft(self.current_draft())

    def _on_add_clicked(self) -> None:
        taken = {d.name.strip().casefold() for d in self._drafts}
        name, n = self.tr("New server"), 2
        while name.casefold() in taken:
            name, n = self.tr("New server {n}").format(n=n), n + 1
        draft = _Draft(id=uuid.uuid4().hex, name=name, kind=OPENAI, base_url=DEFAULT_URLS[OPENAI])
        self._drafts.append(draft)
        QListWidgetItem(self._item_text(draft), self.list)
        self.list.setCurrentRow(len(self._drafts) - 1)
        self.name_edit.setFocus()
        self.name_edit.selectAll()

    def _on_remove_clicked(self) -> None:
        row = self.list.currentRow()
        if not 0 <= row < len(self._drafts):
            return
        draft = self._drafts.pop(row)
        draft.token += 1  # an answer for it is not wanted any more
        draft.busy = False
        self._removed.append((row, draft))
        self.list.takeItem(row)
        if self._drafts:
            self.list.setCurrentRow(min(row, len(self._drafts) - 1))
        self._show_draft(self.current_draft())

    def _on_undo_clicked(self) -> None:
        if not self._removed:
            return
        row, draft = self._removed.pop()
        row = min(row, len(self._drafts))
        self._drafts.insert(row, draft)
        self.list.insertItem(row, self._item_text(draft))
        self.list.setCurrentRow(row)
        self._show_draft(draft)

    # -- slots: the form ----------------------------------------------------------------------

    def _on_name_edited(self, text: str) -> None:
        draft = self.current_draft()
        if draft is None:
            return
        draft.name = text
        item = self.list.item(self.list.currentRow())
        if item is not None:
            item.setText(self._item_text(draft))
        self._edited(draft)

    def _on_kind_changed(self, index: int) -> None:
        draft = self.current_draft()
        if self._filling or draft is None:
            return
        kind = self.kind_combo.itemData(index)
        if kind == draft.kind:
            return
        draft.kind = kind
        if _is_default_url(draft.base_url):
            draft.base_url = DEFAULT_URLS[kind]
            self.url_edit.setText(draft.base_url)
        self._show_url_note(draft)
        self._edited(draft, stale=True)

    def _on_url_edited(self, text: str) -> None:
        draft = self.current_draft()
        if draft is None:
            return
        draft.base_url = text
        self._edited(draft, stale=True)

    def _on_key_edited(self, text: str) -> None:
        draft = self.current_draft()
        if draft is None or draft.key is None:
            return
        draft.key = text
        self._edited(draft, stale=True)

    def _on_show_key_toggled(self, shown: bool) -> None:
        self.key_edit.setEchoMode(QLineEdit.EchoMode.Normal if shown else QLineEdit.EchoMode.Password)
        self.show_key_button.setText(self.tr("Hide") if shown else self.tr("Show"))
        self.show_key_button.setAccessibleName(self.tr("Hide the API key") if shown else self.tr("Show the API key"))

    def _on_model_edited(self, text: str) -> None:
        draft = self.current_draft()
        if self._filling or draft is None:
            return
        draft.model = text
        self._edited(draft)

    def _on_stall_changed(self, value: int) -> None:
        draft = self.current_draft()
        if self._filling or draft is None:
            return
        draft.stall_s = float(value)
        self._edited(draft)

    # -- slots: Test and Refresh (off the GUI thread) --------------------------------------------

    def _on_test_clicked(self) -> None:
        self._fetch_models(self.tr("Testing…"), testing=True)

    def _on_refresh_clicked(self) -> None:
        self._fetch_models(self.tr("Fetching the model list…"), testing=False)

    def _fetch_models(self, busy_text: str, testing: bool) -> None:
        draft = self.current_draft()
        if draft is None or draft.busy:
            return
        config, message = self._validate(draft)
        if config is None:
            self._validate_current()
            draft.status = (message, "error")
            self._show_status(draft)
            return
        typed_key = draft.key  # None: not read yet, the thread reads the keyring
        draft.token += 1
        draft.busy = True
        draft.status = (busy_text, "busy")
        token = draft.token
        self._show_status(draft)
        self._update_buttons()

        def work(cancel: threading.Event) -> tuple[list[str], str]:
            key = typed_key if typed_key is not None else secrets().get(config.id)
            # list_models is looked up when the thread runs (tests replace it).
            return fetch_model_list(list_models, config, key, cancel)

        def done(result: Any, error: BaseException | None) -> None:
            self._on_models_fetched(draft, token, config, testing, result, error)

        self._calls.run(work, done, name="rill-list-models")

    def _on_models_fetched(
        self, draft: _Draft, token: int, config: ServerConfig, testing: bool, result: Any, error: BaseException | None
    ) -> None:
        if draft.token != token:
            return  # edited, removed or asked again meanwhile
        draft.busy = False
        if error is None:
            models, message = result
        else:
            models, message = [], self.tr("Could not list the models of {name}.").format(name=config.name)
        if message:
            draft.status = (message, "error")
        else:
            draft.models = list(models)
            n = len(models)
            if testing:
                text = self.tr("Connected — {n} model") if n == 1 else self.tr("Connected — {n} models")
            else:
                text = self.tr("{n} model found") if n == 1 else self.tr("{n} models found")
            draft.status = (text.format(n=n), "ok")
            self.models_fetched.emit(config, list(models))
        if draft is self.current_draft():
            self._fill_models(draft)
            self._show_status(draft)
            self._update_buttons()

    # -- keys (off the GUI thread) --------------------------------------------------------------

    def _load_keys(self) -> None:
        """Read the keyring (and whether there is one) in the background."""
        ids = [d.id for d in self._drafts if d.key is None]

        def work(cancel: threading.Event) -> tuple[str, dict[str, str]]:
            store = secrets()
            return store.notice, {sid: store.get(sid) for sid in ids}

        self._calls.run(work, self._on_keys_loaded, name="rill-read-keys")

    def _on_keys_loaded(self, result: Any, error: BaseException | None) -> None:
        notice, keys = result if error is None else ("", {})
        if error is not None:
            log.warning("reading the API keys failed: %s", type(error).__name__)
        self._keys_loaded = True
        for draft in self._drafts + [d for _, d in self._removed]:
            if draft.key is None:
                draft.saved_key = draft.key = keys.get(draft.id, "")
        self.key_note.setText(notice)
        self.key_note.setVisible(bool(notice))
        current = self.current_draft()
        if current is not None:
            self._filling = True
            self.key_edit.setText(current.key or "")
            self._filling = False
        self._show_key_state(current)

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
        configs: list[ServerConfig] = []
        for row, draft in enumerate(self._drafts):
            config, message = self._validate(draft)
            if config is None:
                self.list.setCurrentRow(row)
                self._validate_current()
                self.save_status.setText(
                    self.tr("Not saved: fix “{name}” first.").format(name=self._item_text(draft))
                )
                set_tone(self.save_status, STATUS_STYLES["error"])
                return False
            configs.append(config)
        if not save_servers(configs):
            self.save_status.setText(
                self.tr("Not saved: the settings file {path} could not be written.").format(
                    path=settings.settings_path()
                )
            )
            set_tone(self.save_status, STATUS_STYLES["error"])
            return False
        self.save_status.setText("")
        self.servers_saved.emit(list(configs))
        key_ops = [(d.id, d.key) for d in self._drafts if d.key is not None and d.key != d.saved_key]
        current = {d.id for d in self._drafts}
        key_ops += [(d.id, "") for _, d in self._removed if d.id in self._saved_ids and d.id not in current]
        # What is in the file now is the baseline (a failed key write can be retried).
        self._saved_ids = current
        self._removed.clear()

        if not key_ops:
            then(configs)
            return True
        self._saving = True
        self.save_status.setText(self.tr("Saving the API keys…"))
        set_tone(self.save_status, STATUS_STYLES["busy"])
        self._show_key_state(self.current_draft())
        self._update_buttons()

        def work(cancel: threading.Event) -> bool:
            store = secrets()
            persistent = True
            for server_id, key in key_ops:
                if key:
                    persistent = store.set(server_id, key) and persistent
                else:
                    store.delete(server_id)
            return persistent

        def done(result: Any, error: BaseException | None) -> None:
            self._saving = False
            for server_id, key in key_ops:
                draft = next((d for d in self._drafts if d.id == server_id), None)
                if draft is not None and draft.key == key:
                    draft.saved_key = key
            self.save_status.setText("")
            self._show_key_state(self.current_draft())
            self._update_buttons()
            if error is not None:
                log.warning("saving the API keys failed: %s", type(error).__name__)
                self.save_status.setText(self.tr("The API keys could not be saved."))
                set_tone(self.save_status, STATUS_STYLES["error"])
                return
            then(configs)

        self._calls.run(work, done, name="rill-save-keys")
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
