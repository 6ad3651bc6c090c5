"""Edit › Settings… (Ctrl+,): the sampling of replies, the local model's
context length, threads and GPU layers, the default system prompt, and the
embedding model attachments are retrieved with (``embedding_group``).

Every value is checked as it is typed: a problem shows in red under its
field, and OK / Apply refuse to save until it is fixed (a warning, in amber,
does not stop saving: a context longer than the model was trained for).
"Reset to Defaults" fills the form with the defaults; nothing is written
before OK or Apply. Saved sampling and system prompt apply from the NEXT
reply (one streaming keeps what it was sent with); context length, threads
and GPU layers apply at the next model load, which "Reload Model Now" starts
(``reload_model_requested``).

Whether llama.cpp can offload to a GPU is found out on a background thread
(importing llama_cpp takes ~0.3 s); the GPU layers row appears only when it can.

Threading rule: GUI thread only. The settings file is small (≤ 64 KB) and is
read and written on the GUI thread, as the Servers dialog does.
"""

from __future__ import annotations

import dataclasses
import logging
from pathlib import Path
from typing import Any

from PyQt6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt, pyqtSignal
from PyQt6.QtGui import QShowEvent
from PyQt6.QtWidgets import (
    QAbstractButton,
    QAbstractSpinBox,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from app.core.backends.base import ModelInfo
from app.core.backends.prompt_window import POLICY_LABELS
from app.core.config import preferences as prefs_mod
from app.core.config.appearance import COLUMN_MAX, COLUMN_MIN, LANGUAGES, THEMES, Appearance
from app.core.config.preferences import FIELDS, SAMPLING_FIELDS, Field, Preferences
from app.ui.dialogs.embedding_group import EmbeddingGroup
from app.ui.misc.theme import set_tone
from app.ui.services.background import BackgroundCalls

log = logging.getLogger(__name__)

__all__ = ["SettingsDialog", "FieldRow", "make_spin", "field_label", "field_help"]

# Label tones (app.ui.misc.theme.set_tone): the colours follow the theme.
ERROR_STYLE = "error"
WARNING_STYLE = "warning"
NOTE_STYLE = "muted"

NEXT_REPLY_NOTE = QT_TRANSLATE_NOOP(
    "SettingsDialog", "Changes apply from the next reply; a reply being written keeps the settings it started with."
)
NEXT_LOAD_NOTE = QT_TRANSLATE_NOOP(
    "SettingsDialog", "Context length, threads and GPU layers apply the next time a model is loaded."
)

#: The translation contexts of the labels defined in the core (marked there
#: with QT_TRANSLATE_NOOP): ``Field.label``/``Field.help`` of
#: ``app.core.config.preferences`` and ``POLICY_LABELS`` of ``app.core.backends.prompt_window``.
FIELDS_CONTEXT = "Preferences"
POLICY_CONTEXT = "PromptWindow"


def field_label(spec: Field) -> str:
    """``spec.label`` in the user's language."""
    return QCoreApplication.translate(FIELDS_CONTEXT, spec.label)


def field_help(spec: Field) -> str:
    """``spec.help`` in the user's language."""
    return QCoreApplication.translate(FIELDS_CONTEXT, spec.help)


def make_spin(spec: Field, parent: QWidget | None = None) -> QAbstractSpinBox:
    """A spin box with ``spec``'s bounds, step and help."""
    box: QSpinBox | QDoubleSpinBox
    if spec.kind is float:
        box = QDoubleSpinBox(parent)
        box.setDecimals(spec.decimals)
        box.setRange(spec.low, spec.high)
        box.setSingleStep(spec.step)
    else:
        box = QSpinBox(parent)
        box.setRange(int(spec.low), int(spec.high))
        box.setSingleStep(int(spec.step))
        if spec.high >= 10000:
            box.setGroupSeparatorShown(True)
    box.setObjectName(spec.name)
    box.setAccessibleName(field_label(spec))
    box.setToolTip(field_help(spec))
    box.setKeyboardTracking(True)
    return box


class FieldRow(QWidget):
    """An editor with its message line under it (hidden while there is none)."""

    def __init__(self, editor: QWidget, parent: QWidget | None = None, extra: QWidget | None = None) -> None:
        super().__init__(parent)
        self.editor = editor
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.message.setObjectName(f"{editor.objectName()}Message")
        self.message.hide()
        line = QHBoxLayout()
        line.setContentsMargins(0, 0, 0, 0)
        line.addWidget(editor, 1)
        if extra is not None:
            line.addWidget(extra)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addLayout(line)
        layout.addWidget(self.message)

    def show_messages(self, errors: list[str], warnings: list[str]) -> None:
        text = " ".join(errors or warnings)
        self.message.setText(text)
        set_tone(self.message, ERROR_STYLE if errors else WARNING_STYLE)
        self.message.setVisible(bool(text))


class SettingsDialog(QDialog):
    """See the module docstring."""

    #: Valid settings were applied (OK, Apply, Reload Model Now) and written
    #: to the settings file when it could be; arg: Preferences.
    preferences_applied = pyqtSignal(object)
    #: Reload Model Now: the settings were applied; load the current model
    #: again so that context length, threads and GPU layers take effect. No args.
    reload_model_requested = pyqtSignal()
    #: OK or Apply with a changed language or theme; arg: Appearance (the
    #: window applies and saves it, ``app.ui.window.appearance_menu``).
    appearance_applied = pyqtSignal(object)

    def __init__(
        self,
        parent: QWidget | None = None,
        preferences: Preferences | None = None,
        *,
        trained_ctx: int | None = None,
        gpu_supported: bool | None = None,
        loaded: ModelInfo | None = None,
        reload_available: bool = True,
        settings_path: Path | None = None,
        appearance: Appearance | None = None,
    ) -> None:
        """``preferences`` None: read from the settings file (``settings_path``,
        None: the user's). ``trained_ctx``: the model's trained context (a
        longer context is warned about; ``set_trained_ctx`` when it is known
        later). ``gpu_supported`` None: found out in the background.
        ``loaded``: the model loaded now (its context and threads are shown)."""
        super().__init__(parent)
        self.setObjectName("settingsDialog")
        self.setWindowTitle(self.tr("Settings"))
        self._path = settings_path
        self._trained_ctx = trained_ctx
        self._filling = False
        #: The values last applied (None: none yet in this dialog).
        self.applied: Preferences | None = None
        #: Whether the last apply reached the settings file.
        self.saved = False
        self.rows: dict[str, FieldRow] = {}
        self.spins: dict[str, QAbstractSpinBox] = {}
        self._calls = BackgroundCalls(self)
        self._appearance = appearance if appearance is not None else Appearance()
        self._build(loaded, reload_available)
        self._connect_signals()
        self.set_preferences(preferences if preferences is not None else prefs_mod.load_preferences(settings_path))
        self._start_gpu_detection(gpu_supported)

    # -- building ---------------------------------------------------------------------

    def _build(self, loaded: ModelInfo | None, reload_available: bool) -> None:
        sampling = QGroupBox(self.tr("Sampling"))
        sampling.setObjectName("samplingGroup")
        form = QFormLayout(sampling)
        for spec in SAMPLING_FIELDS:
            self._add_number(form, spec)
        self.seed_random = QCheckBox(self.tr("Random"))
        self.seed_random.setObjectName("seedRandom")
        self.seed_random.setToolTip(self.tr("A new random seed for every reply"))
        self._add_number(form, FIELDS["seed"], extra=self.seed_random)
        note = QLabel(QCoreApplication.translate("SettingsDialog", NEXT_REPLY_NOTE))
        note.setWordWrap(True)
        set_tone(note, NOTE_STYLE)
        form.addRow(note)

        model = QGroupBox(self.tr("Model"))
        model.setObjectName("modelGroup")
        self.model_form = QFormLayout(model)
        self._add_number(self.model_form, FIELDS["n_ctx"])
        threads = FIELDS["n_threads"]
        self._add_number(self.model_form, dataclasses.replace(threads, low=0, high=prefs_mod.cpu_count()))
        self.spins["n_threads"].setSpecialValueText(self.tr("Automatic"))
        self._add_number(self.model_form, FIELDS["n_gpu_layers"])
        self.spins["n_gpu_layers"].setSpecialValueText(self.tr("All"))
        self.model_form.setRowVisible(self.rows["n_gpu_layers"], False)
        self.overflow = QComboBox()
        self.overflow.setObjectName("overflow")
        self.overflow.setAccessibleName(self.tr("When the conversation outgrows the context"))
        for policy, text in POLICY_LABELS.items():
            self.overflow.addItem(QCoreApplication.translate(POLICY_CONTEXT, text), policy.value)
        self.overflow.setToolTip(self.tr("What the model is sent once a conversation no longer fits "
                                         "its context (the window says which messages it no longer sees)"))
        self.model_form.addRow(self.tr("When full:"), self.overflow)
        self.loaded_label = QLabel()
        self.loaded_label.setObjectName("loadedModel")
        self.loaded_label.setWordWrap(True)
        set_tone(self.loaded_label, NOTE_STYLE)
        self.set_loaded(loaded)
        self.model_form.addRow(self.loaded_label)
        self.next_load_note = QLabel(QCoreApplication.translate("SettingsDialog", NEXT_LOAD_NOTE))
        self.next_load_note.setObjectName("nextLoadNote")
        self.next_load_note.setWordWrap(True)
        self.reload_button = QPushButton(self.tr("Reload Model Now"))
        self.reload_button.setObjectName("reloadModel")
        self.reload_button.setToolTip(self.tr("Save these settings and load the current model again "
                                              "(a reply being written is stopped)"))
        self.reload_button.setEnabled(reload_available)
        self.model_form.addRow(self.next_load_note)
        reload_row = QHBoxLayout()
        self.hub_button = QPushButton(self.tr("Hugging Face Hub…"))
        self.hub_button.setObjectName("hubSettings")
        self.hub_button.setToolTip(self.tr("The Hub's address (a mirror) and the access token for gated models"))
        reload_row.addWidget(self.hub_button)
        reload_row.addStretch(1)
        reload_row.addWidget(self.reload_button)
        self.model_form.addRow(reload_row)

        system = QGroupBox(self.tr("System prompt"))
        system.setObjectName("systemGroup")
        self.system_prompt = QPlainTextEdit()
        self.system_prompt.setObjectName("system_prompt")
        self.system_prompt.setAccessibleName(self.tr("Default system prompt"))
        self.system_prompt.setTabChangesFocus(True)
        self.system_prompt.setPlaceholderText(self.tr("No system prompt"))
        self.system_prompt.setToolTip(self.tr("What the model is told before every conversation "
                                              "that has no system prompt of its own"))
        self.system_prompt.setFixedHeight(96)
        row = FieldRow(self.system_prompt)
        self.rows["system_prompt"] = row
        hint = QLabel(self.tr("Used by every conversation without its own (Conversation Settings…)."))
        hint.setWordWrap(True)
        set_tone(hint, NOTE_STYLE)
        system_layout = QVBoxLayout(system)
        system_layout.addWidget(row)
        system_layout.addWidget(hint)

        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok
            | QDialogButtonBox.StandardButton.Cancel
            | QDialogButtonBox.StandardButton.Apply
            | QDialogButtonBox.StandardButton.RestoreDefaults
        )
        reset = self.buttons.button(QDialogButtonBox.StandardButton.RestoreDefaults)
        assert reset is not None
        reset.setText(self.tr("Reset to Defaults"))
        reset.setToolTip(self.tr("Put the default values in the form (saved with OK or Apply)"))
        self.status = QLabel()
        self.status.setObjectName("settingsStatus")
        self.status.setWordWrap(True)
        self.status.hide()

        columns = QHBoxLayout()
        columns.addWidget(sampling, 1)
        columns.addWidget(model, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(columns)
        layout.addWidget(system)
        self.documents = EmbeddingGroup(self, settings_path=self._path)
        layout.addWidget(self.documents)
        layout.addWidget(self._build_appearance())
        layout.addWidget(self.status)
        layout.addWidget(self.buttons)
        self.setMinimumWidth(760)

    def showEvent(self, event: QShowEvent | None) -> None:  # noqa: N802 - Qt's name
        super().showEvent(event)
        # The wrapped notes need more height than the size hint says once the
        # width is known; without this the Sampling group's note was cut.
        needed = self.heightForWidth(self.width())
        if needed > self.height():
            self.setMinimumHeight(needed)
            self.resize(self.width(), needed)

    def _build_appearance(self) -> QGroupBox:
        group = QGroupBox(self.tr("Appearance"))
        group.setObjectName("appearanceGroup")
        self.language = QComboBox()
        self.language.setObjectName("language")
        self.language.setAccessibleName(self.tr("Language"))
        for code, name in LANGUAGES.items():
            self.language.addItem(QCoreApplication.translate("Appearance", name), code)
        self.language.setCurrentIndex(max(0, self.language.findData(self._appearance.language)))
        self.theme = QComboBox()
        self.theme.setObjectName("theme")
        self.theme.setAccessibleName(self.tr("Theme"))
        for code, name in THEMES.items():
            self.theme.addItem(QCoreApplication.translate("Appearance", name), code)
        self.theme.setCurrentIndex(max(0, self.theme.findData(self._appearance.theme)))
        self.column = QSpinBox()
        self.column.setObjectName("column")
        self.column.setAccessibleName(self.tr("Reading width"))
        self.column.setToolTip(self.tr("How many characters a line of a message holds at most"))
        self.column.setRange(COLUMN_MIN - 1, COLUMN_MAX)  # (the lowest: no column)
        self.column.setSingleStep(5)
        self.column.setSpecialValueText(self.tr("The whole window"))
        self.column.setSuffix(self.tr(" characters"))
        self.column.setValue(self._appearance.column or COLUMN_MIN - 1)
        self.language_note = QLabel(self.tr("The language changes the next time Rill starts."))
        self.language_note.setObjectName("languageNote")
        set_tone(self.language_note, NOTE_STYLE)
        self.language_note.setVisible(False)
        form = QFormLayout(group)
        form.addRow(self.tr("&Language:"), self.language)
        form.addRow("", self.language_note)
        form.addRow(self.tr("&Theme:"), self.theme)
        form.addRow(self.tr("&Reading width:"), self.column)
        return group

    def appearance(self) -> Appearance:
        """The language, theme and reading width in the form (the zoom as it was)."""
        column = self.column.value()
        return dataclasses.replace(
            self._appearance, language=str(self.language.currentData()), theme=str(self.theme.currentData()),
            column=0 if column < COLUMN_MIN else column,
        )

    def _on_language_changed(self) -> None:
        self.language_note.setVisible(self.language.currentData() != self._appearance.language)

    def _add_number(self, form: QFormLayout, spec: Field, extra: QWidget | None = None) -> None:
        spin = make_spin(spec)
        row = FieldRow(spin, extra=extra)
        self.spins[spec.name] = spin
        self.rows[spec.name] = row
        label = QLabel(self.tr("{label}:").format(label=field_label(spec)))
        label.setToolTip(field_help(spec))
        label.setBuddy(spin)
        form.addRow(label, row)

    def _connect_signals(self) -> None:
        self.hub_button.clicked.connect(self._on_hub_clicked)
        for spin in self.spins.values():
            spin.valueChanged.connect(self._on_value_changed)  # type: ignore[attr-defined]  # a QSpinBox or QDoubleSpinBox: their QAbstractSpinBox base has no value API
        self.seed_random.toggled.connect(self._on_seed_random_toggled)
        self.system_prompt.textChanged.connect(self._on_value_changed)
        self.overflow.currentIndexChanged.connect(self._on_value_changed)
        self.buttons.clicked.connect(self._on_button_clicked)
        self.reload_button.clicked.connect(self._on_reload_clicked)
        self.language.currentIndexChanged.connect(self._on_language_changed)
        self.documents.changed.connect(self._on_value_changed)

    # -- the form ------------------------------------------------------------------------

    def set_preferences(self, prefs: Preferences) -> None:
        """Show ``prefs`` in the form (nothing is saved)."""
        self._filling = True
        try:
            for spec in SAMPLING_FIELDS:
                self._set_spin(spec.name, getattr(prefs, spec.name))
            self.seed_random.setChecked(prefs.seed is None)
            self._set_spin("seed", prefs.seed if prefs.seed is not None else 0)
            self.spins["seed"].setEnabled(prefs.seed is not None)
            self._set_spin("n_ctx", prefs.n_ctx)
            self._set_spin("n_threads", prefs.n_threads or 0)
            self._set_spin("n_gpu_layers", prefs.n_gpu_layers)
            self.system_prompt.setPlainText(prefs.system_prompt)
            index = self.overflow.findData(prefs.overflow)
            self.overflow.setCurrentIndex(max(0, index))
            self.documents.set_path(prefs.embedding_model)
        finally:
            self._filling = False
        self._check()

    def _set_spin(self, name: str, value: Any) -> None:
        self.spins[name].setValue(value)  # type: ignore[attr-defined]  # a QSpinBox or QDoubleSpinBox: their QAbstractSpinBox base has no value API

    def _value(self, name: str) -> Any:
        return self.spins[name].value()  # type: ignore[attr-defined]  # a QSpinBox or QDoubleSpinBox: their QAbstractSpinBox base has no value API

    def preferences(self) -> Preferences:
        """The values in the form (they may not validate)."""
        values: dict[str, Any] = {spec.name: self._value(spec.name) for spec in SAMPLING_FIELDS}
        threads = int(self._value("n_threads"))
        return Preferences(
            **values,
            seed=None if self.seed_random.isChecked() else int(self._value("seed")),
            n_ctx=int(self._value("n_ctx")),
            n_threads=threads or None,
            n_gpu_layers=int(self._value("n_gpu_layers")),
            system_prompt=self.system_prompt.toPlainText(),
            overflow=str(self.overflow.currentData()),
            embedding_model=self.documents.path(),
        )

    def problems(self) -> dict[str, list[str]]:
        """The form's errors by field (empty: OK and Apply will save)."""
        return self.preferences().validate()

    def _check(self) -> dict[str, list[str]]:
        prefs = self.preferences()
        errors = prefs.validate()
        warnings = prefs.warnings(self._trained_ctx)
        for name, row in self.rows.items():
            row.show_messages(errors.get(name, []), warnings.get(name, []))
        return errors

    def set_trained_ctx(self, trained_ctx: int | None) -> None:
        """The loaded model's trained context, once known (a warning when the
        context length is larger)."""
        self._trained_ctx = trained_ctx
        self._check()

    def set_loaded(self, info: ModelInfo | None) -> None:
        """Describe the model loaded now (None: none, or a server's)."""
        if info is None or not info.n_threads:
            self.loaded_label.setText(self.tr("No local model is loaded now."))
            return
        if info.n_threads == 1:
            text = self.tr("Loaded now: {name}, context {n_ctx:,}, {threads} thread.")
        else:
            text = self.tr("Loaded now: {name}, context {n_ctx:,}, {threads} threads.")
        self.loaded_label.setText(text.format(name=info.name, n_ctx=info.n_ctx, threads=info.n_threads))

    def set_reload_available(self, available: bool) -> None:
        self.reload_button.setEnabled(available)

    @property
    def gpu_row_visible(self) -> bool:
        return self.model_form.isRowVisible(self.rows["n_gpu_layers"])

    # -- slots ---------------------------------------------------------------------------

    def _on_value_changed(self, *_: object) -> None:
        if not self._filling:
            self.status.hide()
            self._check()

    def _on_seed_random_toggled(self, checked: bool) -> None:
        self.spins["seed"].setEnabled(not checked)
        self._on_value_changed()

    def _on_button_clicked(self, button: QAbstractButton) -> None:
        role = self.buttons.standardButton(button)
        if role == QDialogButtonBox.StandardButton.Ok:
            if self.apply():
                self.accept()
        elif role == QDialogButtonBox.StandardButton.Apply:
            self.apply()
        elif role == QDialogButtonBox.StandardButton.RestoreDefaults:
            self.set_preferences(Preferences())
            self._show_status(self.tr("Default values shown: OK or Apply saves them."), NOTE_STYLE)
        elif role == QDialogButtonBox.StandardButton.Cancel:
            self.reject()

    def _on_hub_clicked(self) -> None:
        from app.ui.dialogs.hub_settings import HubSettingsDialog

        dialog = HubSettingsDialog(self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.open()

    def _on_reload_clicked(self) -> None:
        if self.apply():
            self.reload_model_requested.emit()
            self.accept()

    def apply(self) -> bool:
        """Save the form (OK, Apply). False, with the problems shown and the
        first bad field focused, when a value is not allowed."""
        errors = self._check()
        if errors:
            first = next(name for name in self.rows if name in errors)
            self.rows[first].editor.setFocus()
            count = sum(len(v) for v in errors.values())
            self._show_status(
                self.tr("Not saved: fix the value marked in red.") if count == 1
                else self.tr("Not saved: fix the {count} values marked in red.").format(count=count),
                ERROR_STYLE,
            )
            return False
        prefs = self.preferences()
        self.saved = prefs_mod.save_preferences(prefs, self._path)
        self.applied = prefs
        if self.saved:
            self._show_status(
                self.tr("Saved. {note}").format(note=QCoreApplication.translate("SettingsDialog", NEXT_REPLY_NOTE)),
                NOTE_STYLE,
            )
        else:
            self._show_status(
                self.tr("The settings could not be written to the settings file; they apply until Rill is closed."),
                ERROR_STYLE,
            )
        self.preferences_applied.emit(prefs)
        appearance = self.appearance()
        if appearance != self._appearance:
            self._appearance = appearance
            self.appearance_applied.emit(appearance)
        return True

    def _show_status(self, text: str, style: str) -> None:
        self.status.setText(text)
        set_tone(self.status, style)
        self.status.show()

    # -- GPU offload -------------------------------------------------------------------------

    def _start_gpu_detection(self, supported: bool | None) -> None:
        if supported is None:
            supported = prefs_mod.gpu_offload_supported()
        if supported is not None:
            self._set_gpu_supported(supported)
            return
        self._calls.run(lambda _cancel: prefs_mod.detect_gpu_offload(), self._on_gpu_detected, name="rill-gpu-offload")

    def _on_gpu_detected(self, supported: object, error: BaseException | None) -> None:
        if error is not None:  # detection never matters enough to fail
            log.error("finding out about GPU offload failed", exc_info=error)
        self._set_gpu_supported(bool(supported) and error is None)

    def _set_gpu_supported(self, supported: bool) -> None:
        self.model_form.setRowVisible(self.rows["n_gpu_layers"], supported)
        if not supported:
            self.next_load_note.setToolTip(self.tr("This llama.cpp has no GPU backend: the model runs on the CPU."))
