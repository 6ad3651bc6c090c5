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
