"""HitTester: one pass finds the row, the point in it and what is clickable there."""

from __future__ import annotations

from app.core.conversation.model import Message
from app.ui.conversation.hittest import Hit


def test_one_hit_finds_links_actions_and_copy_buttons(qtbot, view) -> None:
    msg = Message("assistant", "Read [the docs](https://example.com/) first.\n\n```\ncode\n```")
    with qtbot.waitSignal(view.viewport_ready, timeout=10000):
        view.add_messages([msg])
    probe = view.probe
    link = view.probe.point_of_text(msg.id, "the docs")
    hit = probe.hit_at(link)
    assert isinstance(hit, Hit) and hit.href == "https://example.com/" and hit.clickable
    copy = probe.hit_at(probe.code_copy_point(msg.id))
    assert copy is not None and copy.code == "code"
    action = probe.hit_at(probe.footer_action_point(msg.id, "copy"))
    assert action is not None and action.action == "copy"
    plain = probe.hit_at(probe.point_of_text(msg.id, "first"))
    assert plain is not None and not plain.clickable and plain.pos() is not None
