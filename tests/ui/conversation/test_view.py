"""The conversation view without a window: per-message items, streaming into
a plain tail, rendered units swapped in, virtualization, selection, copy."""

from __future__ import annotations

import pytest
from PyQt6.QtCore import Qt
from PyQt6.QtGui import QGuiApplication, QTextCursor, QTextDocument
from PyQt6.QtWidgets import QApplication

from app.core.backends.scripted import SAMPLE_MARKDOWN
from app.core.conversation.model import Message, MessageStatus
from app.core.conversation.sample import history_messages
from app.core.render import markdown as render
from app.ui.conversation.view import BREAK_LIMIT, ChatView


def stream(qtbot, view: ChatView, text: str, piece: int = 37) -> Message:
    """Stream ``text`` into a new reply in pieces, then finish it and wait
    for its final render."""
    msg = Message("assistant", status=MessageStatus.STREAMING)
    view.add_message(msg)
    for i in range(0, len(text), piece):
        msg.append(text[i : i + piece])
        view.append_stream(msg.id, text[i : i + piece])
    msg.status = MessageStatus.COMPLETE
    with qtbot.waitSignal(view.message_settled, timeout=20000, check_params_cb=lambda mid: mid == msg.id):
        view.finish_stream(msg.id)
    return msg


#: A table shown in pieces (13 rows: 5 + 5 + 3), one of its cells empty.
LONG_TABLE = "Intro\n\n| Name | Notes | n:|\n|---|---|--:|\n" + "\n".join(
    f"| r{k} `c` | {'word ' * (k % 7)} | {k} |" for k in range(13)) + "\n\nAfter."


def one_shot(text: str) -> str:
    doc = QTextDocument()
    doc.setHtml(render.render_markdown(text))
    return doc.toPlainText()


def test_streamed_blocks_render_while_streaming_and_the_rest_stays_plain(qtbot, view) -> None:
    msg = Message("assistant", status=MessageStatus.STREAMING)
    view.add_message(msg)
    cut = SAMPLE_MARKDOWN.index("## A list")
    head = SAMPLE_MARKDOWN[:cut] + "- unfinished item"
    msg.append(head)
    view.append_stream(msg.id, head)
    # The completed blocks come back from the render thread as rich text;
    # the unfinished last block stays plain meanwhile.
    qtbot.waitUntil(lambda: "# Streaming" not in view.probe.message_text(msg.id), timeout=10000)
    text = view.probe.message_text(msg.id)
    assert "Streaming, without the freeze" in text
    assert "```python" not in text
    assert text.endswith("- unfinished item")


@pytest.mark.parametrize("piece", [1, 7, 100])
@pytest.mark.parametrize(
    "text",
    [
        "\nHello world.\nSecond line.",
        "\n\nHello\n\nWorld\n",
        "  Indented start",
        "# Title\n\n- a\n- b\n\n```\ncode\n```\n\n| x | y |\n|---|---|\n| 1 | 2 |\n\nend",
        "See [the docs][d].\n\nMore text.\n\n[d]: https://example.com/docs\n",
        "1. loose\n\n2. list\n\nafter",
        "😀😀 first **bold**\n\n👩‍💻 second *it*\n\nthird 你好",
        SAMPLE_MARKDOWN,
        LONG_TABLE,
        "Code:\n\n```python\n" + "\n".join(f"x{k} = '<{k}>'" for k in range(45)) + "\n```\n\nafter",
    ],
    ids=lambda t: t[:12] if isinstance(t, str) else None,
)
def test_streamed_reply_shows_what_a_one_shot_render_shows(qtbot, view, text: str, piece: int) -> None:
    msg = stream(qtbot, view, text, piece)
    assert view.probe.message_text(msg.id) == one_shot(text)


def test_reference_links_defined_later_work_after_the_final_render(qtbot, view) -> None:
    msg = stream(qtbot, view, "See [the docs][d].\n\nMore text.\n\n[d]: https://example.com/docs\n")
    assert view.probe.message_links(msg.id) == ["https://example.com/docs"]
    assert "[d]" not in view.probe.message_text(msg.id)


def longest_tail_paragraph(view: ChatView, message_id: str) -> int:
    tail = view.probe.tail_document(message_id)
    assert tail is not None
    block, longest = tail.begin(), 0
    while block.isValid():
        longest = max(longest, len(block.text()))  # code points, as the breaker counts
        block = block.next()
    return longest


@pytest.mark.parametrize(
    "para",
    [
        "A" * 20000,                                       # a degenerate loop
        "QmFzZTY0IGJsb2I=" * 1500,                         # base64, no spaces
        "你好世界，这是一个很长的段落。" * 1500,              # CJK, no spaces
        "e\u0301" * 8000,                                  # combining marks
        "👩‍👩‍👧🇨🇳" * 3000,                                   # ZWJ sequences and flags
    ],
    ids=["AAAA", "base64", "cjk", "combining", "emoji"],
)
def test_tail_paragraphs_stay_short_whatever_the_characters(qtbot, view, para: str) -> None:
    msg = Message("assistant", status=MessageStatus.STREAMING)
    view.add_message(msg)
    for i in range(0, len(para), 41):
        msg.append(para[i : i + 41])
        view.append_stream(msg.id, para[i : i + 41])
    assert longest_tail_paragraph(view, msg.id) <= BREAK_LIMIT + 16
    # The display breaks are display only: the message's text is untouched,
    # and the final view shows the paragraph's text exactly.
    assert msg.content == para
    msg.status = MessageStatus.COMPLETE
    with qtbot.waitSignal(view.message_settled, timeout=20000):
        view.finish_stream(msg.id)
    assert view.probe.message_text(msg.id).replace("\n", "") == para
    assert "\ufffd" not in view.probe.message_text(msg.id)


def test_history_is_virtualized_and_costs_no_layout_off_screen(qtbot, view) -> None:
    msgs = history_messages(2000)
    with qtbot.waitSignal(view.viewport_ready, timeout=20000):
        view.add_messages(msgs)
    # The screen can be ready before the last of the messages is added (they
    # go in in slices, and the first screen is built meanwhile).
    qtbot.waitUntil(lambda: view.item_count() == 2000 and not view.busy, timeout=20000)
    # Only what is near the viewport holds documents.
    live = view.probe.live_document_count()
    assert 0 < live < 200, live
    # Scrolling to the top builds documents there and drops the far ones.
    with qtbot.waitSignal(view.viewport_ready, timeout=20000):
        view.verticalScrollBar().setValue(0)
    assert view.probe.live_document_count() < 250
    assert view.probe.holds_documents(msgs[0].id) and not view.probe.holds_documents(msgs[-1].id)


def test_scroll_position_holds_when_items_above_are_measured(qtbot, view) -> None:
    msgs = history_messages(400)
    with qtbot.waitSignal(view.viewport_ready, timeout=20000):
        view.add_messages(msgs)
    sb = view.verticalScrollBar()
    target = msgs[200].id
    with qtbot.waitSignal(view.viewport_ready, timeout=20000):
        view.scroll_to_message(target)
    qtbot.waitUntil(lambda: not view.busy, timeout=20000)
    y_before = view.probe.point_of_text(target, "turn 100")
    # Items above get laid out (their estimates replaced by real heights):
    # what the user looks at does not move.
    for message in msgs[150:200]:
        view.probe.lay_out(message.id)
    y_after = view.probe.point_of_text(target, "turn 100")
    assert y_before is not None and y_after is not None
    assert abs(y_after.y() - y_before.y()) < 1.0
    assert sb.value() > 0


def test_copy_message_and_code(qtbot, view) -> None:
    msg = stream(qtbot, view, SAMPLE_MARKDOWN, piece=500)
    clipboard = QGuiApplication.clipboard()
    point = view.probe.footer_action_point(msg.id, "copy")
    assert point is not None
    with qtbot.waitSignal(view.copied, timeout=2000):
        qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=point.toPoint())
    assert clipboard.text() == SAMPLE_MARKDOWN
    # Scroll the first code block into view and press its Copy button.
    view.scroll_to_message(msg.id)
    qtbot.waitUntil(lambda: view.probe.code_copy_point(msg.id) is not None, timeout=5000)
    view.verticalScrollBar().setValue(view.verticalScrollBar().value() + int(view.probe.code_copy_point(msg.id).y()) - 40)
    point = view.probe.code_copy_point(msg.id)
    with qtbot.waitSignal(view.copied, timeout=2000) as blocker:
        qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=point.toPoint())
    code = SAMPLE_MARKDOWN.split("```python\n", 1)[1].split("\n```", 1)[0]
    assert blocker.args == ["code", code]
    assert clipboard.text() == code


def test_select_all_and_copy_take_every_message(qtbot, view) -> None:
    msgs = history_messages(300)
    view.add_messages(msgs)
    view.setFocus()
    qtbot.keyClick(view, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClick(view, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    copied = QGuiApplication.clipboard().text()
    assert copied == "\n\n".join(m.content for m in msgs)


def test_notices_are_their_own_items_and_never_enter_a_reply(qtbot, view) -> None:
    msg = Message("assistant", status=MessageStatus.STREAMING)
    view.add_message(msg)
    msg.append("first part ")
    view.append_stream(msg.id, "first part ")
    view.add_notice("Could not load the model.", "error")
    msg.append("second part")
    view.append_stream(msg.id, "second part")
    msg.status = MessageStatus.COMPLETE
    with qtbot.waitSignal(view.message_settled, timeout=10000):
        view.finish_stream(msg.id)
    assert view.probe.message_text(msg.id) == "first part second part"
    assert view.probe.notice_texts() == ["Could not load the model."]


def test_clear_forgets_everything_and_late_renders_are_ignored(qtbot, view) -> None:
    msg = Message("assistant", status=MessageStatus.STREAMING)
    view.add_message(msg)
    msg.append(SAMPLE_MARKDOWN)
    view.append_stream(msg.id, SAMPLE_MARKDOWN)
    view.finish_stream(msg.id)
    view.clear()
    assert view.item_count() == 0
    # The final render may still arrive: it must find nothing to change.
    qtbot.waitUntil(lambda: view.render_service.pending() == 0, timeout=10000)
    QApplication.processEvents()
    assert view.item_count() == 0 and view.probe.live_document_count() == 0


def test_find_highlights_matches_in_messages_without_layout(qtbot, view) -> None:
    from app.ui.conversation.find_bar import FindBar

    msgs = history_messages(600)
    view.add_messages(msgs)
    bar = FindBar(lambda: msgs)
    qtbot.addWidget(bar)
    with qtbot.waitSignal(bar.search_finished, timeout=10000) as blocker:
        bar.edit.setText("turn 10)")
    assert blocker.args == [1]
    target = next(m for m in msgs if "(turn 10)" in m.content)
    assert bar.matches == [(target.id, 0)]
    # The match is far above the viewport (no layout there): selecting it
    # scrolls there and builds it.
    bar.match_selected.connect(lambda mid, nth: (view.scroll_to_message(mid), view.set_find("turn 10)", (mid, nth))))
    with qtbot.waitSignal(view.viewport_ready, timeout=10000):
        bar.find_next()
    assert view.probe.point_of_text(target.id, "turn 10)") is not None


def test_a_very_long_history_shows_its_end_at_once_and_the_rest_follows(qtbot, view) -> None:
    from app.ui.conversation.view import SYNC_HISTORY

    msgs = history_messages(SYNC_HISTORY * 3)
    with qtbot.waitSignal(view.history_completed, timeout=30000):
        view.add_messages(msgs)
        # The end (what the user sees) is there before the earlier messages.
        assert view.item_count() == SYNC_HISTORY
        assert view.message_ids()[-1] == msgs[-1].id
        assert view.at_bottom()
    assert view.message_ids() == [m.id for m in msgs], "every message, in order"
    assert view.at_bottom(), "putting the earlier messages in front did not move the view"
    with qtbot.waitSignal(view.viewport_ready, timeout=20000):
        view.verticalScrollBar().setValue(0)
    assert view.probe.point_of_text(msgs[0].id, "turn 0") is not None


def test_clear_while_earlier_history_is_being_prepared(qtbot, view) -> None:
    from app.ui.conversation.view import SYNC_HISTORY

    msgs = history_messages(SYNC_HISTORY * 3)
    with qtbot.waitSignal(view.history_completed, timeout=30000, raising=False):
        view.add_messages(msgs)
        view.clear()
    qtbot.waitUntil(lambda: not view.busy, timeout=30000)
    assert view.item_count() == 0


def test_resize_re_lays_out_what_is_on_screen_and_keeps_the_bottom(qtbot, view) -> None:
    msgs = history_messages(300)
    with qtbot.waitSignal(view.viewport_ready, timeout=20000):
        view.add_messages(msgs)
    last = msgs[-1].id
    assert view.probe.point_of_text(last, "##") or view.probe.point_of_text(last, "turn")
    view.resize(420, 500)
    qtbot.waitUntil(lambda: not view.busy, timeout=20000)
    assert view.at_bottom()
    assert view.probe.laid_out_at_width(last)


def test_a_long_open_block_streams_in_plain_pieces_and_the_tail_stays_short(qtbot, view, monkeypatch) -> None:
    """An open block too long to render (it is plain when whole too) leaves
    the tail as it settles: the tail document never holds it all."""
    from app.core.render.blocks import PLAIN_PIECE, RENDER_LIMIT
    from app.ui.conversation import stream_flow

    monkeypatch.setattr(stream_flow, "COMMIT_SCAN_S", 0.0)  # look for commits at every append
    text = "".join(f"line {k:05d} of a long block\n" for k in range(3000))  # ~84 KB, no blank line
    msg = Message("assistant", status=MessageStatus.STREAMING)
    view.add_message(msg)
    item = view._item(msg.id)
    longest_tail = 0
    for i in range(0, len(text), 2000):
        msg.append(text[i : i + 2000])
        view.append_stream(msg.id, text[i : i + 2000])
        qtbot.waitUntil(lambda: item.commit_asked == item.committed, timeout=10000)  # the commit is in
        longest_tail = max(longest_tail, item.tail.characterCount())
    assert longest_tail < RENDER_LIMIT + 4 * PLAIN_PIECE, "the tail never held the whole block"
    assert len(item.units) > 50 and all(u.unit.kind == "plain" for u in item.units)
    assert view.probe.message_text(msg.id) == text, "shown while streaming: every line, in order"
    msg.status = MessageStatus.COMPLETE
    with qtbot.waitSignal(view.message_settled, timeout=20000, check_params_cb=lambda mid: mid == msg.id):
        view.finish_stream(msg.id)
    assert view.probe.message_text(msg.id) == text.rstrip("\n"), "too long to render: plain, every line kept"


def test_a_finished_long_reply_leaves_no_document_behind(qtbot, view) -> None:
    """The tail and every unit document nobody shows are freed."""
    text = "\n\n".join(f"Paragraph {k} with *some* text." for k in range(400))
    msg = stream(qtbot, view, text, 500)
    qtbot.waitUntil(lambda: len(view.findChildren(QTextDocument)) <= view.probe.live_document_count() + 1)
    assert view.probe.live_document_count() < 60, "only the units near the viewport hold documents"
    assert view._item(msg.id).tail is None


def test_a_burst_of_text_is_committed_in_bounded_pieces(qtbot, view, monkeypatch) -> None:
    """A long block and the blocks after it arriving at once (a fast server,
    a backlog) are committed at most about COMMIT_MAX_CHARS at a time: each
    commit's text is cut off the tail's front in one Qt call."""
    from app.core.render.blocks import PLAIN_PIECE
    from app.ui.conversation.streaming import COMMIT_MAX_CHARS

    sizes: list[int] = []
    request = view._render.request

    def recorded(job, priority=0):
        sizes.append(len(job.text))
        request(job, priority)

    monkeypatch.setattr(view._render, "request", recorded)
    block = "".join(f"line {k:05d} of a long block\n" for k in range(3000))  # ~84 KB, one block
    rest = "\n\n".join(f"Paragraph {k}." for k in range(2000))  # ~30 KB of short blocks
    msg = Message("assistant", status=MessageStatus.STREAMING)
    view.add_message(msg)
    for piece in (block[:20_000], block[20_000:] + "\n" + rest):
        msg.append(piece)
        view.append_stream(msg.id, piece)
    item = view._item(msg.id)
    qtbot.waitUntil(lambda: item.committed >= len(block) + 20_000, timeout=20000)
    stream_sizes = sizes[:]
    assert stream_sizes and max(stream_sizes) <= COMMIT_MAX_CHARS + PLAIN_PIECE, stream_sizes
    msg.status = MessageStatus.COMPLETE
    with qtbot.waitSignal(view.message_settled, timeout=20000, check_params_cb=lambda mid: mid == msg.id):
        view.finish_stream(msg.id)
    assert view.probe.message_text(msg.id).startswith("line 00000 of a long block\nline 00001")


def test_a_burst_of_formulas_is_committed_a_few_formulas_at_a_time(qtbot, view, monkeypatch) -> None:
    """Typesetting is a render's slow part: a backlog of blocks full of math
    goes in commits of about COMMIT_MAX_FORMULAS formulas (at least one block
    each), so that images keep coming instead of one long wait; the reply
    ends exactly as a one-shot render of it."""
    from app.core.render.mathscan import find_math
    from app.ui.conversation.streaming import COMMIT_MAX_FORMULAS

    jobs: list[str] = []
    request = view._render.request

    def recorded(job, priority=0):
        if job.kind == "stream":
            jobs.append(job.text)
        request(job, priority)

    monkeypatch.setattr(view._render, "request", recorded)
    one_block = "Eleven at once: " + " ".join(f"$x_{{{k}}}$" for k in range(11)) + "\n\n"
    text = one_block + "\n\n".join(f"Step {k}: $a_{{{k}}}$ and $\\frac{{{k}}}{{2}}$." for k in range(40)) + "\n\nEnd"
    msg = Message("assistant", status=MessageStatus.STREAMING)
    view.add_message(msg)
    msg.append(text)
    view.append_stream(msg.id, text)
    item = view._item(msg.id)
    qtbot.waitUntil(lambda: item.committed >= len(text) - 3, timeout=30000)
    counts = [len(find_math(t)) for t in jobs]
    assert counts[0] == 11  # one block is never split, however many formulas it has
    assert len(jobs) >= 5 and max(counts[1:]) <= COMMIT_MAX_FORMULAS, counts
    assert "".join(jobs) == text[: len("".join(jobs))]  # in order, nothing skipped


def test_a_table_in_pieces_lines_up_and_copies_as_one(qtbot, view) -> None:
    from app.ui.conversation.items import Pos

    msg = stream(qtbot, view, LONG_TABLE, piece=500)
    index = view._list.index[msg.id]
    units = view._list.items[index].units
    tables = [n for n, u in enumerate(units) if u.unit.body.startswith("<table")]
    assert [units[n].unit.cont for n in tables] == [False, True, True]
    for n in tables:  # built as the view builds them
        if units[n].doc is None:
            units[n].doc = view._docs.build_unit(units[n].unit).doc
    lefts = []
    for n in tables:
        doc = units[n].doc
        table = QTextCursor(doc.findBlockByNumber(1)).currentTable()
        lefts.append([round(doc.documentLayout().blockBoundingRect(table.cellAt(0, c).firstCursorPosition().block()).x())
                      for c in range(table.columns())])
    assert lefts[0] == lefts[1] == lefts[2], "the columns line up from piece to piece"
    # A selection from the table's start to the end of its second piece.
    end = units[tables[1]].doc.characterCount() - 1
    view._sel.anchor, view._sel.cursor = Pos(index, tables[0], 0), Pos(index, tables[1], end)
    whole = one_shot(LONG_TABLE)
    start = whole.index("\nName")
    assert view.selected_text() == whole[start : whole.index("r10 c")]
