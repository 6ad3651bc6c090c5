"""Fixtures for the hub tests: a fake Hub (and a second one as its CDN) serving real tiny GGUF files."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers.fake_hub import FakeHub, FakeRepo
from tests.helpers.gguf_files import tiny_model

REPO = "tester/Tiny-Chat-GGUF"
MODEL = "Tiny-Chat-Q4_K_M.gguf"
MODEL_Q8 = "Tiny-Chat-Q8_0.gguf"
MMPROJ = "mmproj-Tiny-Chat-f16.gguf"
GATED = "tester/Gated-GGUF"


@pytest.fixture(scope="session")
def gguf_blobs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    folder = tmp_path_factory.mktemp("blobs")
    return {
        MODEL: tiny_model(folder / MODEL, data_bytes=3 * 1024 * 1024, seed=1).read_bytes(),
        MODEL_Q8: tiny_model(folder / MODEL_Q8, data_bytes=5 * 1024 * 1024, seed=2).read_bytes(),
        MMPROJ: tiny_model(folder / MMPROJ, data_bytes=64 * 1024, seed=3, arch="clip", template=None).read_bytes(),
    }


@pytest.fixture
def hub(gguf_blobs: dict[str, bytes]) -> Iterator[FakeHub]:
    """The Hub, redirecting files to a CDN on another port (as the real one does)."""
    with FakeHub() as cdn, FakeHub(cdn=cdn) as server:
        server.repos[REPO] = FakeRepo({**gguf_blobs, "README.md": b"# Tiny\n"}, downloads=1234, likes=56,
                                      no_lfs={"README.md"})
        server.repos[GATED] = FakeRepo({MODEL: gguf_blobs[MODEL]}, gated=True, license="llama3.2", downloads=9)
        server.repos["other/Unrelated"] = FakeRepo({"weights.bin": b"x"}, downloads=1)
        yield server


@pytest.fixture
def models_dir(tmp_path: Path) -> Path:
    return tmp_path / "models"
