"""The main window: a thin view that builds widgets and connects signals."""

from __future__ import annotations

from PyQt6.QtCore import Qt, pyqtSignal
from PyQt6.QtGui import QAction, QCloseEvent, QIcon, QKeyEvent, QKeySequence, QShortcut
from PyQt6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app import __version__
from app.core.backend import ModelInfo
from app.resources import read_text_resource, resource_path
from app.ui.chat import ChatController, ChatState
from app.ui.transcript import TranscriptView


class PromptEdit(QPlainTextEdit):
    """The prompt box: Enter sends, Shift+Enter starts a new line."""

    #: The user pressed Enter to send the prompt.
    submit_requested = pyqtSignal()

    def keyPressEvent(self, event: QKeyEvent | None) -> None:  # noqa: N802 (Qt API)
        if (
            event is not None
            and event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter)
            and not event.modifiers() & Qt.KeyboardModifier.ShiftModifier
        ):
            self.submit_requested.emit()
            return
        super().keyPressEvent(event)


class MainWindow(QMainWindow):
    """Rill's window. All behaviour lives in ChatController."""

    #: The user asked for a model file to be opened; arg: its path.
    model_open_requested = pyqtSignal(str)

    def __init__(self) -> None:
        super().__init__()
        self.setWindowTitle("Rill")
        self.resize(900, 720)
        icon = resource_path("icon.svg")
        if icon is not None:
            self.setWindowIcon(QIcon(str(icon)))
        self.setStyleSheet(read_text_resource("style.qss"))

        self.transcript = TranscriptView()
        self.chat = ChatController(self.transcript, self)
        self.prompt = PromptEdit()
        self.prompt.setObjectName("prompt")
        self.prompt.setPlaceholderText("Message Rill… (Enter to send, Shift+Enter for a new line)")
        self.prompt.setFixedHeight(84)
        self.send_button = QPushButton("Send")
        self.send_button.setObjectName("send")
        self.stop_button = QPushButton("Stop")
        self.stop_button.setObjectName("stop")
        self.stop_button.setToolTip("Stop the reply (Esc)")
        self.model_label = QLabel("No model")
        self.state_label = QLabel("")

        buttons = QVBoxLayout()
        buttons.addWidget(self.send_button)
        buttons.addWidget(self.stop_button)
        buttons.addStretch(1)
        row = QHBoxLayout()
        row.addWidget(self.prompt, 1)
        row.addLayout(buttons)
        layout = QVBoxLayout()
        layout.setContentsMargins(10, 10, 10, 6)
        layout.addWidget(self.transcript, 1)
        layout.addLayout(row)
        central = QWidget()
        central.setLayout(layout)
        self.setCentralWidget(central)
        self.statusBar().addWidget(self.model_label, 1)
        self.statusBar().addPermanentWidget(self.state_label)

        self._build_menus()
        self._stop_shortcut = QShortcut(QKeySequence(Qt.Key.Key_Escape), self)
        self._connect_signals()
        self._on_state_changed(self.chat.state)
        self.prompt.setFocus()

    def _build_menus(self) -> None:
        bar = self.menuBar()
        file_menu = bar.addMenu("&File")
        self.open_model_action = QAction("&Open Model…", self)
        self.open_model_action.setShortcut(QKeySequence.StandardKey.Open)
        self.new_chat_action = QAction("&New Chat", self)
        self.new_chat_action.setShortcut(QKeySequence.StandardKey.New)
        self.quit_action = QAction("&Quit", self)
        self.quit_action.setShortcut(QKeySequence.StandardKey.Quit)
        file_menu.addAction(self.open_model_action)
        file_menu.addAction(self.new_chat_action)
        file_menu.addSeparator()
        file_menu.addAction(self.quit_action)
        help_menu = bar.addMenu("&Help")
        self.about_action = QAction("&About Rill", self)
        help_menu.addAction(self.about_action)

    def _connect_signals(self) -> None:
        self.prompt.submit_requested.connect(self._on_send_requested)
        self.send_button.clicked.connect(self._on_send_requested)
        self.stop_button.clicked.connect(self.chat.stop)
        self._stop_shortcut.activated.connect(self.chat.stop)
        self.open_model_action.triggered.connect(self._on_open_model_triggered)
        self.new_chat_action.triggered.connect(self.chat.new_chat)
        self.quit_action.triggered.connect(self.close)
        self.about_action.triggered.connect(self._on_about_triggered)
        self.chat.state_changed.connect(self._on_state_changed)
        self.chat.model_ready.connect(self._on_model_ready)
        self.chat.model_failed.connect(self._on_model_failed)

    # -- slots ------------------------------------------------------------------

    def _on_send_requested(self) -> None:
        if self.chat.send(self.prompt.toPlainText()):
            self.prompt.clear()

    def _on_state_changed(self, state: ChatState) -> None:
        self.send_button.setEnabled(state == ChatState.IDLE)
        self.stop_button.setEnabled(state == ChatState.GENERATING)
        text = {
            ChatState.NO_MODEL: "No model loaded",
            ChatState.LOADING: "Loading model…",
            ChatState.IDLE: "Ready",
            ChatState.GENERATING: "Generating…  (Esc to stop)",
        }[state]
        self.state_label.setText(text)
        if state == ChatState.LOADING:
            self.model_label.setText("Loading model…")

    def _on_model_ready(self, info: ModelInfo) -> None:
        parts = [info.name]
        if info.n_ctx:
            parts.append(f"context {info.n_ctx}")
        if info.n_threads:
            parts.append(f"{info.n_threads} thread{'s' if info.n_threads > 1 else ''}")
        if info.chat_template:
            parts.append(f"template: {info.chat_template}")
        self.model_label.setText("  ·  ".join(parts))
        self.model_label.setToolTip(info.path)

    def _on_model_failed(self, message: str) -> None:
        self.model_label.setText("No model loaded: File › Open Model…")
        self.model_label.setToolTip(message)

    def _on_open_model_triggered(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, "Open Model", "", "GGUF models (*.gguf);;All files (*)"
        )
        if path:
            self.model_open_requested.emit(path)

    def _on_about_triggered(self) -> None:
        QMessageBox.about(self, "About Rill", f"<b>Rill</b> {__version__}<br>A chat window that never freezes.")

    def closeEvent(self, event: QCloseEvent | None) -> None:  # noqa: N802 (Qt API)
        self.chat.shutdown()
        if event is not None:
            event.accept()
