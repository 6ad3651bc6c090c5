"""The welcome of a new conversation (``EmptyState``): over the empty
conversation view, the model that will answer, what it can take (its
context), where it runs, and a few example prompts; clicking one puts it in
the message box (``example_chosen``), ready to send or change.

Shown while the conversation shown has no message and a model is ready;
one widget over the view's viewport (not part of the painted list), so it
costs nothing once the conversation has started.

Its strings keep the translation context "MainWindow".
Threading rule: GUI thread only.
"""

from __future__ import annotations

from PyQt6.QtCore import QCoreApplication, QEvent, QObject, Qt, pyqtSignal
from PyQt6.QtWidgets import QGridLayout, QLabel, QPushButton, QSizePolicy, QVBoxLayout, QWidget

from app.core.backends.base import ModelInfo
from app.core.text.display import without_controls
from app.ui.conversation.controller import ChatController, ChatState
from app.ui.conversation.view import ChatView

__all__ = ["EmptyState"]

CONTENT_WIDTH = 560  # the welcome's widest, at the base font




def _examples() -> tuple[str, ...]:
    """The example prompts in the user's language (looked up when built)."""
    return (
        QCoreApplication.translate("MainWindow", "Explain how a rainbow forms, in three sentences"),
        QCoreApplication.translate("MainWindow", "Write a Python function that checks for palindromes"),
        QCoreApplication.translate("MainWindow", "Compare tea and coffee in a small table"),
        QCoreApplication.translate("MainWindow", "Suggest five names for a bakery run by cats"),
    )


class EmptyState(QWidget):
    """The welcome over ``view`` while ``chat``'s conversation is empty.

    Signals: ``example_chosen(text)``."""

    #: An example prompt was clicked; arg: its text (for the message box).
    example_chosen = pyqtSignal(str)

    def __init__(self, view: ChatView, chat: ChatController) -> None:
        viewport = view.viewport()
        assert viewport is not None
        super().__init__(viewport)
        self.setObjectName("emptyState")
        self._view = view
        self._chat = chat
        self._viewport = viewport
        self.title = QLabel(QCoreApplication.translate("MainWindow", "How can I help?"))
        self.title.setObjectName("emptyTitle")
        self.title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.title.setWordWrap(True)
        self.facts = QLabel()
        self.facts.setObjectName("emptyFacts")
        self.facts.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.facts.setWordWrap(True)
        self.facts.setTextFormat(Qt.TextFormat.PlainText)
        self.example_buttons: list[QPushButton] = []
        grid = QGridLayout()
        grid.setSpacing(8)
        for n, text in enumerate(_examples()):
            button = QPushButton(text)
            button.setObjectName("examplePrompt")
            button.setToolTip(QCoreApplication.translate("MainWindow", "Put this example in the message box"))
            button.setAccessibleName(QCoreApplication.translate("MainWindow", "Example: {text}").format(text=text))
            button.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
            button.setProperty("example", text)
            grid.addWidget(button, n, 0)
            self.example_buttons.append(button)
        layout = QVBoxLayout(self)
        layout.addStretch(1)
        layout.addWidget(self.title)
        layout.addWidget(self.facts)
        layout.addSpacing(14)
        layout.addLayout(grid)
        layout.addStretch(2)
        self._info: ModelInfo | None = None
        viewport.installEventFilter(self)
        self._connect_signals()
        self.refresh()

    def _connect_signals(self) -> None:
        chat = self._chat
        chat.model_ready.connect(self._on_model_ready)
        chat.state_changed.connect(self._on_changed)
        chat.conversation_shown.connect(self._on_changed)
        chat.reply_started.connect(self._on_changed)
        chat.message_deleted.connect(self._on_changed)
        for button in self.example_buttons:
            button.clicked.connect(self._on_example_clicked)

    def _on_example_clicked(self) -> None:
        button = self.sender()
        if isinstance(button, QPushButton):
            self.example_chosen.emit(str(button.property("example")))

    def eventFilter(self, watched: QObject | None, event: QEvent | None) -> bool:
        if watched is self._viewport and event is not None and event.type() == QEvent.Type.Resize:
            self._place()
        return False

    def _place(self) -> None:
        area = self._viewport.rect()
        width = min(area.width() - 24, round(CONTENT_WIDTH * max(1.0, self._view.zoom)))
        self.setGeometry((area.width() - width) // 2, 0, max(0, width), area.height())

    # ------------------------------------------------------------------ state

    def _on_model_ready(self, info: ModelInfo) -> None:
        self._info = info
        self.refresh()

    def _on_changed(self, *_args: object) -> None:
        self.refresh()

    def refresh(self) -> None:
        """Shown when the conversation is empty and a model is ready; the
        model's facts filled in."""
        info = self._info or self._chat.model_info
        empty = not self._chat.conversation.messages
        ready = self._chat.state == ChatState.IDLE and info is not None
        if info is not None:
            name = without_controls(info.name)
            self.title.setText(QCoreApplication.translate("MainWindow", "Chat with {model}").format(model=name))
            facts = []
            if info.n_ctx:
                facts.append(QCoreApplication.translate(
                    "MainWindow", "Reads up to {n} tokens at a time").format(n=f"{info.n_ctx:,}"))
            if info.path.startswith(("http://", "https://")):
                facts.append(QCoreApplication.translate(
                    "MainWindow", "Answers from {server}").format(server=without_controls(info.path)))
            elif info.path:
                facts.append(QCoreApplication.translate("MainWindow", "Runs on this computer"))
            self.facts.setText(" · ".join(facts))
        self.setVisible(empty and ready)
        if self.isVisible():
            self._place()
            self.raise_()
