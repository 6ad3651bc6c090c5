"""PyQt's lazy enums are made at start-up idle (``app.ui.misc.lazy_types``),
not in the first Enter."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from typing import Any

from app.ui.misc.lazy_types import LAZY_TYPES, touch_lazy_types

_FRESH = textwrap.dedent("""
    import enum
    made = []
    original = enum.EnumType._create_
    def _create_(cls, class_name, names, **kw):
        made.append(kw.get("qualname"))
        return original(cls, class_name, names, **kw)
    enum.EnumType._create_ = _create_
    from app.ui.misc.lazy_types import touch
    from PyQt6.QtWidgets import QStyleOptionViewItem
    before = "QStyleOptionViewItem.Position" in made
    touch(QStyleOptionViewItem)
    print(before, "QStyleOptionViewItem.Position" in made, "QStyleOption.OptionType" in made)
""")


def test_touching_a_class_makes_its_and_its_bases_enums() -> None:
    out = subprocess.run([sys.executable, "-c", _FRESH], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.split() == ["False", "True", "True"]


class _Recording(type):
    touched: list[str] = []

    def __getattr__(cls, name: str) -> Any:
        _Recording.touched.append(cls.__name__)
        raise AttributeError(name)


def test_the_types_are_touched_one_per_turn_then_the_callback(qtbot) -> None:
    kinds = [_Recording(name, (), {}) for name in ("A", "B", "C")]
    _Recording.touched.clear()
    done: list[list[str]] = []
    touch_lazy_types(kinds, then=lambda: done.append(list(_Recording.touched)))
    assert _Recording.touched == ["A"]  # the first now, the others in later turns
    qtbot.waitUntil(lambda: bool(done), timeout=2000)
    assert done == [["A", "B", "C"]]


def test_the_list_holds_qt_classes() -> None:
    assert len(set(LAZY_TYPES)) == len(LAZY_TYPES)
    assert all(t.__module__.startswith("PyQt6.") for t in LAZY_TYPES)
