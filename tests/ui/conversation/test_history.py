"""Long histories: the earlier messages are prepared in time-sliced steps
(``app.ui.conversation.history``) without touching process-wide state."""

from __future__ import annotations

import gc
import threading

from PyQt6 import sip
from PyQt6.QtWidgets import QApplication

from app.core.conversation.sample import history_messages
from app.ui.conversation import history
from app.ui.conversation.items import ITEM_GAP
from app.ui.conversation.view import ChatView
from app.ui.services.background import join_background_threads


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


def test_the_loader_makes_items_in_bounded_steps_in_order(qtbot, view, monkeypatch) -> None:
    sizes: list[int] = []
    real = history.make_history_items

    def counting(messages, params):
        sizes.append(len(messages))
        return real(messages, params)

    monkeypatch.setattr(history, "make_history_items", counting)
    params = view._rows._history_params()
    messages = history_messages(history.CHUNK * 3 + 7)
    loader = history.HistoryLoader()
    got: list[tuple[list, int]] = []
    loader.loaded.connect(lambda items, generation: got.append((items, generation)))
    with qtbot.waitSignal(loader.loaded, timeout=30000):
        loader.load(messages, params, 5)
        assert loader.pending == 1 and sizes == [], "nothing is made before the event loop turns"
    assert sizes == [history.CHUNK] * 3 + [7]
    assert loader.pending == 0 and len(got) == 1
    block, generation = got[0]
    assert generation == 5 and [i.id for i in block.items] == [m.id for m in messages]
    assert block.positions == {m.id: n for n, m in enumerate(messages)}
    assert block.heights.values == [i.height + ITEM_GAP for i in block.items]


def test_a_cancelled_load_is_never_delivered(qtbot, view) -> None:
    loader = history.HistoryLoader()
    got: list[int] = []
    loader.loaded.connect(lambda items, generation: got.append(generation))
    loader.load(history_messages(history.CHUNK * 2), view._rows._history_params(), 1)
    loader.cancel()
    with qtbot.waitSignal(loader.loaded, timeout=30000):
        loader.load(history_messages(3), view._rows._history_params(), 2)
    assert got == [2] and loader.pending == 0
