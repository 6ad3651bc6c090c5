"""UnitWindow: a long message holds documents only for the units near the
viewport; far units keep their heights; a selection's ends, the final render
and find all work with units that have no document."""

from __future__ import annotations

from app.core.conversation.model import Message
from app.core.render import blocks
from app.ui.conversation.items import Item, Pos
from app.ui.conversation.unit_window import UNIT_WINDOW_MIN
from tests.ui.conversation.parts import Parts

LINES = 20_000  # 20,000 short lines: about 200 plain units of 1,000 characters


def long_message(role: str = "user") -> Message:
    msg = Message(role, "".join(f"line {k:05d}\n" for k in range(LINES)))
    msg.rendered = blocks.user_units(msg.content)
    return msg


def built(item: Item) -> list[int]:
    return [n for n, u in enumerate(item.units) if u.doc is not None]


def settle(p: Parts) -> None:
    p.live.update()
    p.run()


def test_a_long_message_builds_only_the_units_near_the_viewport(qapp) -> None:
    p = Parts()
    msg = long_message()
    p.rows.add_messages([msg])
    settle(p)
    item = p.item(msg)
    assert len(item.units) > 10 * UNIT_WINDOW_MIN
    have = built(item)
    assert have and have[0] == 0, "the units on screen have documents"
    assert len(have) < 20, f"only a few screens of units hold documents, not {len(item.units)}"
    assert item.docs_ready
    p.live.check_ready()
    assert p.ready == 1


def test_scrolling_through_a_long_message_moves_its_documents_and_keeps_its_height(qapp) -> None:
    p = Parts()
    msg = long_message()
    p.rows.add_messages([msg])
    settle(p)
    item = p.item(msg)
    for _ in range(3):  # measured as they come into view; estimates elsewhere
        p.scroll.set_value(int(item.height / 2))
        settle(p)
    middle = built(item)
    assert middle and middle[0] > 50 and len(middle) < 20
    assert item.units[0].doc is None, "far above: dropped"
    assert item.units[0].measured_width >= 0, "a dropped unit keeps its measured height"
    height, value = item.height, p.scroll.value
    p.scroll.set_value(0)
    settle(p)
    p.scroll.set_value(value)
    settle(p)
    assert item.height == height, "dropping and rebuilding documents changes no height"


def test_the_units_holding_a_selection_end_keep_their_documents(qapp) -> None:
    p = Parts()
    msg = long_message()
    p.rows.add_messages([msg])
    settle(p)
    item = p.item(msg)
    p.sel.anchor, p.sel.cursor = Pos(0, 0, 3), Pos(0, 0, 9)
    p.scroll.set_value(int(item.height * 0.9))
    settle(p)
    assert item.units[0].doc is not None, "pinned by the selection"
    assert item.units[1].doc is None
    p.sel.cursor = Pos(0, 150, 4)
    assert p.sel.selected_text().startswith("e 00000"), "copied across units without documents"


def test_the_final_render_of_a_long_reply_builds_only_what_is_on_screen(qapp) -> None:
    p = Parts()
    msg = Message("assistant", "")
    p.rows.add_messages([msg])
    p.flow.begin(p.item(msg))
    item = p.item(msg)
    text = long_message().content
    msg.content = text
    units = blocks.render_units(text)
    item.streaming, item.final_pending = False, True
    p.results.finalizing.add(msg.id)
    from app.ui.services.render import RenderJob, RenderResult

    p.results.on_rendered(RenderResult(RenderJob(msg.id, "final", text, token=len(text)), units))
    p.run()
    assert len(item.units) == len(units) and item.tail is None
    assert 0 < len(built(item)) < 20, "the far units of the swap have no documents"
    assert msg.id in p.settled


def test_find_reveals_a_match_in_a_unit_without_a_document(qapp) -> None:
    p = Parts()
    msg = long_message()
    p.rows.add_messages([msg])
    settle(p)
    item = p.item(msg)
    assert item.units[-1].doc is None
    needle = f"line {LINES - 3:05d}"
    p.reveal.set_find(needle, (msg.id, 0))
    assert p.reveal.pending is not None, "waits for the unit to be built"
    for _ in range(4):
        settle(p)
        if p.reveal.pending is None:
            break
    assert p.reveal.pending is None
    assert item.units[-1].doc is not None or item.units[-2].doc is not None, "the match's unit was built"
    assert p.scroll.value > item.height * 0.9, "scrolled to the match"


def test_units_measured_above_the_viewport_do_not_move_what_the_reader_sees(qapp) -> None:
    p = Parts()
    msg = long_message()
    p.rows.add_messages([msg])
    settle(p)
    item = p.item(msg)
    index = p.items.index[msg.id]
    tops = [y for _n, _d, _h, u, y in p.layout.rows(item, p.layout.body_top(index)) if u is not None]
    p.scroll.set_value(int(tops[120]) + 40)  # among units still estimated, just below one's top

    def unit_at_top() -> tuple[int, float]:
        rows = [(n, y) for n, _d, h, u, y in p.layout.rows(item, p.layout.body_top(index)) if u is not None]
        value = p.scroll.value
        n, y = max((r for r in rows if r[1] <= value), key=lambda r: r[1])
        return n, value - y

    before = unit_at_top()
    settle(p)
    assert built(item)[0] < before[0], "units above the viewport's top were measured"
    n, offset = unit_at_top()
    assert n == before[0] and abs(offset - before[1]) <= 1.0, "the unit at the top stays where it was"
