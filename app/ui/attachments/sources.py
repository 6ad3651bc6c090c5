"""A reply's sources: the line its footer lists them with, and what
clicking it does.

A reply that was given passages of attached files lists them under it, in
its footer ("Sources: report.pdf p. 217, p. 218"; the chat view paints the
line, asking ``SourcesMenu.line`` for the footers it lays out). Clicking the
line (the footer action "sources") opens a menu of the passages at the
pointer, each with its first words; choosing one shows its text in a
preview. A reply given one passage shows it at once.

Signals:

* ``source_opened(object)``: the user opened one source; arg: the Source.

Threading rule: GUI thread only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PyQt6.QtCore import QObject, QPoint, pyqtSignal
from PyQt6.QtGui import QCursor
from PyQt6.QtWidgets import QMenu, QWidget

from app.core.attachments.context import Source, label, sources_line
from app.ui.attachments.preview import PreviewDialog

#: Characters of a passage's first words shown in the menu.
MENU_PREVIEW_CHARS = 60


class SourcesMenu(QObject):
    """See the module docstring. ``sources_of(message_id)`` answers a reply's sources."""

    source_opened = pyqtSignal(object)

    def __init__(self, sources_of: Callable[[str], Sequence[Source]], parent: QWidget) -> None:
        super().__init__(parent)
        self._sources_of = sources_of
        self._parent = parent
        self._lines: dict[str, tuple[tuple[Source, ...], str]] = {}
        self.menu: QMenu | None = None
        self.preview: PreviewDialog | None = None

    def line(self, message_id: str) -> str:
        """The footer's "Sources: …" line of a reply ("" when it was given none);
        asked at every paint of a footer, so it is worked out once per reply."""
        sources = tuple(self._sources_of(message_id))
        if not sources:
            return ""
        known = self._lines.get(message_id)
        if known is None or known[0] != sources:
            known = (sources, sources_line(sources))
            self._lines[message_id] = known
        return known[1]

    def open_sources(self, message_id: str, at: QPoint | None = None) -> None:
        """The user clicked a reply's sources line: its passages in a menu
        at ``at`` (global; None: the pointer), or the only one at once."""
        sources = tuple(self._sources_of(message_id))
        if not sources:
            return
        if len(sources) == 1:
            self.open_source(sources[0])
            return
        if self.menu is not None:
            self.menu.deleteLater()
        self.menu = QMenu(self._parent)
        self.menu.setObjectName("replySourcesMenu")
        self.menu.setAccessibleName(self.tr("Sources"))
        for source in sorted(sources, key=lambda s: (s.file, s.page, s.chunk_index)):
            words = " ".join(source.text.split())
            if len(words) > MENU_PREVIEW_CHARS:
                words = words[:MENU_PREVIEW_CHARS] + "…"
            action = self.menu.addAction(f"{label(source)} — {words}".replace("&", "&&"))
            if action is not None:
                action.triggered.connect(lambda _=False, s=source: self.open_source(s))
        self.menu.popup(at if at is not None else QCursor.pos())

    def open_source(self, source: Source) -> None:
        """Show one passage's text."""
        self.source_opened.emit(source)
        if self.preview is not None:
            self.preview.close()
        self.preview = PreviewDialog(label(source), text=source.text, parent=self._parent.window())
        self.preview.show()
