"""Choosing one model among a server's many: a filter box over a list view.

The Model menu shows a server's first models as actions; a server that lists
thousands (up to ``MAX_MODELS`` are kept) gets "Filter All N Models…", which
opens this dialog. A list view costs what its visible rows cost, where a menu
builds one QAction per model (200,000 of them froze the GUI for 30 s).
Filtering is Qt's (QSortFilterProxyModel, C++): a few milliseconds for
10,000 names.

Threading rule: GUI thread only.
"""

from __future__ import annotations

from collections.abc import Sequence

from PyQt6.QtCore import QModelIndex, QSortFilterProxyModel, QStringListModel, Qt, pyqtSignal
from PyQt6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QLineEdit, QListView, QVBoxLayout, QWidget


class ModelPicker(QDialog):
    """A server's models, filtered as the user types; Enter, a double-click or
    OK chooses the selected one.

    Signals:
        model_chosen(str): the user chose this model (the dialog then closes).
    """

    #: The user chose a model; arg: the model id.
    model_chosen = pyqtSignal(str)

    def __init__(self, server_name: str, models: Sequence[str], dropped: int = 0, current: str = "",
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Models on {server}").format(server=server_name))
        self.resize(420, 480)
        self._source = QStringListModel(list(models), self)
        self._proxy = QSortFilterProxyModel(self)
        self._proxy.setSourceModel(self._source)
        self._proxy.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.filter_edit = QLineEdit(self)
        self.filter_edit.setPlaceholderText(self.tr("Filter models"))
        self.filter_edit.setClearButtonEnabled(True)
        self.list_view = QListView(self)
        self.list_view.setModel(self._proxy)
        self.list_view.setUniformItemSizes(True)  # row heights are not measured one by one
        self.list_view.setEditTriggers(QListView.EditTrigger.NoEditTriggers)
        self.count_label = QLabel(self)
        self.count_label.setWordWrap(True)
        self._total = len(models)
        self._dropped = dropped
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self)
        layout = QVBoxLayout(self)
        layout.addWidget(self.filter_edit)
        layout.addWidget(self.list_view, 1)
        layout.addWidget(self.count_label)
        layout.addWidget(self.buttons)
        self._connect_signals()
        self._select(current)
        self._show_count()

    def _connect_signals(self) -> None:
        self.filter_edit.textChanged.connect(self._on_filter_changed)
        self.filter_edit.returnPressed.connect(self._on_accepted)
        self.list_view.activated.connect(self._on_row_activated)
        self.buttons.accepted.connect(self._on_accepted)
        self.buttons.rejected.connect(self.reject)

    @property
    def shown(self) -> int:
        """How many models the filter lets through."""
        return self._proxy.rowCount()

    def selected(self) -> str:
        index = self.list_view.currentIndex()
        if not index.isValid() and self._proxy.rowCount() == 1:
            index = self._proxy.index(0, 0)
        return str(index.data()) if index.isValid() else ""

    def _select(self, model: str) -> None:
        matches = self._source.match(self._source.index(0, 0), Qt.ItemDataRole.DisplayRole, model, 1,
                                     Qt.MatchFlag.MatchExactly) if model else []
        if matches:
            index = self._proxy.mapFromSource(matches[0])
            self.list_view.setCurrentIndex(index)
            self.list_view.scrollTo(index)

    def _show_count(self) -> None:
        if self.shown == self._total:
            text = (self.tr("1 model") if self._total == 1 else self.tr("{n} models")).format(n=f"{self._total:,}")
        else:
            text = self.tr("{shown} of {total} models").format(shown=f"{self.shown:,}", total=f"{self._total:,}")
        if self._dropped:
            text += self.tr(". The server listed {more} more; Rill keeps the first {kept}.").format(
                more=f"{self._dropped:,}", kept=f"{self._total:,}")
        self.count_label.setText(text)

    def _on_filter_changed(self, text: str) -> None:
        self._proxy.setFilterFixedString(text.strip())
        if not self.list_view.currentIndex().isValid() and self._proxy.rowCount():
            self.list_view.setCurrentIndex(self._proxy.index(0, 0))
        self._show_count()

    def _on_row_activated(self, index: QModelIndex) -> None:
        self.list_view.setCurrentIndex(index)
        self._on_accepted()

    def _on_accepted(self) -> None:
        model = self.selected()
        if not model:
            return
        self.model_chosen.emit(model)
        self.accept()
