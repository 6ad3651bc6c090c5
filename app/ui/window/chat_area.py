"""The window's chat column: the first-run panel, the conversation, the find
bar and the composer card (the message box with its model picker and its
Send button that becomes Stop, ``app.ui.window.composer``), laid out (the
window connects them).

Its strings keep the translation context "MainWindow" (they were its).
Threading rule: GUI thread only.
"""

from __future__ import annotations

from PyQt6.QtCore import QCoreApplication
from PyQt6.QtWidgets import QVBoxLayout, QWidget

from app.ui.conversation.find_bar import FindBar
from app.ui.conversation.prompt import PromptArea
from app.ui.conversation.view import ChatView
from app.ui.window.composer import ComposerCard
from app.ui.window.first_run import FirstRunPanel


class ChatArea(QWidget):
    """``view`` and ``find_bar`` (made by the window) with the widgets
    around them: ``first_run`` (hidden), ``composer`` holding
    ``prompt_area``, ``send_button`` and ``stop_button``."""

    def __init__(self, view: ChatView, find_bar: FindBar, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.view = view
        self.find_bar = find_bar
        self.prompt_area = PromptArea()
        prompt = self.prompt_area.editor
        prompt.setPlaceholderText(
            QCoreApplication.translate("MainWindow", "Message Rill… (Enter to send, Shift+Enter for a new line)")
        )
        prompt.setFixedHeight(72)
        self.composer = ComposerCard(self.prompt_area)
        self.send_button = self.composer.send_button
        self.stop_button = self.composer.stop_button
        self.first_run = FirstRunPanel()
        self.first_run.hide()

        layout = QVBoxLayout()
        layout.setContentsMargins(10, 10, 10, 6)
        layout.addWidget(self.first_run)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.find_bar)
        layout.addWidget(self.composer)
        self.setLayout(layout)
