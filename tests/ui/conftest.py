"""Fixtures shared by the view tests."""

from __future__ import annotations

import pytest


@pytest.fixture
def view(qtbot):
    """A shown 700x500 ChatView, shut down (render thread joined) at teardown."""
    from app.ui.conversation.view import ChatView

    v = ChatView()
    v.resize(700, 500)
    qtbot.addWidget(v)
    v.show()
    yield v
    v.shutdown()
