"""Which vision projector goes with a local model (app/core/models/projector.py)."""

from __future__ import annotations

from pathlib import Path

from app.core.models.projector import find_projector, is_vision_projector, projector_candidates
from tests.helpers.gguf_files import tiny_model
from tests.helpers.mmproj import clip_header


def test_no_projector_beside_a_model(tmp_path: Path) -> None:
    model = tiny_model(tmp_path / "Foo-Q4_K_M.gguf")
    tiny_model(tmp_path / "Bar-Q4_K_M.gguf")
    assert find_projector(model) is None


def test_a_projector_named_as_hub_repos_name_them_is_found(tmp_path: Path) -> None:
    model = tiny_model(tmp_path / "Foo-Q4_K_M.gguf")
    projector = clip_header(tmp_path / "mmproj-model-f16.gguf")
    assert find_projector(model) == projector


def test_the_projector_sharing_the_models_name_wins(tmp_path: Path) -> None:
    model = tiny_model(tmp_path / "gemma-3-4b-it-Q4_K_M.gguf")
    clip_header(tmp_path / "mmproj-Qwen2.5-VL-3B-f16.gguf", padding=64 * 1024)  # larger, another model's
    ours = clip_header(tmp_path / "gemma-3-4b-it-mmproj-Q8_0.gguf")
    assert find_projector(model) == ours


def test_among_equals_the_larger_file_wins(tmp_path: Path) -> None:
    model = tiny_model(tmp_path / "Foo-Q4_K_M.gguf")
    small = clip_header(tmp_path / "mmproj-Foo-Q8_0.gguf")
    large = clip_header(tmp_path / "mmproj-Foo-F16.gguf", padding=64 * 1024)
    assert projector_candidates(model) == [large, small]
    assert find_projector(model) == large


def test_files_that_are_not_vision_projectors_are_passed_over(tmp_path: Path) -> None:
    model = tiny_model(tmp_path / "Foo-Q4_K_M.gguf")
    tiny_model(tmp_path / "mmproj-Foo-f32.gguf", data_bytes=512 * 1024)  # a language model, misnamed
    clip_header(tmp_path / "mmproj-Foo-audio-f16.gguf", vision=False, padding=32 * 1024)  # audio only
    (tmp_path / "mmproj-Foo-broken.gguf").write_bytes(b"GGUF\x03\x00\x00\x00" + b"\xff" * 64)
    (tmp_path / "mmproj-Foo-empty.gguf").write_bytes(b"")
    (tmp_path / "mmproj-Foo.txt").write_text("not a gguf")
    vision = clip_header(tmp_path / "mmproj-Foo-Q8_0.gguf")
    assert not is_vision_projector(tmp_path / "mmproj-Foo-f32.gguf")
    assert not is_vision_projector(tmp_path / "mmproj-Foo-audio-f16.gguf")
    assert find_projector(model) == vision


def test_a_model_is_not_its_own_projector(tmp_path: Path) -> None:
    model = clip_header(tmp_path / "mmproj-Foo-f16.gguf")
    assert find_projector(model) is None


def test_a_missing_folder_finds_nothing(tmp_path: Path) -> None:
    assert find_projector(tmp_path / "gone" / "Foo.gguf") is None
