"""The conversation list: pinned first, then newest first; hide and unhide for undo."""

from __future__ import annotations

from typing import Any

import pytest
from PyQt6.QtCore import Qt

from app.ui.services.library import ConversationLibrary
from app.ui.services.store import StoreService
from app.ui.sidebar.sidebar import ID_ROLE, Sidebar


@pytest.fixture
def sidebar(qtbot: Any) -> Any:
    store = StoreService(enabled=False)
    bar = Sidebar(ConversationLibrary(store))
    qtbot.addWidget(bar)
    yield bar
    assert store.shutdown()


def ids(bar: Sidebar) -> list[str]:
    return [r.id for r in bar.model.rows()]


def test_rows_are_ordered_pinned_first_then_newest(sidebar: Sidebar) -> None:
    model = sidebar.model
    model.upsert("old", "Old", 1.0, False)
    model.upsert("new", "New", 3.0, False)
    model.upsert("pinned", "Pinned", 0.5, True)
    assert ids(sidebar) == ["pinned", "new", "old"]
    model.upsert("old", "Old, touched", 4.0, False)
    assert ids(sidebar) == ["pinned", "old", "new"]
    assert model.rows()[1].title == "Old, touched"


def test_hide_and_unhide_for_the_undo_offer(sidebar: Sidebar) -> None:
    model = sidebar.model
    model.upsert("a", "A", 2.0, False)
    model.upsert("b", "B", 1.0, False)
    row = model.hide("a")
    assert row is not None and ids(sidebar) == ["b"] and model.row_of("a") < 0
    model.unhide(row)
    assert ids(sidebar) == ["a", "b"]


def test_next_conversation_activates_the_row_below(qtbot: Any, sidebar: Sidebar) -> None:
    sidebar.model.upsert("a", "A", 2.0, False)
    sidebar.model.upsert("b", "B", 1.0, False)
    sidebar.select("a")
    with qtbot.waitSignal(sidebar.conversation_activated, timeout=2000) as blocker:
        sidebar.activate_neighbour(1)
    assert blocker.args == ["b"]


def test_a_title_is_a_bidi_isolate_without_controls(sidebar: Sidebar) -> None:
    """Issue #17: a U+202E title read reversed in the sidebar."""
    model = sidebar.model
    model.upsert("evil", "Invoice \u202eexe.pdf\x1b[2J", 10_000.0, False)
    row = next(r for r in range(model.rowCount()) if model.index(r, 0).data(ID_ROLE) == "evil")
    index = model.index(row, 0)
    assert index.data(Qt.ItemDataRole.DisplayRole) == "\u2068Invoice exe.pdf[2J\u2069"
    assert index.data(Qt.ItemDataRole.EditRole) == "Invoice exe.pdf[2J"
    assert "\u202e" not in index.data(Qt.ItemDataRole.AccessibleTextRole)


def test_select_makes_the_row_current_and_selected_and_again_changes_nothing(qtbot: Any, sidebar: Sidebar) -> None:
    sidebar.model.upsert("a", "A", 2.0, False)
    sidebar.model.upsert("b", "B", 1.0, False)
    selection = sidebar.list.selectionModel()
    assert selection is not None
    sidebar.select("b")
    assert sidebar.list.currentIndex().data(ID_ROLE) == "b" and selection.isSelected(sidebar.list.currentIndex())
    changes: list[object] = []
    selection.currentChanged.connect(lambda *a: changes.append(a))
    selection.selectionChanged.connect(lambda *a: changes.append(a))
    sidebar.select("b")      # every message of the open chat asks again
    assert changes == []
    sidebar.select("gone")   # not listed: nothing selected
    assert not selection.hasSelection()
    changes.clear()
    sidebar.select("b")      # current still, but no longer selected: selected again
    assert selection.isSelected(sidebar.list.currentIndex()) and changes
