"""The About box's text (Qt-free)."""

from __future__ import annotations

import importlib.util
import platform
import sys

import pytest

from app import __version__
from app.core.base import about

SAMPLE = "CPU : SSE3 = 1 | SSSE3 = 1 | AVX = 1 | AVX2 = 1 | AVX512 = 0 | F16C = 1 | FMA = 1 | OPENMP = 1 | "


@pytest.fixture(autouse=True)
def fresh_cache(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    monkeypatch.setattr(about, "_cached", None)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))


def test_parse_system_info() -> None:
    assert about.parse_system_info(SAMPLE) == ("SSE3", "SSSE3", "AVX", "AVX2", "F16C", "FMA", "OPENMP")
    assert about.parse_system_info("") == ()
    assert about.parse_system_info("garbage | without = | = 1 | X = 1 | X = 1") == ("X",)
    assert about.parse_system_info("CPU : AVX = 1 | Metal : EMBED_LIBRARY = 1 |") == ("AVX", "EMBED_LIBRARY")


def test_about_text_lists_versions_and_flags(tmp_path) -> None:
    info = about.LlamaInfo(
        available=True, package_version="0.3.36", library_version="0.5.0-dev",
        features=("AVX", "AVX2", "FMA"), system_info=SAMPLE,
    )
    text = about.about_text("6.11.2", "6.11.0", info, model="SmolLM2 (/m.gguf)")
    assert text.startswith(f"Rill {__version__}\n")
    assert "Qt: Qt 6.11.2, PyQt 6.11.0" in text
    assert f"Python: {platform.python_version()} (installed Python package)" in text
    assert "llama.cpp: llama-cpp-python 0.3.36, libllama 0.5.0-dev" in text
    assert "CPU build flags: AVX AVX2 FMA" in text
    assert "Model: SmolLM2 (/m.gguf)" in text
    assert f"Models folder: {tmp_path / 'data' / 'rill' / 'models'}" in text
    assert f"Settings: {tmp_path / 'config' / 'rill' / 'settings.json'}" in text


def test_about_text_while_checking_and_without_llama() -> None:
    assert "llama.cpp: checking…" in about.about_text("6", "6", None)
    missing = about.LlamaInfo(available=False, error="ImportError: No module named 'llama_cpp'")
    text = about.about_text("6", "6", missing)
    assert "llama.cpp: not available (ImportError: No module named 'llama_cpp')" in text
    assert "CPU build flags: —" in text


def test_about_text_says_when_frozen(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    assert "standalone executable (PyInstaller)" in about.about_text("6", "6", None)


def test_about_html_escapes_everything() -> None:
    html = about.about_html("6", "6", None, model="<script>alert(1)</script> & co")
    assert "<script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp; co" in html


def test_missing_llama_cpp_is_described_not_raised(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "llama_cpp", None)  # makes `import llama_cpp` fail
    assert about.llama_info_if_loaded() is None
    info = about.llama_info()
    assert not info.available and "ModuleNotFoundError" in info.error
    assert about.llama_info() is info  # computed once


def test_a_broken_llama_cpp_build_is_described(monkeypatch: pytest.MonkeyPatch) -> None:
    class Broken:
        __version__ = "9.9"

        def llama_version(self) -> bytes:
            raise OSError("symbol missing")

        def llama_print_system_info(self) -> bytes:
            return b"CPU : AVX = 1 | "

    monkeypatch.setitem(sys.modules, "llama_cpp", Broken())
    info = about.llama_info()
    assert info.available and info.package_version == "9.9"
    assert info.library_version == "" and info.features == ("AVX",)


@pytest.mark.skipif(importlib.util.find_spec("llama_cpp") is None, reason="llama-cpp-python is not installed")
def test_real_llama_cpp_description() -> None:
    import llama_cpp

    info = about.llama_info()
    assert info.available, info.error
    assert info.package_version == llama_cpp.__version__
    assert info.system_info.startswith("CPU")
    assert info.features, "a CPU build reports at least one enabled feature"
    assert about.llama_info_if_loaded() is info
