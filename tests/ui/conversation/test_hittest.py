"""HitTester: one pass finds the row, the point in it and what is clickable there."""

from __future__ import annotations

from app.core.conversation.model import Message
from app.ui.conversation.hittest import HitTester


def test_one_hit_finds_links_actions_and_copy_buttons(qtbot, view) -> None:  # type: ignore[no-untyped-def]
    msg = Message("assistant", "Read [the docs](https://example.com/) first.\n\n```\ncode\n```")
    with qtbot.waitSignal(view.viewport_ready, timeout=10000):
        view.add_messages([msg])
    tester = view._hits  # noqa: SLF001 - the view's own tester, exercised directly
    assert isinstance(tester, HitTester)
    scroll, width = view.verticalScrollBar().value(), view.viewport().width()
    link = view.probe.point_of_text(msg.id, "the docs")
    hit = tester.at(link, scroll, width)
    assert hit is not None and hit.href == "https://example.com/" and hit.clickable
    copy = tester.at(view.probe.code_copy_point(msg.id), scroll, width)
    assert copy is not None and copy.code == "code"
    action = tester.at(view.probe.footer_action_point(msg.id, "copy"), scroll, width)
    assert action is not None and action.action == "copy"
    plain = tester.at(view.probe.point_of_text(msg.id, "first"), scroll, width)
    assert plain is not None and not plain.clickable and plain.pos() is not None
