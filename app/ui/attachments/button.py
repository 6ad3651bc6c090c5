"""The attach button (a paperclip beside the message box): choose files.

Its tooltip says what can be attached and, when the current model cannot
see images, that images will not reach it. The file dialog is opened
non-modally (``open``), so nothing waits on the GUI thread.

Signals:

* ``files_chosen(list)``: the user chose files; arg: their paths.

Threading rule: GUI thread only.
"""

from __future__ import annotations

from PyQt6.QtCore import pyqtSignal
from PyQt6.QtWidgets import QFileDialog, QToolButton, QWidget

#: The file dialog's patterns (names only: the contents decide in the end).
PATTERNS = ("*.pdf *.docx *.txt *.md *.markdown *.csv *.tsv *.json *.jsonl *.html *.htm *.py *.js *.ts *.c *.h "
            "*.cpp *.rs *.go *.java *.rb *.sh *.toml *.yaml *.yml *.xml *.log *.png *.jpg *.jpeg *.webp *.gif")


class AttachButton(QToolButton):
    """See the module docstring."""

    files_chosen = pyqtSignal(list)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("attach")
        self.setText("📎")
        self.setAccessibleName(self.tr("Attach files"))
        self._dialog: QFileDialog | None = None
        self.set_vision(False)
        self.clicked.connect(self._on_clicked)

    def set_vision(self, can_see_images: bool) -> None:
        """Say in the tooltip whether the current model can see images."""
        if can_see_images:
            tip = self.tr("Attach files: PDF, DOCX, text, Markdown, code, CSV, JSON, HTML and images")
        else:
            tip = self.tr("Attach files: PDF, DOCX, text, Markdown, code, CSV, JSON and HTML "
                          "(the current model cannot see images)")
        self.setToolTip(tip)

    def _on_clicked(self) -> None:
        dialog = QFileDialog(self.window(), self.tr("Attach Files"))
        dialog.setFileMode(QFileDialog.FileMode.ExistingFiles)
        dialog.setNameFilters([self.tr("Documents and images ({patterns})").format(patterns=PATTERNS),
                               self.tr("All files (*)")])
        dialog.filesSelected.connect(self._on_files_selected)
        self._dialog = dialog
        dialog.open()

    def _on_files_selected(self, paths: list[str]) -> None:
        if paths:
            self.files_chosen.emit(list(paths))
