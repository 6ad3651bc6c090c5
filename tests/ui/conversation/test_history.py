"""Long histories: the earlier messages are prepared off the GUI thread
(``app.ui.conversation.history``) without touching process-wide state."""

from __future__ import annotations

import gc
import threading

from PyQt6 import sip
from PyQt6.QtWidgets import QApplication

from app.core.conversation.sample import history_messages
from app.ui.conversation import history
from app.ui.conversation.view import ChatView
from app.ui.services.background import join_background_threads


def _history_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "rill-history"]


def test_deleting_the_view_while_history_loads_leaves_gc_on_and_raises_nothing(qtbot) -> None:
    errors: list[BaseException | None] = []
    old_hook = threading.excepthook
    threading.excepthook = lambda args: errors.append(args.exc_value)
    try:
        view = ChatView()
        view.resize(700, 500)
        view.add_messages(history_messages(history.SYNC_HISTORY * 3))
        assert view.busy, "the earlier messages are being prepared"
        view.shutdown()
        sip.delete(view)
        assert join_background_threads(30.0)
        for thread in _history_threads():
            thread.join(30.0)
        QApplication.processEvents()
        assert errors == []
        assert gc.isenabled()
    finally:
        threading.excepthook = old_hook
        gc.enable()
        gc.unfreeze()


def test_a_long_history_never_turns_gc_off(qtbot, view) -> None:
    states: list[bool] = []
    with qtbot.waitSignal(view.history_completed, timeout=30000):
        view.add_messages(history_messages(history.SYNC_HISTORY * 3))
        states.append(gc.isenabled())
    states.append(gc.isenabled())
    assert states == [True, True]
