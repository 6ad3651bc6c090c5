"""Crafted model files for tests: a real GGUF with other metadata, written by
the gguf package's own ``gguf_new_metadata`` (tensors copied as they are)."""

from __future__ import annotations

import logging
from pathlib import Path

import gguf
import tqdm
from gguf.scripts.gguf_new_metadata import MetadataDetails, copy_with_new_metadata


def with_chat_template(source: Path, target: Path, template: str) -> Path:
    """``source`` copied to ``target`` with ``tokenizer.chat_template`` = ``template``."""
    logging.getLogger("gguf-new-metadata").setLevel(logging.WARNING)
    tqdm.tqdm.monitor_interval = 0   # the writer's progress bar would leave a monitor thread behind
    reader = gguf.GGUFReader(source, "r")
    arch = reader.get_field(gguf.Keys.General.ARCHITECTURE)
    assert arch is not None
    writer = gguf.GGUFWriter(target, arch=arch.contents(), endianess=reader.endianess)
    new = {gguf.Keys.Tokenizer.CHAT_TEMPLATE: MetadataDetails(gguf.GGUFValueType.STRING, template)}
    copy_with_new_metadata(reader, writer, new, [])
    return target


def tiny_model(target: Path, *, data_bytes: int = 256 * 1024, vocab: int = 32, seed: int = 0,
               arch: str = "llama", template: str | None = "{% for m in messages %}<|im_start|>{{ m.content }}"
               "<|im_end|>{% endfor %}", context_length: int = 4096, pooling: bool = False) -> Path:
    """A small but real GGUF model (the shapes that size a KV cache, a chat
    template, a ``vocab``-token list, random F32 weights of about
    ``data_bytes``): what the fake Hub serves. ``vocab`` in the hundreds of
    thousands makes the metadata larger than the 2 MB first read. ``pooling``:
    it declares a pooling type, as an embedding model does."""
    import numpy as np

    rng = np.random.default_rng(seed)
    w = gguf.GGUFWriter(target, arch)
    w.add_name("Tiny Test Model")
    w.add_license("apache-2.0")
    w.add_context_length(context_length)
    w.add_embedding_length(64)
    w.add_block_count(2)
    w.add_head_count(4)
    w.add_head_count_kv(2)
    w.add_file_type(gguf.LlamaFileType.ALL_F32)
    w.add_token_list([f"token{i}" for i in range(vocab)])
    if template is not None:
        w.add_chat_template(template)
    if pooling:
        w.add_pooling_type(gguf.PoolingType.MEAN)
    rows = max(1, data_bytes // (64 * 4))
    w.add_tensor("blk.0.attn_q.weight", rng.standard_normal((rows, 64), dtype=np.float32))
    w.add_tensor("output_norm.weight", rng.standard_normal(64, dtype=np.float32))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return target
