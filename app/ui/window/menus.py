"""The main window's menu bar, built in one place: File, Edit, Model, View,
Go and Help with every action they hold.

``MenuBar`` only builds: the window connects the actions (its
``_connect_signals``). Actions whose shortcut must work with the menu bar
hidden (Regenerate, Search, Settings, Manage Models) are also added to the
window. ``app.ui.window.appearance_menu`` fills the View menu and
``app.ui.window.navigation`` the Go and Help menus.

Threading rule: GUI thread only.
"""

from __future__ import annotations

from collections.abc import Callable

from PyQt6.QtCore import QCoreApplication, QObject, Qt
from PyQt6.QtGui import QAction
from PyQt6.QtWidgets import QDockWidget, QMainWindow, QMenu, QWidget

from app.core.backends.remote.servers import load_servers
from app.ui.dialogs.model_manager import make_manage_action
from app.ui.misc.shortcuts import bind
from app.ui.window.model_menu import ManagedModelMenu


class MenuBar(QObject):
    """The menus and actions of ``window`` (see the module docstring).
    ``view``: the conversation (Copy and Select All work inside it);
    ``health_panel``: the dock View › Stream Health toggles;
    ``is_generating``: whether a reply is streaming (the Model menu asks)."""

    def __init__(
        self, window: QMainWindow, view: QWidget, health_panel: QDockWidget, is_generating: Callable[[], bool]
    ) -> None:
        super().__init__(window)
        self._window = window
        self._build_file_menu()
        self._build_edit_menu(view)
        self._build_model_menu(is_generating)
        self._build_view_menu(health_panel)
        self.go_menu = self._menu(QCoreApplication.translate("MainWindow", "&Go"))
        self.help_menu = self._menu(QCoreApplication.translate("MainWindow", "&Help"))
        self.about_action = self._action(QCoreApplication.translate("MainWindow", "&About Rill"))
        self.help_menu.addAction(self.about_action)

    def _menu(self, title: str) -> QMenu:
        bar = self._window.menuBar()
        assert bar is not None  # a QMainWindow always has one
        menu = bar.addMenu(title)
        assert menu is not None
        return menu

    def _action(self, text: str, shortcut: str = "", global_shortcut: bool = False) -> QAction:
        action = QAction(text, self._window)
        if shortcut:
            bind(action, shortcut)
        if global_shortcut:
            self._window.addAction(action)  # the shortcut works with the menu bar hidden
        return action

    def _build_file_menu(self) -> None:
        menu = self.file_menu = self._menu(QCoreApplication.translate("MainWindow", "&File"))
        self.open_model_action = self._action(QCoreApplication.translate("MainWindow", "&Open Model File…"), "open_model")
        self.new_chat_action = self._action(QCoreApplication.translate("MainWindow", "&New Chat"), "new_chat")
        self.quit_action = self._action(QCoreApplication.translate("MainWindow", "&Quit"), "quit")
        self.rename_action = self._action(QCoreApplication.translate("MainWindow", "&Rename Conversation"), "rename")
        self.delete_conversation_action = self._action(QCoreApplication.translate("MainWindow", "&Delete Conversation"))
        self.regenerate_action = self._action(
            QCoreApplication.translate("MainWindow", "Re&generate Reply"), "regenerate", global_shortcut=True
        )
        self.export_action = self._action(QCoreApplication.translate("MainWindow", "&Export Conversation…"))
        self.export_html_action = self._action(QCoreApplication.translate("MainWindow", "Export as &Web Page…"))
        self.export_pdf_action = self._action(QCoreApplication.translate("MainWindow", "Export as &PDF…"))
        self.print_action = self._action(QCoreApplication.translate("MainWindow", "P&rint…"), "print")
        self.export_all_action = self._action(QCoreApplication.translate("MainWindow", "Export &All Conversations…"))
        self.import_action = self._action(QCoreApplication.translate("MainWindow", "&Import Conversations…"))
        for action in (self.open_model_action, self.new_chat_action, self.rename_action, self.delete_conversation_action):
            menu.addAction(action)
        menu.addSeparator()
        for action in (self.export_action, self.export_html_action, self.export_pdf_action, self.print_action,
                       self.export_all_action, self.import_action):
            menu.addAction(action)
        menu.addSeparator()
        menu.addAction(self.quit_action)

    def _build_edit_menu(self, view: QWidget) -> None:
        menu = self.edit_menu = self._menu(QCoreApplication.translate("MainWindow", "&Edit"))
        self.copy_action = self._action(QCoreApplication.translate("MainWindow", "&Copy"), "copy")
        self.select_all_action = self._action(QCoreApplication.translate("MainWindow", "Select &All"), "select_all")
        for action in (self.copy_action, self.select_all_action):
            action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            view.addAction(action)
        self.copy_conversation_action = self._action(
            QCoreApplication.translate("MainWindow", "Copy Conversation as &Markdown"), "copy_chat"
        )
        self.find_action = self._action(QCoreApplication.translate("MainWindow", "&Find in Conversation…"), "find")
        self.find_next_action = self._action(QCoreApplication.translate("MainWindow", "Find &Next"), "find_next")
        self.find_previous_action = self._action(
            QCoreApplication.translate("MainWindow", "Find Pre&vious"), "find_previous"
        )
        self.search_action = self._action(
            QCoreApplication.translate("MainWindow", "&Search All Conversations…"), "search", global_shortcut=True
        )
        self.search_action.setToolTip(QCoreApplication.translate("MainWindow", "Search all conversations (Ctrl+K)"))
        self.conversation_settings_action = self._action(
            QCoreApplication.translate("MainWindow", "Conversation Se&ttings…")
        )
        self.conversation_settings_action.setToolTip(
            QCoreApplication.translate("MainWindow", "This conversation's own system prompt and sampling")
        )
        self.settings_action = self._action(
            QCoreApplication.translate("MainWindow", "S&ettings…"), "settings", global_shortcut=True
        )
        self.settings_action.setMenuRole(QAction.MenuRole.PreferencesRole)
        for action in (self.copy_action, self.select_all_action):
            menu.addAction(action)
        menu.addSeparator()
        menu.addAction(self.copy_conversation_action)
        menu.addAction(self.regenerate_action)
        menu.addSeparator()
        for action in (self.find_action, self.find_next_action, self.find_previous_action, self.search_action):
            menu.addAction(action)
        menu.addSeparator()
        menu.addAction(self.conversation_settings_action)
        menu.addAction(self.settings_action)

    def _build_model_menu(self, is_generating: Callable[[], bool]) -> None:
        self.servers_action = self._action(QCoreApplication.translate("MainWindow", "&Servers…"))
        self.servers_action.setToolTip(
            QCoreApplication.translate("MainWindow", "Add, test and edit the servers Rill can chat through")
        )
        self.model_menu = ManagedModelMenu(self.open_model_action, self.servers_action, self._window)
        self.model_menu.set_servers(load_servers())
        self.model_menu.is_generating = is_generating
        self.manage_models_action = make_manage_action(self._window)
        self._window.addAction(self.manage_models_action)  # the shortcut works with the menu closed
        self.model_menu.set_manage_action(self.manage_models_action)
        self.get_models_action = self._action(QCoreApplication.translate("MainWindow", "&Get More Models…"))
        self.get_models_action.setToolTip(QCoreApplication.translate(
            "MainWindow", "Find, download and load models from the Hugging Face Hub"))
        self.model_menu.set_hub_action(self.get_models_action)
        bar = self._window.menuBar()
        assert bar is not None
        bar.addMenu(self.model_menu)

    def _build_view_menu(self, health_panel: QDockWidget) -> None:
        self.view_menu = self._menu(QCoreApplication.translate("MainWindow", "&View"))
        action = health_panel.toggleViewAction()
        assert action is not None
        self.stream_health_action = action
        action.setText(QCoreApplication.translate("MainWindow", "Stream &Health"))
        bind(action, "stream_health")
        self.view_menu.addAction(action)
