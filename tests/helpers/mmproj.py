"""A tiny, real vision projector for tests, written with the gguf package.

No vision GGUF is on PyPI and tests download nothing, so this writes a
LLaVA-style CLIP projector (``clip.projector_type = "mlp"``: a ViT, then a
two-layer MLP into the language model's embedding) with random weights and
tiny shapes: 32x32 images in 8x8 patches (16 image tokens), a 2-block ViT of
width 32, and an MLP out to ``n_embd`` (SmolLM2-135M's is 576). libmtmd
(llama.cpp's tools/mtmd/clip.cpp) loads it as it loads a real LLaVA
projector; what the model "sees" is noise, which is all a test needs.

The keys and tensor names are llama.cpp's (clip-impl.h's ``KEY_*`` and
``TN_*``; the LLaVA graph is tools/mtmd/models/llava.cpp). GGUF tensor shapes
are numpy order, the reverse of ggml's ``ne``.
"""

from __future__ import annotations

from pathlib import Path

import gguf
import numpy as np

#: SmolLM2-135M-Instruct's embedding width (``llama.embedding_length``).
SMOLLM2_N_EMBD = 576

IMAGE_SIZE = 32
PATCH_SIZE = 8
#: Image tokens per image: (32 / 8) ** 2.
N_IMAGE_TOKENS = (IMAGE_SIZE // PATCH_SIZE) ** 2
WIDTH = 32
HEADS = 2
FFN = 64
BLOCKS = 2
MLP_HIDDEN = 64


def tiny_projector(target: Path, n_embd: int = SMOLLM2_N_EMBD, seed: int = 0) -> Path:
    """Write the projector to ``target`` (an ``mmproj-*.gguf`` name is how Rill
    finds it beside a model) and return ``target``."""
    rng = np.random.default_rng(seed)

    def weights(*shape: int) -> np.ndarray:
        return (rng.standard_normal(shape) * 0.02).astype(np.float32)

    def ones(n: int) -> np.ndarray:
        return np.ones(n, dtype=np.float32)

    def zeros(n: int) -> np.ndarray:
        return np.zeros(n, dtype=np.float32)

    w = gguf.GGUFWriter(target, "clip")
    w.add_name("Tiny Test Projector")
    w.add_file_type(gguf.LlamaFileType.ALL_F32)
    w.add_bool("clip.has_vision_encoder", True)
    w.add_bool("clip.has_text_encoder", False)
    w.add_bool("clip.has_llava_projector", True)
    w.add_string("clip.projector_type", "mlp")
    w.add_bool("clip.use_gelu", True)
    w.add_uint32("clip.vision.image_size", IMAGE_SIZE)
    w.add_uint32("clip.vision.patch_size", PATCH_SIZE)
    w.add_uint32("clip.vision.embedding_length", WIDTH)
    w.add_uint32("clip.vision.feed_forward_length", FFN)
    w.add_uint32("clip.vision.projection_dim", n_embd)
    w.add_uint32("clip.vision.block_count", BLOCKS)
    w.add_uint32("clip.vision.attention.head_count", HEADS)
    w.add_float32("clip.vision.attention.layer_norm_epsilon", 1e-5)
    w.add_array("clip.vision.image_mean", [0.5, 0.5, 0.5])
    w.add_array("clip.vision.image_std", [0.5, 0.5, 0.5])

    n_pos = N_IMAGE_TOKENS + 1  # the patches and the class embedding
    w.add_tensor("v.patch_embd.weight", weights(WIDTH, 3, PATCH_SIZE, PATCH_SIZE))
    w.add_tensor("v.class_embd", weights(WIDTH))
    w.add_tensor("v.position_embd.weight", weights(n_pos, WIDTH))
    w.add_tensor("v.pre_ln.weight", ones(WIDTH))
    w.add_tensor("v.pre_ln.bias", zeros(WIDTH))
    for i in range(BLOCKS):
        p = f"v.blk.{i}"
        for name in ("attn_q", "attn_k", "attn_v", "attn_out"):
            w.add_tensor(f"{p}.{name}.weight", weights(WIDTH, WIDTH))
            w.add_tensor(f"{p}.{name}.bias", zeros(WIDTH))
        w.add_tensor(f"{p}.ln1.weight", ones(WIDTH))
        w.add_tensor(f"{p}.ln1.bias", zeros(WIDTH))
        w.add_tensor(f"{p}.ln2.weight", ones(WIDTH))
        w.add_tensor(f"{p}.ln2.bias", zeros(WIDTH))
        w.add_tensor(f"{p}.ffn_up.weight", weights(FFN, WIDTH))
        w.add_tensor(f"{p}.ffn_up.bias", zeros(FFN))
        w.add_tensor(f"{p}.ffn_down.weight", weights(WIDTH, FFN))
        w.add_tensor(f"{p}.ffn_down.bias", zeros(WIDTH))
    w.add_tensor("mm.0.weight", weights(MLP_HIDDEN, WIDTH))
    w.add_tensor("mm.0.bias", zeros(MLP_HIDDEN))
    w.add_tensor("mm.2.weight", weights(n_embd, MLP_HIDDEN))
    w.add_tensor("mm.2.bias", zeros(n_embd))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return target


def png_bytes(width: int = 48, height: int = 40, seed: int = 0) -> bytes:
    """A small RGB PNG (random pixels), as the attachment pipeline sends one."""
    import struct
    import zlib

    rng = np.random.default_rng(seed)
    pixels = rng.integers(0, 256, (height, width, 3), dtype=np.uint8)
    raw = b"".join(b"\x00" + pixels[y].tobytes() for y in range(height))

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


def clip_header(target: Path, *, vision: bool = True, padding: int = 0) -> Path:
    """A projector's header only (no weights): enough for Rill to tell a
    vision projector by its metadata (``padding`` bytes of a dummy tensor
    make it larger, for the rule that prefers the larger file)."""
    w = gguf.GGUFWriter(target, "clip")
    w.add_bool("clip.has_vision_encoder", vision)
    w.add_bool("clip.has_audio_encoder", not vision)
    if padding:
        w.add_tensor("pad", np.zeros(max(1, padding // 4), dtype=np.float32))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return target
