"""The view's height index: prefix sums, search and updates agree with a plain list."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from app.core.util.fenwick import Fenwick

heights = st.lists(st.floats(min_value=0.0, max_value=500.0, allow_nan=False), max_size=200)


def prefixes(values: list[float]) -> list[float]:
    return [0.0, *itertools.accumulate(values)]


@settings(max_examples=200, deadline=None)
@given(values=heights, updates=st.lists(st.tuples(st.integers(0, 199), st.floats(0.0, 500.0)), max_size=30))
def test_matches_a_plain_list_after_appends_and_updates(values: list[float], updates) -> None:
    built = Fenwick(values)
    appended = Fenwick()
    for v in values:
        appended.append(v)
    plain = list(values)
    for index, value in updates:
        if plain:
            index %= len(plain)
            plain[index] = value
            built.set(index, value)
            appended.set(index, value)
    want = prefixes(plain)
    for fen in (built, appended):
        assert len(fen) == len(plain)
        for k in range(len(plain) + 1):
            assert abs(fen.prefix(k) - want[k]) < 1e-6 * max(1.0, want[k])


@settings(max_examples=200, deadline=None)
@given(values=st.lists(st.floats(min_value=1.0, max_value=500.0), min_size=1, max_size=200), y=st.floats(0.0, 1e5))
def test_find_returns_the_item_covering_y(values: list[float], y: float) -> None:
    fen = Fenwick(values)
    want = prefixes(values)
    i = fen.find(y)
    if y >= want[-1]:
        assert i == len(values) - 1
    else:
        assert want[i] <= y + 1e-9 and y < want[i + 1] + 1e-9


def test_empty() -> None:
    fen = Fenwick()
    assert fen.find(10.0) == -1 and fen.total() == 0.0 and len(fen) == 0


@settings(max_examples=200, deadline=None)
@given(front=st.lists(heights, max_size=5), back=heights)
def test_values_made_in_steps_and_put_in_front_give_the_tree_of_all_of_them(front: list[list[float]], back: list[float]) -> None:
    from app.core.util.fenwick import FrontValues

    made = FrontValues()
    for step in front:
        made.extend(step)
    fen = Fenwick(back)
    fen.prepend(made)
    whole = [v for step in front for v in step] + back
    assert fen.values() == whole
    assert fen._tree == Fenwick(whole)._tree, "the same tree as one build of every value"
    assert made.total == (prefixes(whole)[len(whole) - len(back)])
