"""The llama package's model-free parts: threads, logs, stop strings, the model file check."""

from __future__ import annotations

import logging
import sys
import threading
from pathlib import Path

import pytest

from app.core.backends.llama.logs import LlamaLogRouter, load_failure_reason, python_prints_to_log
from app.core.backends.llama.stops import StopStrings
from app.core.backends.llama.threads import default_thread_counts


@pytest.mark.parametrize(("cpus", "expected"), [(1, (1, 1)), (2, (1, 1)), (4, (2, 2)), (6, (3, 3)), (64, (4, 4))])
def test_thread_counts(cpus: int, expected: tuple[int, int]) -> None:
    assert default_thread_counts(cpus) == expected


def test_stop_strings_hold_back_a_possible_start_and_cut_at_a_hit() -> None:
    stops = StopStrings(["<|im_end|>"])
    assert stops.feed("Hello <|im") == ("Hello ", False)
    assert stops.feed("_end|> more") == ("", True)
    stops = StopStrings(["<|im_end|>"])
    assert stops.feed("a <|i") == ("a ", False)
    assert stops.feed("x") == ("<|ix", False)
    assert stops.flush() == ""
    assert StopStrings([]).feed("<|im_end|>") == ("<|im_end|>", False)


def test_the_log_router_reassembles_lines_and_captures_errors(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="app.core.backends.llama.llama_cpp")
    router = LlamaLogRouter()
    with router.capture_errors() as errors:
        router.on_log(4, b"llama_model_load: error loading model: ")
        router.on_log(5, b"failed to read key-value pairs\n")
        router.on_log(2, b"info line\n")
    assert errors == ["llama_model_load: error loading model: failed to read key-value pairs"]
    levels = {r.getMessage(): r.levelno for r in caplog.records}
    assert levels["info line"] == logging.DEBUG and logging.WARNING in levels.values()
    cancel = threading.Event()
    cancel.set()
    caplog.clear()
    with router.abortable(cancel):
        router.on_log(4, b"failed to compute graph\n")  # expected after our own abort
    assert [r.levelno for r in caplog.records] == [logging.DEBUG]
    router.on_log(4, None)  # nothing escapes, whatever C hands over


def test_load_failure_reason_drops_prefixes_and_the_generic_lines() -> None:
    lines = ["llama_model_load: error loading model: llama_model_loader: failed to read key-value pairs",
             "llama_model_load_from_file_impl: failed to load model", "failed to read key-value pairs"]
    assert load_failure_reason(lines) == "failed to read key-value pairs"


def test_prints_of_the_loading_thread_go_to_the_log(caplog: pytest.LogCaptureFixture,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    caplog.set_level(logging.DEBUG, logger="app.core.backends.llama.llama_cpp")
    with python_prints_to_log():
        print("system info: AVX = 1", file=sys.stderr)
        other = threading.Thread(target=lambda: print("from another thread", file=sys.stderr))
        other.start()
        other.join()
    assert "system info: AVX = 1" in caplog.messages
    assert "from another thread" in capsys.readouterr().err


def test_a_model_file_is_checked_before_llama_cpp_sees_it(tmp_path: Path) -> None:
    from app.core.backends.base import BackendError
    from app.core.backends.llama.backend import check_model_file

    with pytest.raises(BackendError, match="Model file not found"):
        check_model_file(tmp_path / "nope.gguf")
    with pytest.raises(BackendError, match="not a file"):
        check_model_file(tmp_path)
    empty = tmp_path / "empty.gguf"
    empty.write_bytes(b"")
    with pytest.raises(BackendError, match="empty"):
        check_model_file(empty)
    text = tmp_path / "notes.gguf"
    text.write_bytes(b"not a model")
    with pytest.raises(BackendError, match="does not start with 'GGUF'"):
        check_model_file(text)
    header = tmp_path / "m.gguf"
    header.write_bytes(b"GGUF\x03\x00\x00\x00")
    check_model_file(header)  # a GGUF start: llama.cpp says the rest
