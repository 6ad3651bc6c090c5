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


def test_positions_made_beforehand_prepend_like_keys() -> None:
    by_keys, by_positions = ItemIndex(), ItemIndex()
    for index in (by_keys, by_positions):
        index["a"], index["b"] = 0, 1
        index.prepend(["p"])  # a base that is not 0 any more
        index["c"] = 3
    by_keys.prepend(["x", "y", "z"])
    by_positions.prepend_positions({"x": 0, "y": 1, "z": 2})
    want = {"x": 0, "y": 1, "z": 2, "p": 3, "a": 4, "b": 5, "c": 6}
    assert {key: by_keys[key] for key in want} == want
    assert {key: by_positions[key] for key in want} == want
    by_positions["d"] = 7
    by_positions.prepend(["w"])
    assert by_positions["w"] == 0 and by_positions["d"] == 8 and by_positions["x"] == 1


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
