"""The sources of the last reply, under the conversation: "Sources:
report.pdf p. 217, p. 218", each one a link that shows the chunk's text.

``SourcesStrip`` shows the sources of the newest reply of the conversation
shown that was given chunks (``show_sources``); it is empty and hidden
otherwise. It is filled again when a conversation reopens (the service reads
its replies' sources from the store).

Signals:

* ``source_opened(object)``: the user opened one source; arg: the Source.

Threading rule: GUI thread only.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from PyQt6.QtCore import Qt, pyqtSignal
from PyQt6.QtWidgets import QLabel, QWidget

from app.core.attachments.context import Source, label
from app.ui.attachments.preview import PreviewDialog


class SourcesStrip(QLabel):
    """See the module docstring."""

    source_opened = pyqtSignal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("replySources")
        self.setTextFormat(Qt.TextFormat.RichText)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.LinksAccessibleByMouse
                                     | Qt.TextInteractionFlag.LinksAccessibleByKeyboard)
        self.setWordWrap(True)
        self.sources: tuple[Source, ...] = ()
        self.reply_id = ""
        self.preview: PreviewDialog | None = None
        self.hide()
        self.linkActivated.connect(self._on_link_activated)

    def show_sources(self, reply_id: str, sources: Sequence[Source]) -> None:
        """Show ``sources`` (those of reply ``reply_id``); none: hide."""
        self.reply_id = reply_id
        self.sources = tuple(sources)
        if not self.sources:
            self.clear()
            self.hide()
            return
        by_file: dict[str, list[int]] = {}
        for i, s in enumerate(self.sources):
            by_file.setdefault(s.file, []).append(i)
        groups = []
        for name, indexes in by_file.items():
            pages = sorted(indexes, key=lambda i: self.sources[i].page)
            links = ", ".join(f'<a href="source:{i}">p. {self.sources[i].page}</a>' for i in pages)
            groups.append(f"{html.escape(name)} {links}")
        self.setText(html.escape(self.tr("Sources:")) + " " + "; ".join(groups))
        self.setAccessibleName(self.tr("Sources: {list}").format(list="; ".join(label(s) for s in self.sources)))
        self.show()

    def open_source(self, index: int) -> None:
        source = self.sources[index]
        self.source_opened.emit(source)
        self.preview = PreviewDialog(label(source), text=source.text, parent=self.window())
        self.preview.show()

    def _on_link_activated(self, link: str) -> None:
        if link.startswith("source:"):
            try:
                index = int(link.split(":", 1)[1])
            except ValueError:
                return
            if 0 <= index < len(self.sources):
                self.open_source(index)
