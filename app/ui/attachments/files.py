"""The files of the conversation shown, in one line above the message box:
"Files in this conversation: report.pdf (best passages) · notes.md (whole)".

It is filled when a conversation is shown (from the store: attachments come
back when a conversation reopens) and after each question (the plan's
attachments); hidden when the conversation has none.

Threading rule: GUI thread only.
"""

from __future__ import annotations

from collections.abc import Sequence

from PyQt6.QtCore import Qt
from PyQt6.QtWidgets import QLabel, QWidget

from app.core.attachments.record import Attachment, AttachmentKind, AttachmentMode


class ConversationFiles(QLabel):
    """See the module docstring."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("conversationFiles")
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setWordWrap(True)
        self.attachments: tuple[Attachment, ...] = ()
        self.hide()

    def _describe(self, a: Attachment) -> str:
        if a.error:
            return self.tr("{name} (not read)").format(name=a.name)
        if a.kind is AttachmentKind.IMAGE:
            return self.tr("{name} (image)").format(name=a.name)
        if a.mode is AttachmentMode.RETRIEVED:
            return self.tr("{name} (best passages)").format(name=a.name)
        return self.tr("{name} (whole)").format(name=a.name)

    def show_files(self, attachments: Sequence[Attachment]) -> None:
        self.attachments = tuple(attachments)
        if not self.attachments:
            self.clear()
            self.hide()
            return
        text = self.tr("Files in this conversation: {files}").format(
            files=" · ".join(self._describe(a) for a in self.attachments))
        self.setText(text)
        self.setAccessibleName(text)
        self.show()
