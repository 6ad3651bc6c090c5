"""The parts of local vision that need no model (vision.py, vision_prompt.py)."""

from __future__ import annotations

import base64

import pytest

from app.core.backends.base import BackendError, ChatMessage
from app.core.backends.llama.vision import Chunk, Chunks, decode_image, error_reason, image_key
from app.core.backends.llama.vision_prompt import has_images


def test_an_image_key_is_negative_stable_and_32_bit() -> None:
    a, b = image_key("QUJD"), image_key("REVG")
    assert a == image_key("QUJD") and a != b
    assert -(2**31) <= a < 0 and -(2**31) <= b < 0


def test_image_data_must_be_base64() -> None:
    assert decode_image(base64.b64encode(b"\x89PNG").decode()) == b"\x89PNG"
    with pytest.raises(BackendError, match="not base64"):
        decode_image("%%%")


def test_libmtmd_errors_read_as_words() -> None:
    lines = [
        "clip_init: failed to load model '/m/mmproj.gguf': load_tensors: failed to seek for tensor mm.2.bias",
        "mtmd_init_from_file: error: Failed to load CLIP model from /m/mmproj.gguf",
        "mtmd_init_from_file: error: Failed to load CLIP model from /m/mmproj.gguf",
    ]
    assert error_reason(lines) == ("failed to load model '/m/mmproj.gguf': failed to seek for tensor mm.2.bias; "
                                   "Failed to load CLIP model from /m/mmproj.gguf")


def test_chunks_lay_out_the_prompt_with_image_keys() -> None:
    chunks = Chunks(mtmd=None, pointer=None, items=[
        Chunk(True, [1, 2, 3], 3, 3),
        Chunk(False, [], 4, 6, key=-5),
        Chunk(True, [7], 1, 1),
    ])
    assert chunks.keys == [1, 2, 3, -5, -5, -5, -5, 7]
    assert chunks.image_tokens == 6 and chunks.extra_cells == 2
    chunks.free()
    assert chunks.items == []


def test_has_images() -> None:
    assert not has_images([ChatMessage("user", "hi")])
    assert has_images([ChatMessage("user", "hi"), ChatMessage("user", "look", images=(("image/png", "QUJD"),))])
