"""Moving around the window from the keyboard: the message box (Ctrl+L),
the conversation list (Ctrl+Shift+L), the next and previous conversation
(Ctrl+PgDown / Ctrl+PgUp), Help › Keyboard Shortcuts (Ctrl+/), and the tab
order (conversation list, conversation, message box, Send, Stop).

Threading rule: GUI thread only.
"""

from __future__ import annotations

from PyQt6.QtCore import QObject, Qt
from PyQt6.QtGui import QAction
from PyQt6.QtWidgets import QMenu, QWidget

from app.ui.dialogs.singleton import SingletonDialog
from app.ui.misc.shortcuts import ShortcutsDialog, bind
from app.ui.sidebar.sidebar import Sidebar

__all__ = ["KeyboardNavigation"]


class KeyboardNavigation(QObject):
    """The navigation actions of a window (see the module docstring).

    It is given what it moves between, never the window's insides: the
    ``sidebar``, the ``prompt`` (message box) and the tab ``chain`` after the
    sidebar's widgets (conversation, message box, Send, Stop)."""

    def __init__(
        self, window: QWidget, go_menu: QMenu, help_menu: QMenu, sidebar: Sidebar, prompt: QWidget,
        chain: list[QWidget],
    ) -> None:
        super().__init__(window)
        self._window = window
        self._sidebar = sidebar
        self._prompt = prompt
        self._chain = [sidebar.new_button, sidebar.list, *chain]
        self._shortcuts = SingletonDialog(lambda: ShortcutsDialog(self._window), reuse=True, modeless=True)
        self.focus_prompt_action = bind(QAction(self.tr("Go to the &Message Box"), window), "focus_prompt")
        self.focus_list_action = bind(QAction(self.tr("Go to the &Conversation List"), window), "sidebar")
        self.next_chat_action = bind(QAction(self.tr("&Next Conversation"), window), "next_chat")
        self.previous_chat_action = bind(QAction(self.tr("&Previous Conversation"), window), "previous_chat")
        self.shortcuts_action = bind(QAction(self.tr("&Keyboard Shortcuts"), window), "shortcuts")
        for action in (self.focus_prompt_action, self.focus_list_action, self.next_chat_action, self.previous_chat_action):
            window.addAction(action)
            go_menu.addAction(action)
        window.addAction(self.shortcuts_action)
        help_menu.insertAction(help_menu.actions()[0] if help_menu.actions() else None, self.shortcuts_action)
        self._set_tab_order()
        self._connect_signals()

    def _connect_signals(self) -> None:
        self.focus_prompt_action.triggered.connect(self._on_focus_prompt_triggered)
        self.focus_list_action.triggered.connect(self._on_focus_list_triggered)
        self.next_chat_action.triggered.connect(self._on_next_chat_triggered)
        self.previous_chat_action.triggered.connect(self._on_previous_chat_triggered)
        self.shortcuts_action.triggered.connect(self._on_shortcuts_triggered)

    def _set_tab_order(self) -> None:
        chain = self._chain
        for first, second in zip(chain, chain[1:], strict=False):
            QWidget.setTabOrder(first, second)

    def _on_focus_prompt_triggered(self) -> None:
        self._prompt.setFocus(Qt.FocusReason.ShortcutFocusReason)

    def _on_focus_list_triggered(self) -> None:
        self._sidebar.list.setFocus(Qt.FocusReason.ShortcutFocusReason)

    def _on_next_chat_triggered(self) -> None:
        self._sidebar.activate_neighbour(1)

    def _on_previous_chat_triggered(self) -> None:
        self._sidebar.activate_neighbour(-1)

    def _on_shortcuts_triggered(self) -> None:
        self._shortcuts.show()
