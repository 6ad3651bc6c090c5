"""The Manage Models table (``app.ui.dialogs.model_manager``): one row per
model file of the catalog, one column per fact of its header
(``app.core.models.gguf_info``), what each row's status is (cannot be opened
and why, needs more memory than is free, no chat template) and how each
column sorts (``ModelSortProxy``).

It holds what it is given: the dialog reads the files and the memory
available in the background and hands the results over.

Threading rule: GUI thread only.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from PyQt6.QtCore import (
    QT_TRANSLATE_NOOP,
    QAbstractTableModel,
    QCoreApplication,
    QModelIndex,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
)
from PyQt6.QtWidgets import QWidget

from app.core.models import catalog as model_catalog
from app.core.models.catalog import CatalogEntry
from app.core.models.gguf_info import FALLBACK_TEMPLATE, GGUFInfo
from app.core.models.paths import DEFAULT_N_CTX
from app.core.models.sizes import format_bytes
from app.ui.misc import theme

NOT_FOUND = QT_TRANSLATE_NOOP("ModelTable", "File not found")

#: The column titles (English; shown translated in the "ModelTable" context).
COLUMNS = (
    QT_TRANSLATE_NOOP("ModelTable", "Name"),
    QT_TRANSLATE_NOOP("ModelTable", "Status"),
    QT_TRANSLATE_NOOP("ModelTable", "Architecture"),
    QT_TRANSLATE_NOOP("ModelTable", "Parameters"),
    QT_TRANSLATE_NOOP("ModelTable", "Quantization"),
    QT_TRANSLATE_NOOP("ModelTable", "Context"),
    QT_TRANSLATE_NOOP("ModelTable", "Template"),
    QT_TRANSLATE_NOOP("ModelTable", "Size"),
    QT_TRANSLATE_NOOP("ModelTable", "Memory"),
    QT_TRANSLATE_NOOP("ModelTable", "License"),
    QT_TRANSLATE_NOOP("ModelTable", "Source"),
)
(COL_NAME, COL_STATUS, COL_ARCH, COL_PARAMS, COL_QUANT, COL_CTX,
 COL_TEMPLATE, COL_SIZE, COL_MEMORY, COL_LICENSE, COL_SOURCE) = range(len(COLUMNS))
#: The columns' first widths (pixels).
COLUMN_WIDTHS = (200, 200, 95, 85, 95, 70, 130, 80, 80, 85, 110)

#: data() role: the value a column sorts by.
SORT_ROLE = Qt.ItemDataRole.UserRole + 1
#: data() role: the row's CatalogEntry.
ENTRY_ROLE = Qt.ItemDataRole.UserRole + 2



@dataclasses.dataclass
class _Row:
    entry: CatalogEntry
    info: GGUFInfo | None = None  # None: not read yet


class ModelTable(QAbstractTableModel):
    """The catalog as rows (one per file), one column per COLUMNS entry."""

    def __init__(self, parent: QWidget | None = None, n_ctx: int = DEFAULT_N_CTX) -> None:
        super().__init__(parent)
        self.n_ctx = n_ctx
        #: Bytes of memory available now (None: unknown): larger models are flagged.
        self.available: int | None = None
        self._rows: list[_Row] = []
        self._by_path: dict[str, int] = {}

    # -- content -----------------------------------------------------------------------

    def set_entries(self, entries: list[CatalogEntry]) -> None:
        """Show ``entries``; details already in the catalog's cache at once (no I/O)."""
        self.beginResetModel()
        self._rows = [_Row(e, model_catalog.cached_info(e.path) if e.exists else None) for e in entries]
        self._reindex()
        self.endResetModel()

    def _reindex(self) -> None:
        self._by_path = {str(r.entry.path): i for i, r in enumerate(self._rows)}

    def append(self, entry: CatalogEntry) -> int:
        row = len(self._rows)
        self.beginInsertRows(QModelIndex(), row, row)
        self._rows.append(_Row(entry))
        self._reindex()
        self.endInsertRows()
        return row

    def remove_row(self, row: int) -> None:
        self.beginRemoveRows(QModelIndex(), row, row)
        del self._rows[row]
        self._reindex()
        self.endRemoveRows()

    def set_entry(self, row: int, entry: CatalogEntry) -> None:
        self._rows[row].entry = entry
        self._row_changed(row)

    def set_info(self, path: str, info: GGUFInfo) -> None:
        row = self._by_path.get(path)
        if row is not None:
            self._rows[row].info = info
            self._row_changed(row)

    def set_available(self, available: int | None) -> None:
        if available != self.available:
            self.available = available
            if self._rows:
                self.dataChanged.emit(self.index(0, COL_STATUS), self.index(len(self._rows) - 1, COL_MEMORY))

    def _row_changed(self, row: int) -> None:
        self.dataChanged.emit(self.index(row, 0), self.index(row, len(COLUMNS) - 1))

    def row_of(self, path: str | Path) -> int | None:
        return self._by_path.get(str(path))

    def entry(self, row: int) -> CatalogEntry:
        return self._rows[row].entry

    def info(self, row: int) -> GGUFInfo | None:
        return self._rows[row].info

    def entries(self) -> list[CatalogEntry]:
        return [r.entry for r in self._rows]

    def unread_paths(self) -> list[str]:
        return [str(r.entry.path) for r in self._rows if r.info is None and r.entry.exists]

    # -- judgements ----------------------------------------------------------------------

    def too_large(self, row: int) -> bool:
        """The model needs more memory than is available now (estimate)."""
        info = self._rows[row].info
        needed = info.memory_estimate(self.n_ctx) if info is not None else None
        return needed is not None and self.available is not None and needed > self.available

    def can_open(self, row: int) -> bool:
        r = self._rows[row]
        return r.entry.exists and r.info is not None and r.info.ok

    def problem(self, row: int) -> str:
        """Why the file cannot be opened ("" when it can, or is not read yet)."""
        r = self._rows[row]
        if not r.entry.exists:
            return QCoreApplication.translate("ModelTable", NOT_FOUND)
        if r.info is not None and r.info.error:
            missing = QCoreApplication.translate("GGUFInfo", "File not found.")
            return QCoreApplication.translate("ModelTable", NOT_FOUND) if r.info.error == missing else r.info.error
        return ""

    def status(self, row: int) -> tuple[str, str]:
        """(text, kind) of the Status column: kind is "error", "warning", "busy" or ""."""
        r = self._rows[row]
        problem = self.problem(row)
        if problem:
            return f"✗ {problem}", "error"
        if r.info is None:
            return self.tr("Reading…"), "busy"
        if self.too_large(row):
            return self.tr("⚠ More memory than is free"), "warning"
        if not r.info.has_chat_template:
            return self.tr("⚠ No template: uses {template}").format(template=FALLBACK_TEMPLATE), "warning"
        if r.info.warnings:
            return f"⚠ {r.info.warnings[0]}", "warning"
        return self.tr("OK"), ""

    # -- QAbstractTableModel ----------------------------------------------------------------

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: N802, B008 (Qt API)
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: N802, B008 (Qt API)
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:  # noqa: N802 (Qt API)
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole and 0 <= section < len(COLUMNS):
            return QCoreApplication.translate("ModelTable", COLUMNS[section])
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.ToolTipRole and section == COL_MEMORY:
            return self.tr(
                "Estimated memory to load it at a {n_ctx}-token context: file + KV cache + compute buffer"
            ).format(n_ctx=self.n_ctx)
        return None

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        row, col = index.row(), index.column()
        r = self._rows[row]
        if role == Qt.ItemDataRole.DisplayRole:
            return self._text(row, col)
        if role == SORT_ROLE:
            return self._sort_key(row, col)
        if role == ENTRY_ROLE:
            return r.entry
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._tooltip(row)
        if role == Qt.ItemDataRole.ForegroundRole and col in (COL_STATUS, COL_NAME, COL_MEMORY):
            kind = self.status(row)[1]
            if kind == "error" and col != COL_MEMORY:
                return theme.color("error")
            if kind == "warning" and (col == COL_STATUS or (col == COL_MEMORY and self.too_large(row))):
                return theme.color("warning")
        if role == Qt.ItemDataRole.TextAlignmentRole and col in (COL_PARAMS, COL_CTX, COL_SIZE, COL_MEMORY):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def _text(self, row: int, col: int) -> str:
        r = self._rows[row]
        info = r.info
        if col == COL_NAME:
            return info.display_name if info is not None and info.display_name else r.entry.path.stem
        if col == COL_STATUS:
            return self.status(row)[0]
        if col == COL_SOURCE:
            return r.entry.source_label
        if info is None:
            return ""
        if col == COL_ARCH:
            return info.architecture
        if col == COL_PARAMS:
            return info.parameters_label
        if col == COL_QUANT:
            return info.quantization
        if col == COL_CTX:
            return f"{info.context_length:,}" if info.context_length else ""
        if col == COL_TEMPLATE:
            return info.template_label
        if col == COL_SIZE:
            return format_bytes(info.total_size or info.file_size) if info.file_size else ""
        if col == COL_MEMORY:
            return format_bytes(info.memory_estimate(self.n_ctx))
        if col == COL_LICENSE:
            return info.license
        return ""

    def _sort_key(self, row: int, col: int) -> Any:
        info = self._rows[row].info
        if info is not None:
            if col == COL_PARAMS:
                return float(info.parameters or 0)
            if col == COL_CTX:
                return float(info.context_length or 0)
            if col == COL_SIZE:
                return float(info.total_size or info.file_size)
            if col == COL_MEMORY:
                return float(info.memory_estimate(self.n_ctx) or 0)
        elif col in (COL_PARAMS, COL_CTX, COL_SIZE, COL_MEMORY):
            return 0.0
        return self._text(row, col).casefold()

    def _tooltip(self, row: int) -> str:
        r = self._rows[row]
        lines = [str(r.entry.path)]
        info = r.info
        if info is not None and info.name:
            lines.append(self.tr("Name in the file: {name}").format(name=info.name))
        problem = self.problem(row)
        if problem:
            lines.append(problem)
        elif info is not None:
            lines += list(info.warnings)
        return "\n".join(lines)


class ModelSortProxy(QSortFilterProxyModel):
    """The table sorted by the column clicked (each column's SORT_ROLE value)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setSortRole(SORT_ROLE)
