"""The embedding model attachments are retrieved with: chosen in Settings,
loaded (and closed) off the GUI thread.

``EmbeddingChoice.choose(path)`` gives the attachment service a new
``LlamaEmbedder`` (``""``: none, keyword retrieval only). The model is loaded
at once on a background call (a tiny text embedded), so a file that cannot be
loaded is told now (``failed``), not at the first question; the service then
falls back to keywords. The previous embedder is closed on a background call
too: ``close`` waits for an embedding that may be running.

Attachments read before a model was chosen get their chunks' vectors when
their conversation's next questions are planned, at most
``limits.MAX_LAZY_EMBEDDED_CHUNKS`` a question, on the store thread
(``AttachmentService.prepare``); until then those chunks are ranked by
keywords only.

Signals:

* ``mode_changed()``: the retrieval mode changed (a model chosen, dropped, or failed to load).
* ``failed(str)``: the chosen model could not be loaded; arg: the message for the user.

Threading rule: GUI thread; loading and closing run on background calls.
"""

from __future__ import annotations

import logging
import os
import threading
from typing import Any, Protocol

from PyQt6.QtCore import QObject, pyqtSignal

from app.core.backends.base import BackendError
from app.core.backends.llama.embedder import LlamaEmbedder
from app.ui.services.background import BackgroundCalls

log = logging.getLogger(__name__)


class EmbedderHolder(Protocol):
    """What uses the embedder (``AttachmentService``)."""

    embedder: LlamaEmbedder | None


class EmbeddingChoice(QObject):
    """See the module docstring. ``service``: whose ``embedder`` is set
    (the ``AttachmentService``)."""

    mode_changed = pyqtSignal()
    failed = pyqtSignal(str)

    def __init__(self, service: EmbedderHolder, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._service = service
        self._calls = BackgroundCalls(self)
        #: The last failure's message ("" : none since the last choice).
        self.error = ""

    @property
    def path(self) -> str:
        """The embedding model in use ("" : none)."""
        embedder = self._service.embedder
        return embedder.path if embedder is not None else ""

    def choose(self, path: str) -> None:
        """Retrieve with the GGUF model ``path`` from now on ("" : keywords only)."""
        old = self._service.embedder
        if old is not None and old.path == path:
            return
        self.error = ""
        new = LlamaEmbedder(path) if path else None
        self._service.embedder = new
        if old is not None:
            self._close(old)
        self.mode_changed.emit()
        if new is not None:
            self._calls.run(lambda _cancel: new.embed(["Rill"]), lambda _r, e: self._on_loaded(new, e),
                            name="rill-embedder-load")

    def _on_loaded(self, embedder: LlamaEmbedder, error: BaseException | None) -> None:
        if error is None or self._service.embedder is not embedder:
            return
        log.warning("the embedding model %s cannot be used: %r", embedder.path, error)
        if isinstance(error, BackendError):
            message = str(error)
        else:
            message = self.tr("The embedding model {name} could not be used: {error}").format(
                name=os.path.basename(embedder.path), error=error)
        self.error = message + " " + self.tr("Attachments are matched by keywords.")
        self._service.embedder = None
        self._close(embedder)
        self.failed.emit(self.error)
        self.mode_changed.emit()

    def _close(self, embedder: LlamaEmbedder) -> None:
        def close(_cancel: threading.Event) -> None:
            embedder.close()

        def closed(_result: Any, error: BaseException | None) -> None:
            if error is not None:
                log.warning("closing the embedding model failed: %r", error)

        self._calls.run(close, closed, name="rill-embedder-close")

    def label(self) -> str:
        """How passages are retrieved now, for the chips: "keywords" or
        "keywords + meaning (model name)"."""
        embedder = self._service.embedder
        if embedder is None:
            return self.tr("keywords")
        return self.tr("keywords + meaning ({model})").format(model=_short_name(embedder.model))


def _short_name(file_name: str) -> str:
    name = file_name[:-5] if file_name.lower().endswith(".gguf") else file_name
    return name if len(name) <= 40 else name[:39] + "…"
