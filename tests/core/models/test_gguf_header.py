"""The header walk on its own: the version and byte order, the metadata and
the tensor infos of a small file, and what a damaged or cut header raises."""

from __future__ import annotations

from pathlib import Path

import gguf
import pytest

from app.core.models.gguf_header import (
    DamagedHeader,
    GGUFHeader,
    PastEndOfFile,
    Skipped,
    header_version,
    read_header,
)
from tests.core.models.test_gguf_info import write_gguf


def walk(path: Path) -> tuple[int, bool, GGUFHeader]:
    data = path.read_bytes()
    with open(path, "rb") as f:
        buf = bytearray(f.read(64))  # a short first read: the walk reads the rest as it needs
        version, little = header_version(buf)
        return version, little, read_header(f, buf, len(data), little, gguf.constants)


def test_version_and_byte_order(tmp_path: Path) -> None:
    assert header_version(write_gguf(tmp_path / "le.gguf").read_bytes()[:8]) == (3, True)
    assert header_version(write_gguf(tmp_path / "be.gguf", endian=gguf.GGUFEndian.BIG).read_bytes()[:8]) == (3, False)
    with pytest.raises(PastEndOfFile):
        header_version(b"GGUF\x03\x00")


def test_metadata_and_tensors(tmp_path: Path) -> None:
    path = write_gguf(tmp_path / "m.gguf", vocab=100, tensors=(("a.weight", (8, 64)), ("b", (64,))))
    version, little, header = walk(path)
    assert (version, little, header.tensor_count) == (3, True, 2)
    assert header.metadata["general.architecture"] == "llama" and header.metadata["llama.block_count"] == 2
    assert "tokenizer.ggml.tokens" not in header.metadata  # 100 strings: skipped, only counted
    assert header.array_lengths["tokenizer.ggml.tokens"] == 100
    assert header.parameters == 8 * 64 + 64
    assert header.data_end == path.stat().st_size
    assert header.bytes_by_type == {int(gguf.GGMLQuantizationType.F32): 8 * 64 * 4}  # 2-D tensors only
    assert header.unknown_types == frozenset()
    assert Skipped(3).count == 3


def test_a_cut_or_damaged_header_raises(tmp_path: Path) -> None:
    path = write_gguf(tmp_path / "m.gguf")
    data = path.read_bytes()
    cut = tmp_path / "cut.gguf"
    cut.write_bytes(data[:200])
    with pytest.raises(PastEndOfFile), open(cut, "rb") as f:
        buf = bytearray(f.read(64))
        read_header(f, buf, 200, True, gguf.constants)
    damaged = bytearray(data)
    damaged[16:24] = (10**9).to_bytes(8, "little")  # the key count
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(bytes(damaged))
    with pytest.raises(DamagedHeader, match="impossible number of keys"), open(bad, "rb") as f:
        buf = bytearray(f.read(64))
        read_header(f, buf, len(damaged), True, gguf.constants)
