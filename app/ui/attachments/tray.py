"""The chips of the message being written, above the message box.

``ChipTray`` follows an ``AttachmentService``: a chip appears when a file
starts being read, shows its progress, then what it holds and how it will be
sent (the mode comes from ``planned()``, asked again whenever the attachments
change: whole or best passages), or its error; × removes it (a read still
running is cancelled); a click opens its preview. The tray hides itself
while empty.

Threading rule: GUI thread only.
"""

from __future__ import annotations

from collections.abc import Callable

from PyQt6.QtWidgets import QHBoxLayout, QWidget

from app.core.attachments.record import Attachment, AttachmentKind
from app.ui.attachments.chips import FileChip
from app.ui.attachments.preview import PreviewDialog
from app.ui.attachments.service import AttachmentService


class ChipTray(QWidget):
    """See the module docstring. ``planned()``: the pending attachments with
    their modes for the context left now; ``can_see_images()``: the current model's."""

    def __init__(
        self,
        service: AttachmentService,
        planned: Callable[[], list[Attachment]],
        can_see_images: Callable[[], bool],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("attachmentTray")
        self.setAccessibleName(self.tr("Attached files"))
        self.service = service
        self._planned = planned
        self._can_see_images = can_see_images
        self.chips: dict[str, FileChip] = {}
        self._layout = QHBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._layout.setSpacing(6)
        self._layout.addStretch(1)
        self.preview: PreviewDialog | None = None
        self.hide()
        self._connect_signals()

    def _connect_signals(self) -> None:
        s = self.service
        s.attachment_added.connect(self._on_attachment_added)
        s.attachment_read.connect(self._on_attachment_read)
        s.attachment_removed.connect(self._on_attachment_removed)
        s.progress_changed.connect(self._on_progress_changed)
        s.pending_changed.connect(self.refresh_modes)
        s.embedding.mode_changed.connect(self._on_retrieval_mode_changed)

    def _on_attachment_added(self, attachment: Attachment) -> None:
        chip = FileChip(attachment, self, retrieval=self.service.embedding.label())
        chip.remove_requested.connect(self.service.remove)
        chip.preview_requested.connect(self.show_preview)
        self.chips[attachment.id] = chip
        self._layout.insertWidget(self._layout.count() - 1, chip)
        self.show()

    def _on_attachment_read(self, attachment: Attachment) -> None:
        chip = self.chips.get(attachment.id)
        if chip is not None:
            chip.set_read(attachment)

    def _on_attachment_removed(self, attachment_id: str) -> None:
        chip = self.chips.pop(attachment_id, None)
        if chip is not None:
            self._layout.removeWidget(chip)
            chip.deleteLater()
        if not self.chips:
            self.hide()

    def _on_progress_changed(self, attachment_id: str, fraction: float) -> None:
        chip = self.chips.get(attachment_id)
        if chip is not None and chip.reading:
            chip.set_progress(fraction)

    def _on_retrieval_mode_changed(self) -> None:
        label = self.service.embedding.label()
        for chip in self.chips.values():
            chip.set_retrieval(label)

    def refresh_modes(self) -> None:
        """Show on each chip how it would be sent now (the context changed, or the attachments)."""
        if not self.chips:
            return
        see = self._can_see_images()
        for att in self._planned():
            chip = self.chips.get(att.id)
            if chip is not None and not chip.reading:
                chip.set_mode(att.mode, see)

    def show_preview(self, attachment_id: str) -> None:
        content = self.service.content(attachment_id)
        if content is None:
            return
        att = content.attachment
        if att.kind is AttachmentKind.IMAGE:
            dialog = PreviewDialog(att.name, image=content.image, parent=self.window())
        else:
            text = content.extracted.text if content.extracted is not None else ""
            dialog = PreviewDialog(att.name, text=text, parent=self.window())
        self.preview = dialog
        dialog.show()
