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
    LoadCancelled,
    ModelInfo,
    load_backend,
)
from app.core.backends.scripted import ScriptedBackend
from app.ui.services.inference import LOAD_PROGRESS_MAX_HZ, InferenceService

ROOT = next(p for p in Path(__file__).resolve().parents if (p / "pyproject.toml").is_file())


class LegacyBackend(ScriptedBackend):
    """A backend whose ``load`` takes no argument and cannot be cancelled:
    it stands for a load busy between two cancellation points."""

    def __init__(self, load_s: float, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.load_s = load_s
        self.closed = False

    def load(self) -> ModelInfo:  # type: ignore[override]
        time.sleep(self.load_s)
        return ModelInfo(name="legacy")

    def close(self) -> None:
        self.closed = True


# -- load_backend (Qt-free) ----------------------------------------------------------


def test_load_backend_passes_only_what_load_accepts() -> None:
    legacy = LegacyBackend(0)
    assert load_backend(legacy, threading.Event(), lambda f: None).name == "legacy"

    class KwargsBackend(LegacyBackend):
        def load(self, **kwargs: object) -> ModelInfo:  # type: ignore[override]
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
    started = time.monotonic()
    with pytest.raises(BackendError, match="Loading was cancelled."):
        ScriptedBackend(load_delay_s=30).load(cancel, seen.append)
    assert time.monotonic() - started < 2.0
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
def service(qtbot):  # type: ignore[no-untyped-def]
    svc = InferenceService()
    yield svc
    if not svc.is_finished():
        with qtbot.waitSignal(svc.shutdown_finished, timeout=10000):
            svc.request_shutdown()


def test_request_shutdown_during_a_slow_load_returns_at_once(qtbot, service: InferenceService) -> None:  # type: ignore[no-untyped-def]
    failed: list[str] = []
    service.model_load_failed.connect(failed.append)
    with qtbot.waitSignal(service.model_load_progress, timeout=5000):
        service.load(lambda: ScriptedBackend(load_delay_s=30), "slow")
    with qtbot.waitSignal(service.shutdown_finished, timeout=5000):
        started = time.perf_counter()
        service.request_shutdown()
        service.request_shutdown()  # idempotent
        returned_after = time.perf_counter() - started
    assert returned_after < 0.05
    assert service.is_finished() and not service.thread.isRunning()
    assert failed == [LOAD_CANCELLED_MESSAGE]
    started = time.perf_counter()
    assert service.shutdown(10000) is True  # already done: no wait
    assert time.perf_counter() - started < 0.05


def test_shutdown_finished_is_emitted_once(qtbot, service: InferenceService) -> None:  # type: ignore[no-untyped-def]
    count: list[int] = []
    service.shutdown_finished.connect(lambda: count.append(1))
    service.load(lambda: ScriptedBackend(), "fast")
    assert service.shutdown(5000) is True  # the blocking form still works
    qtbot.waitUntil(lambda: count == [1], timeout=5000)  # the queued QThread.finished arrives too


def test_a_new_load_cancels_the_one_in_progress(qtbot, service: InferenceService) -> None:  # type: ignore[no-untyped-def]
    failed: list[str] = []
    service.model_load_failed.connect(failed.append)
    with qtbot.waitSignal(service.model_load_progress, timeout=5000):
        service.load(lambda: ScriptedBackend(load_delay_s=30), "slow")
    with qtbot.waitSignal(service.model_loaded, timeout=5000) as blocker:
        service.load(lambda: ScriptedBackend(rate=0), "fast")
    assert failed == [LOAD_CANCELLED_MESSAGE]
    assert "Scripted producer" in blocker.args[0].name


def test_load_progress_is_throttled(qtbot, service: InferenceService) -> None:  # type: ignore[no-untyped-def]
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


def test_throttle_drops_reports_faster_than_the_limit(qtbot, service: InferenceService) -> None:  # type: ignore[no-untyped-def]
    class Chatty(ScriptedBackend):
        def load(self, cancel=None, progress=None):  # type: ignore[no-untyped-def]
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


def test_a_deleted_service_does_not_destroy_its_running_thread(qtbot) -> None:  # type: ignore[no-untyped-def]
    import gc
    import weakref

    svc = InferenceService()
    svc.load(lambda: LegacyBackend(0.5), "uncancellable")
    qtbot.wait(50)  # the worker is inside load()
    thread = weakref.ref(svc.thread)
    svc.request_shutdown()
    del svc  # Python owned it: the service's C++ object is deleted now
    gc.collect()
    # Destroying the running QThread here would abort the whole test run.
    assert thread() is not None and thread().isRunning()
    qtbot.waitUntil(lambda: thread().isFinished(), timeout=5000)


# -- the window ----------------------------------------------------------------------


def _spy_close_events(window):  # type: ignore[no-untyped-def]
    accepted: list[bool] = []
    original = window.closeEvent

    def spy(event):  # type: ignore[no-untyped-def]
        original(event)
        accepted.append(event.isAccepted())

    window.closeEvent = spy
    return accepted


def test_closing_during_a_slow_load_hides_at_once_and_finishes(qtbot, make_window) -> None:  # type: ignore[no-untyped-def]
    window = make_window(lambda: ScriptedBackend(load_delay_s=30), wait_ready=False)
    service = window.chat.service
    qtbot.waitSignal(service.model_load_progress, timeout=5000).wait()
    with qtbot.waitSignal(service.shutdown_finished, timeout=5000):
        started = time.perf_counter()
        window.close()
        close_s = time.perf_counter() - started
        assert not window.isVisible()
    assert close_s < 0.25, f"close() blocked the GUI thread {close_s * 1000:.0f} ms"
    assert service.is_finished()


def test_closing_during_an_uncancellable_load_defers_the_close(qtbot, make_window) -> None:  # type: ignore[no-untyped-def]
    window = make_window(lambda: LegacyBackend(1.0), wait_ready=False)
    service = window.chat.service
    accepted = _spy_close_events(window)
    qtbot.wait(100)  # the worker is inside load()
    with qtbot.waitSignal(service.shutdown_finished, timeout=10000):
        started = time.perf_counter()
        window.close()
        close_s = time.perf_counter() - started
        assert not window.isVisible()
        assert accepted == [False], "the close waits for the thread, hidden"
    assert close_s < 0.25, f"close() blocked the GUI thread {close_s * 1000:.0f} ms"
    qtbot.waitUntil(lambda: accepted == [False, True], timeout=2000)
    assert not window.isVisible() and service.is_finished()


def test_closing_an_idle_window_closes_at_once(qtbot, make_window) -> None:  # type: ignore[no-untyped-def]
    window = make_window(lambda: ScriptedBackend())
    accepted = _spy_close_events(window)
    window.close()
    assert accepted == [True]
    assert window.chat.service.is_finished()


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
stats = {{"gaps": []}}
beat = QTimer(); beat.setTimerType(Qt.TimerType.PreciseTimer); beat.setInterval(2)
last = [0.0]
def on_beat():
    now = time.perf_counter()
    if last[0]:
        stats["gaps"].append(now - last[0])
    last[0] = now
beat.timeout.connect(on_beat)
def close():
    beat.start()
    t = time.perf_counter()
    window.close()
    stats["close_ms"] = (time.perf_counter() - t) * 1000
    stats["visible_after_close"] = window.isVisible()
QTimer.singleShot(200, close)
window.show()
started = time.perf_counter()
code = app.exec()
stats["exec_s"] = time.perf_counter() - started
stats["max_gap_ms"] = max(stats.pop("gaps") or [0]) * 1000
print(json.dumps(stats), flush=True)
sys.exit(code)
"""


@pytest.mark.parametrize("legacy_s", [0, 1.5], ids=["cancellable-load", "uncancellable-load"])
def test_the_app_exits_cleanly_when_closed_during_a_load(tmp_path: Path, legacy_s: float) -> None:
    import os

    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    env.update(QT_QPA_PLATFORM="offscreen", XDG_DATA_HOME=str(tmp_path / "data"),
               XDG_CONFIG_HOME=str(tmp_path / "config"))
    started = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(_APP_SCRIPT.format(legacy_s=legacy_s))],
        cwd=ROOT, capture_output=True, text=True, timeout=60, env=env,
    )
    elapsed = time.monotonic() - started
    assert proc.returncode == 0, proc.stderr
    assert "Destroyed while thread" not in proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr
    stats = json.loads(proc.stdout.strip().splitlines()[-1])
    assert stats["visible_after_close"] is False
    assert stats["close_ms"] < 100, stats
    # app.exec() returns once the thread is done: at once for the cancellable
    # load, after the uncancellable one ends otherwise; never 10 s later.
    assert stats["exec_s"] < 0.2 + legacy_s + 3.0, stats
    assert elapsed < 30, f"the process took {elapsed:.1f} s"
    # The GUI thread never blocked while waiting for the inference thread
    # (generous: a shared 2-core machine; the design bound is ~10 ms).
    assert stats["max_gap_ms"] < 100, stats
