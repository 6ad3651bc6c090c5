"""Model-loading progress and cancellation through llama.cpp's progress
callback (the params hook that installs it is in ``shim``)."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from typing import Any

from app.core.backends.base import LoadProgress
from app.core.backends.llama.shim import LOAD_HOOK


def make_progress_callback(
    llama_cpp: Any, cancel: threading.Event, progress: LoadProgress | None
) -> Any:
    """A ``llama_progress_callback``: reports ``progress`` and returns False
    (abort the load) once ``cancel`` is set. It never raises: an exception in
    a ctypes callback would be printed and read as False."""

    def on_progress(fraction: float, _user_data: Any) -> bool:
        try:
            if cancel.is_set():
                return False
            if progress is not None:
                progress(fraction)
            return not cancel.is_set()
        except BaseException:  # noqa: BLE001 (nothing may escape into C)
            return not cancel.is_set()

    return llama_cpp.llama_cpp.llama_progress_callback(on_progress)


@contextlib.contextmanager
def load_hook(callback: Any) -> Iterator[Any]:
    """Make ``callback`` the progress callback of models this thread loads;
    yields the thread-local state (``.applied`` tells whether it was used)."""
    LOAD_HOOK.callback = callback
    LOAD_HOOK.applied = False
    try:
        yield LOAD_HOOK
    finally:
        LOAD_HOOK.callback = None
