"""SingletonDialog: raise the open one, else make a new one."""

from __future__ import annotations

from typing import Any

import pytest
from PyQt6.QtWidgets import QDialog, QWidget

from app.ui.dialogs.singleton import SingletonDialog


@pytest.mark.qt_log_ignore("This plugin does not support raise")  # offscreen
def test_an_open_dialog_is_raised_not_made_again_and_a_closed_one_is_made_anew(qtbot: Any) -> None:
    parent = QWidget()
    qtbot.addWidget(parent)
    made: list[QDialog] = []

    def make() -> QDialog:
        made.append(QDialog(parent))
        return made[-1]

    single = SingletonDialog(make)
    first = single.show()
    assert single.show() is first and len(made) == 1 and first.isVisible()
    with qtbot.waitSignal(first.destroyed, timeout=5000):
        first.close()  # WA_DeleteOnClose
    assert single.dialog is None
    second = single.show()
    assert second is not first and len(made) == 2
    second.close()


def test_reuse_keeps_a_closed_dialog(qtbot: Any) -> None:
    parent = QWidget()
    qtbot.addWidget(parent)
    made: list[QDialog] = []
    single = SingletonDialog(lambda: made.append(QDialog(parent)) or made[-1], reuse=True, modeless=True)
    first = single.show()
    first.close()
    assert single.show() is first and first.isVisible() and len(made) == 1
    first.close()
