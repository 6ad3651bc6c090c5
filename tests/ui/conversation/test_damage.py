"""app.ui.conversation.damage: a reply streaming at the bottom moves the
pixels above its tail and paints only the new strip (a block swapped for its
rendered unit: from the tail's old top down), and what is on screen
is exactly what a full repaint gives (read back from the backing store)."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from PyQt6.QtCore import QRect, QTimer
from PyQt6.QtGui import QGuiApplication, QImage, QRegion
from PyQt6.QtWidgets import QScrollBar

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


def reply_after_earlier(view: ChatView) -> tuple[list[Message], Message]:
    """Three finished messages, then a reply streaming; the view at the bottom."""
    earlier = [Message("user" if i % 2 == 0 else "assistant", f"earlier message {i}\n\n" + WORDS * 8,
                       status=MessageStatus.COMPLETE) for i in range(3)]
    for m in earlier:
        view.add_message(m)
    msg = Message("assistant", status=MessageStatus.STREAMING)
    view.add_message(msg)
    view.scroll_to_bottom()
    return earlier, msg


def quiet(view: ChatView) -> bool:
    """Nothing left to build, render or paint."""
    return not view.busy and view.render_service.pending() == 0 and not view.probe.repaint_pending


def test_streaming_at_the_bottom_blits_and_the_screen_matches_a_full_repaint(qtbot: Any, view: ChatView) -> None:
    earlier, msg = reply_after_earlier(view)
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
        qtbot.waitUntil(lambda: quiet(view), timeout=10_000)
        streamed = on_screen(view)
        assert view.at_bottom()
        full += probe.viewport_paints["full"] - full_before
        view.viewport().repaint()   # a full repaint from scratch
        full_before = probe.viewport_paints["full"]
        assert on_screen(view) == streamed, f"after piece {n} the screen differs from a full repaint"
    assert probe.viewport_blits > blits_before, "the content above the tail was not moved by pixels"
    # Each piece paints a strip. A block swapped for a shorter rendered unit
    # scrolls the content down: the strip exposed at the top and the tail's
    # part are painted as two bands, not as their bounding rect, the whole
    # viewport (9 blocks completed: 8 full paints before that).
    assert full <= 1, f"{full} of 80 pieces repainted the whole viewport"


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
    damage.painted([(0.0, float(view.viewport().height()))])
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


@given(st.lists(st.tuples(st.integers(0, 600), st.integers(1, 200)), min_size=1, max_size=5))
def test_bands_cover_a_region_and_leave_out_its_gaps(strips: list[tuple[int, int]]) -> None:
    """Every row of the region is in a band; a band row outside the region is
    within BAND_STEP of it; bands are disjoint, top to bottom."""
    from app.ui.conversation.damage import BAND_STEP, bands

    region = QRegion()
    for top, height in strips:
        region = region.united(QRect(0, top, 300, height))
    found = bands(region)
    assert found == sorted(found) and all(a < b for a, b in found)
    assert all(found[i][1] < found[i + 1][0] for i in range(len(found) - 1))
    inside = lambda y: any(a <= y < b for a, b in found)  # noqa: E731
    for top, height in strips:
        assert all(inside(y) for y in range(top, top + height))
    for a, b in found:
        for y in range(int(a), int(b)):
            assert any(t - BAND_STEP < y < t + h + BAND_STEP for t, h in strips)
    box = region.boundingRect()
    gap = sum(b - a for a, b in found) < box.height()
    assert gap or len(found) == 1


def test_a_paint_of_two_strips_lays_out_neither_the_rows_between(qtbot: Any, view: ChatView) -> None:
    """The swap's paint: a strip at the top and one at the bottom. Only the
    items that meet them are painted, and the screen is a full repaint's."""
    messages = [Message("user" if i % 2 == 0 else "assistant", f"message {i}\n\n" + WORDS * 3,
                        status=MessageStatus.COMPLETE) for i in range(12)]
    for m in messages:
        view.add_message(m)
    view.scroll_to_bottom()
    probe = view.probe
    qtbot.waitUntil(lambda: all(probe.holds_documents(m.id) for m in messages[-4:]) and not view.busy
                    and view.render_service.pending() == 0 and not probe.repaint_pending, timeout=10_000)
    viewport = view.viewport()
    assert viewport is not None
    width, height = viewport.width(), viewport.height()
    top = view.verticalScrollBar().value()
    shown = [i for i in view._window.visible_range()
             if view._list.top(i) + view._list.items[i].height > top and view._list.top(i) < top + height]
    painted: list[int] = []
    painter = view._painter
    original = painter._paint_item
    painter._paint_item = lambda p, index, *rest: (painted.append(index), original(p, index, *rest))[1]
    before = probe.viewport_paints["full"]
    viewport.repaint(QRegion(QRect(0, 0, width, 20)).united(QRect(0, height - 20, width, 20)))
    assert probe.viewport_paints["full"] == before
    assert painted and set(painted) < set(shown), (painted, shown)
    assert shown[0] in painted and shown[-1] in painted
    partial = on_screen(view)
    viewport.repaint()
    assert on_screen(view) == partial


def test_a_reply_ending_at_the_bottom_repaints_from_what_changed(qtbot: Any, view: ChatView) -> None:
    """The end of a reply (its footer's words, then the final render swapped
    in for its tail and its actions shown) paints from the first unit that
    changed down, not the whole viewport, and the screen is a full repaint's."""
    _earlier, msg = reply_after_earlier(view)
    probe = view.probe
    text = "".join(WORDS * 3 + ("\n\n" if n % 3 == 2 else "") for n in range(12)) + "and the last words"
    for i in range(0, len(text), 120):
        msg.append(text[i : i + 120])
        view.append_stream(msg.id, text[i : i + 120])
        qtbot.waitUntil(lambda: quiet(view), timeout=10_000)
    assert view.at_bottom() and len(probe.documents(msg.id)) > 1 and probe.tail_document(msg.id) is not None
    full = probe.viewport_paints["full"]
    msg.status = MessageStatus.COMPLETE
    with qtbot.waitSignal(view.message_settled, timeout=10_000, check_params_cb=lambda mid: mid == msg.id):
        view.finish_stream(msg.id)
    qtbot.waitUntil(lambda: not view.busy and not probe.repaint_pending, timeout=10_000)
    assert probe.viewport_paints["full"] == full, "the end of the reply repainted the whole viewport"
    assert view.at_bottom()
    ended = on_screen(view)
    view.viewport().repaint()
    assert on_screen(view) == ended


def test_a_final_render_that_changes_an_earlier_block_repaints_it(qtbot: Any, view: ChatView) -> None:
    """A reference link defined at the end of a reply changes its first
    paragraph in the final render: the repaint starts there."""
    msg = Message("assistant", status=MessageStatus.STREAMING)
    view.add_message(msg)
    probe = view.probe
    text = "See [the docs][1] now.\n\n" + WORDS * 2 + "\n\n" + WORDS + "\n\n[1]: https://example.com/docs\n"
    for i in range(0, len(text), 40):
        msg.append(text[i : i + 40])
        view.append_stream(msg.id, text[i : i + 40])
        qtbot.waitUntil(lambda: quiet(view), timeout=10_000)
    assert probe.message_links(msg.id) == []
    msg.status = MessageStatus.COMPLETE
    with qtbot.waitSignal(view.message_settled, timeout=10_000, check_params_cb=lambda mid: mid == msg.id):
        view.finish_stream(msg.id)
    qtbot.waitUntil(lambda: not view.busy and not probe.repaint_pending, timeout=10_000)
    assert probe.message_links(msg.id) == ["https://example.com/docs"]
    ended = on_screen(view)
    view.viewport().repaint()
    assert on_screen(view) == ended


def test_blocks_swapped_above_the_viewport_paint_nothing(qtbot: Any, view: ChatView, monkeypatch: Any) -> None:
    """A fast stream: the tail is screens long when its first blocks are
    swapped for their units. Following the bottom, the rest of the tail
    stays where it is on screen: a swap above the viewport repaints none of
    it, and the screen is a full repaint's."""
    from app.ui.conversation import stream_flow

    monkeypatch.setattr(stream_flow, "COMMIT_SCAN_S", 0.0)  # every piece looks for completed blocks
    msg = Message("assistant", status=MessageStatus.STREAMING)
    view.add_message(msg)
    probe = view.probe
    for n in range(60):   # all at once: the first commit is asked for, none is done yet
        piece = f"paragraph {n}: " + WORDS * 2 + "\n\n"
        msg.append(piece)
        view.append_stream(msg.id, piece)
    tail = probe.tail_document(msg.id)
    assert tail is not None and tail.size().height() > 3 * view.viewport().height()
    assert probe.documents(msg.id) == []
    view.viewport().repaint()
    full = probe.viewport_paints["full"]
    item = view._item(msg.id)
    assert item is not None and item.commit_asked > 0
    # one commit after the other (each asks for the next), until the blocks are all in
    qtbot.waitUntil(lambda: item.commit_asked == item.committed > 0 and not view.busy and not probe.repaint_pending,
                    timeout=20_000)
    assert len(item.units) > 10, "the blocks were swapped in"
    assert view.at_bottom()
    # The commits (bounded in size) swap the backlog in a few times; only the
    # last reaches the blocks on screen (3 full paints before the pinned scroll).
    assert probe.viewport_paints["full"] - full <= 1
    shown = on_screen(view)
    view.viewport().repaint()
    assert on_screen(view) == shown


def test_a_pinned_scroll_moves_only_what_is_above_and_only_as_asked(qtbot: Any, view: ChatView) -> None:
    from app.ui.conversation.damage import ViewportDamage

    damage = ViewportDamage(view.viewport())
    damage.pin(200, -30)
    damage.scrolled(-30)
    assert damage.unpin() and damage.blits == 1 and damage.pending_rects == []
    damage.pin(200, -30)
    damage.scrolled(-20)   # not the scroll the pin was for: the usual way
    assert not damage.unpin() and damage.blits == 2
    damage.below(400)
    damage.pin(200, -30)
    damage.scrolled(-30)   # a partial repaint pending: the usual way, it moves with the pixels
    assert not damage.unpin() and [r.top() for r in damage.pending_rects] == [370]
    damage.pin(-50, 40)
    assert damage.unpin() is False, "a pin no scroll used is forgotten"
    damage.painted([(0.0, float(view.viewport().height()))])
    damage.pin(-50, 40)
    damage.scrolled(40)    # nothing above the pin is on screen: no pixels move
    assert damage.unpin() and damage.blits == 3


def test_swaps_under_find_and_a_selection_show_what_a_full_repaint_shows(qtbot: Any, view: ChatView) -> None:
    """Find matches and a selection are placed by unit, and a swap changes
    the units: the screen is still exactly a full repaint's."""
    earlier, msg = reply_after_earlier(view)
    probe = view.probe
    qtbot.waitUntil(lambda: all(probe.holds_documents(m.id) for m in earlier) and quiet(view), timeout=10_000)
    view.set_find("words", reveal=False)
    for n in range(30):
        piece = WORDS if n % 5 else WORDS + "\n\n"
        msg.append(piece)
        view.append_stream(msg.id, piece)
        qtbot.waitUntil(lambda: quiet(view), timeout=10_000)
        if n == 2:  # a selection in the reply's tail, its first words
            probe.select(msg.id, 0, 12)
            view.viewport().repaint()
            continue
        shown = on_screen(view)
        view.viewport().repaint()
        assert on_screen(view) == shown, f"after piece {n} the screen differs from a full repaint"


def test_blocks_cut_far_above_the_followed_bottom_get_documents_only_when_the_reader_comes(
    qtbot: Any, view: ChatView, monkeypatch: Any
) -> None:
    """At thousands of tokens a second the tail is screens long, so the
    blocks cut from its front lie far above the bottom the view follows.
    They get an estimated height and no document (the window would drop it
    at once); scrolling up builds them. The text and the screen stay what a
    full repaint shows."""
    from app.ui.conversation import stream_flow
    from app.ui.conversation.unit_window import UNIT_WINDOW_MIN

    monkeypatch.setattr(stream_flow, "COMMIT_SCAN_S", 0.0)
    msg = Message("assistant", status=MessageStatus.STREAMING)
    view.add_message(msg)
    probe = view.probe
    text = "".join(f"paragraph {n}: " + WORDS * 2 + "\n\n" for n in range(150))
    for i in range(0, len(text), 4000):   # a fast stream: large pieces
        msg.append(text[i : i + 4000])
        view.append_stream(msg.id, text[i : i + 4000])
    item = view._item(msg.id)
    assert item is not None
    qtbot.waitUntil(lambda: item.commit_asked == item.committed > 0 and not view.busy and not probe.repaint_pending,
                    timeout=20_000)
    assert len(item.units) > UNIT_WINDOW_MIN and view.at_bottom()
    never_built = [n for n, u in enumerate(item.units) if u.doc is None and u.measured_width < 0]
    assert never_built and never_built[0] == 0, "the blocks far above were never built"
    paragraphs = [p.strip() for p in text.split("\n\n") if p.strip()]
    assert [p.strip() for p in probe.message_text(msg.id).split("\n") if p.strip()] == paragraphs, "every word, in order"
    shown = on_screen(view)
    view.viewport().repaint()
    assert on_screen(view) == shown
    bar = view.verticalScrollBar()
    assert bar is not None
    bar.setValue(0)
    qtbot.waitUntil(lambda: item.units[0].doc is not None and not view.busy and not probe.repaint_pending,
                    timeout=20_000)
    top = on_screen(view)
    view.viewport().repaint()
    assert on_screen(view) == top, "built as they came into view: the screen is a full repaint's"
    assert bar.value() == 0


def test_a_fast_stream_keeps_the_view_at_the_bottom_and_a_reader_who_scrolls_up_where_they_are(
    qtbot: Any, view: ChatView
) -> None:
    """Units built above the viewport's top keep what the reader sees still:
    a view at the bottom stays there (it follows the reply), and a reader
    who scrolled up is not taken back down."""
    msg = Message("assistant", status=MessageStatus.STREAMING)
    view.add_message(msg)
    view.scroll_to_bottom()
    bar = view.verticalScrollBar()
    assert bar is not None
    text = "".join(f"paragraph {n}: " + WORDS * 2 + "\n\n" for n in range(600))
    pieces = [text[i : i + 3000] for i in range(0, len(text), 3000)]  # one a tick: the tail runs screens long
    half = len(pieces) // 2
    sent: list[int] = []
    off_bottom: list[int] = []

    def stream(upto: int) -> None:
        n = len(sent)
        if n >= upto:
            return
        msg.append(pieces[n])
        view.append_stream(msg.id, pieces[n])
        sent.append(n)
        if n and upto == half and not view.at_bottom():
            off_bottom.append(n)

    tick = QTimer()
    tick.setInterval(25)
    tick.timeout.connect(lambda: stream(half))
    tick.start()
    qtbot.waitUntil(lambda: len(sent) == half and quiet(view), timeout=30_000)
    assert not off_bottom and view.at_bottom(), f"left the bottom at pieces {off_bottom}"
    bar.triggerAction(QScrollBar.SliderAction.SliderPageStepSub)
    bar.triggerAction(QScrollBar.SliderAction.SliderPageStepSub)
    tick.timeout.disconnect()
    tick.timeout.connect(lambda: stream(len(pieces)))
    qtbot.waitUntil(lambda: len(sent) == len(pieces) and quiet(view), timeout=30_000)
    tick.stop()
    assert bar.maximum() - bar.value() > view.viewport().height(), "the reader's place holds"
