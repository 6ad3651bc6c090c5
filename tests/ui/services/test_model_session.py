"""ModelSession: no model → loading → ready, failures and Cancel, over a
real InferenceService with scripted backends."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from app.core.backends.base import LOAD_CANCELLED_MESSAGE, BackendError, ModelInfo
from app.core.backends.scripted import ScriptedBackend
from app.ui.services.inference import InferenceService
from app.ui.services.model_session import ModelSession, ModelState


class GatedBackend(ScriptedBackend):
    """A load that ignores Cancel and ends when the test opens ``gate``."""

    def __init__(self) -> None:
        super().__init__()
        self.entered = threading.Event()
        self.gate = threading.Event()

    def load(self) -> ModelInfo:
        self.entered.set()
        self.gate.wait(30)
        return ModelInfo(name="gated")


@pytest.fixture
def session(qtbot) -> Iterator[ModelSession]:
    svc = InferenceService()
    s = ModelSession(svc)
    yield s
    if not svc.is_finished():
        with qtbot.waitSignal(svc.shutdown_finished, timeout=10000):
            svc.request_shutdown()


def record(session: ModelSession) -> tuple[list[ModelState], list[tuple[str, str]]]:
    states: list[ModelState] = []
    notices: list[tuple[str, str]] = []
    session.state_changed.connect(states.append)
    session.notice_requested.connect(lambda text, kind: notices.append((text, kind)))
    return states, notices


def test_a_scripted_load_goes_from_no_model_through_loading_to_ready(qtbot, session: ModelSession) -> None:
    states, notices = record(session)
    assert session.state == ModelState.NO_MODEL and session.last_load is None
    assert session.last_load_description is None

    def factory() -> ScriptedBackend:
        return ScriptedBackend(rate=0)

    with qtbot.waitSignal(session.model_ready, timeout=10000) as ready:
        session.load(factory, "scripted")
    assert states == [ModelState.LOADING, ModelState.READY]
    assert session.state == ModelState.READY and not session.loading
    assert session.model_info is ready.args[0] and "Scripted producer" in session.model_info.name
    assert session.last_load == (factory, "scripted") and session.last_load_description == "scripted"
    assert notices == []
    assert session.cancel() is False  # nothing is loading


def test_the_warnings_of_a_loaded_model_become_notices(qtbot, session: ModelSession) -> None:
    class Warned(ScriptedBackend):
        def load(self, cancel=None, progress=None) -> ModelInfo:
            return ModelInfo(name="warned", warnings=("no chat template", "tiny context"))

    _, notices = record(session)
    with qtbot.waitSignal(session.model_ready, timeout=10000):
        session.load(Warned, "warned")
    assert notices == [("⚠ no chat template", "warning"), ("⚠ tiny context", "warning")]


def test_a_failing_factory_is_reported_through_model_failed(qtbot, session: ModelSession) -> None:
    def broken() -> ScriptedBackend:
        raise BackendError("The model file is corrupt.")

    states, notices = record(session)
    with qtbot.waitSignal(session.model_failed, timeout=10000) as failed:
        session.load(broken, "broken")
    assert failed.args == ["The model file is corrupt."]
    assert states == [ModelState.LOADING, ModelState.NO_MODEL]
    assert session.state == ModelState.NO_MODEL and session.model_info is None
    assert len(notices) == 1 and notices[0][1] == "error"
    assert "The model file is corrupt." in notices[0][0]
    assert session.last_load_description == "broken"  # what a reload would try again


def test_cancel_during_a_load_reports_a_cancellation_not_an_error(qtbot, session: ModelSession) -> None:
    states, notices = record(session)
    with qtbot.waitSignal(session.state_changed, timeout=10000):
        session.load(lambda: ScriptedBackend(load_delay_s=30), "slow")
    assert session.loading
    with qtbot.waitSignal(session.model_failed, timeout=10000) as failed:
        assert session.cancel() is True
    assert failed.args == [LOAD_CANCELLED_MESSAGE]
    assert states == [ModelState.LOADING, ModelState.NO_MODEL]
    assert len(notices) == 1 and notices[0][1] == "info" and "cancelled" in notices[0][0]
    assert session.cancel() is False


def test_cancel_of_a_load_busy_in_the_backend_is_honoured_once_it_returns(qtbot, session: ModelSession) -> None:
    backend = GatedBackend()
    states, notices = record(session)
    with qtbot.waitSignal(session.state_changed, timeout=10000):
        session.load(lambda: backend, "gated")
    qtbot.waitUntil(backend.entered.is_set, timeout=10000)
    assert session.cancel() is True
    with qtbot.waitSignal(session.model_failed, timeout=10000) as failed:
        backend.gate.set()  # the load ends; the service discards the model nobody wants
    assert failed.args == [LOAD_CANCELLED_MESSAGE]
    assert session.state == ModelState.NO_MODEL and session.model_info is None
    assert [kind for _, kind in notices] == ["info"]

    # The Cancel is used up: the next failure is an error, not "cancelled".
    def broken() -> ScriptedBackend:
        raise BackendError("gone")

    with qtbot.waitSignal(session.model_failed, timeout=10000):
        session.load(broken, "broken")
    assert [kind for _, kind in notices] == ["info", "error"]
    assert states == [ModelState.LOADING, ModelState.NO_MODEL, ModelState.LOADING, ModelState.NO_MODEL]
