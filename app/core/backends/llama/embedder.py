"""A GGUF embedding model: texts in, one vector each (Qt-free).

``LlamaEmbedder(path)`` loads the file with llama-cpp-python's
``embedding=True`` on first use (the caller's thread: a worker) and embeds
texts in batches. A model with a pooling head (an embedding model proper:
BGE, E5, nomic-embed, all-MiniLM as GGUF) gives one vector per text; a model
without one (a chat model) gives a vector per token, which are averaged.
Each text is cut to the context (``N_CTX`` tokens; chunks are ~512).

Threading rule: any one thread at a time (a lock guards the model: llama.cpp
contexts are not thread-safe); ``close`` frees it.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from typing import Any

from app.core.backends.base import BackendError
from app.core.base.i18n import translate

#: Tokens of context (and of batch): a chunk of ~512 estimated tokens fits.
N_CTX = 1024


class LlamaEmbedder:
    """See the module docstring."""

    def __init__(self, path: str, n_threads: int | None = None) -> None:
        self.path = path
        #: The name vectors are stored under (another model's vectors are never compared).
        self.model = os.path.basename(path)
        self._n_threads = n_threads
        self._llama: Any = None
        self._lock = threading.Lock()

    def _load(self) -> Any:
        if self._llama is None:
            try:
                from llama_cpp import Llama

                self._llama = Llama(model_path=self.path, embedding=True, n_ctx=N_CTX, n_batch=N_CTX, n_ubatch=N_CTX,
                                    n_threads=self._n_threads, verbose=False)
            except (ValueError, RuntimeError, OSError) as e:
                raise BackendError(translate("Attachments", "The embedding model {name} could not be loaded: {error}")
                                   .format(name=self.model, error=e)) from e
        return self._llama

    def embed(self, texts: Sequence[str], cancel: threading.Event | None = None) -> list[list[float]]:
        """One vector per text, in order (empty for an empty text)."""
        out: list[list[float]] = []
        with self._lock:
            for text in texts:
                if cancel is not None and cancel.is_set():
                    break
                if not text.strip():
                    out.append([])
                    continue
                out.append(_pooled(self._load().embed(text, normalize=True, truncate=True)))
        return out

    def close(self) -> None:
        with self._lock:
            if self._llama is not None:
                self._llama.close()
                self._llama = None


def _pooled(result: Any) -> list[float]:
    """A vector from ``Llama.embed``'s answer: itself, or the mean of per-token vectors."""
    if result and isinstance(result[0], list):
        n = len(result)
        return [sum(col) / n for col in zip(*result, strict=True)]
    return [float(x) for x in result]
