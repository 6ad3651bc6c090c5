"""Split models: llama.cpp's part names, and what opening each part says."""

from __future__ import annotations

from pathlib import Path

from app.core.models.gguf_splits import split_part, split_parts


def test_part_names() -> None:
    assert split_part("/m/Qwen-7B-Q4_K_M-00002-of-00003.gguf") == (2, 3)
    assert split_part(Path("X-00001-OF-00002.GGUF")) == (1, 2)
    assert split_part("model.gguf") is None and split_part("m-1-of-2.gguf") is None


def test_the_first_part_counts_every_part_and_says_which_is_missing(tmp_path: Path) -> None:
    first = tmp_path / "m-00001-of-00003.gguf"
    first.write_bytes(b"x" * 10)
    (tmp_path / "m-00002-of-00003.gguf").write_bytes(b"x" * 20)
    error, total = split_parts(str(first), 0, 3, 10)
    assert "Part 3 of 3" in error and "m-00003-of-00003.gguf" in error and total == 10
    (tmp_path / "m-00003-of-00003.gguf").write_bytes(b"x" * 30)
    assert split_parts(str(first), 0, 3, 10) == ("", 60)


def test_a_later_part_or_an_unusual_name_is_said(tmp_path: Path) -> None:
    error, total = split_parts(str(tmp_path / "m-00002-of-00003.gguf"), 1, 3, 5)
    assert "part 2 of 3" in error and "00001-of-00003" in error and total == 5
    error, _ = split_parts(str(tmp_path / "renamed.gguf"), 0, 3, 5)
    assert "first part" in error and "cannot be found" in error
