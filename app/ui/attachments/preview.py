"""A preview of an attachment or of one source chunk: its text (the first
``PREVIEW_CHARS`` characters, plain) or its image, in a small dialog.

Threading rule: GUI thread. The text shown is bounded, so laying it out
stays within a frame's budget.
"""

from __future__ import annotations

from PyQt6.QtCore import Qt
from PyQt6.QtGui import QPixmap
from PyQt6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QPlainTextEdit, QVBoxLayout, QWidget

from app.ui.attachments.images import decode_preview

#: Characters of a text shown in a preview.
PREVIEW_CHARS = 20_000


class PreviewDialog(QDialog):
    """A titled, read-only preview (non-modal; closes with Esc or Close)."""

    def __init__(self, title: str, text: str = "", image: bytes = b"", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("attachmentPreview")
        self.setWindowTitle(title)
        self.resize(640, 480)
        layout = QVBoxLayout(self)
        self.heading = QLabel(title)
        self.heading.setTextFormat(Qt.TextFormat.PlainText)
        layout.addWidget(self.heading)
        self.text_view: QPlainTextEdit | None = None
        self.image_view: QLabel | None = None
        if image:
            self.image_view = QLabel()
            self.image_view.setAlignment(Qt.AlignmentFlag.AlignCenter)
            self.image_view.setPixmap(QPixmap.fromImage(decode_preview(image)).scaled(
                600, 400, Qt.AspectRatioMode.KeepAspectRatio, Qt.TransformationMode.SmoothTransformation))
            layout.addWidget(self.image_view, 1)
        else:
            self.text_view = QPlainTextEdit()
            self.text_view.setReadOnly(True)
            shown = text[:PREVIEW_CHARS]
            if len(text) > PREVIEW_CHARS:
                shown += "\n\n" + self.tr("[… {n} more characters]").format(n=f"{len(text) - PREVIEW_CHARS:,}")
            self.text_view.setPlainText(shown)
            layout.addWidget(self.text_view, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
