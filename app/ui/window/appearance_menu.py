"""View › Larger Text / Smaller Text / Normal Size and View › Theme: the
conversation's zoom and the colour scheme, applied at once and remembered
(``app.core.config.appearance``). The language is chosen in the same place it is
stored (Settings › Appearance) and applies at the next start.

Threading rule: GUI thread only.
"""

from __future__ import annotations

import dataclasses

from PyQt6.QtCore import QCoreApplication, QObject, pyqtSignal
from PyQt6.QtGui import QAction, QActionGroup
from PyQt6.QtWidgets import QMenu, QWidget

from app.core.config.appearance import THEMES, Appearance, load_appearance, save_appearance
from app.ui.conversation.view import ChatView
from app.ui.misc.shortcuts import bind
from app.ui.misc.theme import theme_manager

__all__ = ["AppearanceControls"]


class AppearanceControls(QObject):
    """Owns the window's ``Appearance``: zoom actions, the theme menu, and
    applying a changed appearance (``apply``, also used by Settings)."""

    #: The appearance changed (zoom, theme or language) and was saved when it
    #: could be; arg: Appearance.
    appearance_changed = pyqtSignal(object)

    def __init__(self, window: QWidget, view: ChatView, view_menu: QMenu, persist: bool = True) -> None:
        super().__init__(window)
        self._view = view
        self._persist = persist
        self.appearance = load_appearance()  # (persist=False: shown, never saved)
        self.zoom_in_action = bind(QAction(self.tr("&Larger Text"), window), "zoom_in")
        self.zoom_out_action = bind(QAction(self.tr("&Smaller Text"), window), "zoom_out")
        self.zoom_reset_action = bind(QAction(self.tr("&Normal Text Size"), window), "zoom_reset")
        self.theme_menu = QMenu(self.tr("&Theme"), window)
        self.theme_menu.setObjectName("themeMenu")
        group = QActionGroup(self.theme_menu)
        self.theme_actions: dict[str, QAction] = {}
        for name, label in THEMES.items():
            action = QAction(QCoreApplication.translate("Appearance", label), self.theme_menu)
            action.setCheckable(True)
            action.setData(name)
            group.addAction(action)
            self.theme_menu.addAction(action)
            self.theme_actions[name] = action
        view_menu.addSeparator()
        for action in (self.zoom_in_action, self.zoom_out_action, self.zoom_reset_action):
            window.addAction(action)  # the keys work with the menu bar hidden
            view_menu.addAction(action)
        view_menu.addMenu(self.theme_menu)
        self._connect_signals()
        self._show(self.appearance)
        theme_manager(self.appearance.theme)
        view.set_zoom(self.appearance.zoom_factor)
        view.set_column_chars(self.appearance.column)

    def _connect_signals(self) -> None:
        self.zoom_in_action.triggered.connect(self._on_zoom_in_triggered)
        self.zoom_out_action.triggered.connect(self._on_zoom_out_triggered)
        self.zoom_reset_action.triggered.connect(self._on_zoom_reset_triggered)
        for action in self.theme_actions.values():
            action.triggered.connect(self._on_theme_triggered)
        theme_manager().theme_changed.connect(self._on_theme_changed)

    def _on_zoom_in_triggered(self) -> None:
        self.apply(self.appearance.with_zoom(self.appearance.zoom + 1))

    def _on_zoom_out_triggered(self) -> None:
        self.apply(self.appearance.with_zoom(self.appearance.zoom - 1))

    def _on_zoom_reset_triggered(self) -> None:
        self.apply(self.appearance.with_zoom(0))

    def _on_theme_triggered(self) -> None:
        action = self.sender()
        if isinstance(action, QAction):
            self.apply(dataclasses.replace(self.appearance, theme=str(action.data())))

    def _on_theme_changed(self, _theme: object) -> None:
        self._view.restyle()

    def _show(self, appearance: Appearance) -> None:
        self.theme_actions[appearance.theme].setChecked(True)
        self.zoom_in_action.setEnabled(appearance.with_zoom(appearance.zoom + 1) != appearance)
        self.zoom_out_action.setEnabled(appearance.with_zoom(appearance.zoom - 1) != appearance)

    def apply(self, appearance: Appearance) -> None:
        """Show ``appearance`` (theme and zoom at once; the language at the
        next start) and save it."""
        if appearance == self.appearance:
            return
        self.appearance = appearance
        self._show(appearance)
        theme_manager().set_preference(appearance.theme)
        self._view.set_zoom(appearance.zoom_factor)
        self._view.set_column_chars(appearance.column)
        if self._persist:
            save_appearance(appearance)
        self.appearance_changed.emit(appearance)
