"""The prompt area: large pastes become attachments, never editor text."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from PyQt6.QtCore import QByteArray, QLocale, QMimeData, QPoint, QPointF, Qt, QUrl
from PyQt6.QtGui import QDragEnterEvent, QDragMoveEvent, QDropEvent
from PyQt6.QtWidgets import QApplication

from app.ui.conversation.prompt import (
    PASTE_INLINE_LIMIT,
    PASTE_LINE_LIMIT,
    PREVIEW_CHARS,
    AttachmentChip,
    PromptArea,
    ascii_space_bounds,
    mime_text,
    preview,
)

FOUR_MB = 4 * 1024 * 1024


def _big_text(n_chars: int = FOUR_MB) -> str:
    """Lines of mixed scripts (astral characters too), exactly ``n_chars`` long."""
    line = "{:07d} the quick brown fox — café 中文 😀 <b>markup</b>\n"
    parts, total, i = [], 0, 0
    while total < n_chars:
        part = line.format(i)
        parts.append(part)
        total += len(part)
        i += 1
    return "".join(parts)[:n_chars]


@pytest.fixture
def area(qtbot) -> PromptArea:
    widget = PromptArea()
    qtbot.addWidget(widget)
    widget.resize(700, 220)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def _paste(area: PromptArea, text: str) -> None:
    QApplication.clipboard().setText(text)
    area.editor.paste()


def _drop(area: PromptArea, text: str) -> None:
    """What a drag from another application delivers: enter, move, drop."""
    mime = QMimeData()
    mime.setText(text)
    args = (Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    viewport = area.editor.viewport()
    for event in (QDragEnterEvent(QPoint(10, 10), *args), QDragMoveEvent(QPoint(12, 10), *args)):
        QApplication.sendEvent(viewport, event)
        assert event.isAccepted()
    drop = QDropEvent(QPointF(12, 10), *args)
    QApplication.sendEvent(viewport, drop)
    assert drop.isAccepted()


def test_a_4_mb_paste_becomes_one_attachment_and_the_editor_stays_empty(qtbot, area) -> None:
    big = _big_text()
    with qtbot.waitSignal(area.attachments_changed, timeout=5000):
        _paste(area, big)
    assert area.editor.toPlainText() == ""
    assert area.editor.document().characterCount() == 1, "nothing was laid out in the editor"
    assert len(area.chips()) == 1 and area.chips_row.isVisible()
    assert area.attachments() == (big,)
    assert area.text() == big, "the full 4 MB, character for character"


def test_text_is_the_typed_message_then_each_attachment_after_a_blank_line(qtbot, area) -> None:
    first, second = _big_text(PASTE_INLINE_LIMIT + 1), "y" * 20_000
    qtbot.keyClicks(area.editor, "Summarise these:")
    with qtbot.waitSignal(area.attachments_changed, timeout=5000):
        _paste(area, first)
    with qtbot.waitSignal(area.attachments_changed, timeout=5000):
        _drop(area, second)
    assert area.editor.toPlainText() == "Summarise these:"
    assert area.text() == "Summarise these:\n\n" + first + "\n\n" + second
    area.editor.setPlainText("   ")
    assert area.text() == first + "\n\n" + second, "blank typed text is left out"


def test_removing_the_chip_drops_the_attachment(qtbot, area) -> None:
    qtbot.keyClicks(area.editor, "hello")
    with qtbot.waitSignal(area.attachments_changed, timeout=5000):
        _paste(area, _big_text(100_000))
    chip = area.chips()[0]
    with qtbot.waitSignal(area.attachments_changed, timeout=5000):
        qtbot.mouseClick(chip.remove_button, Qt.MouseButton.LeftButton)
    assert area.chips() == () and area.attachments() == ()
    assert not area.chips_row.isVisible()
    assert area.text() == "hello"
    qtbot.waitUntil(lambda: not area.findChildren(AttachmentChip), timeout=2000)


def test_a_small_paste_goes_inline(qtbot, area) -> None:
    with qtbot.assertNotEmitted(area.attachments_changed):
        _paste(area, "hello, world\nsecond line")
    assert area.editor.toPlainText() == "hello, world\nsecond line"
    assert area.chips() == ()
    assert area.text() == "hello, world\nsecond line"


def test_the_inline_limit_is_a_number_of_characters(qtbot, area) -> None:
    lines = ("z" * 99 + "\n") * (PASTE_INLINE_LIMIT // 100 + 1)
    at_limit = lines[:PASTE_INLINE_LIMIT]
    with qtbot.assertNotEmitted(area.attachments_changed):
        _paste(area, at_limit)
    assert area.editor.toPlainText() == at_limit
    area.clear()
    with qtbot.waitSignal(area.attachments_changed, timeout=5000):
        _paste(area, at_limit + "z")
    assert area.editor.toPlainText() == "" and area.attachments() == (at_limit + "z",)


def test_a_20000_character_line_without_spaces_becomes_an_attachment(qtbot, area) -> None:
    line = "QmFzZTY0" * 2500
    with qtbot.waitSignal(area.attachments_changed, timeout=5000):
        _paste(area, line)
    assert area.editor.toPlainText() == "" and area.attachments() == (line,)


def test_a_short_paste_with_one_overlong_line_becomes_an_attachment(qtbot, area) -> None:
    ok = "short line\n" + "中" * PASTE_LINE_LIMIT + "\nend"
    with qtbot.assertNotEmitted(area.attachments_changed):
        _paste(area, ok)
    assert area.editor.toPlainText() == ok
    area.clear()
    too_long = "short line\r\n" + "中" * (PASTE_LINE_LIMIT + 1) + "\r\nend"
    assert len(too_long) <= PASTE_INLINE_LIMIT
    with qtbot.waitSignal(area.attachments_changed, timeout=5000):
        _paste(area, too_long)
    assert area.editor.toPlainText() == "" and area.text() == too_long


def test_dropped_text_takes_the_same_path(qtbot, area) -> None:
    _drop(area, "dropped")
    assert area.editor.toPlainText() == "dropped"
    big = _big_text(500_000)
    with qtbot.waitSignal(area.attachments_changed, timeout=5000):
        _drop(area, big)
    assert area.editor.toPlainText() == "dropped" and area.attachments() == (big,)
    assert area.editor.canInsertFromMimeData(QMimeData()) is False
    mime = QMimeData()
    mime.setText(big)
    assert area.editor.canInsertFromMimeData(mime)


def test_the_chip_shows_size_and_tokens_and_a_short_escaped_preview(qtbot, area) -> None:
    text = ("<b>not bold</b> " + "lorem ipsum " * 400_000)[:FOUR_MB]
    with qtbot.waitSignal(area.attachments_changed, timeout=5000):
        _paste(area, text)
    chip = area.chips()[0]
    # 4,194,304 bytes (SI: 4.2 MB); 4,194,304 / 3.5 = 1,198,373 tokens.
    assert chip.label.text() == "Pasted text · 4.2 MB · ≈1.2 M tokens"
    tip = chip.label.toolTip()
    assert "&lt;b&gt;not bold&lt;/b&gt; lorem ipsum" in tip and "…" in tip
    assert len(tip) < 400, "the tooltip holds a preview, not the text"


def test_mime_text_reads_what_qmimedata_text_reads() -> None:
    text = "a\r\nb 中文 😀 \u2029 end"
    mime = QMimeData()
    mime.setText(text)
    assert mime_text(mime) == text
    not_utf8 = QMimeData()
    not_utf8.setData("text/plain", QByteArray(b"caf\xe9"))
    assert mime_text(not_utf8) == not_utf8.text()
    urls = QMimeData()
    urls.setUrls([QUrl("https://example.org/a")])
    assert mime_text(urls) == urls.text() == "https://example.org/a"


def test_a_paste_long_enough_for_an_attachment_comes_without_space_at_its_ends() -> None:
    """Trimmed before it is decoded, so sending it copies nothing (the message
    is stripped anyway); a short paste keeps its white space."""
    body = _big_text(4 * PASTE_INLINE_LIMIT + 10)
    mime = QMimeData()
    mime.setText("\n \t" + body + " \r\n\n")
    assert mime_text(mime) == body.strip()
    mime.setText("  short  \n")
    assert mime_text(mime) == "  short  \n"
    mime.setText(" " * (4 * PASTE_INLINE_LIMIT + 1))
    assert mime_text(mime) == ""


@given(st.binary(max_size=40), st.integers(min_value=0, max_value=9), st.integers(min_value=0, max_value=9))
def test_ascii_space_bounds_are_those_of_bytes_strip(core: bytes, before: int, after: int) -> None:
    from app.ui.conversation import prompt

    data = b" \t" * before + core + b"\n\r\x0b\x0c" * after
    saved = prompt._SCAN
    prompt._SCAN = 3  # pieces smaller than the space runs
    try:
        start, end = ascii_space_bounds(memoryview(data))
    finally:
        prompt._SCAN = saved
    stripped = data.strip(b" \t\n\r\x0b\x0c")
    assert data[start:end] == stripped
    assert start == len(data) - len(data.lstrip(b" \t\n\r\x0b\x0c")) or not stripped


def test_preview_is_elided_on_whole_characters() -> None:
    assert preview("short\n\ttext") == "short text"
    thumbs = "👍🏽" * 100  # one cluster = two code points
    assert preview(thumbs) == "👍🏽" * PREVIEW_CHARS + "…"
    assert preview("x" * PREVIEW_CHARS) == "x" * PREVIEW_CHARS


def test_over_limit_warning_follows_the_context_limit(qtbot, area) -> None:
    assert not area.over_limit()
    with qtbot.waitSignal(area.attachments_changed, timeout=5000):
        _paste(area, "lorem ipsum " * 350_000)  # 4.2 MB of ASCII
    assert not area.warning.isVisible() and not area.over_limit(), "no limit known: no warning"
    area.set_context_limit(4096)
    assert area.over_limit()
    assert area.warning.isVisible() and area.warning.objectName() == "promptWarning"
    message = area.warning.text()
    assert "about 1.2 M tokens" in message and QLocale().toString(4096) in message
    assert "Remove the attachment" in message
    area.set_context_limit(None)
    assert not area.warning.isVisible() and not area.over_limit()
    area.set_context_limit(4096)
    assert area.warning.isVisible()
    with qtbot.waitSignal(area.attachments_changed, timeout=5000):
        area.chips()[0].remove_button.click()
    assert not area.warning.isVisible() and not area.over_limit()


def test_typed_text_over_the_limit_warns_too(qtbot, area) -> None:
    area.set_context_limit(5)
    qtbot.keyClicks(area.editor, "a fairly long message")  # 21 chars / 3.5 = 6 tokens
    assert area.over_limit() and area.warning.isVisible()
    assert "Send a shorter message." in area.warning.text()
    area.set_context_limit(100)
    assert not area.warning.isVisible()


def test_a_long_typed_text_is_re_estimated_after_a_pause(qtbot, area) -> None:
    area.set_context_limit(12_000)
    area.editor.setPlainText("word " * 10_000)  # 50,000 characters (14,286 tokens): estimated after a pause
    assert area.over_limit(), "asking is always up to date"
    qtbot.waitUntil(area.warning.isVisible, timeout=2000)
    area.editor.setPlainText("word " * 7_000)  # 10,000 tokens
    qtbot.waitUntil(lambda: not area.warning.isVisible(), timeout=2000)
    assert not area.over_limit()


def test_clear_empties_editor_and_attachments(qtbot, area) -> None:
    qtbot.keyClicks(area.editor, "typed")
    with qtbot.waitSignal(area.attachments_changed, timeout=5000):
        _paste(area, "x" * 50_000)
    area.set_context_limit(10)
    assert area.warning.isVisible()
    with qtbot.waitSignal(area.attachments_changed, timeout=5000):
        area.clear()
    assert area.editor.toPlainText() == "" and area.attachments() == () and area.chips() == ()
    assert area.text() == "" and not area.warning.isVisible() and not area.over_limit()


def test_enter_sends_and_shift_enter_starts_a_new_line(qtbot, area) -> None:
    qtbot.keyClicks(area.editor, "hi")
    with qtbot.waitSignal(area.submit_requested, timeout=2000):
        qtbot.keyClick(area.editor, Qt.Key.Key_Return)
    with qtbot.waitSignal(area.editor.submit_requested, timeout=2000):
        qtbot.keyClick(area.editor, Qt.Key.Key_Enter, Qt.KeyboardModifier.KeypadModifier)
    assert area.editor.toPlainText() == "hi"
    with qtbot.assertNotEmitted(area.submit_requested):
        qtbot.keyClick(area.editor, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    assert area.editor.toPlainText() == "hi\n"


def test_every_control_has_an_accessible_name_and_a_tooltip(qtbot, area) -> None:
    with qtbot.waitSignal(area.attachments_changed, timeout=5000):
        _paste(area, "x" * 50_000)
    area.set_context_limit(10)
    chip = area.chips()[0]
    for widget in (area.editor, area.chips_row, area.warning, chip, chip.label, chip.remove_button):
        assert widget.accessibleName(), widget.objectName()
        assert widget.toolTip(), widget.objectName()
    assert area.accessibleName()
    assert "50 KB" in chip.remove_button.accessibleName()


def test_many_chips_wrap_instead_of_widening_the_window(qtbot, area) -> None:
    for n in (20_000, 200_000, 2_000_000, 3_000_000):
        with qtbot.waitSignal(area.attachments_changed, timeout=5000):
            _paste(area, "x" * n)
    area.resize(420, 300)
    chip_height = area.chips()[0].sizeHint().height()
    qtbot.waitUntil(lambda: area.chips_row.height() > 2 * chip_height, timeout=2000)
    assert area.minimumSizeHint().width() < 420
    assert all(area.chips_row.rect().contains(chip.geometry()) for chip in area.chips())
