"""AppServices: one owner, one ordered shutdown that joins every thread it started."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from app.core.backends.base import ModelInfo
from app.core.backends.scripted import ScriptedBackend
from app.ui.services import background
from app.ui.services.lifecycle import AppServices, Stage


class GatedBackend(ScriptedBackend):
    """A load that ends only when the test opens ``gate``."""

    def __init__(self) -> None:
        super().__init__()
        self.entered = threading.Event()
        self.gate = threading.Event()

    def load(self) -> ModelInfo:
        self.entered.set()
        self.gate.wait(30)
        return ModelInfo(name="gated")


@pytest.fixture
def services(qtbot: Any, tmp_path: Any) -> Any:
    s = AppServices(store_path=tmp_path / "history.db")
    yield s
    if not s.is_finished():
        with qtbot.waitSignal(s.shutdown_finished, timeout=10000):
            s.request_shutdown()


def test_shutdown_runs_in_order_and_ends_every_thread(qtbot: Any, services: AppServices) -> None:
    backend = GatedBackend()
    with qtbot.waitSignal(services.inference.model_load_started, timeout=5000):
        services.inference.load(lambda: backend, "gated")
    qtbot.waitUntil(backend.entered.is_set, timeout=5000)
    call_gate = threading.Event()
    services.background.run(lambda cancel: call_gate.wait(30), lambda result, error: None, name="rill-test-call")
    finished: list[int] = []
    services.shutdown_finished.connect(lambda: finished.append(1))

    services.request_shutdown()
    services.request_shutdown()  # idempotent
    # Stage 2: inference is ending; the store is not flushed before it has.
    assert services.shutting_down and services.stage == Stage.STOPPING_INFERENCE
    assert services.store.worker_thread.isRunning() and services.render.worker_thread.isRunning()
    assert not services.wait(0)  # nothing can be over yet: the load is busy

    backend.gate.set()
    # Stages 3-4 run by themselves; the background call still holds the end.
    qtbot.waitUntil(lambda: services.stage == Stage.JOINING_BACKGROUND, timeout=10000)
    assert services.inference.is_finished() and services.store.is_finished() and services.render.is_finished()
    assert finished == [], "a background call still runs: not finished"
    assert [t.name for t in background.background_threads()] == ["rill-test-call"]

    with qtbot.waitSignal(services.shutdown_finished, timeout=10000):
        call_gate.set()
    assert finished == [1] and services.is_finished()
    assert background.background_threads() == []


def test_a_cancelled_background_call_gets_its_event_and_no_callback(qtbot: Any, services: AppServices) -> None:
    got: list[object] = []
    cancel = services.background.run(lambda c: c.wait(30), lambda result, error: got.append(result))
    with qtbot.waitSignal(services.shutdown_finished, timeout=10000):
        services.request_shutdown()
    assert cancel.is_set() and got == []


def test_wait_drives_the_stages_without_the_event_loop(services: AppServices) -> None:
    services.request_shutdown()
    assert services.wait(10000) is True
    assert services.is_finished()
    assert not services.inference.worker_thread.isRunning()


def test_probes_answer_on_the_gui_thread_and_refuse_once_shutting_down(
    qtbot: Any, services: AppServices, monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    from app.ui.services import lifecycle

    on: list[threading.Thread] = []

    def trained(path: str) -> int:
        on.append(threading.current_thread())
        return 8192

    monkeypatch.setattr(lifecycle, "read_trained_context", trained)
    answers: list[int | None] = []
    with qtbot.waitSignal(background.call_ended(), timeout=5000):
        assert services.read_trained_context("/models/x.gguf", answers.append)
    assert answers == [8192]
    assert on and on[0] is not threading.main_thread()
    services.request_shutdown()
    assert services.read_trained_context("/models/x.gguf", answers.append) is False


def test_read_trained_context_of_a_missing_file_is_none(tmp_path: Any) -> None:
    from app.ui.services.lifecycle import read_trained_context

    assert read_trained_context(str(tmp_path / "missing.gguf")) is None
