"""At most one dialog of a kind: the "raise it, or create it" rule in one place.

``SingletonDialog(make)``'s ``show()`` raises and activates the dialog when
it is open, and otherwise creates a fresh one with ``make()`` (deleted when
closed) and opens it. With ``reuse=True`` a closed dialog is kept and shown
again instead (Help › Keyboard Shortcuts).

Threading rule: GUI thread only.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

from PyQt6 import sip
from PyQt6.QtCore import Qt
from PyQt6.QtWidgets import QDialog

D = TypeVar("D", bound=QDialog)


class SingletonDialog(Generic[D]):
    """See the module docstring."""

    def __init__(self, make: Callable[[], D], *, reuse: bool = False, modeless: bool = False) -> None:
        """``make``: builds a new dialog (connected). ``reuse``: keep a closed
        one and show it again; ``modeless``: ``show()`` rather than ``open()``
        (window-modal)."""
        self._make = make
        self._reuse = reuse
        self._modeless = modeless
        self._dialog: D | None = None

    @property
    def dialog(self) -> D | None:
        """The dialog last shown, unless it has been deleted."""
        dialog = self._dialog
        if dialog is not None and sip.isdeleted(dialog):
            self._dialog = dialog = None
        return dialog

    def show(self) -> D:
        """Raise the open dialog, or create (or reuse) one and show it."""
        dialog = self.dialog
        if dialog is not None and dialog.isVisible():
            dialog.raise_()
            dialog.activateWindow()
            return dialog
        if dialog is None or not self._reuse:
            dialog = self._make()
            if not self._reuse:
                dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
            self._dialog = dialog
        if self._modeless:
            dialog.show()
        else:
            dialog.open()
        return dialog
