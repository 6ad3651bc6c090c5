"""The window's chat column: the first-run panel, the conversation, the find
bar and the message box with its Send and Stop buttons, laid out (the
window connects them).

Its strings keep the translation context "MainWindow" (they were its).
Threading rule: GUI thread only.
"""

from __future__ import annotations

from PyQt6.QtCore import QCoreApplication
from PyQt6.QtWidgets import QHBoxLayout, QPushButton, QVBoxLayout, QWidget

from app.ui.conversation.find_bar import FindBar
from app.ui.conversation.prompt import PromptArea
from app.ui.conversation.view import ChatView
from app.ui.window.first_run import FirstRunPanel


class ChatArea(QWidget):
    """``view`` and ``find_bar`` (made by the window) with the widgets
    around them: ``first_run`` (hidden), ``prompt_area``, ``send_button``
    and ``stop_button``."""

    def __init__(self, view: ChatView, find_bar: FindBar, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.view = view
        self.find_bar = find_bar
        self.prompt_area = PromptArea()
        prompt = self.prompt_area.editor
        prompt.setPlaceholderText(
            QCoreApplication.translate("MainWindow", "Message Rill… (Enter to send, Shift+Enter for a new line)")
        )
        prompt.setFixedHeight(84)
        self.send_button = QPushButton(QCoreApplication.translate("MainWindow", "Send"))
        self.send_button.setObjectName("send")
        self.send_button.setToolTip(QCoreApplication.translate("MainWindow", "Send the message (Enter)"))
        self.stop_button = QPushButton(QCoreApplication.translate("MainWindow", "Stop"))
        self.stop_button.setObjectName("stop")
        self.stop_button.setToolTip(QCoreApplication.translate("MainWindow", "Stop the reply (Esc)"))
        self.first_run = FirstRunPanel()
        self.first_run.hide()

        buttons = QVBoxLayout()
        buttons.addWidget(self.send_button)
        buttons.addWidget(self.stop_button)
        buttons.addStretch(1)
        #: Slots for the attachments' widgets (app.ui.window.attachments fills them).
        self.above_prompt = QVBoxLayout()
        self.beside_prompt = QVBoxLayout()
        row = QHBoxLayout()
        row.addLayout(self.beside_prompt)
        row.addWidget(self.prompt_area, 1)
        row.addLayout(buttons)
        layout = QVBoxLayout()
        layout.setContentsMargins(10, 10, 10, 6)
        layout.addWidget(self.first_run)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.find_bar)
        layout.addLayout(self.above_prompt)
        layout.addLayout(row)
        self.setLayout(layout)
