"""The composer card: one Send button that becomes Stop while a reply runs
(Esc still stops), the model picker, and the slots other features fill (the
attach button, the attachments' tray)."""

from __future__ import annotations

from PyQt6.QtCore import Qt
from PyQt6.QtWidgets import QLabel, QMenu, QToolButton

from app.core.backends.scripted import ScriptedBackend
from app.ui.conversation.prompt import PromptArea
from app.ui.window.composer import ComposerCard


def test_send_becomes_stop_while_a_reply_runs_and_esc_still_stops(qtbot, make_window) -> None:
    window = make_window(lambda: ScriptedBackend.from_text("slow " * 400, rate=40))
    assert window.send_button.isVisible() and not window.stop_button.isVisible()
    window.prompt.setPlainText("go")
    with qtbot.waitSignal(window.chat.prompt_processed, timeout=10000):
        qtbot.mouseClick(window.send_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.stop_button.isVisible(), timeout=5000)
    assert not window.send_button.isVisible(), "one button in one place"
    assert window.chat_area.composer.running
    window.prompt.setFocus()
    with qtbot.waitSignal(window.chat.reply_settled, timeout=10000):
        qtbot.keyClick(window.prompt, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: window.send_button.isVisible(), timeout=5000)
    assert not window.stop_button.isVisible()


def test_the_stop_button_stops(qtbot, make_window) -> None:
    window = make_window(lambda: ScriptedBackend.from_text("slow " * 400, rate=40))
    window.prompt.setPlainText("go")
    with qtbot.waitSignal(window.chat.prompt_processed, timeout=10000):
        qtbot.keyClick(window.prompt, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: window.stop_button.isVisible(), timeout=5000)
    with qtbot.waitSignal(window.chat.reply_settled, timeout=10000):
        qtbot.mouseClick(window.stop_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.send_button.isVisible(), timeout=5000)


def test_the_slots_take_other_features_widgets_and_the_picker_opens_its_menu(qtbot) -> None:
    area = PromptArea()
    card = ComposerCard(area)
    qtbot.addWidget(card)
    attach = QToolButton()
    attach.setAccessibleName("Attach")
    card.add_leading_widget(attach)
    tray, other = QLabel("chips"), QLabel("more chips")
    card.set_tray(tray)
    card.set_tray(other)
    assert tray.parent() is None, "replaced"
    menu = QMenu(card)
    card.set_model_menu(menu)
    card.set_model_name("a-very-long-model-name-" * 8 + ".gguf")
    card.resize(700, 200)
    card.show()
    qtbot.waitExposed(card)
    assert attach.geometry().right() < card.model_button.geometry().left()
    assert other.geometry().bottom() < area.geometry().top(), "the tray above the text"
    assert card.model_button.menu() is menu
    assert "…" in card.model_button.text() and card.model_button.accessibleName().startswith("Model: a-very")
    card.set_tray(None)
    assert other.parent() is None
    card.set_running(True)
    assert card.stop_button.isVisibleTo(card) and not card.send_button.isVisibleTo(card)


def test_the_card_lights_its_border_with_the_text_box_focus(qtbot) -> None:
    area = PromptArea()
    card = ComposerCard(area)
    qtbot.addWidget(card)
    card.show()
    qtbot.waitExposed(card)
    area.editor.setFocus()
    qtbot.waitUntil(lambda: card.property("focused") is True, timeout=2000)
    area.editor.clearFocus()
    qtbot.waitUntil(lambda: card.property("focused") is False, timeout=2000)


def test_the_icons_follow_the_theme(qtbot) -> None:
    from app.ui.misc import theme

    manager = theme.theme_manager()
    area = PromptArea()
    card = ComposerCard(area)
    qtbot.addWidget(card)

    def inked() -> str:
        """The icon's ink: the colour of its most opaque pixel."""
        image = card.model_button.icon().pixmap(28, 28).toImage()
        pixels = [image.pixelColor(x, y) for x in range(image.width()) for y in range(image.height())]
        return max(pixels, key=lambda c: c.alpha()).name()

    try:
        with qtbot.waitSignal(manager.style_sheet_applied, timeout=2000):
            manager.set_preference("dark" if theme.current().name == "light" else "light")
        qtbot.waitUntil(lambda: inked() == theme.current().colors["muted"], timeout=2000)
    finally:
        manager.set_preference("light")
    qtbot.waitUntil(lambda: inked() == theme.LIGHT.colors["muted"], timeout=2000)
