"""The status bar's words: the model running (``model_label``), what the
chat is doing (``state_label``) and the stream's health while a reply
streams (``health_label``).

Threading rule: GUI thread only.
"""

from __future__ import annotations

from PyQt6.QtCore import QCoreApplication, QObject
from PyQt6.QtWidgets import QLabel

from app.core.backends.base import ModelInfo
from app.core.pipeline.metrics import HealthSnapshot
from app.ui.conversation.controller import ChatController, ChatState
from app.ui.window.stream_health import StreamHealthMonitor


class StatusLabels(QObject):
    """Keeps the three labels in step with ``chat`` and ``health_monitor``;
    the window places them in its status bar."""

    def __init__(
        self, chat: ChatController, health_monitor: StreamHealthMonitor, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self._chat = chat
        self._health_monitor = health_monitor
        self.model_label = QLabel(QCoreApplication.translate("MainWindow", "No model"))
        self.state_label = QLabel("")
        self.health_label = QLabel("")
        self.health_label.setObjectName("health")
        self._connect_signals()
        self._on_state_changed(chat.state)

    def _connect_signals(self) -> None:
        self._chat.state_changed.connect(self._on_state_changed)
        self._chat.reply_started.connect(self._on_reply_started)
        self._chat.prompt_processed.connect(self._on_prompt_processed)
        self._chat.model_ready.connect(self._on_model_ready)
        self._chat.model_failed.connect(self._on_model_failed)
        self._health_monitor.updated.connect(self._on_health_updated)

    def _on_state_changed(self, state: ChatState) -> None:
        text = {
            ChatState.NO_MODEL: QCoreApplication.translate("MainWindow", "No model loaded"),
            ChatState.LOADING: QCoreApplication.translate("MainWindow", "Loading model…"),
            ChatState.IDLE: QCoreApplication.translate("MainWindow", "Ready"),
            ChatState.GENERATING: QCoreApplication.translate("MainWindow", "Generating…  (Esc to stop)"),
        }[state]
        self.state_label.setText(text)
        if state == ChatState.LOADING:
            self.model_label.setText(QCoreApplication.translate("MainWindow", "Loading model…"))

    def _on_reply_started(self, request_id: int) -> None:
        # No token yet means the model is still evaluating the prompt.
        self.state_label.setText(QCoreApplication.translate("MainWindow", "Reading the prompt…  (Esc to stop)"))

    def _on_prompt_processed(self, request_id: int) -> None:
        self.state_label.setText(QCoreApplication.translate("MainWindow", "Generating…  (Esc to stop)"))

    def _on_health_updated(self, snapshot: HealthSnapshot) -> None:
        self.health_label.setText(snapshot.status_line() if snapshot.generating else "")

    def _on_model_ready(self, info: ModelInfo) -> None:
        parts = [info.name]
        if info.n_ctx:
            parts.append(QCoreApplication.translate("MainWindow", "context {n_ctx}").format(n_ctx=info.n_ctx))
        if info.n_threads:
            parts.append(
                QCoreApplication.translate("MainWindow", "1 thread")
                if info.n_threads == 1
                else QCoreApplication.translate("MainWindow", "%n threads", "", info.n_threads)
            )
        if info.chat_template:
            parts.append(
                QCoreApplication.translate("MainWindow", "template: {template}").format(template=info.chat_template)
            )
        self.model_label.setText("  ·  ".join(parts))
        self.model_label.setToolTip(info.path)

    def _on_model_failed(self, message: str) -> None:
        self.model_label.setText(QCoreApplication.translate("MainWindow", "No model loaded: choose one in the Model menu"))
        self.model_label.setToolTip(message)
