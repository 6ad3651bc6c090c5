"""llama.cpp's split models: a model in several files named
``name-00001-of-0000N.gguf``, of which llama.cpp opens the first and finds
the others next to it by name (Qt-free)."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from app.core.base.i18n import translate

__all__ = ["split_part", "split_parts"]


_SPLIT_NAME = re.compile(r"^(?P<prefix>.*)-(?P<no>\d{5})-of-(?P<count>\d{5})\.gguf$", re.IGNORECASE)


def split_part(path: str | os.PathLike[str]) -> tuple[int, int] | None:
    """``(part, count)`` (1-based) for llama.cpp's split file names
    (``name-00002-of-00003.gguf``), else None."""
    match = _SPLIT_NAME.match(Path(path).name)
    if match is None:
        return None
    return int(match["no"]), int(match["count"])


def split_parts(path: str, split_no: Any, count: int, size: int) -> tuple[str, int]:
    """(error, total size) for a model split in ``count`` files: llama.cpp
    opens the first part and finds the others next to it by name."""
    if isinstance(split_no, int) and split_no > 0:
        return translate("GGUFInfo", "This is part {part} of {count} of a split model: open the first part "
                                     "(…-00001-of-{count:05d}.gguf).").format(part=split_no + 1, count=count), size
    match = _SPLIT_NAME.match(Path(path).name)
    if match is None:
        return translate("GGUFInfo", "This is the first part of a model split in {count} files, but its name is not "
                                     "llama.cpp's “name-00001-of-0000N.gguf”, so the other parts cannot be found."
                         ).format(count=count), size
    folder, prefix = Path(path).parent, match["prefix"]
    total = size
    for no in range(2, count + 1):
        part = folder / f"{prefix}-{no:05d}-of-{count:05d}.gguf"
        try:
            total += part.stat().st_size
        except OSError:
            return translate("GGUFInfo", "Part {part} of {count} of this split model is missing: {name}.").format(
                part=no, count=count, name=part.name), size
    return "", total
