"""MainWindow is built around the services it is given and closes through their shutdown."""

from __future__ import annotations

from typing import Any

from app.core.backends.scripted import ScriptedBackend
from app.ui.services.lifecycle import AppServices
from app.ui.window.main_window import MainWindow


def test_the_window_uses_the_injected_services(qtbot: Any) -> None:
    services = AppServices(persist=False)
    window = MainWindow(services, persist=False)
    qtbot.addWidget(window)
    assert window.services is services
    assert window.chat.service is services.inference
    assert window.view.render_service is services.render
    assert window.store is services.store and window.library is services.library
    with qtbot.waitSignal(window.chat.model_ready, timeout=10000):
        window.chat.load_model(lambda: ScriptedBackend(rate=2000), "scripted")
    window.show()
    with qtbot.waitSignal(services.shutdown_finished, timeout=10000):
        window.close()
    assert not window.isVisible() and services.is_finished()


def test_closing_commits_the_pending_undo(qtbot: Any, make_window: Any) -> None:
    window = make_window(lambda: ScriptedBackend(rate=2000))
    done: list[str] = []
    window.undo_bar.offer("Deleted “x”", lambda: done.append("undo"), lambda: done.append("commit"))
    with qtbot.waitSignal(window.services.shutdown_finished, timeout=10000):
        window.close()
    assert done == ["commit"]
