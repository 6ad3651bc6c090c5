"""Light and dark themes: one table of colours for the palette, the style
sheet, the painted widgets and the code highlighting.

A ``Theme`` is a name, a Pygments style and a dict of named colours. Applying
it (``ThemeManager``) sets the application's palette (Fusion style, so every
standard widget follows it) and the application style sheet, which is
``resources/style.qss`` with ``$name`` placeholders filled from the same
colours, for both themes at once, each theme's rules scoped to windows
marked with it (``mark_window``: the main window marks itself; its dialogs,
its children, follow it). Widgets that paint themselves (the conversation view, the sidebar,
the model manager) read ``color(name)`` when they paint and repaint on
``theme_changed``; the conversation view re-styles its rendered code with
``code_css()``.

``ThemeManager`` follows the desktop's colour scheme
(``QStyleHints.colorScheme``, live when it changes) unless the user chose
Light or Dark (``app.core.config.appearance``). An unknown scheme (no desktop
setting, as under Xvfb) means light.

Every text colour here is checked against its background for WCAG AA
(4.5:1) by ``tests/ui/misc/test_theme.py``, using the applied palette and the
filled style sheet.

Threading rule: GUI thread only.
"""

from __future__ import annotations

import logging
import re
import string
from dataclasses import dataclass, field

from PyQt6 import sip
from PyQt6.QtCore import QObject, Qt, QTimer, pyqtSignal
from PyQt6.QtGui import QColor, QGuiApplication, QPalette
from PyQt6.QtWidgets import QApplication, QWidget

from app.core.config.appearance import SYSTEM
from app.core.render.markdown import code_css
from app.resources import read_text_resource

__all__ = ["Theme", "LIGHT", "DARK", "THEMES", "ThemeManager", "current", "color", "set_tone", "theme_manager"]

log = logging.getLogger(__name__)

_Role = QPalette.ColorRole
_Group = QPalette.ColorGroup

#: Palette roles and the colour names that fill them.
PALETTE_ROLES: dict[_Role, str] = {
    _Role.Window: "window",
    _Role.WindowText: "text",
    _Role.Base: "base",
    _Role.AlternateBase: "alt_base",
    _Role.Text: "text",
    _Role.Button: "button",
    _Role.ButtonText: "text",
    _Role.BrightText: "bright_text",
    _Role.Highlight: "highlight",
    _Role.HighlightedText: "highlighted_text",
    _Role.Link: "link",
    _Role.LinkVisited: "link_visited",
    _Role.PlaceholderText: "muted",
    _Role.ToolTipBase: "tooltip_base",
    _Role.ToolTipText: "tooltip_text",
    _Role.Light: "light",
    _Role.Midlight: "midlight",
    _Role.Mid: "mid",
    _Role.Dark: "dark",
    _Role.Shadow: "shadow",
    _Role.Accent: "highlight",
}
#: Roles drawn greyed out in disabled widgets (WCAG exempts disabled controls).
DISABLED_ROLES = (_Role.WindowText, _Role.Text, _Role.ButtonText, _Role.PlaceholderText)


_QCOLORS: dict[tuple[str, str], QColor] = {}


@dataclass(frozen=True)
class Theme:
    name: str
    #: Pygments style for code blocks (its token colours pass 4.5:1 on code_bg).
    pygments_style: str
    colors: dict[str, str] = field(default_factory=dict)

    def qcolor(self, name: str) -> QColor:
        """A named colour (parsed once per theme: widgets ask for them on every paint)."""
        key = (self.name, name)
        found = _QCOLORS.get(key)
        if found is None:
            found = _QCOLORS[key] = QColor(self.colors[name])
        return QColor(found)  # (a copy: callers may change its alpha)

    @property
    def is_dark(self) -> bool:
        return self.name == "dark"

    def palette(self) -> QPalette:
        palette = QPalette()
        for role, name in PALETTE_ROLES.items():
            palette.setColor(role, self.qcolor(name))
        for role in DISABLED_ROLES:
            palette.setColor(_Group.Disabled, role, self.qcolor("disabled_text"))
        palette.setColor(_Group.Disabled, _Role.Button, self.qcolor("button"))
        palette.setColor(_Group.Disabled, _Role.Base, self.qcolor("window"))
        return palette

    def style_sheet(self) -> str:
        """``resources/style.qss`` with this theme's colours filled in."""
        return string.Template(read_text_resource("style.qss")).safe_substitute(self.colors)

    def code_css(self) -> str:
        """Style sheet for rendered code (see ``app.core.render.markdown.code_css``)."""
        return code_css(self.pygments_style, self.colors["code_bg"])


# Colours after GitHub's Primer palettes (light and dark default). Names:
# palette roles (see PALETTE_ROLES) and what the painted widgets use.
LIGHT = Theme(
    "light",
    "default",
    {
        "window": "#f6f8fa",
        "base": "#ffffff",
        "alt_base": "#f6f8fa",
        "text": "#1f2328",
        "button": "#f6f8fa",
        "bright_text": "#ffffff",
        "highlight": "#0969da",
        "highlighted_text": "#ffffff",
        "link": "#0969da",
        "link_visited": "#8250df",
        "muted": "#57606a",
        "tooltip_base": "#ffffff",
        "tooltip_text": "#1f2328",
        "light": "#ffffff",
        "midlight": "#eaeef2",
        "mid": "#d0d7de",
        "dark": "#afb8c1",
        "shadow": "#8c959f",
        "disabled_text": "#8c959f",
        "border": "#d0d7de",
        "focus": "#1f6feb",
        # the conversation
        "user": "#0969da",
        "assistant": "#1a7f37",
        "user_bg": "#eaf3ff",
        "error": "#b42318",
        "warning": "#9a6700",
        "info": "#57606a",
        "action": "#0969da",
        "success": "#1a7f37",
        "copy_bg": "#ffffff",
        "copy_border": "#d0d7de",
        "find": "#fff3b0",
        "find_current": "#ffb35c",
        "match_bg": "#ffe58f",
        "code_bg": "#f6f8fa",
        "selection_bg": "#b6d7ff",
        # buttons and panels
        "send_bg": "#1f883d",
        "send_border": "#1a7f37",
        "send_text": "#ffffff",
        "send_disabled_bg": "#94d3a2",
        "stop_text": "#cf222e",
        "danger": "#cf222e",
        "notice_bg": "#f1f6ff",
        "notice_border": "#b6d7ff",
        "primary_bg": "#1f6feb",
        "primary_border": "#1a5fd0",
        "primary_text": "#ffffff",
        "meter_high": "#c98a00",
        "meter_full": "#c0392b",
        "scroll_handle": "#848d97",
    },
)

DARK = Theme(
    "dark",
    "github-dark",
    {
        "window": "#161b22",
        "base": "#0d1117",
        "alt_base": "#161b22",
        "text": "#e6edf3",
        "button": "#21262d",
        "bright_text": "#ffffff",
        "highlight": "#1f6feb",
        "highlighted_text": "#ffffff",
        "link": "#4493f8",
        "link_visited": "#ab7df8",
        "muted": "#9198a1",
        "tooltip_base": "#21262d",
        "tooltip_text": "#e6edf3",
        "light": "#30363d",
        "midlight": "#262c36",
        "mid": "#3d444d",
        "dark": "#010409",
        "shadow": "#010409",
        "disabled_text": "#656c76",
        "border": "#3d444d",
        "focus": "#4493f8",
        "user": "#4493f8",
        "assistant": "#3fb950",
        "user_bg": "#172338",
        "error": "#f85149",
        "warning": "#d29922",
        "info": "#9198a1",
        "action": "#4493f8",
        "success": "#3fb950",
        "copy_bg": "#21262d",
        "copy_border": "#3d444d",
        "find": "#5c4a00",
        "find_current": "#8a5a00",
        "match_bg": "#5c4a00",
        "code_bg": "#161b22",
        "selection_bg": "#1f4f8f",
        "send_bg": "#238636",
        "send_border": "#2ea043",
        "send_text": "#ffffff",
        "send_disabled_bg": "#1b4721",
        "stop_text": "#ff7b72",
        "danger": "#ff7b72",
        "notice_bg": "#121d2f",
        "notice_border": "#1f4f8f",
        "primary_bg": "#1f6feb",
        "primary_border": "#388bfd",
        "primary_text": "#ffffff",
        "meter_high": "#d29922",
        "meter_full": "#f85149",
        "scroll_handle": "#656c76",
    },
)

THEMES: dict[str, Theme] = {"light": LIGHT, "dark": DARK}

_current: Theme = LIGHT


def current() -> Theme:
    """The theme applied last (light until one is)."""
    return _current


def color(name: str) -> QColor:
    """A named colour of the current theme."""
    return _current.qcolor(name)


def set_tone(widget: QWidget, tone: str) -> None:
    """Colour a label's text by meaning: "muted", "warning", "error",
    "success" or "" (the normal text colour). The colours come from the
    style sheet (``QLabel[tone=...]``), so they follow the theme."""
    if widget.property("tone") == tone:
        return
    widget.setProperty("tone", tone)
    style = widget.style()
    if style is not None:
        style.unpolish(widget)
        style.polish(widget)


def system_theme_name() -> str:
    """"dark" when the desktop asks for a dark scheme, else "light"."""
    hints = QGuiApplication.styleHints()
    scheme = hints.colorScheme() if hints is not None else Qt.ColorScheme.Unknown
    return "dark" if scheme == Qt.ColorScheme.Dark else "light"


THEME_PROPERTY = "rillTheme"
_RULE = re.compile(r"([^{}]+)\{([^}]*)\}")
POLISH_CHUNK = 20  # widgets re-polished per turn of the event loop


def scoped_style_sheet(theme: Theme) -> str:
    """``theme``'s style sheet with every rule scoped to the widgets inside a
    window whose ``rillTheme`` property is the theme's name."""
    sheet = re.sub(r"/\*.*?\*/", "", theme.style_sheet(), flags=re.S)
    rules = []
    for selectors, body in _RULE.findall(sheet):
        scoped = ", ".join(f'*[{THEME_PROPERTY}="{theme.name}"] {sel.strip()}' for sel in selectors.split(","))
        rules.append(f"{scoped} {{{body.strip()}}}")
    return "\n".join(rules)


def mark_window(window: QWidget) -> None:
    """Make ``window`` (a top-level widget) take the current theme's rules."""
    window.setProperty(THEME_PROPERTY, _current.name)


class ThemeManager(QObject):
    """Applies a theme to the application and follows the desktop's scheme.

    The application's style sheet is set once and holds every theme's rules,
    each scoped to windows whose ``rillTheme`` property names the theme.
    Switching themes sets the palette (O(1)), marks the windows and
    re-polishes their widgets, ``POLISH_CHUNK`` per turn of the event loop:
    replacing the application's style sheet instead re-polishes and re-lays
    out every widget in one go (8-12 ms here, a missed frame).

    One per application (``theme_manager()``)."""

    #: The theme changed: its palette is applied and the widgets are being
    #: re-polished (``style_sheet_applied`` when they all are); arg: the new Theme.
    theme_changed = pyqtSignal(object)
    #: Every widget shows the current theme's style sheet rules; arg: the Theme.
    style_sheet_applied = pyqtSignal(object)

    def __init__(self, app: QApplication, preference: str = SYSTEM) -> None:
        super().__init__(app)
        self._app = app
        self._preference = preference
        self._applied: str | None = None
        self._pending: list[QWidget] = []
        self._polish_timer = QTimer(self)
        self._polish_timer.setInterval(0)
        app.setStyle("Fusion")  # the platform's native styles ignore parts of a palette
        app.setStyleSheet("\n".join(scoped_style_sheet(t) for t in THEMES.values()))
        self._connect_signals()
        self._apply()

    def _connect_signals(self) -> None:
        hints = QGuiApplication.styleHints()
        if hints is not None:
            hints.colorSchemeChanged.connect(self._on_color_scheme_changed)
        self._polish_timer.timeout.connect(self._on_polish_due)

    @property
    def preference(self) -> str:
        """"system", "light" or "dark"."""
        return self._preference

    @property
    def theme(self) -> Theme:
        return _current

    def set_preference(self, preference: str) -> None:
        """Follow the system ("system") or force "light"/"dark"; applies at once."""
        self._preference = preference if preference in (SYSTEM, *THEMES) else SYSTEM
        self._apply()

    def _on_color_scheme_changed(self, scheme: Qt.ColorScheme) -> None:
        if self._preference == SYSTEM:
            self._apply()

    def _wanted(self) -> Theme:
        name = system_theme_name() if self._preference == SYSTEM else self._preference
        return THEMES.get(name, LIGHT)

    def _apply(self) -> None:
        global _current
        theme = self._wanted()
        if theme.name == self._applied:
            return
        _current = theme
        self._applied = theme.name
        self._app.setPalette(theme.palette())
        windows = [w for w in self._app.topLevelWidgets() if w.property(THEME_PROPERTY) is not None]
        for window in windows:
            mark_window(window)
        # Re-polish: the rules of the other theme stop matching, and colours
        # taken from the palette are read again.
        self._pending = [w for window in windows for w in (window, *window.findChildren(QWidget))]
        log.info("theme: %s (preference %s), %d widgets to re-polish", theme.name, self._preference,
                 len(self._pending))
        self.theme_changed.emit(theme)
        if self._pending:
            self._polish_timer.start()
        else:
            self.style_sheet_applied.emit(theme)

    def _on_polish_due(self) -> None:
        chunk, self._pending = self._pending[:POLISH_CHUNK], self._pending[POLISH_CHUNK:]
        for widget in chunk:
            if sip.isdeleted(widget):
                continue
            style = widget.style()
            if style is not None:
                style.unpolish(widget)
                style.polish(widget)
            widget.update()
        if not self._pending:
            self._polish_timer.stop()
            self.style_sheet_applied.emit(_current)


def theme_manager(preference: str | None = None) -> ThemeManager:
    """The application's ThemeManager, made (and applied) on first use; a
    ``preference`` given later is applied too."""
    app = QApplication.instance()
    assert isinstance(app, QApplication), "theme_manager() needs a QApplication"
    manager = app.findChild(ThemeManager)
    if manager is None:
        manager = ThemeManager(app, preference or SYSTEM)
    elif preference is not None and preference != manager.preference:
        manager.set_preference(preference)
    return manager
