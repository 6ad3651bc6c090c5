"""Zoom, the theme menu and Settings › Appearance, the shortcut table, keyboard
navigation, accessible names and the streaming announcements."""

from __future__ import annotations

import pytest
from PyQt6.QtCore import QLocale, Qt
from PyQt6.QtGui import QAction, QKeySequence, QShortcut
from PyQt6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QTextEdit,
    QWidget,
)

from app.core.backends.scripted import ScriptedBackend
from app.core.config.appearance import Appearance, load_appearance, save_appearance
from app.ui.misc import shortcuts, theme
from app.ui.misc.i18n import resolve_language
from app.ui.misc.shortcuts import SHORTCUT_PROPERTY, SHORTCUTS, ShortcutsDialog

CODE_REPLY = "Here:\n\n```python\ndef f(x):\n    return x + 1\n```\n\nDone.\n"


@pytest.fixture
def window(qtbot, make_window):
    w = make_window(lambda: ScriptedBackend.from_text(CODE_REPLY, rate=5000))
    yield w
    theme.theme_manager().set_preference("light")


def send(qtbot, window, text: str = "hi") -> None:
    window.prompt.setPlainText(text)
    with qtbot.waitSignal(window.chat.reply_settled, timeout=20000):
        qtbot.keyClick(window.prompt, Qt.Key.Key_Return)


# ------------------------------------------------------------------ zoom


def test_zoom_keys_change_the_text_size_and_are_remembered(qtbot, window) -> None:
    send(qtbot, window)
    mid = window.view.message_ids()[-1]
    before = window.view.total_height()
    base_px = window.view.probe.text_pixel_size()
    window.appearance.zoom_in_action.trigger()
    window.appearance.zoom_in_action.trigger()
    assert window.view.zoom == pytest.approx(1.2)
    assert window.view.probe.text_pixel_size() == round(base_px * 1.2)
    qtbot.waitUntil(lambda: window.view.total_height() > before * 1.1, timeout=5000)
    assert load_appearance().zoom == 2
    window.appearance.zoom_reset_action.trigger()
    assert window.view.zoom == 1.0 and load_appearance().zoom == 0
    qtbot.waitUntil(lambda: window.view.total_height() == pytest.approx(before, rel=0.02), timeout=5000)
    assert "def f(x)" in window.view.probe.message_text(mid)


def test_zoom_stops_at_its_limits(qtbot, window) -> None:
    for _ in range(20):
        window.appearance.zoom_out_action.trigger()
    assert not window.appearance.zoom_out_action.isEnabled()
    assert window.view.zoom == pytest.approx(0.6)
    assert window.view.probe.text_pixel_size() >= 8


def test_a_saved_zoom_applies_to_a_new_window(qtbot, make_window) -> None:
    save_appearance(Appearance(zoom=3))
    w = make_window(lambda: ScriptedBackend(rate=5000))
    assert w.view.zoom == pytest.approx(1.3)


# ------------------------------------------------------------------ theme


def code_background(window) -> str:
    view = window.view
    for message_id in view.message_ids():
        for doc in view.probe.documents(message_id, "code"):
            return doc.firstBlock().blockFormat().background().color().name()
    return ""


def test_theme_menu_switches_everything_live(qtbot, window) -> None:
    send(qtbot, window)
    qtbot.waitUntil(lambda: code_background(window) == theme.LIGHT.colors["code_bg"], timeout=5000)
    manager = theme.theme_manager()
    with qtbot.waitSignal(manager.theme_changed, timeout=2000):
        window.appearance.theme_actions["dark"].trigger()
    assert QApplication.palette().color(QApplication.palette().ColorRole.Base).name() == theme.DARK.colors["base"]
    # (the code block is rendered again in work slices: generous timeouts for a loaded machine)
    qtbot.waitUntil(lambda: code_background(window) == theme.DARK.colors["code_bg"], timeout=15000)
    assert load_appearance().theme == "dark"
    assert window.appearance.theme_actions["dark"].isChecked()
    with qtbot.waitSignal(manager.theme_changed, timeout=5000):
        window.appearance.theme_actions["system"].trigger()
    qtbot.waitUntil(lambda: code_background(window) == theme.LIGHT.colors["code_bg"], timeout=15000)


def test_settings_sets_theme_and_language(qtbot, window) -> None:
    window.menus.settings_action.trigger()
    dialog = window.settings_dialog
    qtbot.waitUntil(dialog.isVisible, timeout=2000)
    dialog.theme.setCurrentIndex(dialog.theme.findData("dark"))
    assert not dialog.language_note.isVisible()
    dialog.language.setCurrentIndex(dialog.language.findData("zh_CN"))
    assert dialog.language_note.isVisible()  # applies at the next start
    assert dialog.apply()
    assert theme.current() is theme.DARK
    saved = load_appearance()
    assert (saved.theme, saved.language) == ("dark", "zh_CN")
    dialog.reject()


def test_settings_sets_the_reading_width_and_the_view_keeps_its_text_in_that_column(qtbot, window) -> None:
    send(qtbot, window)
    window.resize(1600, 800)
    qtbot.waitUntil(lambda: window.view.viewport().width() > 1100, timeout=5000)
    metrics = window.view._metrics
    assert window.view.column_chars == 75
    narrow = metrics.content_width()
    assert narrow < window.view.viewport().width() - 300, "a wide window keeps the text in a column"
    assert metrics.text_x() == pytest.approx((window.view.viewport().width() - narrow) // 2), "centred"
    window.menus.settings_action.trigger()
    dialog = window.settings_dialog
    qtbot.waitUntil(dialog.isVisible, timeout=2000)
    dialog.column.setValue(dialog.column.minimum())  # "The whole window"
    assert dialog.apply()
    assert window.view.column_chars == 0 and load_appearance().column == 0
    assert metrics.content_width() > narrow + 300
    mid = window.view.message_ids()[-1]
    qtbot.waitUntil(lambda: window.view.probe.laid_out_at_width(mid), timeout=5000)
    dialog.column.setValue(100)
    assert dialog.apply()
    assert load_appearance().column == 100
    assert metrics.content_width() == pytest.approx(round(100 * 7.5))
    dialog.reject()


@pytest.mark.parametrize(
    ("locale", "expected"),
    [("zh_CN", "zh_CN"), ("zh_SG", "zh_CN"), ("zh_Hans_HK", "zh_CN"), ("zh_TW", "en"), ("en_US", "en"), ("fr_FR", "en")],
)
def test_the_language_follows_the_system(locale: str, expected: str) -> None:
    assert resolve_language("system", QLocale(locale)) == expected
    assert resolve_language("en", QLocale("zh_CN")) == "en"  # the override wins


# ------------------------------------------------------------------ keys


WIDGET_KEYS = {"send", "newline", "top", "bottom"}  # handled in keyPressEvent of the prompt / the view


def bound(window) -> dict[str, list[object]]:
    out: dict[str, list[object]] = {}
    for obj in window.findChildren(QAction) + window.findChildren(QShortcut):
        sid = obj.property(SHORTCUT_PROPERTY)
        if sid:
            out.setdefault(sid, []).append(obj)
    return out


def test_every_shortcut_comes_from_the_table(window) -> None:
    by_id = bound(window)
    missing = {s.id for s in SHORTCUTS} - WIDGET_KEYS - set(by_id)
    assert not missing, f"in the table but bound to nothing: {missing}"
    seen: dict[str, str] = {}
    for obj in window.findChildren(QAction) + window.findChildren(QShortcut):
        keys = obj.shortcuts() if isinstance(obj, QAction) else obj.keys()
        keys = [k for k in keys if not k.isEmpty()]
        if not keys:
            continue
        sid = obj.property(SHORTCUT_PROPERTY)
        name = obj.text() if isinstance(obj, QAction) else obj.objectName()
        assert sid, f"{name!r} has keys {[k.toString() for k in keys]} that are not in the shortcut table"
        assert keys == shortcuts.sequences(sid)
        for k in keys:
            other = seen.setdefault(k.toString(), sid)
            assert other == sid, f"{k.toString()} is both {other} and {sid}"


def test_help_lists_the_table(qtbot, window) -> None:
    window.navigation.shortcuts_action.trigger()
    dialog = window.findChild(ShortcutsDialog)
    assert dialog is not None and dialog.isVisible()
    rows = dialog.rows()
    assert len(rows) == len(SHORTCUTS)
    texts = dict(rows)
    assert texts["New chat"] == QKeySequence(QKeySequence.StandardKey.New).toString(QKeySequence.SequenceFormat.NativeText)
    assert texts["Larger text"].startswith("Ctrl+=")
    assert texts["Keyboard shortcuts"] == "Ctrl+/"
    dialog.close()


def test_keyboard_moves_between_conversations_and_the_message_box(qtbot, window) -> None:
    send(qtbot, window, "first")
    first = window.chat.conversation
    window.menus.new_chat_action.trigger()
    send(qtbot, window, "second")
    second = window.chat.conversation
    assert first is not second
    qtbot.waitUntil(lambda: window.sidebar.model.rowCount() == 2, timeout=5000)
    window.sidebar.select(second.id)
    window.navigation.focus_list_action.trigger()
    qtbot.waitUntil(lambda: window.sidebar.list.hasFocus(), timeout=2000)
    window.navigation.next_chat_action.trigger()
    qtbot.waitUntil(lambda: window.chat.conversation.id == first.id, timeout=5000)
    window.navigation.previous_chat_action.trigger()
    qtbot.waitUntil(lambda: window.chat.conversation.id == second.id, timeout=5000)
    window.navigation.focus_prompt_action.trigger()
    qtbot.waitUntil(lambda: window.prompt.hasFocus(), timeout=2000)


def test_the_menu_key_reaches_a_messages_actions(qtbot, window) -> None:
    from PyQt6.QtCore import QPointF

    send(qtbot, window)
    menu = window.view.make_context_menu(QPointF(5, 5), keyboard=True)
    texts = [a.text() for a in menu.actions() if a.text()]
    assert "Copy Message" in texts and "Regenerate" in texts
    regenerate = next(a for a in menu.actions() if a.text() == "Regenerate")
    with qtbot.waitSignal(window.chat.reply_settled, timeout=20000):
        regenerate.trigger()
    menu.deleteLater()


def test_tab_order_runs_list_view_prompt_send(window) -> None:
    assert window.sidebar.list.nextInFocusChain() is not None
    chain = []
    w: QWidget = window.sidebar.new_button
    for _ in range(40):
        w = w.nextInFocusChain()
        if w in (window.sidebar.list, window.view, window.prompt, window.send_button, window.stop_button):
            if not chain or chain[-1] is not w:
                chain.append(w)
        if w is window.stop_button:
            break
    assert chain == [window.sidebar.list, window.view, window.prompt, window.send_button, window.stop_button]


# ------------------------------------------------------------------ accessibility


CONTROLS = (QAbstractButton, QLineEdit, QPlainTextEdit, QTextEdit, QComboBox, QAbstractSpinBox, QAbstractItemView)


def accessible_name(widget: QWidget, root: QWidget) -> str:
    """What Qt gives assistive technology as the control's name: its
    accessible name, a button's text, or the text of the label it is the
    buddy of."""
    if widget.accessibleName():
        return widget.accessibleName()
    if isinstance(widget, QAbstractButton) and widget.text().replace("&", "").strip():
        return widget.text()
    for label in root.findChildren(QLabel):
        if label.buddy() is widget and label.text():
            return label.text()
    return ""


def unnamed_controls(root: QWidget) -> list[str]:
    out = []
    for w in root.findChildren(QWidget):
        if not isinstance(w, CONTROLS) or not w.isVisibleTo(root) or w.focusPolicy() == Qt.FocusPolicy.NoFocus:
            continue
        if isinstance(w.parent(), (QComboBox, QAbstractSpinBox)):  # a combo's own line edit, a spin's
            continue
        if not accessible_name(w, root):
            out.append(f"{type(w).__name__} {w.objectName()!r}")
    return out


def test_every_control_of_the_window_has_a_name(window) -> None:
    assert not unnamed_controls(window)
    for w in (window.prompt, window.view, window.sidebar.list, window.send_button, window.stop_button):
        assert w.accessibleDescription() or w.toolTip(), type(w).__name__


DIALOG_ACTIONS = {
    "settings": lambda w: w.menus.settings_action,
    "conversation settings": lambda w: w.menus.conversation_settings_action,
    "servers": lambda w: w.menus.servers_action,
    "models": lambda w: w.model_menu.manage_action,
    "shortcuts": lambda w: w.navigation.shortcuts_action,
    "search": lambda w: w.menus.search_action,
}


@pytest.mark.parametrize("name", sorted(DIALOG_ACTIONS))
def test_every_control_of_the_dialogs_has_a_name(qtbot, window, name) -> None:
    before = set(QApplication.topLevelWidgets())
    DIALOG_ACTIONS[name](window).trigger()
    if name == "search":
        qtbot.waitUntil(window.search_dialog.isVisible, timeout=5000)
        dialogs = [window.search_dialog]
    else:
        qtbot.waitUntil(lambda: any(w.isVisible() for w in set(QApplication.topLevelWidgets()) - before), timeout=5000)
        dialogs = [w for w in set(QApplication.topLevelWidgets()) - before if w.isVisible()]
    for dialog in dialogs:
        assert not unnamed_controls(dialog), dialog.windowTitle()
        dialog.close()


def test_streaming_is_announced_a_few_times_not_per_token(qtbot, make_window) -> None:
    window = make_window(lambda: ScriptedBackend.from_text("word " * 400, rate=4000))
    said: list[str] = []
    window.announcer.announced.connect(said.append)
    send(qtbot, window)
    assert said[0] == "Rill is writing a reply."
    assert said[-1].startswith("Reply finished:")
    assert len(said) <= 3  # (one "still writing" at most, at this speed)
    assert window.state_label.accessibleName() == said[-1]


def test_stop_announces_and_keeps_the_focus(qtbot, make_window) -> None:
    window = make_window(lambda: ScriptedBackend.from_text("slow " * 400, rate=50))
    said: list[str] = []
    window.announcer.announced.connect(said.append)
    window.prompt.setPlainText("go")
    with qtbot.waitSignal(window.chat.prompt_processed, timeout=10000):
        qtbot.keyClick(window.prompt, Qt.Key.Key_Return)
    window.stop_button.setFocus()
    with qtbot.waitSignal(window.chat.reply_settled, timeout=10000):
        qtbot.mouseClick(window.stop_button, Qt.MouseButton.LeftButton)
    assert "Reply stopped. What was written is kept." in said
    assert window.prompt.hasFocus() or QApplication.focusWidget() is window.prompt


def test_zoom_actions_change_and_announce_the_appearance(qtbot, make_window) -> None:
    from app.core.backends.scripted import ScriptedBackend
    from app.ui.window.appearance_menu import AppearanceControls

    window = make_window(lambda: ScriptedBackend(rate=2000))
    controls = window.appearance
    assert isinstance(controls, AppearanceControls)
    start = controls.appearance.zoom
    with qtbot.waitSignal(controls.appearance_changed, timeout=2000) as blocker:
        controls.zoom_in_action.trigger()
    assert blocker.args[0].zoom == start + 1 == controls.appearance.zoom
    controls.zoom_reset_action.trigger()
    assert controls.appearance.zoom == 0
    controls.apply(controls.appearance)  # no change: nothing emitted, nothing saved
