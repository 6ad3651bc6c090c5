"""``python -m benchmarks.inproc``: ``rill doctor`` in one process, as the
benchmarks run it, with the user's real store (the command line's doctor
stores nothing)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = next(p for p in Path(__file__).resolve().parents if (p / "pyproject.toml").is_file())


def test_a_reply_to_the_sample_history_is_saved_under_it(isolated_user_dirs: Path) -> None:
    """The sample history is in the store, as an opened conversation is, so
    the turn's prompt and reply are saved under it. (Before, the save was
    refused, its parent not being in the store: a warning notice came below
    the reply, and every tick repainted the whole viewport, in every history
    row of the benchmarks.)"""
    from app.core.backends.scripted import SAMPLE_MARKDOWN
    from app.core.store import Store
    from app.core.store.opening import default_path

    proc = subprocess.run(
        [sys.executable, "-m", "benchmarks.inproc", "--backend", "scripted", "--rate", "4000",
         "--history-messages", "40", "--prompt", "Say hi."],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["ok"] is True, out["error"]
    assert "could not save" not in proc.stderr and "FOREIGN KEY" not in proc.stderr
    opened = Store.open_read_only(default_path())
    assert opened.store is not None, opened.notices
    with opened.store as store:
        (info,) = store.list_conversations(0, 10)
        messages = store.load_messages(info.id)
    assert len(messages) == 42
    assert [m.role for m in messages[-2:]] == ["user", "assistant"]
    assert messages[-2].content == "Say hi." and messages[-1].content == SAMPLE_MARKDOWN
