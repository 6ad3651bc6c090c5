"""The Model menu: the local model, Open Model File…, a section per server, Servers…."""

from __future__ import annotations

from typing import Any

from PyQt6.QtGui import QAction
from PyQt6.QtWidgets import QWidget

from app.core.backends.remote.servers import ServerConfig
from app.ui.window.model_menu import LOCAL, ManagedModelMenu, server_choice

_KEEP: list[QWidget] = []  # the menus' parents live until the end of the test


def make_menu(qtbot: Any) -> tuple[ManagedModelMenu, QAction, QAction]:
    parent = QWidget()
    qtbot.addWidget(parent)
    _KEEP.append(parent)
    open_action, servers_action = QAction("Open Model File…", parent), QAction("Servers…", parent)
    return ManagedModelMenu(open_action, servers_action, parent), open_action, servers_action


def test_manage_models_follows_open_model_and_servers_come_last(qtbot: Any) -> None:
    menu, open_action, servers_action = make_menu(qtbot)
    manage = QAction("Manage Models…", menu.parent())
    menu.set_manage_action(manage)
    actions = [a for a in menu.actions() if not a.isSeparator()]
    assert actions.index(manage) == actions.index(open_action) + 1
    assert actions[-1] is servers_action
    assert menu.current == LOCAL and menu.local_action.isChecked()


def test_a_servers_default_model_is_listed_and_checked_when_current(qtbot: Any) -> None:
    menu, _open, _servers = make_menu(qtbot)
    server = ServerConfig(name="Box", kind="ollama", base_url="http://127.0.0.1:9", id="box", model="tiny").validated()
    menu.set_servers([server])
    assert menu.servers == [server] and menu.server_models(server) == ["tiny"]
    menu.set_current(server_choice("box", "tiny"))
    assert menu.current == server_choice("box", "tiny")
    chosen: list[tuple[object, str]] = []
    menu.server_model_chosen.connect(lambda s, m: chosen.append((s.id, m)))
    # The check follows on the next rebuild (set_current coalesces them).
    qtbot.waitUntil(lambda: any(a.text() == "tiny (default)" and a.isChecked() for a in menu.actions()), timeout=2000)
    tiny = next(a for a in menu.actions() if a.text() == "tiny (default)")
    assert not menu.local_action.isChecked()
    tiny.trigger()
    assert chosen == [("box", "tiny")]


# -- long lists (issue #17, item 8) ------------------------------------------------------

def big_server() -> ServerConfig:
    return ServerConfig(name="Zoo", kind="openai", base_url="http://127.0.0.1:9", id="zoo").validated()


def model_actions(menu: Any) -> list[QAction]:
    """Every model action in the menu and its submenus."""
    found: list[QAction] = []
    for action in menu.actions():
        sub = action.menu()
        if sub is not None:
            found += model_actions(sub)
        elif isinstance(action.data(), dict) and action.data().get("kind") == "server":
            found.append(action)
    return found


def test_a_server_with_200000_models_gets_a_capped_menu_and_a_filter(qtbot: Any) -> None:
    from app.ui.window import model_menu

    menu, _open, _servers = make_menu(qtbot)
    server = big_server()
    names = [f"model-{i:06d}" for i in range(200_000)]
    menu.set_servers([server])
    menu.cache.store(server, names, dropped=5)
    menu._rebuild()  # what opening the menu does
    shown = model_actions(menu)
    assert len(shown) == model_menu.MENU_MODELS_MAX + model_menu.MENU_MORE_MAX
    assert [a.data()["model"] for a in shown] == names[: len(shown)]
    texts = [a.text() for a in menu.actions()]
    assert "More Models (199,988)" in texts or "More Models (199988)" in texts
    assert "Filter All 200,000 Models…" in texts
    notice = next(a for a in menu.actions() if a.text().startswith("5 More Not Kept"))
    assert not notice.isEnabled() and "200,005" in notice.toolTip()


def test_a_short_list_has_no_filter_entry(qtbot: Any) -> None:
    menu, _open, _servers = make_menu(qtbot)
    server = big_server()
    menu.set_servers([server])
    menu.cache.store(server, [f"m{i}" for i in range(30)])
    menu._rebuild()
    assert len(model_actions(menu)) == 30
    assert not any(a.text().startswith("Filter All") for a in menu.actions())


def test_the_filter_finds_a_model_far_down_the_list_and_chooses_it(qtbot: Any) -> None:
    menu, _open, _servers = make_menu(qtbot)
    server = big_server()
    names = [f"model-{i:05d}" for i in range(10_000)]
    menu.set_servers([server])
    menu.cache.store(server, names)
    menu._rebuild()
    chosen: list[tuple[str, str]] = []
    menu.server_model_chosen.connect(lambda s, m: chosen.append((s.id, m)))
    next(a for a in menu.actions() if a.text().startswith("Filter All")).trigger()
    picker = menu.picker
    assert picker is not None and picker.shown == 10_000
    qtbot.keyClicks(picker.filter_edit, "09876")
    assert picker.shown == 1 and picker.selected() == "model-09876"
    assert "1 of 10,000 models" in picker.count_label.text()
    with qtbot.waitSignal(picker.model_chosen, timeout=2000):
        picker.filter_edit.returnPressed.emit()
    assert chosen == [("zoo", "model-09876")]
