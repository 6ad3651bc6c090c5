"""The curated list of recommended chat models, and the one for this machine (Qt-free).

The list is data, not code: ``resources/hub/recommended.json`` (a repository,
a file, a display name, a size class and the file's approximate size for
each). :func:`pick_for` marks the largest model that fits this machine
comfortably: its estimated need (``app.core.hub.fit.estimate_needed``) is at
most ``COMFORT_SHARE`` of the memory available now and of the physical
memory, so the window, the system and a browser keep room. A machine too
small for any of them gets the smallest.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.core.hub.api import valid_filename, valid_repo_id
from app.core.hub.fit import Machine, estimate_needed

log = logging.getLogger(__name__)

__all__ = ["COMFORT_SHARE", "Recommended", "load_recommended", "pick_for"]

SIZE_CLASSES = ("tiny", "small", "medium", "large")
COMFORT_SHARE = 0.6
#: The list file is small; a larger one is not ours.
MAX_LIST_BYTES = 256 * 1024


@dataclass(frozen=True)
class Recommended:
    repo: str
    file: str
    name: str
    size_class: str
    parameters: str
    quant: str
    approx_size: int
    license: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"repo": self.repo, "file": self.file, "name": self.name, "size_class": self.size_class,
                "parameters": self.parameters, "quant": self.quant, "approx_size": self.approx_size,
                "license": self.license}


def default_list_path() -> Path:
    from app.resources import resources_dir

    return resources_dir() / "hub" / "recommended.json"


def parse_recommended(data: Any) -> list[Recommended]:
    """The valid entries of the list's JSON (bad ones are skipped, logged)."""
    models = data.get("models") if isinstance(data, dict) else None
    found: list[Recommended] = []
    for item in models if isinstance(models, list) else []:
        try:
            entry = Recommended(
                repo=str(item["repo"]), file=str(item["file"]), name=str(item["name"]),
                size_class=str(item.get("size_class", "")), parameters=str(item.get("parameters", "")),
                quant=str(item.get("quant", "")), approx_size=int(item["approx_size"]),
                license=str(item.get("license", "")),
            )
        except (KeyError, TypeError, ValueError):
            log.warning("a recommended model entry is malformed: %r", item)
            continue
        if not valid_repo_id(entry.repo) or not valid_filename(entry.file) or entry.approx_size <= 0:
            log.warning("a recommended model entry is invalid: %r", item)
            continue
        found.append(entry)
    found.sort(key=lambda r: r.approx_size)
    return found


def load_recommended(path: Path | None = None) -> list[Recommended]:
    """The recommended models, smallest first; [] (logged) when the file is missing or damaged."""
    path = path or default_list_path()
    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_LIST_BYTES + 1)
    except OSError as exc:
        log.warning("cannot read the recommended models %s: %s", path, exc)
        return []
    if len(raw) > MAX_LIST_BYTES:
        log.warning("the recommended models file %s is too large", path)
        return []
    try:
        return parse_recommended(json.loads(raw.decode("utf-8")))
    except (UnicodeDecodeError, ValueError) as exc:
        log.warning("the recommended models file %s is damaged: %s", path, exc)
        return []


def pick_for(models: list[Recommended], machine: Machine) -> Recommended | None:
    """The model for this machine (module docstring); None for an empty list."""
    if not models:
        return None
    room = [m for m in (machine.available, machine.total) if m]
    if not room:
        return min(models, key=lambda r: r.approx_size)
    budget = COMFORT_SHARE * min(room)
    fitting = [r for r in models if estimate_needed(r.approx_size) <= budget]
    if not fitting:
        return min(models, key=lambda r: r.approx_size)
    return max(fitting, key=lambda r: r.approx_size)
