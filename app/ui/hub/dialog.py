"""Model › Get More Models…: find a model on the Hugging Face Hub, see whether
it fits, download it and load it (``GetModelsDialog``).

* Left: the recommended models first (``resources/hub/recommended.json``, the
  one for this machine starred), then the search results (downloads, likes,
  update date, licence).
* Right: the chosen repository's GGUF models: quantization, size, a fit
  label (``app.core.hub.fit``) and, for the selected file, what its GGUF
  header says (architecture, trained context, chat template, the KV cache at
  the chosen context), read from the Hub by a range request without
  downloading the file. Vision projectors and embedding models are listed as
  such.
* Below: the downloads (``app.ui.hub.downloads.DownloadsPanel``) of the
  application's ``HubService``; Load opens a finished one.

Every network call (search, file list, header, the keyring) is a background
call (``BackgroundCalls``); answers that arrive for an older question are
dropped. GUI thread only.
"""

from __future__ import annotations

from typing import Any

from PyQt6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt, pyqtSignal
from PyQt6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.core.base.settings import user_models_dir
from app.core.hub import browse
from app.core.hub.api import ModelFile
from app.core.hub.fit import Machine, estimate_needed, fit_for, this_machine
from app.core.hub.partial import CancelToken
from app.core.hub.quant import KIND_EMBEDDING, KIND_MODEL, KIND_PROJECTOR, quant_group
from app.core.hub.recommended import Recommended, load_recommended, pick_for
from app.core.models.gguf_info import GGUFInfo
from app.core.models.paths import DEFAULT_N_CTX
from app.core.models.sizes import format_bytes
from app.ui.hub.downloads import DownloadsPanel
from app.ui.hub.lines import header_line, recommended_line, repo_line
from app.ui.services.background import BackgroundCalls
from app.ui.services.hub import HubService

ROLE_DATA = Qt.ItemDataRole.UserRole


#: Qt's translate, by the name lupdate looks for.
translate = QCoreApplication.translate



class GetModelsDialog(QDialog):
    """See the module docstring.

    Signals:

    * ``model_open_requested``: Load on a finished download; arg: the model file's path.
    * ``hub_settings_requested``: Hub Address and Token… was clicked; no args
      (the window opens ``app.ui.dialogs.hub_settings``).
    """

    #: Load was clicked on a downloaded model; arg: its path (str).
    model_open_requested = pyqtSignal(str)
    #: Hub Address and Token… was clicked; no args.
    hub_settings_requested = pyqtSignal()

    COLUMNS = (QT_TRANSLATE_NOOP("GetModels", "File"), QT_TRANSLATE_NOOP("GetModels", "Quantization"),
               QT_TRANSLATE_NOOP("GetModels", "Size"), QT_TRANSLATE_NOOP("GetModels", "Fit"),
               QT_TRANSLATE_NOOP("GetModels", "Header"))

    def __init__(self, service: HubService, parent: QWidget | None = None, n_ctx: int = DEFAULT_N_CTX) -> None:
        super().__init__(parent)
        self.setWindowTitle(translate("GetModels", "Get More Models"))
        self.resize(1000, 680)
        self.service = service
        self._calls = BackgroundCalls(self)
        self._machine = Machine(None, None)
        self._recommended: list[Recommended] = []
        self._picked: Recommended | None = None
        self._models: list[ModelFile] = []
        self._headers: dict[tuple[str, str, int], GGUFInfo] = {}
        self._repo = ""
        self._wanted_file = ""
        self._select_when_loaded: Recommended | None = None
        #: Get It (the demo model's offer): download this file as soon as its repository is listed.
        self._download_when_listed = ""
        self._generation = {"search": 0, "files": 0, "header": 0}
        self._build(n_ctx)
        self._connect_signals()
        self._calls.run(lambda _c: (this_machine(), load_recommended()), self._on_recommended_loaded,
                        name="rill-hub-recommended")

    # -- building ---------------------------------------------------------------------------

    def _build(self, n_ctx: int) -> None:
        self.search_edit = QLineEdit()
        self.search_edit.setPlaceholderText(translate("GetModels", "Search the Hub for GGUF models (qwen, llama, gemma…)"))
        self.search_edit.setAccessibleName(translate("GetModels", "Search the Hub"))
        self.search_button = QPushButton(translate("GetModels", "&Search"))
        self.n_ctx_spin = QSpinBox()
        self.n_ctx_spin.setRange(512, 131072)
        self.n_ctx_spin.setSingleStep(1024)
        self.n_ctx_spin.setValue(n_ctx)
        self.n_ctx_spin.setToolTip(translate("GetModels", "The context length the fit and the KV cache are judged at"))
        self.settings_button = QPushButton(translate("GetModels", "Hub Address and Token…"))
        top = QHBoxLayout()
        top.addWidget(self.search_edit, 1)
        top.addWidget(self.search_button)
        top.addWidget(QLabel(translate("GetModels", "Context:")))
        top.addWidget(self.n_ctx_spin)
        top.addWidget(self.settings_button)

        self.repos = QTreeWidget()
        self.repos.setColumnCount(2)
        self.repos.setHeaderLabels([translate("GetModels", "Model"), translate("GetModels", "Details")])
        self.repos.setAccessibleName(translate("GetModels", "Recommended models and search results"))
        self.recommended_root = QTreeWidgetItem([translate("GetModels", "Recommended"),
                                                 translate("GetModels", "Reading this machine's memory…")])
        self.results_root = QTreeWidgetItem([translate("GetModels", "Search results"),
                                             translate("GetModels", "Type some words and press Search")])
        for root in (self.recommended_root, self.results_root):
            root.setFlags(root.flags() & ~Qt.ItemFlag.ItemIsSelectable)
            self.repos.addTopLevelItem(root)
            root.setExpanded(True)
        self.repos.setColumnWidth(0, 250)

        self.repo_label = QLabel(translate("GetModels", "Choose a model on the left."))
        self.repo_label.setWordWrap(True)
        self.files = QTableWidget(0, len(self.COLUMNS))
        self.files.setHorizontalHeaderLabels([translate("GetModels", c) for c in self.COLUMNS])
        self.files.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.files.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.files.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.files.setAccessibleName(translate("GetModels", "The repository's model files"))
        self.files.setWordWrap(False)
        vertical = self.files.verticalHeader()
        assert vertical is not None
        vertical.hide()
        header = self.files.horizontalHeader()
        assert header is not None
        for col in range(len(self.COLUMNS) - 1):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        self.details_label = QLabel()
        self.details_label.setWordWrap(True)
        self.download_button = QPushButton(translate("GetModels", "&Download"))
        self.download_button.setEnabled(False)
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.addWidget(self.repo_label)
        right_layout.addWidget(self.files, 1)
        right_layout.addWidget(self.details_label)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.download_button)
        right_layout.addLayout(buttons)

        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(self.repos)
        splitter.addWidget(right)
        splitter.setSizes([430, 670])

        self.downloads = DownloadsPanel(self.service)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.downloads)
        box = QGroupBox(translate("GetModels", "Downloads"))
        box_layout = QVBoxLayout(box)
        box_layout.addWidget(scroll)
        scroll.setMinimumHeight(96)
        box.setMaximumHeight(220)

        self.status_label = QLabel()
        self.status_label.setWordWrap(True)
        self.status_label.setObjectName("hubStatus")
        close = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        close.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(splitter, 1)
        layout.addWidget(box)
        layout.addWidget(self.status_label)
        layout.addWidget(close)

    def _connect_signals(self) -> None:
        self.search_button.clicked.connect(self._on_search_clicked)
        self.search_edit.returnPressed.connect(self._on_search_clicked)
        self.repos.currentItemChanged.connect(self._on_repo_changed)
        self.files.itemSelectionChanged.connect(self._on_file_selected)
        self.download_button.clicked.connect(self._on_download_clicked)
        self.n_ctx_spin.valueChanged.connect(self._on_n_ctx_changed)
        self.settings_button.clicked.connect(self.hub_settings_requested)
        self.downloads.load_requested.connect(self._on_load_requested)

    # -- the left side ----------------------------------------------------------------------

    def _on_recommended_loaded(self, result: Any, error: BaseException | None) -> None:
        if error is not None or result is None:
            self.recommended_root.setText(1, translate("GetModels", "The recommended list could not be read."))
            return
        self._machine, self._recommended = result
        self._picked = pick_for(self._recommended, self._machine)
        summary = translate("GetModels", "{n} chat models by size; ★ suits this machine ({memory} free)")
        self.recommended_root.setText(1, summary.format(n=len(self._recommended),
                                                        memory=format_bytes(self._machine.available)))
        for entry in self._recommended:
            name, details = recommended_line(entry, self._machine, entry == self._picked)
            item = QTreeWidgetItem([name, details])
            item.setData(0, ROLE_DATA, ("recommended", entry))
            item.setToolTip(0, f"{entry.repo}/{entry.file}")
            item.setToolTip(1, details)
            self.recommended_root.addChild(item)
        if self._select_when_loaded is not None:
            self.select_recommended(self._select_when_loaded, bool(self._download_when_listed))

    def select_recommended(self, entry: Recommended, download: bool = False) -> None:
        """Show ``entry``'s files, its file selected (once the list has
        loaded); ``download``: and start downloading it once they are listed."""
        self._select_when_loaded = entry
        self._download_when_listed = entry.file if download else ""
        for i in range(self.recommended_root.childCount()):
            item = self.recommended_root.child(i)
            data = item.data(0, ROLE_DATA) if item is not None else None
            if data and data[1].repo == entry.repo and data[1].file == entry.file:
                self._select_when_loaded = None
                self.repos.setCurrentItem(item)
                return

    def _on_search_clicked(self) -> None:
        text = self.search_edit.text().strip()
        if not text:
            self.status_label.setText(translate("GetModels", "Type some words to search for."))
            return
        self._generation["search"] += 1
        generation = self._generation["search"]
        self.results_root.takeChildren()
        self.results_root.setText(1, translate("GetModels", "Searching…"))
        self.status_label.clear()
        self._calls.run(lambda _c: browse.search(text),
                        lambda result, error: self._on_search_done(generation, result, error), name="rill-hub-search")

    def _on_search_done(self, generation: int, result: Any, error: BaseException | None) -> None:
        if generation != self._generation["search"]:
            return
        if error is not None:
            self.results_root.setText(1, "")
            self.status_label.setText(str(error))
            return
        self.results_root.setText(1, translate("GetModels", "{n} repositories, most downloaded first").format(n=len(result))
                                  if result else translate("GetModels", "No GGUF repositories match."))
        for repo in result:
            item = QTreeWidgetItem([repo.repo, repo_line(repo)])
            item.setData(0, ROLE_DATA, ("repo", repo))
            item.setToolTip(1, repo_line(repo))
            self.results_root.addChild(item)
        self.results_root.setExpanded(True)

    def _on_repo_changed(self, current: QTreeWidgetItem | None, _previous: QTreeWidgetItem | None) -> None:
        data = current.data(0, ROLE_DATA) if current is not None else None
        if not data:
            return
        kind, value = data
        repo = value.repo
        self._wanted_file = value.file if kind == "recommended" else ""
        self._load_files(repo)

    def _load_files(self, repo: str) -> None:
        self._repo = repo
        self._generation["files"] += 1
        generation = self._generation["files"]
        self._models = []
        self.files.setRowCount(0)
        self.download_button.setEnabled(False)
        self.details_label.clear()
        self.repo_label.setText(translate("GetModels", "{repo}: listing its files…").format(repo=repo))
        self._calls.run(lambda _c: browse.repo_files(repo),
                        lambda result, error: self._on_files_done(generation, result, error), name="rill-hub-files")

    # -- the right side ---------------------------------------------------------------------

    def _on_files_done(self, generation: int, result: Any, error: BaseException | None) -> None:
        if generation != self._generation["files"]:
            return
        if error is not None:
            self.repo_label.setText(str(error))
            return
        self.repo_label.setText(f"{result.summary.repo} · {repo_line(result.summary)}")
        self._models = list(result.models)
        if not self._models:
            self.repo_label.setText(translate("GetModels", "{repo} holds no GGUF model files.").format(repo=result.summary.repo))
        self.files.setRowCount(len(self._models))
        select = 0
        for row, model in enumerate(self._models):
            self._fill_row(row, model)
            if model.path == self._wanted_file:
                select = row
        if self._models:
            self.files.selectRow(select)
        if self._download_when_listed and self._models[select:select + 1] \
                and self._models[select].path == self._download_when_listed:
            self._download_when_listed = ""
            self._on_download_clicked()

    def _fill_row(self, row: int, model: ModelFile) -> None:
        n_ctx = self.n_ctx_spin.value()
        info = self._headers.get((model.repo, model.path, n_ctx))
        if model.kind == KIND_MODEL:
            fit = fit_for(estimate_needed(model.size, info, n_ctx), self._machine).label
        else:
            fit = {KIND_PROJECTOR: translate("GetModels", "Vision projector"),
                   KIND_EMBEDDING: translate("GetModels", "Embedding model")}[model.kind]
        quant = model.quant + (f" ({translate('HubQuant', quant_group(model.quant))})" if quant_group(model.quant) else "")
        name = model.path + (translate("GetModels", " ({n} parts)").format(n=len(model.parts)) if len(model.parts) > 1 else "")
        header = header_line(info, n_ctx) if info is not None else ""
        for col, text in enumerate((name, quant, format_bytes(model.size), fit, header)):
            item = QTableWidgetItem(text)
            item.setToolTip(text)
            self.files.setItem(row, col, item)
        if row == self._selected_row():
            self._show_details(model)

    def _selected_row(self) -> int:
        selection = self.files.selectionModel()
        rows = selection.selectedRows() if selection is not None else []
        return rows[0].row() if rows else -1

    def _show_details(self, model: ModelFile) -> None:
        """The selected file's fit and header in full, below the table."""
        n_ctx = self.n_ctx_spin.value()
        info = self._headers.get((model.repo, model.path, n_ctx))
        lines = [model.path]
        if model.kind == KIND_MODEL:
            lines.append(fit_for(estimate_needed(model.size, info, n_ctx), self._machine).explanation)
        lines.append(header_line(info, n_ctx) if info is not None else translate("GetModels", "Reading its header from the Hub…"))
        if model.companions:
            lines.append(translate("GetModels", "Goes with its vision projector: {names}").format(
                names=", ".join(c.name for c in model.companions)))
        self.details_label.setText("\n".join(lines))

    def selected_model(self) -> ModelFile | None:
        row = self._selected_row()
        return self._models[row] if 0 <= row < len(self._models) else None

    def _on_file_selected(self) -> None:
        model = self.selected_model()
        self.download_button.setEnabled(model is not None)
        if model is None:
            return
        self._show_details(model)
        n_ctx = self.n_ctx_spin.value()
        if (model.repo, model.path, n_ctx) in self._headers:
            return
        self._generation["header"] += 1
        generation = self._generation["header"]
        cancel = CancelToken()  # closing the window cuts a read from a server that stopped sending
        self._calls.run(lambda _c: browse.remote_details(model, n_ctx, cancel=cancel),
                        lambda info, error: self._on_header_done(generation, model, n_ctx, info, error),
                        name="rill-hub-header", cancel=cancel)

    def _on_header_done(self, generation: int, model: ModelFile, n_ctx: int, info: Any,
                        error: BaseException | None) -> None:
        if error is not None:
            info = GGUFInfo(model.name, model.size, error=str(error))
        self._headers[(model.repo, model.path, n_ctx)] = info
        if model in self._models and n_ctx == self.n_ctx_spin.value():
            self._fill_row(self._models.index(model), model)

    def _on_n_ctx_changed(self) -> None:
        for row, model in enumerate(self._models):
            self._fill_row(row, model)
        self._on_file_selected()

    # -- downloading ------------------------------------------------------------------------

    def _on_download_clicked(self) -> None:
        model = self.selected_model()
        if model is None:
            return
        folder = user_models_dir()
        self._calls.run(lambda _c: browse.requests_for(model, folder), self._on_requests_ready,
                        name="rill-hub-request")

    def _on_requests_ready(self, requests: Any, error: BaseException | None) -> None:
        if error is not None:
            self.status_label.setText(str(error))
            return
        for request in requests:
            self.service.download(request)
        self.status_label.setText(translate("GetModels", "Downloading into {folder}.").format(folder=requests[0].folder))

    def _on_load_requested(self, path: str) -> None:
        self.model_open_requested.emit(path)

    def done(self, result: int) -> None:
        self._calls.cancel_all()
        super().done(result)
