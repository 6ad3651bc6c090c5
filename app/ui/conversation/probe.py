"""Reading back what the conversation view shows (``ChatViewProbe``):
the texts, links, footers and points on screen of its messages, and its
find state. Used by the tests, the doctor and accessibility, so that none
of them reaches into the view's private state.

Threading rule: GUI thread only.
"""

from __future__ import annotations

from typing import Any

from PyQt6 import sip
from PyQt6.QtCore import QPointF
from PyQt6.QtGui import QTextDocument
from PyQt6.QtWidgets import QAbstractScrollArea

from app.core.render import blocks
from app.core.render.mathscan import find_math
from app.core.render.mathsvg import Formula
from app.core.text.thinking import strip_thinking
from app.ui.conversation.hittest import Hit
from app.ui.conversation.items import PAD_Y, Pos, doc_text, joined_unit_texts, layout_of
from app.ui.misc.math_images import text_with_formulas


class ChatViewProbe:
    """Read-only questions about a ``ChatView`` (see the module docstring)."""

    def __init__(self, view: QAbstractScrollArea) -> None:
        # The probe is the view's one friend: it reads the view's collaborators.
        # Typed loosely on purpose, so that probe -> view stays out of the
        # import graph (the view imports the probe; no cycle, not even for types).
        self._view: Any = view

    def message_text(self, message_id: str) -> str:
        """The text shown for a message's answer (units and tail), as a
        reader sees it (a formula as its TeX); the thinking is apart (``thinking_header``,
        ``thoughts_text``)."""
        item = self._view._item(message_id)
        if item is None:
            return ""
        parts: list[tuple[blocks.Unit | None, str]] = [
            (u.unit, self._shown_text(u.unit, u.doc) if u.doc is not None else self._unbuilt_text(u.unit))
            for u in item.units]
        if item.tail is not None and not item.tail.isEmpty():
            parts.append((None, item.tail.toPlainText()))
        return joined_unit_texts(parts)

    @staticmethod
    def _shown_text(unit: blocks.Unit, doc: QTextDocument) -> str:
        """A unit's document's text, its formulas as their TeX."""
        if unit.math:
            return text_with_formulas(doc, 0, doc.characterCount() - 1, unit.math)
        return doc_text(unit, doc)

    def _unbuilt_text(self, unit: blocks.Unit) -> str:
        """What a unit without a document (far from the viewport) shows once built."""
        slot = self._view._docs.build_unit(unit)
        assert slot.doc is not None
        text = self._shown_text(unit, slot.doc)
        sip.delete(slot.doc)  # at once: a long message makes many
        return text

    def message_source(self, message_id: str) -> str:
        """A message's content as stored (its Markdown source, thinking included)."""
        item = self._view._item(message_id)
        return "" if item is None or item.message is None else str(item.message.content)

    def message_formulas(self, message_id: str) -> list[Formula]:
        """The formulas of a message's rendered units, in order (typeset or not)."""
        item = self._view._item(message_id)
        return [] if item is None else [f for u in item.units for f in u.unit.math]

    def formula_delays_ms(self, message_id: str) -> list[float]:
        """For each formula of a streamed reply's answer, the time from its
        closing delimiter's arrival to its being shown rendered (the doctor)."""
        answer = strip_thinking(self.message_source(message_id))
        delays: list[float] = self._view._results.commits.delays_ms(message_id, [s.end for s in find_math(answer)])
        return delays

    def thinking_header(self, message_id: str) -> str:
        """A message's thinking header as shown ("▸ Thinking… · 3 words"),
        or "" when it has no thinking."""
        item = self._view._item(message_id)
        return "" if item is None or item.think is None else self._view._thoughts.label(item)

    def thoughts_text(self, message_id: str) -> str | None:
        """The thoughts shown (unfolded, their document built), else None."""
        item = self._view._item(message_id)
        if item is None or item.think is None or not item.think.ready or item.think.doc is None:
            return None
        return str(item.think.doc.toPlainText())

    def message_links(self, message_id: str) -> list[str]:
        """The href of every link shown in a message, in order."""
        item = self._view._item(message_id)
        links: list[str] = []
        if item is None:
            return links
        for u in item.units:
            doc = u.doc
            if doc is None:
                continue
            block = doc.begin()
            while block.isValid():
                it = block.begin()
                while not it.atEnd():
                    frag = it.fragment()
                    if frag.isValid() and frag.charFormat().isAnchor() and frag.charFormat().anchorHref():
                        links.append(frag.charFormat().anchorHref())
                    it += 1
                block = block.next()
        return links

    def point_of_text(self, message_id: str, needle: str, end: bool = False) -> QPointF | None:
        """Where ``needle`` (its first character, or just after its last with
        ``end``) is shown in the viewport; None when it is not laid out."""
        index = self._view._list.index.get(message_id)
        if index is None:
            return None
        item = self._view._list.items[index]
        offset = self._view._bar().value()
        for _n, doc, _height, _unit, uy in self._view._layout.rows(item, self._view._layout.body_top(index)):
            if doc is not None:
                cursor = doc.find(needle)
                if not cursor.isNull():
                    position = cursor.selectionEnd() if end else cursor.selectionStart()
                    block = doc.findBlock(position)
                    text_layout = block.layout()
                    assert text_layout is not None
                    line = text_layout.lineForTextPosition(position - block.position())
                    rect = layout_of(doc).blockBoundingRect(block)
                    left = self._view._metrics.text_x()
                    x = line.cursorToX(position - block.position())[0] + rect.x() + left + (-1 if end else 1)
                    return QPointF(x, uy - offset + rect.y() + line.y() + line.height() / 2)
        return None

    def message_footer(self, message_id: str) -> str:
        item = self._view._item(message_id)
        return "" if item is None else " · ".join(p for p in (item.note, item.facts) if p)

    def notice_texts(self) -> list[str]:
        return [i.units[0].unit.body for i in self._view._list.items if i.kind == "notice"]

    def all_text(self) -> str:
        """Everything shown, in order (tests and doctor; not for huge histories)."""
        out = []
        for item in self._view._list.items:
            if item.kind == "notice":
                out.append(item.units[0].unit.body)
            else:
                out.append(item.label)
                if item.think is not None:
                    out.append(self._view._thoughts.label(item))
                    thoughts = self.thoughts_text(item.id)
                    if thoughts is not None:
                        out.append(thoughts)
                out.append(self.message_text(item.id))
                footer = self.message_footer(item.id)
                if footer:
                    out.append(footer)
        return "\n".join(out)

    def footer_action_point(self, message_id: str, action: str) -> QPointF | None:
        """The centre of a footer action's label in the viewport (tests, accessibility)."""
        index = self._view._list.index.get(message_id)
        if index is None:
            return None
        item = self._view._list.items[index]
        offset = self._view._bar().value()
        fy = self._view._list.top(index) + item.height - PAD_Y - self._view._metrics.line_height(self._view._metrics.small)
        for kind, _text, rect in self._view._layout.footer_layout(item, fy):
            if kind == f"action:{action}":
                return QPointF(rect.center().x(), rect.center().y() - offset)
        return None

    def waiting_row(self, message_id: str) -> tuple[bool, str, float | None]:
        """(the reply shows its waiting row, the row's words — "" for the
        typing dots —, the fraction of the prompt read or None)."""
        view = self._view
        item = view._item(message_id)
        waiting = item is not None and view._waiting.waiting(item)
        return waiting, view._waiting.text(message_id), view._waiting.fraction(message_id)

    @property
    def typing_dots_moving(self) -> bool:
        return bool(self._view._waiting.animating)

    def thinking_header_point(self, message_id: str) -> QPointF | None:
        """The centre of a message's thinking header in the viewport (None:
        no thinking)."""
        index = self._view._list.index.get(message_id)
        if index is None:
            return None
        rect = self._view._layout.think_header_rect(index)
        if rect is None:
            return None
        return QPointF(rect.center().x(), rect.center().y() - self._view._bar().value())

    def code_copy_point(self, message_id: str, nth: int = 0) -> QPointF | None:
        """The centre of the n-th code block's Copy button in the viewport."""
        index = self._view._list.index.get(message_id)
        if index is None:
            return None
        item = self._view._list.items[index]
        offset = self._view._bar().value()
        k = 0
        for _n, _doc, _height, unit, uy in self._view._layout.rows(item, self._view._layout.body_top(index)):
            if unit is not None and unit.unit.kind == "code" and unit.unit.copy:
                if k == nth:
                    center: QPointF = self._view._layout.copy_button_rect(uy - offset).center()
                    return center
                k += 1
        return None

    def live_document_count(self) -> int:
        return sum(
            sum(1 for u in i.units if u.doc is not None)
            + (1 if i.tail is not None else 0)
            + (1 if i.think is not None and i.think.doc is not None else 0)
            for i in self._view._list.items
        )

    def is_settled(self, message_id: str) -> bool:
        item = self._view._item(message_id)
        return item is not None and not item.streaming and not item.final_pending

    # ------------------------------------------------------------------ state

    def find_state(self) -> tuple[str, tuple[str, int] | None]:
        """(the text highlighted, the current match: message id and n-th match in it)."""
        find = self._view._find
        return find.text, find.current

    def find_matches(self, message_id: str) -> int | None:
        """Matches highlighted in a message's documents (its folded thoughts
        counted from their text), or None while some are still being found."""
        view = self._view
        index = view._list.index.get(message_id)
        if index is None:
            return None
        item = view._list.items[index]
        total: int = view._reveal.hidden_thought_matches(item)
        for _n, doc, _h, _u, _y in view._layout.rows(item, 0.0):
            if doc is not None:
                starts = view._find.ranges(doc)
                if starts is None:
                    return None
                total += len(starts)
        return total

    def find_scans(self) -> int:
        """Documents scanned for find matches so far."""
        return int(self._view._find.scans)

    @property
    def viewport_blits(self) -> int:
        """Scrolls done by moving the viewport's pixels (``ViewportDamage``)."""
        return int(self._view._damage.blits)

    @property
    def viewport_paints(self) -> dict[str, int]:
        """Paint events of the whole viewport and of a part of it, so far."""
        damage = self._view._damage
        return {"full": int(damage.full_paints), "partial": int(damage.partial_paints)}

    @property
    def repaint_pending(self) -> bool:
        """The view asked for a repaint that has not been painted yet."""
        return bool(self._view._damage.pending)

    def footer_texts(self, message_id: str) -> list[str]:
        """The texts of a message's footer pieces (note, facts, actions)."""
        view = self._view
        item = view._item(message_id)
        return [] if item is None else [text for _k, text, _r in view._layout.footer_layout(item, 0.0)]

    def text_pixel_size(self) -> int:
        """The body text's pixel size (zoom)."""
        return int(self._view._metrics.font.pixelSize())

    def documents(self, message_id: str, kind: str = "") -> list[QTextDocument]:
        """The documents a message holds now (units of ``kind``, or all of its units)."""
        item = self._view._item(message_id)
        if item is None:
            return []
        return [u.doc for u in item.units if u.doc is not None and (not kind or u.unit.kind == kind)]

    def tail_document(self, message_id: str) -> QTextDocument | None:
        item = self._view._item(message_id)
        return None if item is None else item.tail

    def thoughts_document(self, message_id: str) -> QTextDocument | None:
        item = self._view._item(message_id)
        return None if item is None or item.think is None else item.think.doc

    def holds_documents(self, message_id: str) -> bool:
        """The message is in the live window (near the viewport)."""
        item = self._view._item(message_id)
        return item is not None and item.live

    def laid_out_at_width(self, message_id: str) -> bool:
        """Every document of the message is laid out at the view's text width."""
        view = self._view
        item = view._item(message_id)
        width = view._metrics.content_width()
        return item is not None and all(u.doc is None or u.doc.textWidth() == width for u in item.units)

    def lay_out(self, message_id: str) -> None:
        """Measure a message now, replacing its estimated height (what coming on screen does)."""
        view = self._view
        item = view._item(message_id)
        if item is not None:
            view._results.relayout(item)

    def select(self, message_id: str, start: int, end: int) -> None:
        """Select characters [start, end) of a message's first unit (what a drag does)."""
        view = self._view
        index = view._list.index.get(message_id)
        if index is not None:
            view._sel.anchor, view._sel.cursor = Pos(index, 0, start), Pos(index, 0, end)
            view._vp().update()

    def hit_at(self, point: QPointF) -> Hit | None:
        """What a mouse event at viewport ``point`` would find (one hit test)."""
        view = self._view
        hit: Hit | None = view._pointer.hit(point, details=True)
        return hit
