"""UndoBar: one pending offer; undo, commit, and the next offer commits the last."""

from __future__ import annotations

from typing import Any

from PyQt6.QtWidgets import QMainWindow

from app.ui.window import undo
from app.ui.window.undo import UNDO_MS, UndoBar


def make_bar(qtbot: Any) -> tuple[QMainWindow, UndoBar]:
    window = QMainWindow()
    qtbot.addWidget(window)
    bar = UndoBar(window.statusBar(), window)
    window.show()
    return window, bar


def test_undo_runs_the_undo_and_never_the_commit(qtbot: Any) -> None:
    window, bar = make_bar(qtbot)
    done: list[str] = []
    bar.offer("Deleted “x”", lambda: done.append("undo"), lambda: done.append("commit"), "conv-1")
    assert bar.button.isVisible() and bar.pending_conversation == "conv-1"
    assert window.statusBar().currentMessage() == "Deleted “x”"
    bar.button.click()
    assert done == ["undo"] and not bar.button.isVisible() and bar.pending_conversation == ""
    bar.commit()  # nothing pending: nothing happens
    assert done == ["undo"]


def test_a_new_offer_commits_the_previous_one(qtbot: Any) -> None:
    _window, bar = make_bar(qtbot)
    done: list[str] = []
    bar.offer("first", lambda: done.append("undo 1"), lambda: done.append("commit 1"))
    bar.offer("second", lambda: done.append("undo 2"))
    assert done == ["commit 1"] and bar.button.isVisible()
    bar.undo()
    assert done == ["commit 1", "undo 2"]


def test_the_offer_is_committed_when_its_time_is_over(qtbot: Any, monkeypatch: Any) -> None:
    assert UNDO_MS >= 1000
    monkeypatch.setattr(undo, "UNDO_MS", 10)  # the test does not wait 10 s
    _window, bar = make_bar(qtbot)
    done: list[str] = []
    bar.offer("gone soon", lambda: done.append("undo"), lambda: done.append("commit"))
    qtbot.waitUntil(lambda: done == ["commit"], timeout=5000)
    assert not bar.button.isVisible()
