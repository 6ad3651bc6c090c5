"""LiveItems: what the live window plans is rendered, built in work slices
or dropped; ``viewport_ready`` once everything on screen is built."""

from __future__ import annotations

from app.core.conversation.model import Message
from app.core.render.blocks import Unit
from app.ui.conversation.items import Pos
from app.ui.services.render import PRIORITY_VISIBLE
from tests.ui.conversation.parts import Parts


def test_unrendered_messages_on_screen_are_sent_to_render_the_answer_only(qapp) -> None:
    p = Parts()
    msg = Message("assistant", "<think>private</think>**the answer**")
    p.rows.add_messages([msg])
    p.live.update()
    assert [(job.message_id, job.kind, job.text, prio) for job, prio in p.render.jobs] == [
        (msg.id, "history", "**the answer**", PRIORITY_VISIBLE)
    ]
    p.live.update()
    assert len(p.render.jobs) == 1, "asked once per text"
    assert p.ready == 0, "not rendered yet"


def test_rendered_messages_get_their_documents_in_slices_then_the_viewport_is_ready(qapp) -> None:
    p = Parts()
    msgs = Parts.rendered([Message("user", f"line {k}") for k in range(50)])
    p.rows.add_messages(msgs)
    p.live.update()
    keys = p.run()
    assert keys and all(k.startswith("build:") for k in keys)
    on_screen = list(p.window.visible_range())
    assert all(p.items.items[i].docs_ready for i in on_screen)
    assert p.items.items[-1].units[0].doc is None, "far below: no documents"
    p.live.check_ready()
    assert p.ready == 1


def test_far_items_drop_their_documents_unless_they_hold_a_selection_end(qapp) -> None:
    p = Parts()
    msgs = Parts.rendered([Message("user", f"line {k}") for k in range(300)])
    p.rows.add_messages(msgs)
    p.live.update()
    p.run()
    p.sel.anchor, p.sel.cursor = Pos(0, 0, 0), Pos(0, 0, 2)
    first, second = p.items.items[0], p.items.items[1]
    assert first.live and second.live
    p.scroll.set_value(int(p.items.top(250)))
    p.live.update()
    assert first.live and first.units[0].doc is not None, "pinned by the selection"
    assert not second.live and second.units[0].doc is None and second.id not in p.window.live


def test_drop_documents_keeps_the_units(qapp) -> None:
    p = Parts()
    msg = Message("user", "x")
    p.rows.add_message(msg)
    item = p.item(msg)
    item.units = [p.docs.build_unit(Unit("plain", "x"))]
    item.live = True
    p.live.drop_documents(item)
    assert [(u.unit, u.doc) for u in item.units] == [(Unit("plain", "x"), None)] and not item.live
