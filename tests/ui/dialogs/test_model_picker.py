"""app.ui.dialogs.model_picker: a filterable list of a server's models."""

from __future__ import annotations

from typing import Any

from PyQt6.QtCore import Qt

from app.ui.dialogs.model_picker import ModelPicker


def test_the_current_model_is_selected_and_the_filter_ignores_case(qtbot: Any) -> None:
    picker = ModelPicker("Zoo", ["Alpha-7B", "beta-13b", "gamma"], dropped=0, current="beta-13b")
    qtbot.addWidget(picker)
    assert picker.selected() == "beta-13b" and picker.count_label.text() == "3 models"
    picker.filter_edit.setText("ALPHA")
    assert picker.shown == 1 and picker.selected() == "Alpha-7B"
    picker.filter_edit.setText("zzz")
    assert picker.shown == 0 and picker.selected() == ""
    picker.filter_edit.returnPressed.emit()  # nothing to choose: stays open, no signal
    assert picker.result() == 0


def test_a_double_click_chooses_and_the_count_says_what_was_not_kept(qtbot: Any) -> None:
    picker = ModelPicker("Zoo", [f"m{i}" for i in range(10_000)], dropped=190_000)
    qtbot.addWidget(picker)
    with qtbot.waitExposed(picker):
        picker.show()
    assert "190,000 more; Rill keeps the first 10,000" in picker.count_label.text()
    picker.filter_edit.setText("m9999")
    index = picker.list_view.model().index(0, 0)
    rect = picker.list_view.visualRect(index)
    with qtbot.waitSignal(picker.model_chosen, timeout=2000) as chosen:
        qtbot.mouseClick(picker.list_view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())  # Qt 6: a press first
        qtbot.mouseDClick(picker.list_view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert chosen.args == ["m9999"]
