"""Finding Rill's resource files in a source checkout and in a frozen bundle alike."""

from __future__ import annotations

import functools
import logging
import sys
from pathlib import Path

log = logging.getLogger(__name__)


def resources_dir() -> Path:
    """The ``resources/`` folder: beside the package in a checkout, or inside
    the PyInstaller bundle (``sys._MEIPASS``) when frozen."""
    bundle = getattr(sys, "_MEIPASS", None)
    if bundle:
        return Path(bundle) / "resources"
    return _checkout_resources()


@functools.cache
def _checkout_resources() -> Path:
    """Resolved once per process (~3 ms a call on a busy GUI thread)."""
    return Path(__file__).resolve().parent.parent / "resources"


def resource_path(name: str) -> Path | None:
    """Path of a resource file, or None (logged) when it is missing."""
    path = resources_dir() / name
    if path.is_file():
        return path
    log.warning("resource missing: %s", path)
    return None


def read_text_resource(name: str) -> str:
    """A text resource's content; empty (logged) if missing or unreadable."""
    path = resource_path(name)
    if path is None:
        return ""
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        log.warning("cannot read resource %s: %s", path, exc)
        return ""
