"""Conversation Settings…: one conversation's own system prompt and sampling.

Each setting either follows Settings (its box unticked: the field shows the
value from Settings, greyed) or is this conversation's own (ticked: edit it).
"Use Settings for All" unticks everything. Nothing is saved before OK; the
window then stores the overrides with the conversation
(``ConversationLibrary.set_overrides``: the store's ``system_prompt`` and
``params`` columns, carried by JSON export and import). The next request in
the conversation uses them; a reply already streaming keeps what it was sent.

Threading rule: GUI thread only.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from PyQt6.QtCore import pyqtSignal
from PyQt6.QtWidgets import (
    QAbstractButton,
    QAbstractSpinBox,
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QGroupBox,
    QLabel,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from app.core.config.preferences import (
    FIELDS,
    RANDOM_SEED,
    SAMPLING_FIELDS,
    ConversationSettings,
    Preferences,
)
from app.ui.dialogs.settings import ERROR_STYLE, NOTE_STYLE, FieldRow, field_help, field_label, make_spin
from app.ui.misc.theme import set_tone

__all__ = ["ConversationSettingsDialog"]


class ConversationSettingsDialog(QDialog):
    """See the module docstring."""

    #: OK with valid values; args: conversation id, ConversationSettings
    #: (everything unticked: ``ConversationSettings()`` with ``extra`` kept).
    settings_accepted = pyqtSignal(str, object)

    def __init__(
        self,
        conversation_id: str,
        current: ConversationSettings | None = None,
        defaults: Preferences | None = None,
        title: str = "",
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("conversationSettingsDialog")
        self.conversation_id = conversation_id
        self._defaults = defaults or Preferences()
        self._extra: Mapping[str, Any] = dict(current.extra) if current is not None else {}
        self.setWindowTitle(self.tr("Conversation Settings"))
        self.overrides: dict[str, QCheckBox] = {}
        self.spins: dict[str, QAbstractSpinBox] = {}
        self.rows: dict[str, FieldRow] = {}
        self._build(title)
        self.setMinimumWidth(440)
        self._connect_signals()
        self.set_settings(current or ConversationSettings())

    # -- building -----------------------------------------------------------------------

    def _build(self, title: str) -> None:
        if title:
            text = self.tr(
                "Settings of “{name}”. A ticked setting is this conversation's own; the others follow Settings."
            ).format(name=title)
        else:
            text = self.tr(
                "Settings of “this conversation”. A ticked setting is this conversation's own; "
                "the others follow Settings."
            )
        intro = QLabel(text)
        intro.setWordWrap(True)

        system = QGroupBox(self.tr("System prompt"))
        self.system_override = QCheckBox(self.tr("Its own system prompt"))
        self.system_override.setObjectName("system_promptOverride")
        self.system_prompt = QPlainTextEdit()
        self.system_prompt.setObjectName("system_prompt")
        self.system_prompt.setAccessibleName(self.tr("This conversation's system prompt"))
        self.system_prompt.setTabChangesFocus(True)
        self.system_prompt.setPlaceholderText(self.tr("No system prompt"))
        self.system_prompt.setFixedHeight(96)
        self.rows["system_prompt"] = FieldRow(self.system_prompt)
        system_layout = QVBoxLayout(system)
        system_layout.addWidget(self.system_override)
        system_layout.addWidget(self.rows["system_prompt"])

        sampling = QGroupBox(self.tr("Sampling"))
        form = QFormLayout(sampling)
        for spec in SAMPLING_FIELDS + (FIELDS["seed"],):
            box = QCheckBox(field_label(spec))
            box.setObjectName(f"{spec.name}Override")
            box.setToolTip(field_help(spec))
            spin = make_spin(spec)
            extra = None
            if spec.name == "seed":
                self.seed_random = QCheckBox(self.tr("Random"))
                self.seed_random.setObjectName("seedRandom")
                extra = self.seed_random
            row = FieldRow(spin, extra=extra)
            self.overrides[spec.name] = box
            self.spins[spec.name] = spin
            self.rows[spec.name] = row
            form.addRow(box, row)
        note = QLabel(self.tr("Changes apply from the next reply in this conversation."))
        note.setWordWrap(True)
        set_tone(note, NOTE_STYLE)
        form.addRow(note)

        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok
            | QDialogButtonBox.StandardButton.Cancel
            | QDialogButtonBox.StandardButton.RestoreDefaults
        )
        reset = self.buttons.button(QDialogButtonBox.StandardButton.RestoreDefaults)
        assert reset is not None
        reset.setText(self.tr("Use Settings for All"))
        self.status = QLabel()
        self.status.setObjectName("conversationSettingsStatus")
        set_tone(self.status, ERROR_STYLE)
        self.status.setWordWrap(True)
        self.status.hide()

        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(system)
        layout.addWidget(sampling)
        layout.addWidget(self.status)
        layout.addWidget(self.buttons)

    def _connect_signals(self) -> None:
        self.system_override.toggled.connect(self._on_override_toggled)
        self.system_prompt.textChanged.connect(self._on_value_changed)
        for box in self.overrides.values():
            box.toggled.connect(self._on_override_toggled)
        for spin in self.spins.values():
            spin.valueChanged.connect(self._on_value_changed)  # type: ignore[attr-defined]  # a QSpinBox or QDoubleSpinBox: their QAbstractSpinBox base has no value API
        self.seed_random.toggled.connect(self._on_override_toggled)
        self.buttons.clicked.connect(self._on_button_clicked)

    # -- the form ---------------------------------------------------------------------------

    def set_settings(self, current: ConversationSettings) -> None:
        """Show ``current`` (unset values show what Settings says)."""
        d = self._defaults
        own = current.system_prompt is not None
        self.system_override.setChecked(own)
        self.system_prompt.setPlainText(current.system_prompt if own else d.system_prompt)
        for spec in SAMPLING_FIELDS:
            value = getattr(current, spec.name)
            self.overrides[spec.name].setChecked(value is not None)
            self.spins[spec.name].setValue(value if value is not None else getattr(d, spec.name))  # type: ignore[attr-defined]  # a QSpinBox or QDoubleSpinBox: their QAbstractSpinBox base has no value API
        seed = current.seed
        self.overrides["seed"].setChecked(seed is not None)
        effective = d.seed if seed is None else (None if seed == RANDOM_SEED else seed)
        self.seed_random.setChecked(effective is None)
        self.spins["seed"].setValue(effective if isinstance(effective, int) else 0)  # type: ignore[attr-defined]  # a QSpinBox or QDoubleSpinBox: their QAbstractSpinBox base has no value API
        self._update_enabled()
        self._check()

    def settings(self) -> ConversationSettings:
        """The form's overrides (they may not validate)."""
        values: dict[str, Any] = {}
        if self.system_override.isChecked():
            values["system_prompt"] = self.system_prompt.toPlainText()
        for spec in SAMPLING_FIELDS:
            if self.overrides[spec.name].isChecked():
                values[spec.name] = self.spins[spec.name].value()  # type: ignore[attr-defined]  # a QSpinBox or QDoubleSpinBox: their QAbstractSpinBox base has no value API
        if self.overrides["seed"].isChecked():
            values["seed"] = RANDOM_SEED if self.seed_random.isChecked() else int(self.spins["seed"].value())  # type: ignore[attr-defined]  # a QSpinBox or QDoubleSpinBox: their QAbstractSpinBox base has no value API
        return ConversationSettings(**values, extra=dict(self._extra))

    def _update_enabled(self) -> None:
        self.system_prompt.setEnabled(self.system_override.isChecked())
        for name, box in self.overrides.items():
            self.spins[name].setEnabled(box.isChecked() and not (name == "seed" and self.seed_random.isChecked()))
        self.seed_random.setEnabled(self.overrides["seed"].isChecked())

    def _check(self) -> dict[str, list[str]]:
        errors = self.settings().validate()
        for name, row in self.rows.items():
            row.show_messages(errors.get(name, []), [])
        return errors

    # -- slots ---------------------------------------------------------------------------

    def _on_override_toggled(self, *_: object) -> None:
        self._update_enabled()
        self._on_value_changed()

    def _on_value_changed(self, *_: object) -> None:
        self.status.hide()
        self._check()

    def _on_button_clicked(self, button: QAbstractButton) -> None:
        role = self.buttons.standardButton(button)
        if role == QDialogButtonBox.StandardButton.Ok:
            self.accept_settings()
        elif role == QDialogButtonBox.StandardButton.RestoreDefaults:
            self.set_settings(ConversationSettings(extra=self._extra))
        elif role == QDialogButtonBox.StandardButton.Cancel:
            self.reject()

    def accept_settings(self) -> bool:
        """OK: emit ``settings_accepted`` and close; False (the problem shown)
        when a value is not allowed."""
        errors = self._check()
        if errors:
            first = next(name for name in self.rows if name in errors)
            self.rows[first].editor.setFocus()
            self.status.setText(self.tr("Not saved: fix the value marked in red."))
            self.status.show()
            return False
        self.settings_accepted.emit(self.conversation_id, self.settings())
        self.accept()
        return True
