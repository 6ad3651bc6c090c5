"""The autouse leak check (tests/conftest.py) catches what it says it does."""

from __future__ import annotations

import gc
import threading

from tests.conftest import leaks, python_threads


def test_a_running_python_thread_and_gc_left_off_are_reported() -> None:
    before = python_threads()
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait, args=(30,), name="rill-test-leak", daemon=True)
    thread.start()
    gc.disable()
    try:
        problems = leaks(before, join_s=0.01)
        assert gc.isenabled(), "turned on again for the next tests"
    finally:
        gc.enable()
        stop.set()
        thread.join()
    assert any("rill-test-leak" in p for p in problems), problems
    assert any("garbage collector" in p for p in problems), problems


def test_a_thread_that_ends_in_time_is_not_a_leak() -> None:
    before = python_threads()
    thread = threading.Thread(target=lambda: None, name="rill-test-quick", daemon=True)
    thread.start()
    assert leaks(before) == []


def test_a_key_or_keyring_password_outside_the_keyring_is_found(tmp_path) -> None:
    from tests.helpers.keyring import MemoryKeyring
    from tests.helpers.secrets import KEYRING_SECRETS, leaked_in, leaked_in_files

    MemoryKeyring().set_password("rill", "server", "correct-horse-battery")
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "rill.log").write_text("connecting with correct-horse-battery\n")
    (tmp_path / "settings.json").write_text('{"api_key": "sk-proj-Tq7Wz0Lm4Xc9"}')
    assert leaked_in_files(tmp_path) == [
        "data/rill.log: correct-horse-battery", "settings.json: sk-proj-Tq7Wz0Lm4Xc9",
    ]
    assert leaked_in("Authorization: Bearer [redacted]") == []
    KEYRING_SECRETS.clear()  # this test's own files are not a leak
    (tmp_path / "settings.json").unlink()
    (tmp_path / "data" / "rill.log").unlink()
