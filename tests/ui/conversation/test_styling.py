"""ItemStyler: zoom, theme and width changes, O(n) arithmetic at once and
Qt work only for the items holding documents, in work slices."""

from __future__ import annotations

from app.core.conversation.model import Message
from app.core.render.blocks import Unit
from app.ui.conversation.items import ITEM_GAP
from app.ui.services.render import RenderResult
from tests.ui.conversation.parts import Parts


def _shown(p: Parts, n: int, text: str = "word " * 40) -> list[Message]:
    msgs = Parts.rendered([Message("user", text) for _ in range(n)])
    p.rows.add_messages(msgs)
    p.live.update()
    p.run()
    return msgs


def test_zoom_scales_far_items_at_once_and_refonts_live_ones_in_slices(qapp) -> None:
    p = Parts()
    _shown(p, 200)
    near, far = p.items.items[0], p.items.items[-1]
    assert near.live and not far.live
    far_height = far.height
    line = p.metrics.line_height()
    p.styler.set_zoom(1.5)
    ratio = p.metrics.line_height() / line
    assert abs(far.height - far_height * ratio * ratio) < 0.01
    assert abs(p.items.total() - sum(i.height + ITEM_GAP for i in p.items.items)) < 0.01
    keys = p.run()
    assert any(k.endswith(f":{near.id}") for k in keys) and not any(k.endswith(f":{far.id}") for k in keys)
    doc = near.units[0].doc
    assert doc is not None and doc.defaultFont() == p.metrics.font
    p.styler.set_zoom(1.5)
    assert p.jobs == [], "the same zoom again: nothing to do"


def test_a_narrower_view_scales_far_items_and_lays_live_ones_out_at_once(qapp) -> None:
    p = Parts(width=600)
    _shown(p, 200)
    p.styler.resized()  # the first size: nothing to scale from
    near, far = p.items.items[0], p.items.items[-1]
    far_height, frame = far.height, p.metrics.frame_height()
    old_width = p.metrics.content_width()
    p.width = 300
    p.styler.resized()
    ratio = old_width / p.metrics.content_width()
    assert abs(far.height - (frame + (far_height - frame) * ratio)) < 0.01
    doc = near.units[0].doc
    assert doc is not None and doc.textWidth() == p.metrics.content_width()
    assert p.jobs == []


def _rendered_item(p: Parts, text: str, units: tuple[Unit, ...]):  # type: ignore[no-untyped-def]
    """A reply of ``text`` added to the view and rendered as ``units``, its documents built."""
    msg = Message("assistant", text)
    p.rows.add_messages([msg])
    p.live.update()
    (job, _prio), = p.render.jobs
    p.results.on_rendered(RenderResult(job, units))
    p.live.update()
    p.run()
    return p.item(msg)


def test_a_new_theme_rebuilds_the_code_documents_near_the_viewport(qapp) -> None:
    p = Parts()
    item = _rendered_item(p, "```\ncode\n```", (Unit("code", "<pre>code</pre>"),))
    old = item.units[0].doc
    assert old is not None
    p.styler.restyle()
    assert p.jobs == [], "the same theme: nothing to rebuild"
    p.docs.code_css = "stale"  # as if the theme changed
    p.styler.restyle()
    p.run()
    assert item.units[0].doc is not None and item.units[0].doc is not old


def test_a_theme_change_during_the_last_ones_rebuild_still_takes(qapp) -> None:
    """The last change's job, suspended after rebuilding the code, does not
    stand in for the new one's (it was: same key, so the new job was never
    queued and the code kept the old colours; seen in CI under load)."""
    p = Parts()
    item = _rendered_item(p, "```\ncode\n```", (Unit("code", "<pre>code</pre>"),))
    p.docs.code_css = "stale"  # a new theme ("dark")
    p.styler.restyle()
    p.start_first()            # its code document is rebuilt; the job is not finished
    dark = item.units[0].doc
    assert dark is not None and p.jobs
    p.docs.code_css = "stale again"  # and another ("system" = light) before it ends
    p.styler.restyle()
    p.run()
    assert item.units[0].doc is not dark, "the second change rebuilt the code too"


def test_a_zoom_during_the_last_ones_refont_still_takes(qapp) -> None:
    from app.core.render.blocks import render_units

    p = Parts()
    text = "One paragraph.\n\nAnother paragraph.\n\nA third."
    item = _rendered_item(p, text, render_units(text))
    assert len([u for u in item.units if u.doc is not None]) >= 2
    p.styler.set_zoom(1.5)
    p.start_first()            # the first document takes the 1.5 font; the job is not finished
    p.styler.set_zoom(2.0)
    p.run()
    assert all(u.doc.defaultFont() == p.metrics.font for u in item.units if u.doc is not None)


def _math_item(p: Parts):  # type: ignore[no-untyped-def]
    from app.core.render.blocks import render_units

    text = "A formula $x^2 + y^2$ here."
    return _rendered_item(p, text, render_units(text))


def _image_size(doc) -> tuple[int, int]:  # type: ignore[no-untyped-def]
    from PyQt6.QtCore import QUrl
    from PyQt6.QtGui import QTextDocument

    cursor_fmt = None
    block = doc.begin()
    it = block.begin()
    while not it.atEnd():
        fmt = it.fragment().charFormat()
        if fmt.isImageFormat():
            cursor_fmt = fmt.toImageFormat()
        it += 1
    assert cursor_fmt is not None
    image = doc.resource(QTextDocument.ResourceType.ImageResource.value, QUrl(cursor_fmt.name()))
    return image.width(), image.pixelColor(*_first_ink(image)).name()


def _first_ink(image) -> tuple[int, int]:  # type: ignore[no-untyped-def]
    return next((x, y) for y in range(image.height()) for x in range(image.width()) if image.pixelColor(x, y).alpha() == 255)


def test_zoom_and_theme_redraw_the_formula_images(qapp, monkeypatch) -> None:
    from app.ui.misc import theme

    monkeypatch.setattr(theme, "_current", theme.LIGHT)
    p = Parts()
    item = _math_item(p)
    width, colour = _image_size(item.units[0].doc)
    p.styler.set_zoom(2.0)
    p.run()
    bigger, _ = _image_size(item.units[0].doc)
    assert bigger > 1.8 * width
    assert colour == theme.LIGHT.colors["text"]
    monkeypatch.setattr(theme, "_current", theme.DARK)
    p.styler.restyle()
    p.run()
    assert _image_size(item.units[0].doc)[1] == theme.DARK.colors["text"]
