"""Units (app.core.render.blocks) as Qt shows them: one small QTextDocument per unit.

The property: the units' documents, read one after the other, show the text one
``setHtml`` of the whole message shows. Qt's HTML importer differs at element
joins in three ways, found by the property tests below and pinned one by one:

1. A table cannot be the first thing in a document: a document whose first
   element is a table starts with an empty block in its default format. In one
   document that block exists only at the very start. Every table is followed
   by an empty block in both cases.
2. The importer reuses an empty block for the next element (its ``hasBlock``):
   when an element ends with an empty block -- an empty heading or code block,
   ``<li></li>``, a blockquote ending in one, a table whose last cell is empty
   (then the block after the table) -- the next element takes that line, so in
   one document the empty line is gone. A table never takes it over: it is put
   after it.
3. One document only: an empty ``<pre>`` followed by ``<blockquote>\\n`` shows an
   extra line holding one space (the newline lands in the reused ``<pre>``
   block). The per-unit documents do not have it; the reference removes it.
"""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import re  # noqa: E402 - imported once the offscreen platform is chosen

import pytest  # noqa: E402 - imported once the offscreen platform is chosen
from hypothesis import HealthCheck, given, settings  # noqa: E402 - imported once the offscreen platform is chosen
from PyQt6.QtGui import QTextBlock, QTextBlockFormat, QTextCursor, QTextDocument, QTextFormat  # noqa: E402 - imported once the offscreen platform is chosen
from PyQt6.QtWidgets import QApplication  # noqa: E402 - imported once the offscreen platform is chosen

from app.core.backends.scripted import SAMPLE_MARKDOWN  # noqa: E402 - imported once the offscreen platform is chosen
from app.core.render.blocks import Unit, render_units, user_units  # noqa: E402 - imported once the offscreen platform is chosen
from app.core.render.markdown import render_markdown  # noqa: E402 - imported once the offscreen platform is chosen
from app.ui.misc.theme import DARK, LIGHT  # noqa: E402 - imported once the offscreen platform is chosen
from tests.core.render.test_blocks import HOSTILE, TRICKY_CODE, documents  # noqa: E402 - imported once the offscreen platform is chosen

_HR = QTextFormat.Property.BlockTrailingHorizontalRulerWidth
_EMPTY_PRE_THEN_QUOTES = re.compile(r"<pre[^>]*></pre>\n(?:<blockquote>\n)+")


# ------------------------------------------------------------------ helpers


def unit_doc(unit: Unit, css: str = "") -> QTextDocument:
    """The unit in a document as the view makes it (the theme's code style sheet)."""
    doc = QTextDocument()
    doc.setDefaultStyleSheet(css or LIGHT.code_css())
    if unit.kind == "plain":
        doc.setPlainText(unit.body)
    else:
        doc.setHtml(unit.body)
    return doc


def one_shot_text(text: str) -> str:
    """What one QTextDocument of the whole message shows, minus Qt quirk 3."""
    html = _EMPTY_PRE_THEN_QUOTES.sub(lambda m: m.group(0).replace("<blockquote>\n", "<blockquote>"), render_markdown(text))
    doc = QTextDocument()
    doc.setHtml(html)
    return doc.toPlainText()


def _table_at(block: QTextBlock) -> int | None:
    table = QTextCursor(block).currentTable()
    return None if table is None else table.firstPosition()


def starts_with_table(doc: QTextDocument) -> bool:
    """Quirk 1: the first block is Qt's untouched initial block, a table follows."""
    first = doc.firstBlock()
    return (
        first.text() == ""
        and first.blockFormat() == QTextBlockFormat()
        and _table_at(first) is None
        and first.next().isValid()
        and _table_at(first.next()) is not None
    )


def ends_with_reusable_block(doc: QTextDocument) -> bool:
    """Quirk 2: the last block the importer made is empty and not a horizontal
    rule. The block after a table is Qt's, not the importer's, while no element
    took it over (its format is still the default): look into the last cell."""
    block = doc.lastBlock()
    while (
        block.text() == ""
        and block.blockFormat() == QTextBlockFormat()
        and block.previous().isValid()
        and _table_at(block.previous()) is not None
        and _table_at(block.previous()) != _table_at(block)
    ):
        block = block.previous()
    return block.text() == "" and not block.blockFormat().hasProperty(_HR)


def per_unit_text(units: tuple[Unit, ...]) -> str:
    """The units' documents read in order, joined with '\\n' (a table's
    pieces with nothing, as the view joins them), Qt quirks 1-2 applied."""
    docs = [unit_doc(u) for u in units]
    texts = [d.toPlainText() for d in docs]
    table_first = [starts_with_table(d) for d in docs]
    out = []
    for k, (doc, text) in enumerate(zip(docs, texts, strict=False)):
        if k > 0 and table_first[k]:
            assert text.startswith("\n")
            text = text[1:]  # quirk 1: only a document's very start has that block
        if k + 1 < len(docs) and not table_first[k + 1] and ends_with_reusable_block(doc):
            if text == "":
                continue  # quirk 2: the next element takes this (only) line
            assert text.endswith("\n")
            text = text[:-1]  # quirk 2: the next element takes the last line
        if out and units[k].kind == "html" and units[k].cont:
            out[-1] += text  # a table's later piece: its rows go on from the piece before
            continue
        out.append(text)
    return "\n".join(out)


# -------------------------------------------------------------------- tests


@pytest.mark.parametrize("text", [SAMPLE_MARKDOWN, HOSTILE], ids=["sample", "hostile"])
def test_units_show_what_one_document_shows(qapp: QApplication, text: str) -> None:
    units = render_units(text)
    assert per_unit_text(units) == one_shot_text(text)


def test_sample_needs_only_the_table_adjustment(qapp: QApplication) -> None:
    units = render_units(SAMPLE_MARKDOWN)
    plain = [unit_doc(u).toPlainText() for u in units]
    table = next(i for i, u in enumerate(units) if u.body.startswith("<table"))
    assert plain[table].startswith("\nStage\nThread\n") and plain[table].endswith("O(1) per tick\n")
    plain[table] = plain[table][1:]
    assert "\n".join(plain) == one_shot_text(SAMPLE_MARKDOWN)


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents(messy=True))
def test_units_show_what_one_document_shows_property(qapp: QApplication, doc: tuple[str, list[str]]) -> None:
    text = doc[0]
    assert per_unit_text(render_units(text)) == one_shot_text(text)


@pytest.mark.parametrize(
    ("text", "per_unit", "one_shot"),
    [
        # quirk 1 and the block after every table
        ("para\n\n| a |\n|---|\n| 1 |\n\nafter", ["para", "\na\n1\n", "after"], "para\na\n1\n\nafter"),
        # quirk 2: empty elements and a table with an empty last cell
        ("para\n\n#\n\nafter", ["para", "", "after"], "para\nafter"),
        ("```\n```\n\nafter", ["", "after"], "after"),
        ("| a |\n|---|\n| |\n\nafter", ["\na\n\n", "after"], "\na\n\nafter"),
        ("> a\n>\n> #\n\nafter", ["a\n", "after"], "a\nafter"),
        ("para\n\n---\n\nafter", ["para", "", "after"], "para\n\nafter"),  # an <hr> keeps its line
    ],
)
def test_the_join_quirks(qapp: QApplication, text: str, per_unit: list[str], one_shot: str) -> None:
    units = render_units(text)
    assert [unit_doc(u).toPlainText() for u in units] == per_unit
    assert one_shot_text(text) == one_shot
    assert per_unit_text(units) == one_shot


def test_quirk_3_empty_pre_before_a_blockquote(qapp: QApplication) -> None:
    text = "```\n```\n\n> quote"
    doc = QTextDocument()
    doc.setHtml(render_markdown(text))
    assert doc.toPlainText() == " \nquote"  # Qt, one document: a stray space line
    assert [unit_doc(u).toPlainText() for u in render_units(text)] == ["", "quote"]
    assert one_shot_text(text) == "quote"


@pytest.mark.parametrize("theme", [LIGHT, DARK], ids=["light", "dark"])
def test_a_code_unit_has_one_block_background(qapp: QApplication, theme) -> None:
    background = theme.colors["code_bg"]
    text = f"Intro\n\n```python\n{TRICKY_CODE}```\n\n```\nplain <code>\n\n  second\n```\n\n    indented\n"
    codes = [u for u in render_units(text + "\n" + SAMPLE_MARKDOWN) if u.kind == "code"]
    assert len(codes) == 6
    for unit in codes:
        doc = unit_doc(unit, theme.code_css())
        colors = set()
        block = doc.firstBlock()
        while block.isValid():
            colors.add(block.blockFormat().background().color().name())
            block = block.next()
        assert colors == {background}, unit.body[:80]
    # What Qt shows of a fenced block is the code; copy keeps tabs and blank edges.
    assert unit_doc(codes[1]).toPlainText() == "plain <code>\n\n  second" == codes[1].copy
    assert unit_doc(codes[0]).toPlainText() == TRICKY_CODE.strip("\n").expandtabs(4).replace("\n   \n", "\n\n")


def test_plain_units_show_their_text(qapp: QApplication) -> None:
    text = ("line of a long paste <b>not bold</b> & 你好\n" * 400) + "x" * 2500
    units = user_units(text)
    assert len(units) > 10 and {u.kind for u in units} == {"plain"}
    shown = [unit_doc(u).toPlainText() for u in units]
    # A piece cut at a newline keeps it: Qt shows an empty last line for it.
    assert all(s == u.body for s, u in zip(shown, units, strict=False))
    assert "".join(shown) == text


def test_short_user_text_keeps_lines_and_spaces(qapp: QApplication) -> None:
    (unit,) = user_units("a  <b>\r\n\r\n  c &amp;")
    assert unit_doc(unit).toPlainText().replace("\u2028", "\n") == "a  <b>\n\n  c &amp;"
