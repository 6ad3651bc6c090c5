"""ChatArea: the window's chat column, top to bottom: the first-run panel
(hidden until there is no model), the conversation, the find bar, and the
composer card (the message box, the model picker, one Send button that
becomes Stop)."""

from __future__ import annotations

from typing import Any

from app.ui.conversation.find_bar import FindBar
from app.ui.conversation.view import ChatView
from app.ui.window.chat_area import ChatArea


def test_the_column_is_laid_out_top_to_bottom(qtbot: Any) -> None:
    view = ChatView()
    find_bar = FindBar(lambda: [])
    area = ChatArea(view, find_bar)
    qtbot.addWidget(area)
    try:
        area.resize(700, 600)
        area.show()
        qtbot.waitExposed(area)
        assert not area.first_run.isVisible()
        assert view.parent() is area and find_bar.parent() is area
        assert view.geometry().bottom() < find_bar.geometry().top() < area.composer.geometry().top()
        assert area.prompt_area.parent() is area.composer and area.send_button.parent() is area.composer
        send = area.send_button.geometry()
        assert area.prompt_area.geometry().bottom() < send.top(), "Send under the text, in the card"
        assert area.send_button.isVisible() and not area.stop_button.isVisible(), "one button: Send"
        assert area.send_button.accessibleName() == "Send" and area.stop_button.accessibleName() == "Stop"
        assert not area.send_button.icon().isNull()
        model = area.composer.model_button.geometry()
        assert model.right() < send.left() and area.composer.model_button.text().startswith("No model")
        assert area.prompt_area.editor.placeholderText().startswith("Message Rill…")
        area.first_run.show()
        qtbot.waitUntil(lambda: area.first_run.geometry().bottom() < view.geometry().top(), timeout=1000)
    finally:
        view.shutdown()  # its render thread, before the area (its parent) is deleted


def test_the_window_uses_its_widgets(qtbot: Any, make_window: Any) -> None:
    from app.core.backends.scripted import ScriptedBackend

    window = make_window(lambda: ScriptedBackend(rate=2000))
    area = window.chat_area
    assert isinstance(area, ChatArea)
    assert (window.send_button, window.stop_button, window.prompt_area, window.first_run) == (
        area.send_button, area.stop_button, area.prompt_area, area.first_run,
    )
    assert area.view is window.view and area.find_bar is window.find_bar
    info = window.chat.model_info
    assert info is not None and area.composer.model_button.text().startswith(info.name), "the model answering, named"
    assert area.composer.model_button.menu() is window.model_menu
