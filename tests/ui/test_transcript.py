"""The transcript's streaming append and in-place rendering, without a window."""

from __future__ import annotations

from PyQt6.QtGui import QTextBlockFormat, QTextCursor

from app.core.scripted import SAMPLE_MARKDOWN
from app.ui.transcript import TranscriptView, utf16_len


def stream(view: TranscriptView, text: str, piece: int = 37, final: bool = True) -> None:
    view.begin_reply()
    for i in range(0, len(text), piece):
        view.append_reply_text(text[i : i + piece])
        view.commit_completed_blocks(budget_s=0.05)


def code_block_backgrounds(view: TranscriptView, needle: str) -> list[bool]:
    cursor = view.document().find(needle)
    assert not cursor.isNull(), needle
    block = cursor.block()
    return [block.blockFormat().hasProperty(QTextBlockFormat.Property.BackgroundBrush)]


def test_utf16_len_counts_astral_characters_twice() -> None:
    assert utf16_len("a你😀") == 4


def test_streamed_reply_renders_blocks_in_place_while_streaming(qtbot) -> None:  # type: ignore[no-untyped-def]
    view = TranscriptView()
    qtbot.addWidget(view)
    stream(view, SAMPLE_MARKDOWN)
    assert view.streaming
    text = view.toPlainText()
    # Completed blocks are rich text already; the unfinished last one is plain.
    assert "# Streaming" not in text and "Streaming, without the freeze" in text
    assert "```python" not in text
    assert text.rstrip().endswith("See [the Qt docs](https://doc.qt.io/) for more.")
    span = view.finalize_reply("")
    final = view.span_text(span)
    assert "See the Qt docs for more." in final
    assert view.span_links(span) == ["https://doc.qt.io/"]


def test_spliced_blocks_keep_their_own_formats(qtbot) -> None:  # type: ignore[no-untyped-def]
    view = TranscriptView()
    qtbot.addWidget(view)
    stream(view, SAMPLE_MARKDOWN)
    view.finalize_reply("")
    # The first line of a code block keeps the block's background (it must
    # not merge into the plain block it was inserted at).
    assert code_block_backgrounds(view, "def fibonacci") == [True]
    assert code_block_backgrounds(view, "return out[:n]") == [True]
    # The table keeps its shape.
    cursor = view.document().find("Produce")
    table = cursor.currentTable()
    assert table is not None and (table.rows(), table.columns()) == (4, 3)
    # A list starts right after its heading, with no empty block between.
    heading = view.document().find("A list").block()
    assert heading.next().textList() is not None


def test_emoji_before_a_cut_does_not_shift_the_splice(qtbot) -> None:  # type: ignore[no-untyped-def]
    view = TranscriptView()
    qtbot.addWidget(view)
    text = "😀😀 first **bold**\n\n👩‍💻 second *it*\n\nthird 你好"
    stream(view, text, piece=3)
    assert view.toPlainText().endswith("😀😀 first bold\n👩‍💻 second it\nthird 你好")
    span = view.finalize_reply("")
    assert view.span_text(span) == "😀😀 first bold\n👩‍💻 second it\nthird 你好"


def test_reference_links_defined_later_get_a_full_render(qtbot) -> None:  # type: ignore[no-untyped-def]
    view = TranscriptView()
    qtbot.addWidget(view)
    stream(view, "See [the docs][d].\n\nMore text.\n\n[d]: https://example.com/docs\n")
    span = view.finalize_reply("")
    assert view.span_links(span) == ["https://example.com/docs"]
    assert "[d]" not in view.span_text(span)


def test_appending_keeps_the_users_selection(qtbot) -> None:  # type: ignore[no-untyped-def]
    view = TranscriptView()
    qtbot.addWidget(view)
    view.add_user_message("pick this")
    view.setTextCursor(view.document().find("pick this"))
    view.begin_reply()
    for _ in range(50):
        view.append_reply_text("more words ")
    assert view.textCursor().selectedText() == "pick this"
    assert isinstance(view.textCursor(), QTextCursor)


def longest_block(view: TranscriptView) -> int:
    block, longest = view.document().begin(), 0
    while block.isValid():
        longest = max(longest, block.length())
        block = block.next()
    return longest


def test_overlong_paragraph_is_broken_for_display_and_rendered_whole(qtbot) -> None:  # type: ignore[no-untyped-def]
    view = TranscriptView()
    qtbot.addWidget(view)
    para = " ".join(f"w{i}" for i in range(1500))  # ~7,800 chars, one paragraph
    text = para + "\n\n**bold** after\n\nlast"
    view.begin_reply()
    pieces = [text[i : i + 23] for i in range(0, len(text), 23)]
    for piece in pieces[: len(para) // 23]:
        view.append_reply_text(piece)
    # While streaming, no paragraph of the tail grows far past the limit.
    assert longest_block(view) < 2100
    for piece in pieces[len(para) // 23 :]:
        view.append_reply_text(piece)
        view.commit_completed_blocks(budget_s=1.0)
    span = view.finalize_reply("")
    shown = view.span_text(span)
    # The splice accounted for the display-only breaks: the paragraph is one
    # block again, and the following blocks rendered in their place.
    assert shown == para + "\nbold after\nlast"


def test_pathologically_long_paragraph_stays_plain(qtbot) -> None:  # type: ignore[no-untyped-def]
    view = TranscriptView()
    qtbot.addWidget(view)
    para = " ".join(f"**w{i}**" for i in range(3000))  # ~25 K chars, over the render limit
    view.begin_reply()
    for i in range(0, len(para), 40):
        view.append_reply_text(para[i : i + 40])
    assert longest_block(view) < 2100
    span = view.finalize_reply("")
    assert view.span_text(span).replace("\n", "") == para


import pytest  # noqa: E402

TEXTS = [
    "\nHello world.\nSecond line.",
    "\n\nHello\n\nWorld\n",
    "  Indented start",
    "# Title\n\n- a\n- b\n\n```\ncode\n```\n\n| x | y |\n|---|---|\n| 1 | 2 |\n\nend",
    SAMPLE_MARKDOWN,
]


@pytest.mark.parametrize("piece", [1, 7, 100])
@pytest.mark.parametrize("text", TEXTS)
def test_streamed_reply_shows_what_a_one_shot_render_shows(qtbot, text: str, piece: int) -> None:  # type: ignore[no-untyped-def]
    streamed = TranscriptView()
    qtbot.addWidget(streamed)
    stream(streamed, text, piece=piece)
    got = streamed.span_text(streamed.finalize_reply(""))
    whole = TranscriptView()
    qtbot.addWidget(whole)
    want = whole.span_text(whole.add_rendered_reply(text))
    assert got == want
