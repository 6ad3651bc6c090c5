"""llama.cpp's log and llama-cpp-python's prints, routed to ``logging``;
the reason a load failed, in llama.cpp's words."""

from __future__ import annotations

import contextlib
import ctypes
import io
import logging
import sys
import threading
from collections.abc import Iterator, Sequence
from typing import Any

#: llama.cpp's own log lines (and llama-cpp-python's prints while a model loads).
llama_log = logging.getLogger("app.core.backends.llama.llama_cpp")


# ggml_log_level in this ggml: NONE=0, DEBUG=1, INFO=2, WARN=3, ERROR=4,
# CONT=5 (continues the previous line). llama-cpp-python's own _logger.py still
# uses the older numbering (ERROR=3, DEBUG=4), i.e. it treats errors as debug.
_GGML_LOG_ERROR = 4
_GGML_LOG_CONT = 5


class LlamaLogRouter:
    """Receives llama.cpp's log fragments, reassembles lines and forwards them
    to ``logging`` (errors at WARNING, everything else at DEBUG, so nothing
    reaches the terminal in a normal run). Error lines are also handed to any
    active capture so a failed load can tell the user llama.cpp's reason."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._partial = ""
        self._partial_level = 0
        self._captures: list[list[str]] = []
        self._local = threading.local()  # .cancel: the Event of an abortable decode

    def on_log(self, level: int, text: bytes | None) -> None:
        try:
            fragment = (text or b"").decode("utf-8", errors="replace")
            lines: list[tuple[int, str]] = []
            with self._lock:
                if level != _GGML_LOG_CONT:
                    if self._partial:  # a new message starts: flush an unterminated one
                        lines.append((self._partial_level, self._partial))
                        self._partial = ""
                    self._partial_level = level
                self._partial += fragment
                while "\n" in self._partial:
                    line, self._partial = self._partial.split("\n", 1)
                    lines.append((self._partial_level, line))
                for lvl, line in lines:
                    if lvl == _GGML_LOG_ERROR and line.strip():
                        for capture in self._captures:
                            capture.append(line.strip())
            cancel = getattr(self._local, "cancel", None)
            # An abort we asked for makes llama.cpp log errors ("failed to
            # compute graph"): expected, so not worth a warning.
            expected = cancel is not None and cancel.is_set()
            for lvl, line in lines:
                if lvl == _GGML_LOG_ERROR and not expected:
                    llama_log.warning("%s", line)
                else:
                    llama_log.debug("%s", line)
        except Exception:  # noqa: BLE001, S110 - nothing may escape into C, and logging is what failed
            pass

    @contextlib.contextmanager
    def abortable(self, cancel: threading.Event) -> Iterator[None]:
        """Log lines from this thread are expected errors once ``cancel`` is set."""
        self._local.cancel = cancel
        try:
            yield
        finally:
            self._local.cancel = None

    @contextlib.contextmanager
    def capture_errors(self) -> Iterator[list[str]]:
        captured: list[str] = []
        with self._lock:
            self._captures.append(captured)
        try:
            yield captured
        finally:
            with self._lock:
                if self._partial and self._partial_level == _GGML_LOG_ERROR:
                    captured.append(self._partial.strip())
                self._captures.remove(captured)


LOG_ROUTER = LlamaLogRouter()
# The ctypes callback must stay referenced for as long as llama.cpp may call it
# (i.e. for the life of the process): a collected callback segfaults.
_LOG_CALLBACK: Any = None


def install_log_router(llama_cpp: Any) -> None:
    global _LOG_CALLBACK
    if _LOG_CALLBACK is None:
        _LOG_CALLBACK = llama_cpp.llama_log_callback(
            lambda level, text, _user_data: LOG_ROUTER.on_log(level, text)
        )
    llama_cpp.llama_log_set(_LOG_CALLBACK, ctypes.c_void_p(0))


def install_mtmd_log_router(llama_cpp: Any, mtmd: Any) -> None:
    """libmtmd's log (``llama_cpp.mtmd_cpp``: the vision projector's) goes
    where llama.cpp's goes."""
    install_log_router(llama_cpp)
    for setter in ("mtmd_log_set", "mtmd_helper_log_set"):
        with contextlib.suppress(Exception):
            getattr(mtmd, setter)(_LOG_CALLBACK, ctypes.c_void_p(0))


class _StderrForThread(io.TextIOBase):
    """Stands in for ``sys.stderr`` while a model loads: llama-cpp-python's
    ``verbose=True`` prints (system info, metadata, chat format) from the
    loading thread go to ``logging`` at DEBUG; other threads still reach the
    real stderr. (``verbose=False`` would instead redirect the process's fds
    1 and 2, silencing every thread.)"""

    def __init__(self, real: Any, owner: int) -> None:
        super().__init__()
        self._real = real
        self._owner = owner
        self._buffer = ""
        self._writing = False  # a logging handler writing to sys.stderr must not loop

    def write(self, s: str) -> int:
        if threading.get_ident() != self._owner or self._writing:
            return int(self._real.write(s))
        self._writing = True
        try:
            self._buffer += s
            while "\n" in self._buffer:
                line, self._buffer = self._buffer.split("\n", 1)
                if line.strip():
                    llama_log.debug("%s", line)
        finally:
            self._writing = False
        return len(s)

    def flush(self) -> None:
        if threading.get_ident() != self._owner:
            self._real.flush()

    def close_out(self) -> None:
        if self._buffer.strip():
            llama_log.debug("%s", self._buffer)
        self._buffer = ""


@contextlib.contextmanager
def python_prints_to_log() -> Iterator[None]:
    proxy = _StderrForThread(sys.stderr, threading.get_ident())
    real = sys.stderr
    sys.stderr = proxy
    try:
        yield
    finally:
        if sys.stderr is proxy:
            sys.stderr = real
        proxy.close_out()


def load_failure_reason(error_lines: Sequence[str]) -> str:
    """llama.cpp's error lines from a failed load, without function-name
    prefixes and without the generic "failed to load model" ones, e.g.
    "failed to read key-value pairs" or "tensor 'blk.0.attn_q.weight' data is
    not within the file bounds, model is corrupted or incomplete"."""
    reasons: list[str] = []
    for line in error_lines:
        text = line.strip()
        text = text.split("error loading model:", 1)[-1].strip()
        while ": " in text and " " not in text.split(": ", 1)[0]:
            text = text.split(": ", 1)[1].strip()  # drop "function_name: "
        if not text or text.startswith("failed to load model") or text in reasons:
            continue
        reasons.append(text)
    return "; ".join(reasons)

