"""Which vision projector goes with a local model (Qt-free).

A GGUF model sees images when a vision projector (a CLIP-style image
encoder, "mmproj") sits in the same folder, as Hub repositories ship them:
``mmproj-model-f16.gguf``, ``gemma-3-4b-it-mmproj-f16.gguf``,
``mmproj-Qwen2.5-VL-3B-Instruct-Q8_0.gguf``...

The rule (:func:`find_projector`):

1. Candidates are the ``.gguf`` files beside the model whose name contains
   ``mmproj`` (any case), other than the model itself, whose header says
   ``general.architecture = "clip"`` with ``clip.has_vision_encoder`` true
   (:func:`is_vision_projector`; an audio-only projector does not count).
2. One that shares the model's base name wins: the name less its
   quantization label, ``mmproj`` and separators (``gemma-3-4b-it`` in
   ``gemma-3-4b-it-Q4_K_M.gguf`` and ``mmproj-gemma-3-4b-it-f16.gguf``).
3. Then the larger file (a higher precision: F32 before F16 before Q8_0),
   then the name, for a stable choice.

A wrong pick costs nothing worse than a projector llama.cpp refuses for this
model: the model then loads text-only with a warning
(``app.core.backends.llama.vision``).

``gguf`` is imported on first use (as in ``gguf_info``).
"""

from __future__ import annotations

import itertools
import os
import re
from pathlib import Path

from app.core.models.gguf_header import DamagedHeader, PastEndOfFile, header_version, read_header

__all__ = ["find_projector", "is_vision_projector", "projector_candidates"]

#: The most of a projector's header read (its metadata is small).
_HEADER_BYTES = 256 * 1024
#: Folders with more files than this are not searched (a Downloads folder).
_MAX_FILES = 2000

# Quantization labels and precisions, as in app.core.hub.quant (copied, not
# imported: core.hub sits above core.models).
_QUANT = re.compile(
    r"(?<![a-z0-9])(?:i?q[1-8](?:_(?:[0-9]+|k|xxs|xs|nl|xl|s|m|l))*|tq[12]_0|bf16|f16|f32|fp16|fp32)(?![a-z0-9])"
)


def _base(name: str) -> str:
    """A file's name reduced to what model it is for: lower case, no
    extension, quantization label, ``mmproj`` or separators."""
    stem = name.lower()
    if stem.endswith(".gguf"):
        stem = stem[:-5]
    stem = _QUANT.sub(" ", stem).replace("mmproj", " ").replace("model", " ")
    return re.sub(r"[^a-z0-9]+", "", stem)


def projector_candidates(model: Path) -> list[Path]:
    """The files beside ``model`` whose name says projector (rule 1's names),
    in the rule's order (2 and 3); headers are not read."""
    try:
        with os.scandir(model.parent) as listing:
            entries = list(itertools.islice(listing, _MAX_FILES + 1))
    except OSError:
        return []
    if len(entries) > _MAX_FILES:
        return []
    model_base = _base(model.name)
    found: list[tuple[bool, int, str, Path]] = []
    for entry in entries:
        name = entry.name
        lower = name.lower()
        if not lower.endswith(".gguf") or "mmproj" not in lower or name == model.name:
            continue
        try:
            if not entry.is_file():
                continue
            size = entry.stat().st_size
        except OSError:
            continue
        base = _base(name)
        shares = bool(base and model_base) and (base in model_base or model_base in base)
        found.append((not shares, -size, name, Path(entry.path)))
    found.sort()
    return [path for *_, path in found]


def is_vision_projector(path: Path) -> bool:
    """Is ``path`` a GGUF vision projector (``general.architecture`` "clip"
    and ``clip.has_vision_encoder``)? False for anything unreadable."""
    try:
        import gguf.constants as constants

        size = path.stat().st_size
        with path.open("rb") as f:
            buf = bytearray(f.read(min(size, _HEADER_BYTES)))
            if buf[:4] != b"GGUF":
                return False
            version, little = header_version(buf)
            if version not in (2, 3):
                return False
            header = read_header(f, buf, size, little, constants)
    except (OSError, ImportError, MemoryError, DamagedHeader, PastEndOfFile):
        return False
    meta = header.metadata
    return meta.get("general.architecture") == "clip" and meta.get("clip.has_vision_encoder") is True


def find_projector(model: str | os.PathLike[str]) -> Path | None:
    """The vision projector to load with ``model`` (see the module
    docstring), or None. Reads a few headers: call it off the GUI thread."""
    for candidate in projector_candidates(Path(model)):
        if is_vision_projector(candidate):
            return candidate
    return None
