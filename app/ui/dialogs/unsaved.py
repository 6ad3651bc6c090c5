"""The question asked when Rill is closed with changes the history could not
take: what is unsaved and why, and three ways on — Retry, Export to a File…,
Quit Anyway — or Cancel (Esc) to keep Rill open.

The dialog only asks; ``app.ui.window.quit_guard.QuitGuard`` acts on the
answer. Window-modal and opened with ``open()``: it never runs an event loop
of its own.

Threading rule: GUI thread only.
"""

from __future__ import annotations

from collections.abc import Sequence

from PyQt6.QtCore import pyqtBoundSignal, pyqtSignal
from PyQt6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QPushButton, QVBoxLayout, QWidget

#: At most this many titles are listed; the rest are counted.
MAX_TITLES = 8


class UnsavedDialog(QDialog):
    """See the module docstring.

    The answer arrives as exactly one of its signals, and the dialog closes."""

    #: The user asked to try saving again now; no args.
    retry_requested = pyqtSignal()
    #: The user asked to write the unsaved conversations to a file; no args.
    export_requested = pyqtSignal()
    #: The user chose to quit and lose the unsaved changes; no args.
    quit_requested = pyqtSignal()
    #: The user chose to keep Rill open (Cancel, Esc, the window's close button); no args.
    stay_requested = pyqtSignal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("unsavedDialog")
        self.setWindowTitle(self.tr("Not Saved"))
        self.setModal(True)
        layout = QVBoxLayout(self)
        self.message = QLabel(self)
        self.message.setObjectName("unsavedMessage")
        self.message.setWordWrap(True)
        layout.addWidget(self.message)
        self.buttons = QDialogButtonBox(self)
        self.retry_button = self._button(self.tr("&Retry"), QDialogButtonBox.ButtonRole.ActionRole, "retryButton")
        self.export_button = self._button(
            self.tr("&Export to a File…"), QDialogButtonBox.ButtonRole.AcceptRole, "exportButton")
        self.quit_button = self._button(
            self.tr("&Quit Anyway"), QDialogButtonBox.ButtonRole.DestructiveRole, "quitButton")
        self.cancel_button = self._button(self.tr("Cancel"), QDialogButtonBox.ButtonRole.RejectRole, "cancelButton")
        self.export_button.setDefault(True)
        layout.addWidget(self.buttons)
        self._answered = False
        self._connect_signals()

    def _button(self, text: str, role: QDialogButtonBox.ButtonRole, name: str) -> QPushButton:
        button = QPushButton(text, self)
        button.setObjectName(name)
        button.setAutoDefault(False)
        self.buttons.addButton(button, role)
        return button

    def _connect_signals(self) -> None:
        self.retry_button.clicked.connect(lambda: self._answer(self.retry_requested))
        self.export_button.clicked.connect(lambda: self._answer(self.export_requested))
        self.quit_button.clicked.connect(lambda: self._answer(self.quit_requested))
        self.cancel_button.clicked.connect(self.reject)
        self.rejected.connect(self._on_rejected)

    def ask(self, titles: Sequence[str], others: int, reason: str) -> None:
        """Show the question: ``titles`` of the unsaved conversations,
        ``others`` more without a title to show, ``reason`` why saving fails."""
        self._answered = False
        shown = list(titles[:MAX_TITLES])
        others += len(titles) - len(shown)
        names = "".join(f"<li>\u2068{_escape(t)}\u2069</li>" for t in shown)  # bidi isolated
        if others:
            names += "<li>" + _escape(self.tr("{count} more conversation(s)").format(count=others)) + "</li>"
        self.message.setText(
            "<p>" + _escape(self.tr("These conversations have changes that are not in the history:")) + "</p>"
            + f"<ul>{names}</ul>"
            + ("<p>" + _escape(reason) + "</p>" if reason else "")
            + "<p>" + _escape(self.tr("Retry saving, export them to a file you can import later, or quit and "
                                  "lose these changes.")) + "</p>"
        )
        self.open()

    def _answer(self, signal: pyqtBoundSignal) -> None:
        self._answered = True
        self.accept()
        signal.emit()

    def _on_rejected(self) -> None:
        if not self._answered:
            self.stay_requested.emit()


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
