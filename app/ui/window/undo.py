"""The status bar's Undo offer: "Deleted “…”" with an Undo button for
``UNDO_MS``, after which (or at close, or when the next offer comes) the
deletion is committed.

Threading rule: GUI thread only.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PyQt6.QtCore import QCoreApplication, QObject, QTimer
from PyQt6.QtWidgets import QPushButton, QStatusBar

UNDO_MS = 10000  # how long a deleted conversation (or message) can be brought back


@dataclass(frozen=True)
class _Offer:
    undo: Callable[[], None]
    commit: Callable[[], None] | None
    conversation_id: str


class UndoBar(QObject):
    """One pending offer at a time (see the module docstring). The Undo
    ``button`` is a permanent widget of ``status_bar``."""

    def __init__(self, status_bar: QStatusBar, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._status_bar = status_bar
        self.button = QPushButton(QCoreApplication.translate("MainWindow", "Undo"))
        self.button.setObjectName("undo")
        self.button.hide()
        status_bar.addPermanentWidget(self.button)
        self._offer: _Offer | None = None
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(UNDO_MS)
        self._connect_signals()

    def _connect_signals(self) -> None:
        self.button.clicked.connect(self.undo)
        self._timer.timeout.connect(self.commit)

    def offer(
        self, text: str, undo: Callable[[], None], commit: Callable[[], None] | None = None, conversation_id: str = ""
    ) -> None:
        """Show ``text`` with an Undo button for UNDO_MS; an earlier offer is
        committed first. ``commit`` runs when the time is over (or at close).
        ``conversation_id``: the conversation the offer deleted, if it did."""
        self.commit()
        self._offer = _Offer(undo, commit, conversation_id)
        self._status_bar.showMessage(text, UNDO_MS)
        self.button.show()
        self._timer.start()

    @property
    def pending_conversation(self) -> str:
        """The id of the conversation the pending offer deleted ("" when none)."""
        return self._offer.conversation_id if self._offer is not None else ""

    def undo(self) -> None:
        """Take the pending offer back (nothing when there is none)."""
        offer, self._offer = self._offer, None
        self._timer.stop()
        self.button.hide()
        self._status_bar.clearMessage()
        if offer is not None:
            offer.undo()

    def commit(self) -> None:
        """Make the pending offer final now (nothing when there is none)."""
        offer, self._offer = self._offer, None
        self._timer.stop()
        self.button.hide()
        if offer is not None and offer.commit is not None:
            offer.commit()
