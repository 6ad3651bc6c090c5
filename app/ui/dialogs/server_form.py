"""The right-hand side of Model › Servers… (``app.ui.dialogs.servers``): one
server's form (name, kind, base URL, API key, default model, stall timeout),
Test with the connection status, and the problem with the settings typed.

It shows a ``ServerDraft`` and writes the user's edits into it (an edit that
makes a test or model list under way stale drops its answer); filling it
from a draft changes nothing. The dialog validates and saves.

Its strings keep the translation context "ServersDialog" (they were its).
Threading rule: GUI thread only.
"""

from __future__ import annotations

from PyQt6.QtCore import QCoreApplication, Qt, pyqtSignal
from PyQt6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
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
    ServerConfigError,
    validate_api_key,
)
from app.ui.dialogs.server_drafts import ServerDraft, is_default_url
from app.ui.misc.theme import set_tone

__all__ = ["KIND_LABELS_CONTEXT", "STATUS_STYLES", "ServerForm"]

#: The translation context of ``KIND_LABELS`` (marked with QT_TRANSLATE_NOOP
#: in ``app.core.backends.remote.servers``).
KIND_LABELS_CONTEXT = "Servers"

# Status kinds and their label tones (app.ui.misc.theme.set_tone).
STATUS_STYLES = {"": "", "busy": "muted", "ok": "success", "error": "error"}


class ServerForm(QWidget):
    """One server's fields, Test and its status (see the module docstring).

    Signals (the user's doing only, never the form being filled):

    * ``draft_edited``: a field changed, and the draft with it.
    * ``test_requested``, ``refresh_requested``: Test, Refresh.
    """

    #: The user changed a field: the draft shown has changed; no args.
    draft_edited = pyqtSignal()
    #: The user asked to test the connection (Test); no args.
    test_requested = pyqtSignal()
    #: The user asked for the server's models (Refresh); no args.
    refresh_requested = pyqtSignal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._filling = False  # the fields are being filled from a draft: not user edits
        self._draft: ServerDraft | None = None
        self._build()
        self._connect_signals()

    def _build(self) -> None:
        self.name_edit = QLineEdit()
        self.name_edit.setAccessibleName(QCoreApplication.translate("ServersDialog", "Server name"))
        self.name_edit.setPlaceholderText(QCoreApplication.translate("ServersDialog", "e.g. LM Studio on the desktop"))
        self.kind_combo = QComboBox()
        self.kind_combo.setAccessibleName(QCoreApplication.translate("ServersDialog", "Server kind"))
        for kind in KINDS:
            self.kind_combo.addItem(QCoreApplication.translate(KIND_LABELS_CONTEXT, KIND_LABELS[kind]), kind)
        self.url_edit = QLineEdit()
        self.url_edit.setAccessibleName(QCoreApplication.translate("ServersDialog", "Base URL"))
        self.url_edit.setPlaceholderText("http://127.0.0.1:8080")
        self.url_note = QLabel()
        self.url_note.setObjectName("serversNote")
        self.url_note.setWordWrap(True)
        self.key_edit = QLineEdit()
        self.key_edit.setAccessibleName(QCoreApplication.translate("ServersDialog", "API key"))
        self.key_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.key_edit.setToolTip(
            QCoreApplication.translate("ServersDialog", "Kept in the system keyring, never in Rill's settings file")
        )
        self.show_key_button = QToolButton()
        self.show_key_button.setText(QCoreApplication.translate("ServersDialog", "Show"))
        self.show_key_button.setCheckable(True)
        self.show_key_button.setAccessibleName(QCoreApplication.translate("ServersDialog", "Show the API key"))
        key_row = QHBoxLayout()
        key_row.setContentsMargins(0, 0, 0, 0)
        key_row.addWidget(self.key_edit, 1)
        key_row.addWidget(self.show_key_button)
        self.key_note = QLabel()
        self.key_note.setObjectName("serversNote")
        self.key_note.setWordWrap(True)
        self.key_note.setAccessibleName(QCoreApplication.translate("ServersDialog", "About API keys"))
        self.key_note.hide()
        self.key_problem = QLabel()
        self.key_problem.setWordWrap(True)
        self.key_problem.setTextFormat(Qt.TextFormat.PlainText)
        self.key_problem.setAccessibleName(QCoreApplication.translate("ServersDialog", "Problem with the API key"))
        set_tone(self.key_problem, STATUS_STYLES["error"])
        self.login_note = QLabel()
        self.login_note.setWordWrap(True)
        self.login_note.setAccessibleName(QCoreApplication.translate("ServersDialog", "About the login in the URL"))
        set_tone(self.login_note, "muted")
        self.forget_login_button = QPushButton(QCoreApplication.translate("ServersDialog", "&Forget Login"))
        self.forget_login_button.setAccessibleName(
            QCoreApplication.translate("ServersDialog", "Forget the login kept for this address")
        )
        login_row = QHBoxLayout()
        login_row.setContentsMargins(0, 0, 0, 0)
        login_row.addWidget(self.login_note, 1)
        login_row.addWidget(self.forget_login_button)
        self.login_row = QWidget()
        self.login_row.setLayout(login_row)
        self.model_combo = QComboBox()
        self.model_combo.setEditable(True)
        self.model_combo.setAccessibleName(QCoreApplication.translate("ServersDialog", "Default model"))
        self.model_combo.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.model_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.model_combo.setMinimumContentsLength(16)
        line = self.model_combo.lineEdit()
        if line is not None:
            line.setPlaceholderText(QCoreApplication.translate("ServersDialog", "The first model the server lists"))
        self.refresh_button = QPushButton(QCoreApplication.translate("ServersDialog", "Re&fresh"))
        self.refresh_button.setAccessibleName(QCoreApplication.translate("ServersDialog", "Fetch the server's models"))
        model_row = QHBoxLayout()
        model_row.setContentsMargins(0, 0, 0, 0)
        model_row.addWidget(self.model_combo, 1)
        model_row.addWidget(self.refresh_button)
        self.stall_spin = QSpinBox()
        self.stall_spin.setAccessibleName(QCoreApplication.translate("ServersDialog", "Stall timeout in seconds"))
        self.stall_spin.setRange(1, 3600)
        self.stall_spin.setSuffix(QCoreApplication.translate("ServersDialog", " s"))
        self.stall_spin.setValue(int(DEFAULT_STALL_S))
        self.stall_spin.setToolTip(
            QCoreApplication.translate("ServersDialog", "A reply is given up when the server sends nothing for this long")
        )
        self.test_button = QPushButton(QCoreApplication.translate("ServersDialog", "&Test"))
        self.test_button.setAccessibleName(QCoreApplication.translate("ServersDialog", "Test the connection"))
        self.status_label = QLabel()
        self.status_label.setWordWrap(True)
        self.status_label.setAccessibleName(QCoreApplication.translate("ServersDialog", "Connection status"))
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
        self.error_label.setAccessibleName(QCoreApplication.translate("ServersDialog", "Problem with these settings"))
        set_tone(self.error_label, STATUS_STYLES["error"])
        self.error_label.hide()

        form = self._form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.addRow(QCoreApplication.translate("ServersDialog", "&Name:"), self.name_edit)
        form.addRow(QCoreApplication.translate("ServersDialog", "&Kind:"), self.kind_combo)
        form.addRow(QCoreApplication.translate("ServersDialog", "Base &URL:"), self.url_edit)
        form.addRow("", self.url_note)
        form.addRow("", self.login_row)
        key_label = QLabel(QCoreApplication.translate("ServersDialog", "API &key:"))
        key_label.setBuddy(self.key_edit)  # a row holding a layout gets no buddy by itself
        form.addRow(key_label, key_row)
        form.addRow("", self.key_note)
        form.addRow("", self.key_problem)
        form.setRowVisible(self.login_row, False)  # rows, not only their fields: no empty gap
        form.setRowVisible(self.key_problem, False)
        model_label = QLabel(QCoreApplication.translate("ServersDialog", "Default &model:"))
        model_label.setBuddy(self.model_combo)
        form.addRow(model_label, model_row)
        form.addRow(QCoreApplication.translate("ServersDialog", "&Stall timeout:"), self.stall_spin)
        box = QVBoxLayout(self)
        box.setContentsMargins(0, 0, 0, 0)
        box.addLayout(form)
        box.addLayout(test_row)
        box.addWidget(self.error_label)
        box.addStretch(1)

    def _connect_signals(self) -> None:
        self.name_edit.textEdited.connect(self._on_name_edited)
        self.kind_combo.currentIndexChanged.connect(self._on_kind_index_changed)
        self.url_edit.textEdited.connect(self._on_url_edited)
        self.key_edit.textEdited.connect(self._on_key_edited)
        self.show_key_button.toggled.connect(self._on_show_key_toggled)
        self.model_combo.currentTextChanged.connect(self._on_model_text_changed)
        self.refresh_button.clicked.connect(self.refresh_requested)
        self.stall_spin.valueChanged.connect(self._on_stall_value_changed)
        self.test_button.clicked.connect(self.test_requested)
        self.forget_login_button.clicked.connect(self._on_forget_login_clicked)

    # -- showing a draft ---------------------------------------------------------------

    @property
    def draft(self) -> ServerDraft | None:
        """The draft shown (and edited)."""
        return self._draft

    def fill(self, draft: ServerDraft | None) -> None:
        """Show ``draft``: every field from it (it does not change). None:
        nothing is edited until another one is shown."""
        self._draft = draft
        if draft is None:
            return
        self._filling = True
        try:
            self.name_edit.setText(draft.name)
            self.kind_combo.setCurrentIndex(max(0, self.kind_combo.findData(draft.kind)))
            self.url_edit.setText(draft.base_url)
            self.key_edit.setText(draft.key or "")
            self.stall_spin.setValue(int(round(draft.stall_s)))
            self.fill_models(draft)
            self.show_url_note(draft)
            self.show_login(draft)
            self._check_key(draft.key or "")
        finally:
            self._filling = False

    def show_login(self, draft: ServerDraft) -> None:
        """Whether the keyring keeps a login for ``draft``'s address, and Forget."""
        self._form.setRowVisible(self.login_row, draft.url_login)
        self.forget_login_button.setEnabled(not draft.forget_login)
        self.login_note.setText(
            QCoreApplication.translate("ServersDialog", "The login will be forgotten when you save.")
            if draft.forget_login else
            QCoreApplication.translate(
                "ServersDialog", "A login (user name and password) typed in this address is kept in the system "
                "keyring and sent to this address only."
            )
        )

    def _check_key(self, text: str) -> None:
        """Say at once what is wrong with the key typed (never quoting it)."""
        try:
            validate_api_key(text)
        except ServerConfigError as exc:
            self.key_problem.setText(str(exc))
            self._form.setRowVisible(self.key_problem, True)
        else:
            self._form.setRowVisible(self.key_problem, False)

    def fill_models(self, draft: ServerDraft) -> None:
        """The default model's choices (the server's models) and its text."""
        self._filling, was = True, self._filling
        try:
            self.model_combo.clear()
            self.model_combo.addItems(draft.models)
            self.model_combo.setEditText(draft.model)
        finally:
            self._filling = was

    def set_key(self, key: str) -> None:
        """Replace the API key (no edit signal)."""
        self._filling, was = True, self._filling
        try:
            self.key_edit.setText(key)
        finally:
            self._filling = was

    def show_url_note(self, draft: ServerDraft) -> None:
        """What the base URL field asks for, for ``draft``'s kind."""
        if draft.kind == OPENAI:
            self.url_edit.setPlaceholderText(
                QCoreApplication.translate("ServersDialog", "e.g. http://127.0.0.1:8080 or https://api.example.com/v1")
            )
            self.url_note.setText(
                QCoreApplication.translate("ServersDialog", "With or without /v1: Rill adds it when it is missing.")
            )
        else:
            self.url_edit.setPlaceholderText(DEFAULT_URLS[draft.kind])
            self.url_note.setText(
                QCoreApplication.translate("ServersDialog", "The Ollama server's address, e.g. {url}").format(
                    url=DEFAULT_URLS[draft.kind]
                )
            )

    def show_key_state(self, draft: ServerDraft | None, saving: bool) -> None:
        """The key field is read-only while the keyring is read or written."""
        loading = draft is not None and draft.key is None
        self.key_edit.setReadOnly(loading or saving)
        self.key_edit.setPlaceholderText(
            QCoreApplication.translate("ServersDialog", "Reading the keyring…") if loading
            else QCoreApplication.translate("ServersDialog", "None (not needed by most local servers)")
        )

    def show_key_note(self, note: str) -> None:
        """What the keyring says about itself ("" when all is well)."""
        self.key_note.setText(note)
        self.key_note.setVisible(bool(note))

    def show_status(self, draft: ServerDraft | None) -> None:
        """``draft``'s connection status (Test, Refresh)."""
        text, kind = draft.status if draft is not None else ("", "")
        self.status_label.setText(text)
        set_tone(self.status_label, STATUS_STYLES.get(kind, ""))

    def show_problem(self, message: str) -> None:
        """What is wrong with the settings typed ("" hides it)."""
        self.error_label.setText(message)
        self.error_label.setVisible(bool(message))

    def set_fetch_enabled(self, enabled: bool) -> None:
        """Test and Refresh (not while one of them is under way)."""
        self.test_button.setEnabled(enabled)
        self.refresh_button.setEnabled(enabled)

    # -- slots: the user's edits ---------------------------------------------------------

    def _edited(self, draft: ServerDraft, stale: bool = False) -> None:
        """``draft`` changed; ``stale``: a test or model list under way answers
        for settings that are no longer these (its answer is dropped)."""
        if stale:
            draft.forget_answer()
            draft.status = ("", "")
            self.show_status(draft)
        self.draft_edited.emit()

    def _on_name_edited(self, text: str) -> None:
        draft = self._draft
        if draft is not None:
            draft.name = text
            self._edited(draft)

    def _on_kind_index_changed(self, index: int) -> None:
        draft = self._draft
        if self._filling or draft is None:
            return
        kind = self.kind_combo.itemData(index)
        if kind == draft.kind:
            return
        draft.kind = kind
        if is_default_url(draft.base_url):
            draft.base_url = DEFAULT_URLS[kind]
            self.url_edit.setText(draft.base_url)
        self.show_url_note(draft)
        self._edited(draft, stale=True)

    def _on_url_edited(self, text: str) -> None:
        draft = self._draft
        if draft is not None:
            draft.base_url = text
            self._edited(draft, stale=True)

    def _on_key_edited(self, text: str) -> None:
        draft = self._draft
        self._check_key(text)
        if draft is not None and draft.key is not None:  # None: not read from the keyring yet
            draft.key = text
            self._edited(draft, stale=True)

    def _on_forget_login_clicked(self) -> None:
        draft = self._draft
        if draft is not None and draft.url_login:
            draft.forget_login = True
            self.show_login(draft)
            self._edited(draft, stale=True)

    def _on_model_text_changed(self, text: str) -> None:
        draft = self._draft
        if not self._filling and draft is not None:
            draft.model = text
            self._edited(draft)

    def _on_stall_value_changed(self, value: int) -> None:
        draft = self._draft
        if not self._filling and draft is not None:
            draft.stall_s = float(value)
            self._edited(draft)

    def _on_show_key_toggled(self, shown: bool) -> None:
        self.key_edit.setEchoMode(QLineEdit.EchoMode.Normal if shown else QLineEdit.EchoMode.Password)
        self.show_key_button.setText(
            QCoreApplication.translate("ServersDialog", "Hide") if shown
            else QCoreApplication.translate("ServersDialog", "Show")
        )
        self.show_key_button.setAccessibleName(
            QCoreApplication.translate("ServersDialog", "Hide the API key") if shown
            else QCoreApplication.translate("ServersDialog", "Show the API key")
        )
