"""The composer card: the message box as one rounded card, with a tray
above the text (the attachments' chips, the queued messages), the text, and
a row under it: a leading slot (the attach button), the model picker (the
current model's name; it opens the Model menu) and one Send button that
becomes Stop while a reply runs.

For other features: ``add_leading_widget(widget)`` puts a small control at
the start of the bottom row (the attachments' attach button);
``set_tray(widget)`` puts a widget above the text (one, replaced by the
next call; ``None`` removes it); ``add_tray_widget(widget)`` adds one more
there (the queued messages use it). The card owns neither feature.

Its strings keep the translation context "MainWindow".
Threading rule: GUI thread only.
"""

from __future__ import annotations

from PyQt6.QtCore import QCoreApplication, QEvent, QObject, QSize, Qt
from PyQt6.QtWidgets import QFrame, QHBoxLayout, QMenu, QPushButton, QToolButton, QVBoxLayout, QWidget

from app.ui.conversation.prompt import PromptArea
from app.ui.misc import icons

__all__ = ["ComposerCard"]

ICON_PX = 18  # the Send/Stop and picker icons
MODEL_NAME_PX = 260  # a longer model name is elided in the middle




class ComposerCard(QFrame):
    """``prompt_area`` inside the card, ``send_button`` / ``stop_button``
    (one shown at a time: ``set_running``), ``model_button`` (the picker;
    ``set_model_menu``, ``set_model_name``)."""

    def __init__(self, prompt_area: PromptArea, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("composer")
        self.prompt_area = prompt_area
        self.send_button = QPushButton()
        self.send_button.setObjectName("send")
        self.send_button.setAccessibleName(QCoreApplication.translate("MainWindow", "Send"))
        self.send_button.setToolTip(QCoreApplication.translate("MainWindow", "Send the message (Enter)"))
        self.stop_button = QPushButton()
        self.stop_button.setObjectName("stop")
        self.stop_button.setAccessibleName(QCoreApplication.translate("MainWindow", "Stop"))
        self.stop_button.setToolTip(QCoreApplication.translate("MainWindow", "Stop the reply (Esc)"))
        self.stop_button.hide()
        for button in (self.send_button, self.stop_button):
            button.setIconSize(QSize(ICON_PX, ICON_PX))
            button.setFixedSize(36, 36)
        self.model_button = QToolButton()
        self.model_button.setObjectName("composerModel")
        self.model_button.setAccessibleName(QCoreApplication.translate("MainWindow", "Model"))
        self.model_button.setToolTip(QCoreApplication.translate("MainWindow", "The model answering: click to choose another"))
        self.model_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.model_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.model_button.setText(QCoreApplication.translate("MainWindow", "No model") + "  ▾")
        self._tray = QVBoxLayout()
        self._tray.setContentsMargins(0, 0, 0, 0)
        self._tray.setSpacing(4)
        self._tray_widget: QWidget | None = None
        self._leading = QHBoxLayout()
        self._leading.setContentsMargins(0, 0, 0, 0)
        self._leading.setSpacing(4)
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addLayout(self._leading)
        row.addStretch(1)
        row.addWidget(self.model_button)
        row.addWidget(self.send_button)
        row.addWidget(self.stop_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 8, 10, 8)
        layout.setSpacing(4)
        layout.addLayout(self._tray)
        layout.addWidget(prompt_area, 1)
        layout.addLayout(row)
        self.setProperty("focused", False)
        prompt_area.editor.installEventFilter(self)
        self.restyle()

    # ------------------------------------------------------------------ slots for other features

    def add_leading_widget(self, widget: QWidget) -> None:
        """Put ``widget`` (a small button: attach...) at the start of the row under the text."""
        self._leading.addWidget(widget)

    def set_tray(self, widget: QWidget | None) -> None:
        """``widget`` above the text (the attachments' chip tray), replacing
        the one set before (None: none)."""
        if self._tray_widget is not None:
            self._tray.removeWidget(self._tray_widget)
            self._tray_widget.setParent(None)
        self._tray_widget = widget
        if widget is not None:
            self._tray.insertWidget(0, widget)

    def add_tray_widget(self, widget: QWidget) -> None:
        """One more widget above the text, under the tray (the queued messages)."""
        self._tray.addWidget(widget)

    # ------------------------------------------------------------------ state

    def set_running(self, running: bool) -> None:
        """A reply runs: Stop takes Send's place (and the reverse); the
        focus follows when it was on the button that hides."""
        had_focus = (self.stop_button if running else self.send_button).hasFocus()
        self.send_button.setVisible(not running)
        self.stop_button.setVisible(running)
        if had_focus:
            (self.stop_button if running else self.send_button).setFocus()

    @property
    def running(self) -> bool:
        return not self.stop_button.isHidden()

    def set_model_menu(self, menu: QMenu) -> None:
        """What clicking the model's name opens (the Model menu's choices)."""
        self.model_button.setMenu(menu)

    def set_model_name(self, name: str) -> None:
        """Show ``name`` as the model answering ("" : none loaded)."""
        shown = self.model_button.fontMetrics().elidedText(name, Qt.TextElideMode.ElideMiddle, MODEL_NAME_PX)
        self.model_button.setText((shown or QCoreApplication.translate("MainWindow", "No model")) + "  ▾")
        self.model_button.setAccessibleName(
            QCoreApplication.translate("MainWindow", "Model: {name}").format(name=name) if name
            else QCoreApplication.translate("MainWindow", "Model"))

    def restyle(self) -> None:
        """The icons in the current theme's colours (call on ``theme_changed``)."""
        self.send_button.setIcon(icons.icon("send", "send_text", ICON_PX))
        self.stop_button.setIcon(icons.icon("stop", "stop_text", ICON_PX))
        self.model_button.setIcon(icons.icon("model", "muted", 14))
        self.model_button.setIconSize(QSize(14, 14))

    def changeEvent(self, event: QEvent | None) -> None:
        super().changeEvent(event)
        if event is not None and event.type() == QEvent.Type.PaletteChange:
            self.restyle()  # a new theme: its palette comes first

    def eventFilter(self, watched: QObject | None, event: QEvent | None) -> bool:
        """The text box's focus lights the card's border (``focused``)."""
        if event is not None and event.type() in (QEvent.Type.FocusIn, QEvent.Type.FocusOut):
            focused = event.type() == QEvent.Type.FocusIn
            if self.property("focused") != focused:
                self.setProperty("focused", focused)
                style = self.style()
                if style is not None:
                    style.unpolish(self)
                    style.polish(self)
        return False
