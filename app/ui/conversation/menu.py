"""The conversation view's context menu: Copy, the message's own actions
(the footer's: edit, regenerate, other versions...), Show/Hide Thoughts and
Select All (``build_context_menu``).

Threading rule: GUI thread only.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PyQt6.QtCore import QCoreApplication
from PyQt6.QtGui import QAction
from PyQt6.QtWidgets import QMenu, QWidget


@dataclass(frozen=True, slots=True)
class MenuTarget:
    """The message a context menu is about."""

    message_id: str
    thoughts: bool | None               # None: no thinking; else unfolded?
    actions: list[tuple[str, str]]      # the footer's (action, label) pairs


def _add(menu: QMenu, text: str) -> QAction:
    action = menu.addAction(text)
    assert action is not None
    return action


def build_context_menu(
    parent: QWidget,
    can_copy: bool,
    target: MenuTarget | None,
    copy: Callable[[], None],
    select_all: Callable[[], None],
    act: Callable[[str, str], None],
    toggle_thoughts: Callable[[str], None],
) -> QMenu:
    """A menu deleted when it hides; ``act(action, message_id)`` runs a
    message action (as a footer click does)."""
    menu = QMenu(parent)
    entry = _add(menu, QCoreApplication.translate("ChatView", "Copy"))
    entry.setEnabled(can_copy)
    entry.triggered.connect(copy)
    if target is not None:
        item_id = target.message_id
        msg_copy = _add(menu, QCoreApplication.translate("ChatView", "Copy Message"))
        msg_copy.triggered.connect(lambda: act("copy", item_id))
        if target.thoughts is not None:
            label = (
                QCoreApplication.translate("ChatView", "Hide Thoughts")
                if target.thoughts
                else QCoreApplication.translate("ChatView", "Show Thoughts")
            )
            toggle = _add(menu, label)
            toggle.triggered.connect(lambda: toggle_thoughts(item_id))
        labels = {
            "previous": QCoreApplication.translate("ChatView", "Previous Version"),
            "next": QCoreApplication.translate("ChatView", "Next Version"),
        }
        for action, text in target.actions:
            if action in ("copy", "branch"):
                continue
            item_entry = _add(menu, labels.get(action, text))
            item_entry.triggered.connect(lambda _=False, a=action: act(a, item_id))
    menu.addSeparator()
    everything = _add(menu, QCoreApplication.translate("ChatView", "Select All"))
    everything.triggered.connect(select_all)
    menu.aboutToHide.connect(menu.deleteLater)
    return menu
