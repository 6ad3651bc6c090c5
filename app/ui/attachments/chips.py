"""One attached file as a chip: "report.pdf · 1.6 MB · 300 pages · ≈320 K tokens · retrieved" [×].

While the file is read the chip says "reading… 40 %"; once read it shows
what it holds and how it will reach the model (whole, or the best chunks for
each question, matched by keywords or by keywords and meaning: the tray
says which, ``set_retrieval``); a file that could not be read shows why, in the chip itself.
Clicking the chip asks for its preview.

Signals:

* ``remove_requested(str)``: the × was clicked; arg: the attachment's id.
* ``preview_requested(str)``: the chip was clicked; arg: the attachment's id.

Threading rule: GUI thread only.
"""

from __future__ import annotations

import html
from dataclasses import replace

from PyQt6.QtCore import Qt, pyqtSignal
from PyQt6.QtGui import QMouseEvent
from PyQt6.QtWidgets import QFrame, QHBoxLayout, QToolButton, QWidget

from app.core.attachments.record import Attachment, AttachmentKind, AttachmentMode
from app.core.text.tokens_estimate import format_byte_size, format_token_count
from app.ui.misc.elided import ElidedLabel


class FileChip(QFrame):
    """See the module docstring."""

    remove_requested = pyqtSignal(str)
    preview_requested = pyqtSignal(str)

    def __init__(self, attachment: Attachment, parent: QWidget | None = None, retrieval: str = "") -> None:
        """``retrieval``: how passages are matched ("keywords", "keywords +
        meaning (model)"; ``EmbeddingChoice.label``)."""
        super().__init__(parent)
        self.setObjectName("attachmentChip")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.attachment = attachment
        self.reading = True
        self.can_see_images = False
        self.retrieval = retrieval or self.tr("keywords")
        self._progress = 0.0
        self.label = ElidedLabel()  # a long name shortens; the tray never widens the window
        self.label.setObjectName("attachmentLabel")
        self.remove_button = QToolButton()
        self.remove_button.setObjectName("attachmentRemove")
        self.remove_button.setText("×")
        self.remove_button.setAutoRaise(True)
        self.remove_button.setToolTip(self.tr("Remove this file: it will not be sent"))
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 1, 2, 1)
        layout.setSpacing(4)
        layout.addWidget(self.label)
        layout.addWidget(self.remove_button)
        self._connect_signals()
        self._refresh()

    def _connect_signals(self) -> None:
        self.remove_button.clicked.connect(self._on_remove_clicked)

    def _on_remove_clicked(self) -> None:
        self.remove_requested.emit(self.attachment.id)

    def set_progress(self, fraction: float) -> None:
        self._progress = fraction
        self._refresh()

    def set_read(self, attachment: Attachment) -> None:
        self.attachment = attachment
        self.reading = False
        self._refresh()

    def set_mode(self, mode: AttachmentMode, can_see_images: bool) -> None:
        self.attachment = replace(self.attachment, mode=mode)
        self.can_see_images = can_see_images
        self._refresh()

    def set_retrieval(self, retrieval: str) -> None:
        """How passages are matched now (the embedding model changed)."""
        self.retrieval = retrieval
        self._refresh()

    def summary(self) -> str:
        """The chip's text."""
        a = self.attachment
        if self.reading:
            return self.tr("{name} · reading… {percent} %").format(name=a.name, percent=int(self._progress * 100))
        if a.error:
            return self.tr("{name} · {error}").format(name=a.name, error=a.error)
        parts = [a.name, format_byte_size(a.size)]
        if a.kind is AttachmentKind.IMAGE:
            parts.append(self.tr("image") if self.can_see_images else self.tr("this model cannot see images"))
        else:
            if a.pages > 1:
                parts.append(self.tr("%n page(s)", "", a.pages))
            parts.append(self.tr("≈{tokens} tokens").format(tokens=format_token_count(a.tokens)))
            if a.mode is AttachmentMode.WHOLE:
                parts.append(self.tr("whole"))
            elif a.mode is AttachmentMode.RETRIEVED:
                parts.append(self.tr("best passages (by {retrieval})").format(retrieval=self.retrieval))
        if a.notice:
            parts.append(a.notice)
        return " · ".join(parts)

    def _tooltip(self) -> str:
        a = self.attachment
        if self.reading:
            return self.tr("Reading {name}… Click × to cancel.").format(name=a.name)
        if a.error:
            return a.error
        if a.kind is AttachmentKind.IMAGE:
            if not self.can_see_images:
                return self.tr("The current model cannot see images: this image will not be sent to it.")
            return self.tr("Sent to the model as an image. Click to preview.")
        if a.mode is AttachmentMode.RETRIEVED:
            return self.tr("Too long for what the context has left: each question gets the passages that match it "
                           "best ({retrieval}), with their page. Click to preview.").format(retrieval=self.retrieval)
        return self.tr("Sent whole with your message. Click to preview.")

    def _refresh(self) -> None:
        text = self.summary()
        self.label.setText(text)
        self.label.setAccessibleName(text)
        self.setAccessibleName(text)
        tip = "<p>" + html.escape(self._tooltip()) + "</p>"
        self.setToolTip(tip)
        self.label.setToolTip(tip)
        self.setProperty("failed", bool(self.attachment.error))
        self.remove_button.setAccessibleName(self.tr("Remove {name}").format(name=self.attachment.name))

    def mouseReleaseEvent(self, event: QMouseEvent | None) -> None:
        if event is not None and event.button() == Qt.MouseButton.LeftButton and not self.reading \
                and not self.attachment.error:
            self.preview_requested.emit(self.attachment.id)
        super().mouseReleaseEvent(event)
