"""app.ui.conversation.damage: a reply streaming at the bottom moves the
pixels above its tail and paints only the new strip (a block swapped for its
rendered unit: from the tail's old top down), and what is on screen
is exactly what a full repaint gives (read back from the backing store)."""

from __future__ import annotations

from typing import Any

from PyQt6.QtGui import QGuiApplication, QImage

from app.core.conversation.model import Message, MessageStatus
from app.ui.conversation.view import ChatView

WORDS = "streaming words wrap across the column and keep coming in order "


def on_screen(view: ChatView) -> QImage:
    """The viewport's pixels as they are in the window's backing store (not a fresh render)."""
    screen = QGuiApplication.primaryScreen()
    assert screen is not None
    window = view.window()
    assert window is not None
    shot = screen.grabWindow(int(window.winId()))
    viewport = view.viewport()
    assert viewport is not None
    origin = viewport.mapTo(window, viewport.rect().topLeft())
    return shot.toImage().copy(origin.x(), origin.y(), viewport.width(), viewport.height())


def test_streaming_at_the_bottom_blits_and_the_screen_matches_a_full_repaint(qtbot: Any, view: ChatView) -> None:
    earlier = [Message("user" if i % 2 == 0 else "assistant", f"earlier message {i}\n\n" + WORDS * 8,
                       status=MessageStatus.COMPLETE) for i in range(3)]
    for m in earlier:
        view.add_message(m)
    msg = Message("assistant", status=MessageStatus.STREAMING)
    view.add_message(msg)
    view.scroll_to_bottom()
    probe = view.probe
    # the earlier messages rendered, built and painted: from now on only the reply changes
    qtbot.waitUntil(lambda: all(probe.holds_documents(m.id) for m in earlier) and not view.busy
                    and not probe.repaint_pending, timeout=10_000)
    blits_before = probe.viewport_blits
    full_before, full = probe.viewport_paints["full"], 0
    for n in range(80):   # one tick's text at a time, each painted before the next
        piece = WORDS if n % 9 else WORDS + "\n\n"
        msg.append(piece)
        view.append_stream(msg.id, piece)
        # Once the view is idle (a completed block's render swapped in, its
        # repaint done), what is on screen must be what a full repaint draws.
        qtbot.waitUntil(lambda: not view.busy and view.render_service.pending() == 0 and not probe.repaint_pending,
                        timeout=10_000)
        streamed = on_screen(view)
        assert view.at_bottom()
        full += probe.viewport_paints["full"] - full_before
        view.viewport().repaint()   # a full repaint from scratch
        full_before = probe.viewport_paints["full"]
        assert on_screen(view) == streamed, f"after piece {n} the screen differs from a full repaint"
    assert probe.viewport_blits > blits_before, "the content above the tail was not moved by pixels"
    # Only a block swapped for its rendered unit while the tail filled the
    # viewport repaints all of it (9 blocks completed); each piece paints a strip.
    assert full <= 9, f"{full} of 80 pieces repainted the whole viewport"


def test_a_pending_partial_repaint_moves_with_the_pixels(qtbot: Any, view: ChatView) -> None:
    from app.ui.conversation.damage import ViewportDamage

    damage = ViewportDamage(view.viewport())
    damage.below(400)
    damage.scrolled(-30)
    assert damage.blits == 1 and damage.partial == 1
    assert [r.top() for r in damage.pending_rects] == [370], "the strip asked for moved up with the pixels"
    damage.all()
    damage.scrolled(-30)
    assert damage.blits == 1, "with a full repaint pending a scroll is a full repaint"
    damage.painted(view.viewport().rect())
    damage.scrolled(-10_000)
    assert damage.blits == 1, "a scroll past the viewport's height is a full repaint"


def test_the_glide_after_a_send_moves_pixels_and_the_screen_matches_a_full_repaint(qtbot: Any, view: ChatView) -> None:
    for i in range(8):
        view.add_message(Message("user" if i % 2 == 0 else "assistant", f"earlier message {i}\n\n" + WORDS * 8,
                                 status=MessageStatus.COMPLETE))
    probe = view.probe
    qtbot.waitUntil(lambda: not view.busy and not probe.repaint_pending, timeout=10_000)
    bar = view.verticalScrollBar()
    bar.setValue(bar.maximum() - int(1.5 * bar.pageStep()))  # the reader is up a page and a half
    qtbot.waitUntil(lambda: not view.busy and not probe.repaint_pending, timeout=10_000)
    blits, full = probe.viewport_blits, probe.viewport_paints["full"]
    steps: list[int] = []
    bar.valueChanged.connect(steps.append)
    view.glide_to_bottom()
    qtbot.waitUntil(lambda: view.at_bottom() and not probe.repaint_pending, timeout=5_000)
    assert len(steps) >= 3, "it glided"
    assert probe.viewport_blits - blits >= len(steps) - 1, "each step moved the pixels"
    assert probe.viewport_paints["full"] - full <= 1, "at most the last step (the jump to the bottom) repaints it all"
    glided = on_screen(view)
    view.viewport().repaint()
    assert on_screen(view) == glided
