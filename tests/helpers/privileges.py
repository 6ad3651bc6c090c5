"""File permissions in tests that also run as root (CI does): root ignores
them, so the block runs as ``nobody`` in a folder that user can reach."""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

NOBODY = 65534


@contextlib.contextmanager
def as_unprivileged() -> Iterator[None]:
    """Run the block as a user that file permissions apply to (as itself when not root)."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        yield
        return
    os.seteuid(NOBODY)
    try:
        yield
    finally:
        os.seteuid(0)


@contextlib.contextmanager
def world_dir() -> Iterator[Path]:
    """A new folder everyone can enter and write (pytest's tmp_path is private to root)."""
    base = Path(tempfile.mkdtemp(prefix="rill-perm-"))
    base.chmod(0o777)
    try:
        yield base
    finally:
        for path in (base, *base.rglob("*")):
            with contextlib.suppress(OSError):
                path.chmod(0o777 if path.is_dir() else 0o666)
        shutil.rmtree(base, ignore_errors=True)
