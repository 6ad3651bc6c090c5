"""Which of the models Rill knows are embedding models (Qt-free).

Settings › Documents offers these for retrieving attachment passages by
meaning (``app.ui.dialogs.embedding_group``). A file is one when its GGUF
header says so (``GGUFInfo.is_embedding_model``: a ``<arch>.pooling_type``
key, or an encoder architecture such as bert or nomic-bert).

Blocks on file I/O (the catalog's directory listings, ~10 ms a header, cached):
call it off the GUI thread.
"""

from __future__ import annotations

import logging
from pathlib import Path

from app.core.models import catalog

log = logging.getLogger(__name__)


def is_embedding_model(path: str | Path) -> bool:
    """Whether the GGUF file ``path`` is a loadable embedding model."""
    info = catalog.info_for(path)
    return info.ok and info.is_embedding_model


def embedding_models(models_dir: Path | None = None, settings_path: Path | None = None) -> list[Path]:
    """The embedding models among the files of the model catalog, in its order."""
    found: list[Path] = []
    for entry in catalog.scan(models_dir, settings_path):
        if not entry.exists:
            continue
        try:
            if is_embedding_model(entry.path):
                found.append(entry.path)
        except OSError as e:  # unreadable now: not offered
            log.info("cannot read %s: %s", entry.path, e)
    return found
