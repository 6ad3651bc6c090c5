"""LlamaEmbedder without a model: pooling, empty texts, a missing file said plainly
(the real model: tests/test_cli_attach.py, marked ``model``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.core.backends.base import BackendError
from app.core.backends.llama.embedder import LlamaEmbedder, _pooled


def test_per_token_vectors_are_averaged() -> None:
    assert _pooled([[1.0, 2.0], [3.0, 4.0]]) == [2.0, 3.0]
    assert _pooled([0.5, 0.25]) == [0.5, 0.25]


def test_a_missing_model_is_a_plain_message(tmp_path: Path) -> None:
    embedder = LlamaEmbedder(str(tmp_path / "missing-embed.gguf"))
    assert embedder.model == "missing-embed.gguf"
    assert embedder.embed(["", "  "]) == [[], []]  # nothing to embed: the model is not even loaded
    with pytest.raises(BackendError, match="missing-embed.gguf could not be loaded"):
        embedder.embed(["some text"])
    embedder.close()
