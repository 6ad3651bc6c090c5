"""LoadProgress: shown while a model loads, with a working Cancel."""

from __future__ import annotations

from typing import Any

from app.core.backends.base import LOAD_CANCELLED_MESSAGE
from app.core.backends.scripted import ScriptedBackend
from app.ui.window.load_progress import LoadProgress


def test_the_bar_shows_a_load_and_cancel_ends_it(qtbot: Any, make_window: Any) -> None:
    window = make_window(lambda: ScriptedBackend(rate=2000))
    progress = window.load_progress
    assert isinstance(progress, LoadProgress) and not progress.isVisible()
    with qtbot.waitSignal(window.chat.service.model_load_progress, timeout=5000):
        window.chat.load_model(lambda: ScriptedBackend(load_delay_s=30), "slow")
    qtbot.waitUntil(lambda: progress.isVisible() and progress.fraction >= 0.0, timeout=5000)
    assert "slow" in progress.toolTip()
    with (
        qtbot.waitSignal(window.chat.model_failed, timeout=5000) as failed,
        qtbot.waitSignal(progress.cancel_requested, timeout=5000),
    ):
        progress.cancel_button.click()
    assert failed.args == [LOAD_CANCELLED_MESSAGE]
    assert not progress.isVisible()
