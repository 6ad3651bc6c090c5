"""Model › Manage Models… (Ctrl+Shift+M): every GGUF file Rill knows, what
each one is, and Open / Remove from List / Show in Folder / Add….

The list is ``app.core.models.catalog.scan()`` and each file's details are
``app.core.models.gguf_info`` headers, shown in a ``ModelTable``
(``app.ui.dialogs.model_table``). Both are read on background threads
(``app.ui.dialogs.model_reading``): the dialog shows at once, the paths a
moment later, and the details fill in as each header arrives (a few files per
background call, ~10 ms a file; headers read before come from the catalog's
cache at once). Nothing here reads a file on the GUI thread.

A model whose estimated memory (file + KV cache + compute buffer at Rill's
context size, ``GGUFInfo.memory_estimate``) is more than the memory available
now is flagged, and Open asks first. A file with a problem (missing, damaged,
truncated, not a model) says why and cannot be opened. A model without a chat
template says which format Rill falls back to (ChatML, see
``app.core.backends.llama.backend``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PyQt6.QtCore import QCoreApplication, QModelIndex, Qt, QUrl, pyqtSignal
from PyQt6.QtGui import QAction, QDesktopServices
from PyQt6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMessageBox,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from app.core.base import settings
from app.core.models import catalog as model_catalog
from app.core.models.catalog import SOURCE_ADDED, CatalogEntry
from app.core.models.gguf_info import GGUFInfo
from app.core.models.paths import DEFAULT_N_CTX
from app.core.models.sizes import format_bytes
from app.ui.dialogs.model_reading import ModelReader
from app.ui.dialogs.model_table import COLUMN_WIDTHS, ModelSortProxy, ModelTable
from app.ui.misc.shortcuts import bind


class ModelManagerDialog(QDialog):
    """The Models dialog (see the module docstring)."""

    #: The user chose Open for a model file; arg: its path. The dialog closes.
    model_open_requested = pyqtSignal(str)
    #: A model was added to or taken off Rill's list (Add…, Remove from List); no args.
    list_changed = pyqtSignal()
    #: The list is shown (the background scan arrived); arg: how many models.
    listed = pyqtSignal(int)
    #: Every listed file's header has been read; no args.
    details_finished = pyqtSignal()

    def __init__(
        self,
        parent: QWidget | None = None,
        *,
        entries: list[CatalogEntry] | None = None,
        scan: Callable[[], list[CatalogEntry]] = model_catalog.scan,
        read_info: Callable[[str], GGUFInfo] = model_catalog.info_for,
        available_memory: Callable[[], int | None] = model_catalog.available_memory,
        n_ctx: int = DEFAULT_N_CTX,
    ) -> None:
        """``entries``: list these (no scan); else ``scan()`` runs in the
        background. ``read_info`` and ``available_memory`` run in the
        background too (tests replace them)."""
        super().__init__(parent)
        self.setObjectName("modelManager")
        self.setWindowTitle(self.tr("Models"))
        self.resize(1280, 520)
        self.reader = ModelReader(scan, read_info, available_memory, self)
        #: Opens a folder (QDesktopServices.openUrl; tests replace it).
        self.open_url: Callable[[QUrl], bool] = QDesktopServices.openUrl
        #: The "needs more memory than is free" question while it is shown.
        self.confirm_box: QMessageBox | None = None
        self.table = ModelTable(self, n_ctx)
        self.proxy = ModelSortProxy(self)
        self.proxy.setSourceModel(self.table)
        self._build()
        self._connect_signals()
        if entries is not None:
            self._show_entries(list(entries))
        else:
            self.reader.scan()

    # -- building ------------------------------------------------------------------------

    def _build(self) -> None:
        folder = str(settings.user_models_dir())
        self.intro = QLabel(self.tr(
            "Every model file Rill knows: the models folder ({folder}), files you opened or added, "
            "and the default model. Removing one from the list never deletes the file."
        ).format(folder=folder))
        self.intro.setWordWrap(True)
        self.intro.setObjectName("modelsIntro")
        self.view = QTableView()
        self.view.setObjectName("modelsTable")
        self.view.setAccessibleName(self.tr("Models"))
        self.view.setModel(self.proxy)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.view.setSortingEnabled(True)
        self.view.sortByColumn(-1, Qt.SortOrder.AscendingOrder)  # the catalog's own order until a header is clicked
        self.view.setWordWrap(False)
        self.view.setTextElideMode(Qt.TextElideMode.ElideRight)
        vertical_header = self.view.verticalHeader()
        assert vertical_header is not None
        vertical_header.hide()
        vertical_header.setDefaultSectionSize(24)
        header = self.view.horizontalHeader()
        assert header is not None
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        for col, width in enumerate(COLUMN_WIDTHS):
            header.resizeSection(col, width)
        header.setStretchLastSection(True)
        self.details = QLabel()
        self.details.setObjectName("modelDetails")
        self.details.setWordWrap(True)
        self.details.setTextFormat(Qt.TextFormat.PlainText)
        self.details.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.details.setMinimumHeight(64)
        self.details.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.details.setText(self.tr("Looking for models…"))
        self.add_button = QPushButton(self.tr("&Add…"))
        self.add_button.setToolTip(self.tr("Add a .gguf file from anywhere to the list"))
        self.remove_button = QPushButton(self.tr("&Remove from List"))
        self.remove_button.setToolTip(self.tr("Take the model off Rill's list; the file is not deleted"))
        self.folder_button = QPushButton(self.tr("Show in &Folder"))
        self.open_button = QPushButton(self.tr("&Open"))
        self.open_button.setObjectName("modelsOpen")
        self.open_button.setDefault(True)
        self.close_button = QPushButton(self.tr("Close"))
        buttons = QHBoxLayout()
        for button in (self.add_button, self.remove_button, self.folder_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        buttons.addWidget(self.open_button)
        buttons.addWidget(self.close_button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.intro)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.details)
        layout.addLayout(buttons)
        self._update_buttons()

    def _connect_signals(self) -> None:
        selection = self.view.selectionModel()
        assert selection is not None
        selection.selectionChanged.connect(self._on_selection_changed)
        self.view.doubleClicked.connect(self._on_double_clicked)
        self.table.dataChanged.connect(self._on_table_changed)
        self.add_button.clicked.connect(self._on_add_clicked)
        self.remove_button.clicked.connect(self._on_remove_clicked)
        self.folder_button.clicked.connect(self._on_folder_clicked)
        self.open_button.clicked.connect(self._on_open_clicked)
        self.close_button.clicked.connect(self.reject)
        self.finished.connect(self._on_finished)
        self.reader.scanned.connect(self._on_scanned)
        self.reader.scan_failed.connect(self._on_scan_failed)
        self.reader.headers_read.connect(self._on_headers_read)
        self.reader.finished.connect(self.details_finished)

    # -- listing and reading (background) ----------------------------------------------------

    def _on_scanned(self, entries: list[CatalogEntry], available: int | None) -> None:
        self.table.set_available(available)
        self._show_entries(entries)

    def _on_scan_failed(self, error: str) -> None:
        self.details.setText(self.tr("Could not list the models: {error}").format(error=error))
        self.listed.emit(0)

    def _show_entries(self, entries: list[CatalogEntry]) -> None:
        self.table.set_entries(entries)
        if self.table.rowCount():
            self.view.selectRow(0)
        else:
            self.details.setText(self.tr(
                "No models yet. Put .gguf files in the models folder, use Add…, or drop a .gguf file on Rill's window."
            ))
        self.reader.read(self.table.unread_paths())
        self._update_buttons()
        self.listed.emit(len(entries))
        if self.reader.idle:
            self.details_finished.emit()

    def _on_headers_read(self, done: list[tuple[str, GGUFInfo]], available: int | None) -> None:
        self.table.set_available(available)
        for path, info in done:
            self.table.set_info(path, info)

    # -- selection -----------------------------------------------------------------------------

    def selected_row(self) -> int | None:
        """The selected row in the table model (not the sorted view), or None."""
        selection = self.view.selectionModel()
        assert selection is not None
        rows = selection.selectedRows()
        if not rows:
            return None
        return self.proxy.mapToSource(rows[0]).row()

    def select_path(self, path: str | Path) -> bool:
        row = self.table.row_of(path)
        if row is None:
            return False
        index = self.proxy.mapFromSource(self.table.index(row, 0))
        self.view.selectRow(index.row())
        self.view.scrollTo(index)
        return True

    def _update_buttons(self) -> None:
        row = self.selected_row()
        entry = self.table.entry(row) if row is not None else None
        self.open_button.setEnabled(row is not None and self.table.can_open(row))
        self.remove_button.setEnabled(entry is not None and entry.removable)
        self.folder_button.setEnabled(entry is not None and entry.exists)
        if entry is not None and not entry.removable:
            self.remove_button.setToolTip(self.tr(
                "Only models you opened or added can be removed; this one is in the {where}."
            ).format(where=entry.source_label.lower()))
        else:
            self.remove_button.setToolTip(self.tr("Take the model off Rill's list; the file is not deleted"))
        self.details.setText(self._details_text(row))

    def _details_text(self, row: int | None) -> str:
        if row is None:
            return self.details.text() if not self.table.rowCount() else ""
        entry, info = self.table.entry(row), self.table.info(row)
        lines = [str(entry.path)]
        problem = self.table.problem(row)
        if problem:
            lines.append(f"✗ {problem}" + ("" if problem.endswith(".") else "."))
            return "\n".join(lines)
        if info is None:
            lines.append(self.tr("Reading the file's details…"))
            return "\n".join(lines)
        n_ctx = self.table.n_ctx
        needed = info.memory_estimate(n_ctx) or 0
        kv = info.kv_cache_bytes(n_ctx)
        parts = [self.tr("weights {size}").format(size=format_bytes(info.total_size or info.file_size))]
        if kv:
            parts.append(self.tr("KV cache {size}").format(size=format_bytes(kv)))
        if info.compute_buffer_bytes():
            parts.append(self.tr("compute {size}").format(size=format_bytes(info.compute_buffer_bytes())))
        available = self.table.available
        if available is not None:
            memory = self.tr(
                "Needs about {needed} at a {n_ctx:,}-token context ({parts}); {available} is available now."
            )
        else:
            memory = self.tr("Needs about {needed} at a {n_ctx:,}-token context ({parts}).")
        memory = memory.format(
            needed=format_bytes(needed),
            n_ctx=n_ctx,
            parts=self.tr(", ", "separates the parts of a memory estimate").join(parts),
            available=format_bytes(available),
        )
        if self.table.too_large(row):
            memory = self.tr("⚠ {estimate} Loading it may make the computer swap or fail.").format(estimate=memory)
        lines.append(memory)
        if info.name:
            lines.append(self.tr("Name in the file: {name}").format(name=info.name))
        lines += [f"⚠ {w}" for w in info.warnings]
        return "\n".join(lines)

    # -- slots ------------------------------------------------------------------------------

    def _on_selection_changed(self, *_args: object) -> None:
        row = self.selected_row()
        if row is not None and self.table.info(row) is None:
            self.reader.prioritize(str(self.table.entry(row).path))
        self._update_buttons()

    def _on_table_changed(self, top_left: QModelIndex, bottom_right: QModelIndex, *_roles: object) -> None:
        row = self.selected_row()
        if row is not None and top_left.row() <= row <= bottom_right.row():
            self._update_buttons()

    def _on_double_clicked(self, index: QModelIndex) -> None:
        self._on_open_clicked()

    def _on_open_clicked(self) -> None:
        row = self.selected_row()
        if row is None or not self.table.can_open(row):
            return
        path = str(self.table.entry(row).path)
        if not self.table.too_large(row):
            self._open(path)
            return
        info = self.table.info(row)
        needed = info.memory_estimate(self.table.n_ctx) if info is not None else None
        box = QMessageBox(
            QMessageBox.Icon.Warning,
            self.tr("Open a Large Model?"),
            self.tr(
                "{name} needs about {needed} of memory and {available} is available now. Loading it may "
                "make the computer slow down (swapping) or fail. Open it anyway?"
            ).format(
                name=self.table.entry(row).path.name,
                needed=format_bytes(needed),
                available=format_bytes(self.table.available),
            ),
            QMessageBox.StandardButton.Open | QMessageBox.StandardButton.Cancel,
            self,
        )
        box.setObjectName("largeModelQuestion")
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.buttonClicked.connect(lambda button, p=path: self._on_large_answered(box, button, p))
        self.confirm_box = box
        box.open()

    def _on_large_answered(self, box: QMessageBox, button: Any, path: str) -> None:
        self.confirm_box = None
        if box.standardButton(button) == QMessageBox.StandardButton.Open:
            self._open(path)

    def _open(self, path: str) -> None:
        self.model_open_requested.emit(path)
        self.accept()

    def _on_remove_clicked(self) -> None:
        row = self.selected_row()
        if row is None:
            return
        entry = self.table.entry(row)
        if not entry.removable:
            return
        model_catalog.remove(entry.path)  # a small settings write (as Open Model File… does)
        others = tuple(s for s in entry.sources if s != SOURCE_ADDED)
        if others:
            self.table.set_entry(row, dataclasses.replace(entry, sources=others))
        else:
            self.table.remove_row(row)
            if self.table.rowCount():
                self.view.selectRow(min(row, self.table.rowCount() - 1))
        self._update_buttons()
        self.list_changed.emit()

    def _on_folder_clicked(self) -> None:
        row = self.selected_row()
        if row is not None and self.table.entry(row).exists:
            self.open_url(QUrl.fromLocalFile(str(self.table.entry(row).path.parent)))

    def _on_add_clicked(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, self.tr("Add a Model"), str(settings.user_models_dir()), self.tr("GGUF models (*.gguf);;All files (*)")
        )
        if path:
            self.add_model(path)

    def add_model(self, path: str) -> None:
        """Put ``path`` on Rill's list and show it (its details follow)."""
        path = str(Path(path).absolute())
        model_catalog.add(path)
        row = self.table.row_of(path)
        if row is None:
            row = self.table.append(CatalogEntry(Path(path), (SOURCE_ADDED,), True))
            self.reader.read_first(path)
        else:
            entry = self.table.entry(row)
            if SOURCE_ADDED not in entry.sources:
                self.table.set_entry(row, dataclasses.replace(entry, sources=entry.sources + (SOURCE_ADDED,)))
        self.select_path(path)
        self.list_changed.emit()

    def _on_finished(self, _result: int) -> None:
        self.reader.cancel()  # headers still being read are not needed any more


def make_manage_action(parent: QWidget) -> QAction:
    """Model › Manage Models… (Ctrl+Shift+M)."""
    action = QAction(QCoreApplication.translate("ModelManager", "&Manage Models…"), parent)
    bind(action, "manage_models")
    action.setToolTip(
        QCoreApplication.translate(
            "ModelManager", "Every model file Rill knows: details, memory needed, open, remove (Ctrl+Shift+M)"
        )
    )
    return action
