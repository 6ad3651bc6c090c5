"""The secrets the tests use, and where they must never land.

Every password a test puts in the ``MemoryKeyring`` is recorded here, and
the API keys the tests make up look like ``sk-`` keys; ``leaked_in`` finds
either in a text. ``tests/conftest.py`` checks after every test that none is
in the files of the test's data and settings folders (``rill.db`` and its
WAL, the log, the settings file) or in an export it wrote, nor in what the
test printed to stderr or logged."""

from __future__ import annotations

import re
from pathlib import Path

#: What the tests' made-up API keys look like ("sk-a" and other stubs are too
#: short to be mistaken for text).
KEY_PATTERN = re.compile(r"sk-[A-Za-z0-9_-]{8,}")

#: Passwords set in a MemoryKeyring during the current test.
KEYRING_SECRETS: set[str] = set()

#: Files larger than this are not read (no test writes one with a secret in its first bytes only).
SCAN_BYTES = 64 * 1024 * 1024


def leaked_in(text: str) -> list[str]:
    """The secrets found in ``text``."""
    found = set(KEY_PATTERN.findall(text))
    found.update(s for s in KEYRING_SECRETS if len(s) >= 6 and s in text)
    return sorted(found)


def leaked_in_files(folder: Path) -> list[str]:
    """``file: secret`` for every secret in a file under ``folder``."""
    out: list[str] = []
    if not folder.is_dir():
        return out
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        try:
            data = path.read_bytes()[:SCAN_BYTES]
        except OSError:
            continue
        text = data.decode("utf-8", errors="replace")
        out += [f"{path.relative_to(folder)}: {secret}" for secret in leaked_in(text)]
    return out
