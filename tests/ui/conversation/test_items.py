"""The view's data: the id index with O(k) prepend, the shared item list."""

from __future__ import annotations

from app.core.conversation.model import Message
from app.ui.conversation.items import ITEM_GAP, Item, ItemIndex, ItemList, copy_source


def test_prepending_renumbers_every_index() -> None:
    index = ItemIndex()
    index["a"], index["b"] = 0, 1
    index.prepend(["x", "y"])
    assert [index["x"], index["y"], index["a"], index["b"]] == [0, 1, 2, 3]
    assert index.get("missing") is None and "a" in index


def test_the_item_list_knows_tops_and_the_item_at_a_y() -> None:
    items = ItemList()
    for k, h in enumerate((10.0, 20.0, 30.0)):
        item = Item(f"m{k}", "user", None, height=h)
        items.items.append(item)
    items.reindex()
    assert items.top(2) == 10 + 20 + 2 * ITEM_GAP
    assert items.at_y(items.top(1) + 1) == 1
    assert items.get("m2") is items.items[2]
    items.reset()
    assert items.items == [] and items.get("m0") is None


def test_copying_a_reply_leaves_its_thinking_out() -> None:
    assert copy_source(Message("assistant", "<think>hmm</think>Answer")) == "Answer"
    assert copy_source(Message("user", "<think>kept</think>")) == "<think>kept</think>"
