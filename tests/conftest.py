"""Shared test set-up: offscreen Qt, no leaked QThreads, window factories."""

from __future__ import annotations

import os
import sys

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.setswitchinterval(0.001)  # as app.application.make_application does

from collections.abc import Callable, Iterator  # noqa: E402

import pytest  # noqa: E402

from app.ui.inference import LIVE_THREADS  # noqa: E402


@pytest.fixture(autouse=True)
def isolated_user_dirs(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """A developer's own settings (last model...) must not change what tests load."""
    base = tmp_path_factory.mktemp("xdg")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(base / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(base / "data"))


@pytest.fixture(autouse=True)
def no_leaked_threads() -> Iterator[None]:
    """Fail a test that leaves an inference QThread running after teardown.

    Autouse and independent of qtbot, so it is set up before and torn down
    after qtbot (which closes the test's windows)."""
    yield
    running = [t for t in list(LIVE_THREADS) if t.isRunning()]
    for thread in running:
        thread.wait(5000)  # join: a window closed in teardown may still be ending it
    leaked = [t.objectName() for t in running if t.isRunning()]
    assert not leaked, f"QThreads still running after the test: {leaked}"


@pytest.fixture
def make_window(qtbot):  # type: ignore[no-untyped-def]
    """make_window(factory, description="test") -> a shown MainWindow whose model is ready."""
    from app.application import create_window

    def make(factory: Callable[[], object], description: str = "test", wait_ready: bool = True):  # type: ignore[no-untyped-def]
        window = create_window(factory, description)  # type: ignore[arg-type]
        qtbot.addWidget(window)
        if wait_ready:
            with qtbot.waitSignal(window.chat.model_ready, timeout=60000):
                window.show()
        else:
            window.show()
        return window

    return make
