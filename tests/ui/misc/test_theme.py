"""Themes: WCAG AA contrast computed from the applied palette, the filled
style sheet and the code highlighting; following the desktop's scheme live;
the override."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from pygments.styles import get_style_by_name
from pygments.token import Whitespace
from PyQt6.QtCore import QEvent, Qt
from PyQt6.QtGui import QColor, QGuiApplication, QPalette
from PyQt6.QtWidgets import QApplication

from app.ui.misc import theme as theme_mod
from app.ui.misc.theme import DARK, LIGHT, THEMES, Theme, theme_manager

AA = 4.5
Role = QPalette.ColorRole


def luminance(color: QColor) -> float:
    def channel(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    return 0.2126 * channel(color.redF()) + 0.7152 * channel(color.greenF()) + 0.0722 * channel(color.blueF())


def contrast(fg: QColor | str, bg: QColor | str) -> float:
    a, b = luminance(QColor(fg)), luminance(QColor(bg))
    return (max(a, b) + 0.05) / (min(a, b) + 0.05)


def test_contrast_formula_matches_wcag_examples() -> None:
    assert contrast("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)  # the classic near miss
    assert contrast("#ffffff", "#ffffff") == pytest.approx(1.0)


@pytest.fixture
def applied(qapp: QApplication, qtbot) -> Iterator[callable]:
    """Apply a theme by name to the application (its palette and, a turn of
    the event loop later, its style sheet); light again afterwards."""
    manager = theme_manager()

    def apply(name: str) -> Theme:
        if theme_mod.current().name != name:
            with qtbot.waitSignal(manager.style_sheet_applied, timeout=2000):
                manager.set_preference(name)
        assert theme_mod.current().name == name
        return theme_mod.current()

    yield apply
    manager.set_preference("light")


# (foreground role, background role) pairs the widgets draw text with.
PALETTE_PAIRS = [
    (Role.Text, Role.Base),
    (Role.WindowText, Role.Window),
    (Role.ButtonText, Role.Button),
    (Role.HighlightedText, Role.Highlight),
    (Role.PlaceholderText, Role.Base),  # also the folded thoughts' colour
    (Role.PlaceholderText, Role.Window),
    (Role.Link, Role.Base),
    (Role.ToolTipText, Role.ToolTipBase),
    (Role.Text, Role.AlternateBase),
]


@pytest.mark.parametrize("name", sorted(THEMES))
def test_palette_text_passes_aa(applied, name: str) -> None:
    applied(name)
    palette = QApplication.palette()
    for fg, bg in PALETTE_PAIRS:
        ratio = contrast(palette.color(fg), palette.color(bg))
        assert ratio >= AA, f"{name}: {fg.name} on {bg.name} is {ratio:.2f}:1"


_RULE = theme_mod._RULE  # (the parser the theme scopes its rules with)
_DECL = re.compile(r"(?:^|;)\s*(color|background|background-color)\s*:\s*([^;]+)")


def style_sheet_pairs(sheet: str, palette: QPalette, name: str) -> list[tuple[str, str, str]]:
    """(selector, text colour, background) of every rule of theme ``name`` in
    the applied style sheet that sets a text colour; a rule without a
    background is checked against the palette's Base and Window (where such
    widgets sit)."""
    pairs = []
    scope = f'*[{theme_mod.THEME_PROPERTY}="{name}"] '
    for selector, body in _RULE.findall(re.sub(r"/\*.*?\*/", "", sheet, flags=re.S)):
        if scope not in selector:
            continue
        selector = selector.replace(scope, "")
        decls = {k: v.strip() for k, v in _DECL.findall(body)}
        fg = decls.get("color")
        if fg is None or ":disabled" in selector:
            continue  # WCAG exempts disabled controls
        bg = decls.get("background") or decls.get("background-color")
        backgrounds = [bg] if bg else [palette.color(Role.Base).name(), palette.color(Role.Window).name()]
        pairs += [(selector.strip(), fg, b) for b in backgrounds]
    return pairs


@pytest.mark.parametrize("name", sorted(THEMES))
def test_style_sheet_text_passes_aa(applied, name: str) -> None:
    applied(name)
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    sheet = app.styleSheet()
    assert "$" not in re.sub(r"/\*.*?\*/", "", sheet, flags=re.S), "a colour name in style.qss is missing from the theme"
    pairs = style_sheet_pairs(sheet, QApplication.palette(), name)
    assert len(pairs) >= 12  # the parser found the rules
    for selector, fg, bg in pairs:
        assert QColor(fg).isValid() and QColor(bg).isValid(), (selector, fg, bg)
        ratio = contrast(fg, bg)
        assert ratio >= AA, f"{name}: {selector} {fg} on {bg} is {ratio:.2f}:1"


def test_a_window_and_its_dialogs_switch_theme(qtbot, applied) -> None:
    from PyQt6.QtWidgets import QDialog, QLabel, QMainWindow, QVBoxLayout

    window = QMainWindow()
    qtbot.addWidget(window)
    theme_mod.mark_window(window)
    dialog = QDialog(window)
    label = QLabel("note", dialog)
    QVBoxLayout(dialog).addWidget(label)
    theme_mod.set_tone(label, "error")
    window.show()
    dialog.show()
    qtbot.waitExposed(dialog)

    def text_colour() -> str:
        label.ensurePolished()
        return label.palette().color(label.foregroundRole()).name()

    applied("light")
    assert text_colour() == LIGHT.colors["danger"]
    applied("dark")
    assert window.property(theme_mod.THEME_PROPERTY) == "dark"
    assert text_colour() == DARK.colors["danger"]
    dialog.close()


@pytest.mark.parametrize("theme", [LIGHT, DARK], ids=["light", "dark"])
def test_conversation_colours_pass_aa(theme: Theme) -> None:
    c = theme.colors
    pairs = {
        "user label": (c["user"], c["user_bg"]),
        "assistant label": (c["assistant"], c["base"]),
        "user message": (c["text"], c["user_bg"]),
        "footer and thoughts": (c["muted"], c["base"]),
        "footer on a user message": (c["muted"], c["user_bg"]),
        "actions": (c["action"], c["base"]),
        "actions on a user message": (c["action"], c["user_bg"]),
        "error notice": (c["error"], c["base"]),
        "warning notice": (c["warning"], c["base"]),
        "info notice": (c["info"], c["base"]),
        "find match": (c["text"], c["find"]),
        "current find match": (c["text"], c["find_current"]),
        "search match": (c["text"], c["match_bg"]),
        "selected text": (c["text"], c["selection_bg"]),
        "code": (c["text"], c["code_bg"]),
        "copy button": (c["muted"], c["copy_bg"]),
        "action icon": (c["muted"], c["base"]),
        "action icon on a user message": (c["muted"], c["user_bg"]),
        "action icon under the pointer": (c["text"], c["midlight"]),
        "prompt progress and typing dots": (c["muted"], c["base"]),
        "queued message": (c["muted"], c["alt_base"]),
        "send icon": (c["send_text"], c["send_bg"]),
        "stop icon": (c["stop_text"], c["base"]),
        "model manager error": (c["error"], c["base"]),
        "model manager warning": (c["warning"], c["base"]),
    }
    for what, (fg, bg) in pairs.items():
        ratio = contrast(fg, bg)
        assert ratio >= AA, f"{theme.name}: {what} {fg} on {bg} is {ratio:.2f}:1"


@pytest.mark.parametrize("theme", [LIGHT, DARK], ids=["light", "dark"])
def test_shapes_that_carry_meaning_stand_out_3_to_1(theme: Theme) -> None:
    """WCAG 1.4.11 (non-text contrast): the prompt progress bar's fill
    against its track and the page, the focused composer's border, the
    scroll bars' handle on the page and the window."""
    c = theme.colors
    for what, (fg, bg) in {"progress fill on its track": (c["focus"], c["mid"]),
                           "scroll handle on the page": (c["scroll_handle"], c["base"]),
                           "scroll handle on the window": (c["scroll_handle"], c["window"]),
                           "progress fill on the page": (c["focus"], c["base"]),
                           "focused composer border": (c["focus"], c["base"])}.items():
        ratio = contrast(fg, bg)
        assert ratio >= 3.0, f"{theme.name}: {what} {fg} on {bg} is {ratio:.2f}:1"


@pytest.mark.parametrize("theme", [LIGHT, DARK], ids=["light", "dark"])
def test_code_highlighting_passes_aa(theme: Theme) -> None:
    """Every token colour of the theme's Pygments style on the code background
    (whitespace tokens draw no glyph)."""
    style = get_style_by_name(theme.pygments_style)
    bg = theme.colors["code_bg"]
    checked = 0
    for token, spec in style:
        if spec["color"] and not spec["bgcolor"] and token not in Whitespace:
            ratio = contrast("#" + spec["color"], bg)
            assert ratio >= AA, f"{theme.name}: {token} #{spec['color']} on {bg} is {ratio:.2f}:1"
            checked += 1
    assert checked > 20
    css = theme.code_css()
    assert f"background-color: {bg}" in css and ".k {" in css


def test_every_palette_colour_name_exists() -> None:
    for theme in THEMES.values():
        for name in theme_mod.PALETTE_ROLES.values():
            assert QColor(theme.colors[name]).isValid(), (theme.name, name)
        assert set(theme.colors) == set(LIGHT.colors), theme.name


def test_follows_the_desktop_scheme_live(applied, monkeypatch: pytest.MonkeyPatch, qtbot) -> None:
    manager = theme_manager()
    applied("light")
    manager.set_preference("system")
    scheme = {"now": Qt.ColorScheme.Light}
    monkeypatch.setattr(theme_mod, "system_theme_name", lambda: "dark" if scheme["now"] == Qt.ColorScheme.Dark else "light")
    hints = QGuiApplication.styleHints()
    assert hints is not None
    scheme["now"] = Qt.ColorScheme.Dark
    with qtbot.waitSignal(manager.theme_changed, timeout=2000) as blocker:
        hints.colorSchemeChanged.emit(Qt.ColorScheme.Dark)
    assert blocker.args == [DARK]
    assert QApplication.palette().color(Role.Base) == QColor(DARK.colors["base"])
    # An override wins over the desktop; back to "system" follows it again.
    manager.set_preference("light")
    assert theme_mod.current() is LIGHT
    hints.colorSchemeChanged.emit(Qt.ColorScheme.Dark)
    assert theme_mod.current() is LIGHT
    manager.set_preference("system")
    assert theme_mod.current() is DARK


def test_unknown_scheme_means_light(qapp: QApplication) -> None:
    hints = QGuiApplication.styleHints()
    assert hints is not None
    if hints.colorScheme() == Qt.ColorScheme.Dark:
        pytest.skip("this desktop asks for dark")
    assert theme_mod.system_theme_name() == "light"


def test_scroll_bars_are_drawn_by_the_style_sheet(qtbot, applied) -> None:
    """The style sheet draws a slim scroll bar with the theme's handle and no
    arrow buttons (Fusion's own costs ~1.2 ms a paint, and the conversation's
    is painted at every tick while a reply grows)."""
    from PyQt6.QtWidgets import QMainWindow, QScrollBar

    window = QMainWindow()
    qtbot.addWidget(window)
    theme_mod.mark_window(window)
    bar = QScrollBar(Qt.Orientation.Vertical)
    window.setCentralWidget(bar)
    bar.setRange(0, 1000)
    window.resize(200, 400)
    window.show()
    qtbot.waitExposed(window)
    for name in ("light", "dark"):
        theme = applied(name)
        bar.ensurePolished()
        bar.setAttribute(Qt.WidgetAttribute.WA_UnderMouse, False)  # the handle not hovered
        QApplication.sendEvent(bar, QEvent(QEvent.Type.Leave))
        assert bar.sizeHint().width() == 12
        image = bar.grab().toImage()
        handle_y = 2 + 16  # inside the handle (at the top: value 0), clear of its rounded ends
        assert image.pixelColor(6, handle_y).name() == theme.colors["scroll_handle"]
        assert image.pixelColor(6, image.height() - 20).name() != theme.colors["scroll_handle"]  # the clear track
