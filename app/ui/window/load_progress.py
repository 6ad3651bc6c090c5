"""The model-loading progress bar and its Cancel button (in the status bar).

Shown when a load starts (``InferenceService.model_load_started``), filled in
by ``model_load_progress`` (0..1; a backend that does not report progress,
e.g. a remote server, gets a busy bar), gone when the load ends either way.
Cancel calls ``ChatController.cancel_load()``: the load stops at llama.cpp's
next tensor, the conversations are left as they are, and no model is loaded
afterwards (the previous one was freed when this load began, see
``InferenceWorker.load``).

GUI thread only; nothing here blocks.
"""

from __future__ import annotations

from PyQt6.QtCore import Qt, pyqtSignal
from PyQt6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton, QWidget

from app.core.backends.base import ModelInfo
from app.ui.conversation.controller import ChatController

#: The bar's range (0..1 from the worker, shown in thousandths).
STEPS = 1000


class LoadProgress(QWidget):
    """"38 % [=====    ] Cancel" while a model loads (the tooltip names it); hidden otherwise."""

    #: The user pressed Cancel (the load is being cancelled); no args.
    cancel_requested = pyqtSignal()

    def __init__(self, chat: ChatController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("loadProgress")
        self.chat = chat
        self.label = QLabel()
        self.bar = QProgressBar()
        self.bar.setObjectName("loadProgressBar")
        self.bar.setRange(0, STEPS)
        self.bar.setFixedWidth(160)
        self.bar.setTextVisible(False)
        self.cancel_button = QPushButton(self.tr("Cancel"))
        self.cancel_button.setObjectName("loadCancel")
        self.cancel_button.setToolTip(self.tr("Stop loading this model"))
        self.cancel_button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 6, 0)
        layout.setSpacing(6)
        layout.addWidget(self.label)
        layout.addWidget(self.bar)
        layout.addWidget(self.cancel_button)
        self.hide()
        self._connect_signals()

    def _connect_signals(self) -> None:
        service = self.chat.service
        service.model_load_started.connect(self._on_load_started)
        service.model_load_progress.connect(self._on_load_progress)
        service.model_loaded.connect(self._on_load_ended)
        service.model_load_failed.connect(self._on_load_ended)
        self.cancel_button.clicked.connect(self._on_cancel_clicked)

    @property
    def fraction(self) -> float:
        """What the bar shows, 0..1 (0 while busy without a number)."""
        return max(0, self.bar.value()) / STEPS

    # -- slots ------------------------------------------------------------------------

    def _on_load_started(self, description: str) -> None:
        # The status bar already says "Loading model…": the label gives the
        # percentage, the tooltip what is loading.
        self.setToolTip(self.tr("Loading {model}").format(model=description))
        self.label.setText("")
        self.bar.setRange(0, 0)  # busy until a first number arrives
        self.bar.reset()
        self.cancel_button.setEnabled(True)
        self.cancel_button.setText(self.tr("Cancel"))
        self.show()

    def _on_load_progress(self, fraction: float) -> None:
        if self.bar.maximum() == 0:
            self.bar.setRange(0, STEPS)
        self.bar.setValue(round(min(1.0, max(0.0, fraction)) * STEPS))
        self.label.setText(self.tr("{percent} %").format(percent=self.bar.value() * 100 // STEPS))

    def _on_load_ended(self, _result: ModelInfo | str) -> None:
        self.hide()
        self.bar.setRange(0, STEPS)
        self.bar.reset()

    def _on_cancel_clicked(self) -> None:
        if self.chat.cancel_load():
            self.cancel_button.setEnabled(False)
            self.cancel_button.setText(self.tr("Cancelling…"))
            self.cancel_requested.emit()
