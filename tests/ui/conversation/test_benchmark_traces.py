"""The benchmarks time the conversation view's work by method name
(``benchmarks/actions.py``, ``lag_sources.py``, ``store_startup.py``): every
name they give for the view and its collaborators is a method of that class,
so a method moved out of ``ChatView`` is not silently left untimed."""

from __future__ import annotations

import importlib

import pytest

from benchmarks import actions, lag_sources, store_startup

# The view and its collaborators (the controller, the consumer and the prompt are apart).
_OTHERS = {"app.ui.conversation.controller", "app.ui.conversation.consumer", "app.ui.conversation.prompt"}
_TABLES = {"actions": actions.TRACED, "store_startup": store_startup.TRACED}


def _view_entries() -> list[tuple[str, str, str, str]]:
    out = []
    for table, traced in _TABLES.items():
        for module, cls_name, methods in traced:
            if module.startswith("app.ui.conversation.") and module not in _OTHERS:
                out.extend((table, module, cls_name, meth) for meth in methods)
    out.extend(
        ("lag_sources", "app.ui.conversation.view", cls_name, meth)
        for cls_name, meth in lag_sources.SOURCES
        if cls_name == "ChatView"
    )
    return out


@pytest.mark.parametrize(("table", "module", "cls_name", "meth"), _view_entries())
def test_every_traced_view_method_exists(table: str, module: str, cls_name: str, meth: str) -> None:
    cls = getattr(importlib.import_module(module), cls_name)
    assert callable(cls.__dict__.get(meth)), f"benchmarks/{table}.py times {cls_name}.{meth}, which is not there"


def test_the_tables_name_the_work_moved_out_of_the_view() -> None:
    entries = {(cls_name, meth) for _t, _m, cls_name, meth in _view_entries()}
    assert {("StreamFlow", "tail_changed"), ("ItemRows", "append_history"), ("ChatView", "_on_history_ready")} <= entries
