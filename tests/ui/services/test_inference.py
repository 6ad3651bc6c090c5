"""Cancellable model loads and a shutdown that never blocks the GUI thread."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from app.core.backends.base import (
    LOAD_CANCELLED_MESSAGE,
    BackendError,
    ChatMessage,
    FinishReason,
    LoadCancelled,
    ModelInfo,
    SamplingParams,
    TokenRun,
    load_backend,
)
from app.core.backends.scripted import ScriptedBackend
from app.ui.services.inference import LOAD_PROGRESS_MAX_HZ, InferenceService

ROOT = next(p for p in Path(__file__).resolve().parents if (p / "pyproject.toml").is_file())


class GatedBackend(ScriptedBackend):
    """A load that cannot be cancelled and ends only when the test opens
    ``gate``: the worker is inside ``load()`` once ``entered`` is set."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.entered = threading.Event()
        self.gate = threading.Event()

    def load(self) -> ModelInfo:
        self.entered.set()
        self.gate.wait(30)
        return ModelInfo(name="gated")


class LegacyBackend(ScriptedBackend):
    """A backend whose ``load`` takes no argument and cannot be cancelled:
    it stands for a load busy between two cancellation points."""

    def __init__(self, load_s: float, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.load_s = load_s
        self.closed = False

    def load(self) -> ModelInfo:
        time.sleep(self.load_s)
        return ModelInfo(name="legacy")

    def close(self) -> None:
        self.closed = True


# -- load_backend (Qt-free) ----------------------------------------------------------


def test_load_backend_passes_only_what_load_accepts() -> None:
    legacy = LegacyBackend(0)
    assert load_backend(legacy, threading.Event(), lambda f: None).name == "legacy"

    class KwargsBackend(LegacyBackend):
        def load(self, **kwargs: object) -> ModelInfo:
            self.got = sorted(kwargs)
            return ModelInfo(name="kwargs")

    kw = KwargsBackend(0)
    load_backend(kw, threading.Event(), lambda f: None)
    assert kw.got == ["cancel", "progress"]


def test_a_load_cancelled_meanwhile_is_discarded_even_if_it_finished() -> None:
    cancel = threading.Event()
    backend = LegacyBackend(0.3)
    threading.Timer(0.05, cancel.set).start()
    with pytest.raises(LoadCancelled, match=LOAD_CANCELLED_MESSAGE):
        load_backend(backend, cancel)
    assert backend.closed, "a model nobody wants any more is freed at once"


def test_scripted_load_delay_is_cancellable_and_reports_progress() -> None:
    cancel = threading.Event()
    seen: list[float] = []
    threading.Timer(0.2, cancel.set).start()
    with pytest.raises(BackendError, match="Loading was cancelled."):
        ScriptedBackend(load_delay_s=30).load(cancel, seen.append)
    # It stopped early: progress never got past the first few percent of 30 s.
    assert seen and seen == sorted(seen) and 0.0 <= seen[-1] < 0.1

    seen.clear()
    assert ScriptedBackend(load_delay_s=0.1).load(progress=seen.append).name
    assert seen[-1] == 1.0
    assert ScriptedBackend().load().name  # no arguments: as before


def test_a_failing_progress_callback_does_not_break_the_load() -> None:
    def bad(_fraction: float) -> None:
        raise RuntimeError("progress bar bug")

    assert load_backend(ScriptedBackend(load_delay_s=0.06), None, bad).name


# -- InferenceService ----------------------------------------------------------------


@pytest.fixture
def service(qtbot):
    svc = InferenceService()
    yield svc
    if not svc.is_finished():
        with qtbot.waitSignal(svc.shutdown_finished, timeout=10000):
            svc.request_shutdown()


def test_request_shutdown_during_a_slow_load_returns_at_once(qtbot, service: InferenceService) -> None:
    failed: list[str] = []
    service.model_load_failed.connect(failed.append)
    with qtbot.waitSignal(service.model_load_progress, timeout=5000):
        service.load(lambda: ScriptedBackend(load_delay_s=30), "slow")
    with qtbot.waitSignal(service.shutdown_finished, timeout=5000):
        service.request_shutdown()
        service.request_shutdown()  # idempotent
    assert service.is_finished() and not service.worker_thread.isRunning()
    assert failed == [LOAD_CANCELLED_MESSAGE]
    assert service.shutdown(10000) is True  # already done


def test_request_shutdown_returns_while_the_worker_is_still_busy(qtbot, service: InferenceService) -> None:
    backend = GatedBackend()
    with qtbot.waitSignal(service.model_load_started, timeout=5000):
        service.load(lambda: backend, "gated")
    qtbot.waitUntil(backend.entered.is_set, timeout=5000)
    finished: list[int] = []
    service.shutdown_finished.connect(lambda: finished.append(1))
    service.request_shutdown()
    # It returned without waiting: the worker is still inside load().
    assert service.worker_thread.isRunning() and not service.is_finished() and finished == []
    with qtbot.waitSignal(service.shutdown_finished, timeout=10000):
        backend.gate.set()
    assert service.is_finished() and finished == [1]


def test_shutdown_finished_is_emitted_once(qtbot, service: InferenceService) -> None:
    count: list[int] = []
    service.shutdown_finished.connect(lambda: count.append(1))
    service.load(lambda: ScriptedBackend(), "fast")
    assert service.shutdown(5000) is True  # the blocking form still works
    qtbot.waitUntil(lambda: count == [1], timeout=5000)  # the queued QThread.finished arrives too


def test_a_new_load_cancels_the_one_in_progress(qtbot, service: InferenceService) -> None:
    failed: list[str] = []
    service.model_load_failed.connect(failed.append)
    with qtbot.waitSignal(service.model_load_progress, timeout=5000):
        service.load(lambda: ScriptedBackend(load_delay_s=30), "slow")
    with qtbot.waitSignal(service.model_loaded, timeout=5000) as blocker:
        service.load(lambda: ScriptedBackend(rate=0), "fast")
    assert failed == [LOAD_CANCELLED_MESSAGE]
    assert "Scripted producer" in blocker.args[0].name


def test_load_progress_is_throttled(qtbot, service: InferenceService) -> None:
    values: list[float] = []
    service.model_load_progress.connect(values.append)
    delay = 0.6
    with qtbot.waitSignal(service.model_loaded, timeout=10000):
        service.load(lambda: ScriptedBackend(load_delay_s=delay), "progress")
    qtbot.waitUntil(lambda: bool(values) and values[-1] == 1.0, timeout=5000)
    assert values == sorted(values)
    # ScriptedBackend reports every 50 ms; the worker lets through at most
    # LOAD_PROGRESS_MAX_HZ a second, plus the final 1.0.
    assert 3 <= len(values) <= delay * LOAD_PROGRESS_MAX_HZ + 2


def test_throttle_drops_reports_faster_than_the_limit(qtbot, service: InferenceService) -> None:
    class Chatty(ScriptedBackend):
        def load(self, cancel=None, progress=None):
            end = time.monotonic() + 0.3
            i = 0
            while time.monotonic() < end:  # ~thousands of reports, as llama.cpp per tensor
                i += 1
                progress(min(0.99, i / 100000))
                time.sleep(0.0002)
            progress(1.0)
            return ModelInfo(name="chatty")

    values: list[float] = []
    service.model_load_progress.connect(values.append)
    with qtbot.waitSignal(service.model_loaded, timeout=10000):
        service.load(Chatty, "chatty")
    qtbot.waitUntil(lambda: bool(values) and values[-1] == 1.0, timeout=5000)
    assert len(values) <= 0.3 * LOAD_PROGRESS_MAX_HZ + 3


def test_a_deleted_service_does_not_destroy_its_running_thread(qtbot) -> None:
    import gc
    import weakref

    svc = InferenceService()
    backend = GatedBackend()
    with qtbot.waitSignal(svc.model_load_started, timeout=5000):
        svc.load(lambda: backend, "uncancellable")
    qtbot.waitUntil(backend.entered.is_set, timeout=5000)  # the worker is inside load()
    thread = weakref.ref(svc.worker_thread)
    svc.request_shutdown()
    del svc  # Python owned it: the service's C++ object is deleted now
    gc.collect()
    # Destroying the running QThread here would abort the whole test run.
    assert thread() is not None and thread().isRunning()
    backend.gate.set()
    qtbot.waitUntil(lambda: thread().isFinished(), timeout=5000)


# -- the window ----------------------------------------------------------------------


def _spy_close_events(window):
    accepted: list[bool] = []
    original = window.closeEvent

    def spy(event):
        original(event)
        accepted.append(event.isAccepted())

    window.closeEvent = spy
    return accepted


def test_closing_during_a_slow_load_hides_at_once_and_finishes(qtbot, make_window) -> None:
    window = make_window(lambda: ScriptedBackend(load_delay_s=30), wait_ready=False)
    service = window.services.inference
    qtbot.waitSignal(service.model_load_progress, timeout=5000).wait()
    with qtbot.waitSignal(window.services.shutdown_finished, timeout=5000):
        window.close()
        assert not window.isVisible()
    assert service.is_finished() and window.services.is_finished()


def test_closing_during_an_uncancellable_load_defers_the_close(qtbot, make_window) -> None:
    backend = GatedBackend()
    window = make_window(lambda: backend, wait_ready=False)
    service = window.services.inference
    accepted = _spy_close_events(window)
    qtbot.waitUntil(backend.entered.is_set, timeout=5000)  # the worker is inside load()
    window.close()
    # close() returned with the worker still busy: it never waited for it.
    assert not window.isVisible()
    assert accepted == [False], "the close waits for the thread, hidden"
    assert service.worker_thread.isRunning() and not window.services.is_finished()
    with qtbot.waitSignal(window.services.shutdown_finished, timeout=10000):
        backend.gate.set()
    qtbot.waitUntil(lambda: accepted == [False, True], timeout=5000)
    assert not window.isVisible() and service.is_finished()


def test_closing_an_idle_window_closes_at_once(qtbot, make_window) -> None:
    window = make_window(lambda: ScriptedBackend())
    accepted = _spy_close_events(window)
    window.close()
    assert accepted == [True]
    assert window.services.is_finished()


_APP_SCRIPT = """
import json, sys, time
from PyQt6.QtCore import QTimer, Qt
from app.application import create_window, make_application
from app.core.factory import scripted_factory
from app.core.backends.scripted import ScriptedBackend
from app.core.backends.base import ModelInfo

class Legacy(ScriptedBackend):
    def load(self):
        time.sleep({legacy_s})
        return ModelInfo(name="legacy")

app = make_application()
if {legacy_s}:
    window = create_window(Legacy, "legacy")
else:
    window = create_window(*scripted_factory(load_delay_s=30))
stats = {{}}
def close():
    window.close()
    stats["visible_after_close"] = window.isVisible()
    stats["worker_running_after_close"] = window.services.inference.worker_thread.isRunning()
QTimer.singleShot(200, close)
window.show()
code = app.exec()
stats["finished"] = window.services.is_finished()
print(json.dumps(stats), flush=True)
sys.exit(code)
"""


@pytest.mark.parametrize("legacy_s", [0, 1.5], ids=["cancellable-load", "uncancellable-load"])
def test_the_app_exits_cleanly_when_closed_during_a_load(tmp_path: Path, legacy_s: float) -> None:
    import os

    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    env.update(QT_QPA_PLATFORM="offscreen", PYTHONFAULTHANDLER="1", XDG_DATA_HOME=str(tmp_path / "data"),
               XDG_CONFIG_HOME=str(tmp_path / "config"))
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(_APP_SCRIPT.format(legacy_s=legacy_s))],
        check=False, cwd=ROOT, capture_output=True, text=True, timeout=60, env=env,
    )
    assert proc.returncode == 0, proc.stderr
    assert "Destroyed while thread" not in proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr
    stats = json.loads(proc.stdout.strip().splitlines()[-1])
    assert stats["visible_after_close"] is False
    if legacy_s:
        # close() hid the window without waiting for the busy worker...
        assert stats["worker_running_after_close"] is True, stats
    # ...and app.exec() returned by itself once every thread had ended.
    assert stats["finished"] is True, stats


class RunBackend(ScriptedBackend):
    """Yields its text as ``TokenRun``s (as a remote backend does for the
    deltas of one socket read) between plain one-token pieces."""

    def generate(self, request, cancel):  # type: ignore[no-untyped-def]
        yield "a"
        yield TokenRun("bcd", 3)
        yield TokenRun("e" * 4096, 700)  # a remote backend's runs are at most MAX_PIECE_CHARS
        yield "f"
        return FinishReason.STOP


def test_a_token_run_counts_as_its_tokens_end_to_end(qtbot, service: InferenceService) -> None:
    with qtbot.waitSignal(service.model_loaded, timeout=10000):
        service.load(lambda: RunBackend(), "runs")
    with qtbot.waitSignal(service.generation_finished, timeout=10000) as finished:
        service.submit((ChatMessage("user", "hi"),), SamplingParams())
    result = finished.args[0]
    chunks = service.buffer.drain()
    assert result.finish_reason == FinishReason.STOP
    assert "".join(c.text for c in chunks) == "abcd" + "e" * 4096 + "f"
    # What is shown (the chunks' tokens) == what was produced (the worker's count).
    assert sum(c.n_tokens for c in chunks) == service.buffer.tokens_put == result.tokens == 1 + 3 + 700 + 1
