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
