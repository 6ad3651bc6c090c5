"""ItemPainter: painting reads the find cache, and a paint with find active
costs no document search."""

from __future__ import annotations

from app.core.conversation.model import Message
from app.ui.conversation.painter import note_color


def test_painting_with_matches_on_screen_reads_only_the_cache(qtbot, view) -> None:
    msgs = [Message("user", "the cat and the hat"), Message("assistant", "**the** end, the `the`")]
    with qtbot.waitSignal(view.viewport_ready, timeout=10000):
        view.add_messages(msgs)
    view.set_find("the")
    qtbot.waitUntil(lambda: view.probe.find_matches(msgs[1].id) == 3, timeout=5000)
    assert view.probe.find_matches(msgs[0].id) == 2
    scans = view.probe.find_scans()
    view.viewport().repaint()
    assert view.probe.find_scans() == scans
    assert note_color("error") != note_color("info")


def test_warm_up_draws_the_footer_icons_before_the_first_footer(qtbot, view, monkeypatch) -> None:
    from app.ui.conversation.painter import FOOTER_ICONS
    from app.ui.misc import icons

    monkeypatch.setattr(icons, "_CACHE", {})
    view.warm_up("*warm*")
    qtbot.waitUntil(lambda: not view.busy, timeout=10000)
    drawn = {name for name, *_ in icons._CACHE}
    assert drawn == set(FOOTER_ICONS), "each footer icon, in its muted and hovered colours"
    assert len(icons._CACHE) == 2 * len(FOOTER_ICONS)
    msg = Message("assistant", "done")
    with qtbot.waitSignal(view.viewport_ready, timeout=10000):
        view.add_messages([msg])
    view.viewport().repaint()
    assert len(icons._CACHE) == 2 * len(FOOTER_ICONS), "the footer painted found every icon drawn"
    icons._CACHE.clear()
    view.viewport().repaint()
    assert icons._CACHE, "the footer does draw icons (so the check above could fail)"
