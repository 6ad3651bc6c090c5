"""Formulas typeset ahead on every core (exports): the same page, sooner."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from app.core.conversation.model import Message
from app.core.render import mathbatch, mathsvg
from app.core.render.mathbatch import AheadTypesetter, formulas_in
from app.core.store import ConversationInfo, Store
from app.core.store.exchange.export_html import html_page


def _formulas(n: int, tag: str) -> list[str]:
    return [f"x_{{{tag}{k}}} = \\frac{{{k}}}{{{k + 1}}}" for k in range(n)]


@pytest.fixture
def fresh_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mathsvg, "_cache", type(mathsvg._cache)())


def test_formulas_are_found_as_the_render_finds_them() -> None:
    text = "Cost $5 and $10.\n\nThen $x^2$ and\n\n$$\n\\frac{a}{b}\n$$\n\n`$code$`"
    assert formulas_in(text) == [("$x^2$", "x^2", False), ("$$\n\\frac{a}{b}\n$$", "\n\\frac{a}{b}\n", True)]


def test_few_formulas_or_one_core_start_no_process(fresh_cache: None) -> None:
    few = [(f"${t}$", t, False) for t in _formulas(mathbatch.MIN_FORMULAS - 1, "a")]
    with AheadTypesetter(workers=2) as ahead:
        assert ahead.ahead(few) == 0 and ahead._pool is None
    many = [(f"${t}$", t, False) for t in _formulas(mathbatch.MIN_FORMULAS, "b")]
    with AheadTypesetter(workers=1) as ahead:
        assert ahead.ahead(many) == 0 and ahead._pool is None


def test_many_formulas_are_typeset_by_the_processes_into_the_cache(fresh_cache: None) -> None:
    wanted = [(f"${t}$", t, False) for t in _formulas(mathbatch.MIN_FORMULAS + 5, "c")]
    with AheadTypesetter(workers=2) as ahead:
        assert ahead.ahead(wanted + wanted[:3]) == len(wanted)  # each once
        assert ahead.ahead(wanted) == 0  # cached now
    for source, tex, display in wanted:
        cached = mathsvg.cached_formula(source, tex, display)
        assert cached is not None and cached.ok
    here = mathsvg._render(source, tex, display, "#000000")  # the same formula typeset in this process
    assert (cached.key, cached.svg, cached.width, cached.ascent) == (here.key, here.svg, here.width, here.ascent)


def _store(tmp_path: Path) -> Store:
    opened = Store.open(tmp_path / "m.db")
    assert opened.store is not None
    store = opened.store
    store.create_conversation(ConversationInfo(id="f" * 32, title="Math", created_at=1.7e9, updated_at=1.7e9,
                                               pinned=False, model="", system_prompt="", params={}, current_leaf=None))
    parent = None
    for n, tex in enumerate(_formulas(mathbatch.MIN_FORMULAS + 20, "d")):
        store.add_message("f" * 32, Message("user", f"q{n}", id=f"u{n}", created_at=1.7e9, parent_id=parent))
        body = f"So ${tex}$ here." if n % 2 else f"$$\n{tex}\n$$\n\nand $\\foo{{{n}}}$"
        store.add_message("f" * 32, Message("assistant", body, id=f"a{n}", created_at=1.7e9, parent_id=f"u{n}"))
        parent = f"a{n}"
    store.update_conversation("f" * 32, current_leaf=parent, updated_at=1.7e9)
    return store


def test_the_page_is_the_same_typeset_ahead_or_in_place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                        fresh_cache: None) -> None:
    store = _store(tmp_path)
    try:
        monkeypatch.setenv("RILL_MATH_WORKERS", "2")
        ahead_page = "".join(html_page(store, None))
        monkeypatch.setattr(mathsvg, "_cache", type(mathsvg._cache)())
        monkeypatch.setenv("RILL_MATH_WORKERS", "1")
        in_place = "".join(html_page(store, None))
    finally:
        store.close()
    assert ahead_page == in_place
    assert ahead_page.count("<svg ") == mathbatch.MIN_FORMULAS + 20


def test_the_shallow_style_copy_draws_the_same_svg(monkeypatch: pytest.MonkeyPatch, fresh_cache: None) -> None:
    from ziamath import styles

    tex = r"f(x) = \begin{cases} \mathbf{x}^2 & x \ge 0 \\ \text{no} & \end{cases} \boxed{\frac{1}{2}}"
    fast = mathsvg.render_formula("$$x$$", tex, True, "#123456").svg
    monkeypatch.setattr(mathsvg, "_speed_up", lambda: None)
    monkeypatch.setattr(styles, "asdict", dataclasses.asdict)
    monkeypatch.setattr(mathsvg, "_cache", type(mathsvg._cache)())
    assert mathsvg.render_formula("$$x$$", tex, True, "#123456").svg == fast


def _wait_until(condition, timeout_s: float = 20.0) -> bool:  # type: ignore[no-untyped-def]
    import time

    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


def test_typesetting_processes_end_when_their_parent_is_killed(tmp_path: Path) -> None:
    import os
    import signal
    import subprocess
    import sys

    script = (
        "import os, sys, time\n"
        "from app.core.render.mathbatch import AheadTypesetter\n"
        "if __name__ == '__main__':\n"
        "    a = AheadTypesetter(2, min_formulas=1)\n"
        "    a.ahead([('$b$', 'b', False), ('$c$', 'c', False)])\n"
        "    print(' '.join(str(p) for p in a._pool._processes), flush=True)\n"
        "    time.sleep(60)\n"
    )
    (tmp_path / "parent.py").write_text(script, encoding="utf-8")
    parent = subprocess.Popen([sys.executable, str(tmp_path / "parent.py")], stdout=subprocess.PIPE, text=True,
                              env=dict(os.environ, PYTHONPATH=os.getcwd()))
    try:
        assert parent.stdout is not None
        children = [int(p) for p in parent.stdout.readline().split()]
        assert len(children) == 2
        parent.send_signal(signal.SIGKILL)  # no shutdown: the pool cannot end its processes
        parent.wait(10)

        def gone(pid: int) -> bool:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return True
            with open(f"/proc/{pid}/stat", encoding="ascii") as stat:  # reaped later by init: a zombie is gone
                return stat.read().split(")")[-1].split()[0] == "Z"
            return False

        assert _wait_until(lambda: all(gone(pid) for pid in children)), "orphaned typesetting processes"
    finally:
        parent.kill()
