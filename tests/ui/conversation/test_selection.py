"""The selection's text, whole and in pieces."""

from __future__ import annotations


def test_a_selection_over_whole_messages_copies_their_source(qtbot, view) -> None:
    from app.core.conversation.model import Message

    msgs = [Message("user", "first **bold**"), Message("assistant", "<think>hmm</think>second")]
    with qtbot.waitSignal(view.viewport_ready, timeout=10000):
        view.add_messages(msgs)
    assert not view.has_selection()
    view.select_all()
    assert view.has_selection()
    assert view.selected_text() == "first **bold**\n\nsecond"


def test_pieces_read_later_give_the_text_of_the_selection_when_they_were_asked_for(qapp) -> None:
    """A large copy is gathered after Copy returns: clearing the selection or
    items going meanwhile does not change what was copied."""
    from PyQt6.QtGui import QPalette

    from app.core.conversation.model import Message
    from app.ui.conversation.items import Item, ItemList, Pos
    from app.ui.conversation.selection import Selection

    items = ItemList()
    for k in range(5):
        role = "assistant" if k % 2 else "user"
        items.items.append(Item(f"m{k}", role, Message(role, f"<think>no</think>text {k}" if k % 2 else f"text {k}")))
    items.items.insert(3, Item("n", "notice", None))
    items.reindex()
    sel = Selection(items, QPalette)
    sel.select_all()
    whole = sel.selected_text()
    assert whole == "text 0\n\ntext 1\n\ntext 2\n\ntext 3\n\ntext 4", "a notice without text adds nothing"
    pieces = sel.selected_pieces()
    sel.clear()
    del items.items[1:]
    items.reindex()
    assert "".join(pieces) == whole
    sel.anchor, sel.cursor = Pos(0, 0, 0), Pos(0, 0, 0)
    assert "".join(sel.selected_pieces()) == "" == sel.selected_text(), "nothing selected"


def test_the_selection_follows_its_items_when_others_come_or_go(qapp) -> None:
    from PyQt6.QtGui import QPalette

    from app.core.conversation.model import Message
    from app.ui.conversation.items import Item, ItemList, Pos
    from app.ui.conversation.selection import Selection

    items = ItemList()
    for k in range(6):
        items.items.append(Item(f"m{k}", "user", Message("user", f"text {k}")))
    items.reindex()
    sel = Selection(items, QPalette)
    sel.select_all()
    assert (sel.anchor, sel.cursor) == (Pos(0, -1, 0), Pos(5, 0, 1 << 30))
    sel.anchor, sel.cursor = Pos(2, 0, 1), Pos(4, 0, 3)
    assert sel.pins(2) and sel.pins(4) and not sel.pins(3)
    sel.shift(3)  # three items put in front
    assert (sel.anchor, sel.cursor) == (Pos(5, 0, 1), Pos(7, 0, 3))
    sel.items_removed([0, 1, 6])  # before both ends, and between them
    assert (sel.anchor, sel.cursor) == (Pos(3, 0, 1), Pos(4, 0, 3))
    sel.items_removed([4])  # the cursor's item
    assert sel.anchor is None and sel.cursor is None
    sel.anchor = sel.cursor = Pos(0, 0, 0)
    sel.clear()
    assert sel.anchor is None and sel.cursor is None
