"""ChatViewProbe reads back what the view shows."""

from __future__ import annotations

from app.core.conversation.model import Message
from app.ui.conversation.probe import ChatViewProbe


def test_the_probe_reads_texts_footers_and_documents(qtbot, view) -> None:
    msgs = [Message("user", "hello **there**"), Message("assistant", "A [link](https://example.com/) here.\n\n```\ncode\n```")]
    with qtbot.waitSignal(view.viewport_ready, timeout=10000):
        view.add_messages(msgs)
    probe = view.probe
    assert isinstance(probe, ChatViewProbe) and view.probe is probe
    assert "hello **there**" in probe.message_text(msgs[0].id)
    assert probe.message_links(msgs[1].id) == ["https://example.com/"]
    assert "Copy" in probe.footer_texts(msgs[1].id)
    assert probe.documents(msgs[1].id, "code") and probe.holds_documents(msgs[1].id)
    assert probe.code_copy_point(msgs[1].id) is not None
    assert probe.find_state() == ("", None)
    probe.select(msgs[0].id, 0, 5)
    assert view.selected_text() == "hello"
