"""Help › About Rill: versions, build flags, the model and the folders.

The text comes from ``app.core.base.about``; describing llama.cpp imports it
(~0.3 s) the first time, so the box opens at once with "checking…" and the
description arrives from a background call of the application's services.

Threading rule: GUI thread only.
"""

from __future__ import annotations

from PyQt6 import sip
from PyQt6.QtCore import PYQT_VERSION_STR, QCoreApplication, Qt, qVersion
from PyQt6.QtWidgets import QMessageBox, QWidget

from app.core.base import about
from app.ui.services.lifecycle import AppServices


def open_about_box(parent: QWidget, services: AppServices, model: str = "") -> QMessageBox:
    """Open the About box over ``parent`` (deleted when closed) and return it.
    ``model``: the model loaded now, as shown ("" when none)."""
    box = QMessageBox(parent)
    box.setObjectName("aboutBox")
    box.setWindowTitle(QCoreApplication.translate("MainWindow", "About Rill"))
    box.setTextFormat(Qt.TextFormat.RichText)
    box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    icon = parent.windowIcon()
    if not icon.isNull():
        box.setIconPixmap(icon.pixmap(64, 64))
    box.setStandardButtons(QMessageBox.StandardButton.Ok)
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    box.setStyleSheet("QLabel#qt_msgbox_label { min-width: 500px; }")

    def show(llama: about.LlamaInfo | None) -> None:
        box.setText(about.about_html(qVersion() or "", PYQT_VERSION_STR, llama, model))

    def described(llama: about.LlamaInfo) -> None:
        if not sip.isdeleted(box):  # closed meanwhile: nothing to fill in
            show(llama)

    llama = about.llama_info_if_loaded()
    show(llama)
    if llama is None:
        services.describe_llama(described)
    box.open()
    return box
