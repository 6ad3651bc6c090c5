"""Settings › Documents: the embedding model attachments are retrieved with.

The combo offers "None — match by keywords", the embedding models of the
user's library (``app.core.models.embedding``: read off the GUI thread, they
appear when found) and "Browse…" for any ``.gguf`` file. ``path()`` is the
choice ("" : none); Settings saves it as ``Preferences.embedding_model``.
A browsed file whose header is not an embedding model's is kept (a chat
model embeds too, by averaging) with a note that it may match poorly.

Signals:

* ``changed()``: the choice changed.

Threading rule: GUI thread; the library is read on a background call.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from PyQt6.QtCore import Qt, pyqtSignal
from PyQt6.QtWidgets import QComboBox, QFileDialog, QFormLayout, QGroupBox, QLabel, QWidget

from app.core.models.embedding import embedding_models, is_embedding_model
from app.ui.misc.theme import set_tone
from app.ui.services.background import BackgroundCalls

#: The combo's item data of "Browse…" (never a path).
BROWSE = "\x00browse"


class EmbeddingGroup(QGroupBox):
    """See the module docstring. ``models_dir``/``settings_path``: the
    library's (None: the user's)."""

    changed = pyqtSignal()

    def __init__(self, parent: QWidget | None = None, models_dir: Path | None = None,
                 settings_path: Path | None = None) -> None:
        super().__init__(self.tr("Documents"), parent)
        self.setObjectName("documentsGroup")
        self._calls = BackgroundCalls(self)
        self._last = ""
        #: Whether the library's embedding models were listed.
        self.listed = False
        self.combo = QComboBox()
        self.combo.setObjectName("embeddingModel")
        self.combo.setAccessibleName(self.tr("Embedding model"))
        self.combo.setToolTip(self.tr("Long attachments send each question the passages that match it best: by "
                                      "keywords, or also by meaning with an embedding model (a small GGUF file)"))
        self.combo.addItem(self.tr("None — match by keywords"), "")
        self.combo.addItem(self.tr("Browse…"), BROWSE)
        self.note = QLabel()
        self.note.setObjectName("embeddingNote")
        self.note.setWordWrap(True)
        set_tone(self.note, "muted")
        self.hint = QLabel(self.tr("Long attachments send each question their best passages, matched by keywords, "
                                   "and by meaning too with an embedding model."))
        self.hint.setObjectName("embeddingHint")
        self.hint.setWordWrap(True)
        set_tone(self.hint, "muted")
        self._form = form = QFormLayout(self)
        form.addRow(self.tr("&Embedding model:"), self.combo)
        form.addRow("", self.note)
        form.addRow(self.hint)
        self._show_note(False)
        self._connect_signals()
        self._calls.run(lambda _c: embedding_models(models_dir, settings_path), self._on_models_listed,
                        name="rill-embedding-models")

    def _connect_signals(self) -> None:
        self.combo.activated.connect(self._on_activated)
        self.combo.currentIndexChanged.connect(self._on_index_changed)

    def path(self) -> str:
        """The chosen model's path ("" : none)."""
        data = self.combo.currentData()
        return data if isinstance(data, str) and data != BROWSE else ""

    def set_path(self, path: str) -> None:
        """Show ``path`` as the choice ("" : none), adding it when not listed."""
        index = self.combo.findData(path) if path else 0
        if index < 0:
            index = self._add(path)
        self._last = path
        self.combo.setCurrentIndex(index)
        self._show_note(False)

    def add_file(self, path: str) -> None:
        """Choose the file ``path`` (what Browse… does), checking its header in the background."""
        self.set_path(path)
        self.changed.emit()

        def checked(result: Any, error: BaseException | None) -> None:
            if self.path() != path:
                return
            if error is not None or not result:
                self.note.setText(self.tr("{name} is not an embedding model: it can be used, but passages may "
                                          "match its meaning poorly.").format(name=os.path.basename(path)))
                self._show_note(True)

        self._calls.run(lambda _c: is_embedding_model(path), checked, name="rill-embedding-check")

    def _show_note(self, shown: bool) -> None:
        self._form.setRowVisible(self.note, shown)

    def _add(self, path: str) -> int:
        index = self.combo.count() - 1  # before Browse…
        self.combo.insertItem(index, os.path.basename(path), path)
        self.combo.setItemData(index, path, Qt.ItemDataRole.ToolTipRole)
        return index

    def _on_models_listed(self, result: Any, error: BaseException | None) -> None:
        self.listed = True
        if error is not None or not isinstance(result, list):
            return
        for model in result:
            if self.combo.findData(str(model)) < 0:
                self._add(str(model))

    def _on_index_changed(self) -> None:
        if self.combo.currentData() != BROWSE:
            self._last = self.path()
            self._show_note(False)
            self.changed.emit()

    def _on_activated(self) -> None:
        if self.combo.currentData() != BROWSE:
            return
        self.set_path(self._last)  # until a file is picked
        path, _ = QFileDialog.getOpenFileName(self, self.tr("Choose an Embedding Model"), "",
                                              self.tr("GGUF models (*.gguf)"))
        if path:
            self.add_file(path)
