"""Quantization labels, kinds and groups from Hub file names."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.core.hub.quant import (
    KIND_EMBEDDING,
    KIND_MODEL,
    KIND_PROJECTOR,
    bits_per_weight,
    file_kind,
    is_later_split_part,
    quant_group,
    quantization,
)

KNOWN = ["Q2_K", "Q3_K_S", "Q3_K_M", "Q3_K_L", "Q4_0", "Q4_1", "Q4_K_S", "Q4_K_M", "Q5_0", "Q5_K_S", "Q5_K_M",
         "Q6_K", "Q8_0", "IQ1_S", "IQ1_M", "IQ2_XXS", "IQ2_XS", "IQ2_S", "IQ2_M", "IQ3_XXS", "IQ3_XS", "IQ3_S",
         "IQ3_M", "IQ4_NL", "IQ4_XS", "F16", "BF16", "F32", "TQ1_0", "TQ2_0", "Q4_K_XL", "Q4_0_4_4", "MXFP4"]


@pytest.mark.parametrize(("name", "quant"), [
    ("Llama-3.2-1B-Instruct-Q4_K_M.gguf", "Q4_K_M"),
    ("qwen2.5-0.5b-instruct-iq3_xxs.gguf", "IQ3_XXS"),
    ("model-BF16.gguf", "BF16"),
    ("smollm2-360m-instruct-q8_0.gguf", "Q8_0"),
    ("Qwen3-8B-UD-Q4_K_XL.gguf", "Q4_K_XL"),
    ("Q4_K_M/Big-Model-Q4_K_M-00001-of-00003.gguf", "Q4_K_M"),
    ("phi-2.Q5_K_S.gguf", "Q5_K_S"),
    ("mmproj-model-f16.gguf", "F16"),
    ("ggml-model-fp16.gguf", "F16"),
    ("Mistral-7B-Q4_K_M_imatrix.gguf", "Q4_K_M"),
    ("Q8_0-but-really-Q4_0.gguf", "Q4_0"),   # the last label wins
    ("plain-model.gguf", ""),
    ("Qwen2.5-7B-Instruct.gguf", ""),         # "Q" inside a word is no quant
    ("SQ4_K_M.gguf", ""),
])
def test_quantization_from_names(name: str, quant: str) -> None:
    assert quantization(name) == quant


_SEPARATORS = st.sampled_from(["-", "_", ".", "/"])
_WORDS = st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPRSTUVWXYZ0123456789", min_size=1, max_size=12)


@given(prefix=st.lists(_WORDS, max_size=4), sep=_SEPARATORS, quant=st.sampled_from(KNOWN), lower=st.booleans())
def test_a_known_label_after_any_prefix_is_found(prefix: list[str], sep: str, quant: str, lower: bool) -> None:
    name = "-".join(prefix) + (sep if prefix else "") + (quant.lower() if lower else quant) + ".gguf"
    assert quantization(name) == quant


@given(st.text(max_size=200))
def test_never_raises_and_gives_an_upper_case_label(name: str) -> None:
    label = quantization(name)
    assert label == label.upper()
    if label:
        assert bits_per_weight(label) is not None or label.startswith(("TQ", "MXFP"))


def test_groups_and_bits() -> None:
    assert quant_group("IQ3_XXS") == "Small"
    assert quant_group("Q4_K_M") == "Balanced"
    assert quant_group("Q8_0") == "Large"
    assert quant_group("") == ""
    assert bits_per_weight("Q4_K_M") == pytest.approx(4.9)
    assert bits_per_weight("Q7_X") == 7.5   # an unknown one: from its digit


def test_kinds() -> None:
    assert file_kind("mmproj-model-f16.gguf") == KIND_PROJECTOR
    assert file_kind("gemma-3-4b-it-Q4_K_M.gguf", "ggml-org/gemma-3-4b-it-GGUF") == KIND_MODEL
    assert file_kind("nomic-embed-text-v1.5.Q8_0.gguf") == KIND_EMBEDDING
    assert file_kind("model.gguf", "CompendiumLabs/bge-small-en-v1.5-gguf") == KIND_EMBEDDING
    assert file_kind("Qwen2.5-7B-Instruct-Q4_K_M.gguf", "Qwen/Qwen2.5-7B-Instruct-GGUF") == KIND_MODEL
    assert is_later_split_part("m-00002-of-00003.gguf")
    assert not is_later_split_part("m-00001-of-00003.gguf")
