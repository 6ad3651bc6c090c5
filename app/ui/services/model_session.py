"""The model session: which model is loaded, loading it, reloading it,
cancelling a load.

``ModelSession`` sits on the inference service's load signals and keeps the
one fact the rest of the app asks about: no model, loading, or ready (with
its ``ModelInfo``). The user-facing notices about a load are emitted as
``notice_requested``; the conversation side shows them.

Threading rule: GUI thread only.
"""

from __future__ import annotations

import enum

from PyQt6.QtCore import QCoreApplication, QObject, pyqtSignal

from app.core.backends.base import ModelInfo
from app.core.factory import BackendFactory
from app.ui.services.inference import InferenceService

__all__ = ["ModelSession", "ModelState"]


class ModelState(str, enum.Enum):
    NO_MODEL = "no_model"
    LOADING = "loading"
    READY = "ready"


class ModelSession(QObject):
    """Loads, reloads and cancels the model of one inference service.

    Its strings keep the translation context "ChatController" (they were its)."""

    #: The state changed; arg: ModelState.
    state_changed = pyqtSignal(object)
    #: A model finished loading; arg: ModelInfo.
    model_ready = pyqtSignal(object)
    #: A model failed to load (or its load was cancelled); arg: the backend's message.
    model_failed = pyqtSignal(str)
    #: A line for the user about a load (a warning, a failure); args: text, kind.
    notice_requested = pyqtSignal(str, str)

    def __init__(self, service: InferenceService, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.service = service
        self.model_info: ModelInfo | None = None
        self.state = ModelState.NO_MODEL
        self._last_load: tuple[BackendFactory, str] | None = None  # for reload
        self._load_cancelled = False  # cancel() was called for the load running
        self._connect_signals()

    def _connect_signals(self) -> None:
        self.service.model_load_started.connect(self._on_model_load_started)
        self.service.model_loaded.connect(self._on_model_loaded)
        self.service.model_load_failed.connect(self._on_model_load_failed)

    @property
    def loading(self) -> bool:
        return self.state == ModelState.LOADING

    def load(self, factory: BackendFactory, description: str) -> None:
        self._last_load = (factory, description)
        self.service.load(factory, description)

    @property
    def last_load_description(self) -> str | None:
        """What the last load asked for (None: no load yet): what ``reload`` loads again."""
        return self._last_load[1] if self._last_load is not None else None

    @property
    def last_load(self) -> tuple[BackendFactory, str] | None:
        return self._last_load

    def cancel(self) -> bool:
        """Cancel the load in progress; ``model_failed`` follows. False
        (nothing done) when no load is running."""
        if self.state != ModelState.LOADING:
            return False
        self._load_cancelled = True
        self.service.cancel_load()
        return True

    def _set_state(self, state: ModelState) -> None:
        if state != self.state:
            self.state = state
            self.state_changed.emit(state)

    def _on_model_load_started(self, description: str) -> None:
        self._load_cancelled = False
        self.model_info = None
        self._set_state(ModelState.LOADING)

    def _on_model_loaded(self, info: ModelInfo) -> None:
        self._load_cancelled = False  # Cancel came too late: the model is there
        self.model_info = info
        for warning in info.warnings:
            self.notice_requested.emit(f"⚠ {warning}", "warning")
        self._set_state(ModelState.READY)
        self.model_ready.emit(info)

    def _on_model_load_failed(self, message: str) -> None:
        if self._load_cancelled:  # the user's Cancel
            self._load_cancelled = False
            self.notice_requested.emit(
                QCoreApplication.translate(
                    "ChatController", "Loading the model was cancelled. Choose a model in the Model menu."
                ),
                "info",
            )
        else:
            self.notice_requested.emit(
                QCoreApplication.translate(
                    "ChatController",
                    "Could not load the model. {message}\n"
                    "Choose a model in the Model menu: a GGUF file, or a server (Model › Servers…)."
                ).format(message=message),
                "error",
            )
        self._set_state(ModelState.NO_MODEL)
        self.model_failed.emit(message)

