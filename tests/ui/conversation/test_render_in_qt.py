"""render.py's HTML as Qt's rich-text engine actually shows it (offscreen)."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from collections.abc import Callable, Iterator  # noqa: E402 - imported once the offscreen platform is chosen

import pytest  # noqa: E402 - imported once the offscreen platform is chosen
from PyQt6.QtGui import (  # noqa: E402 - imported once the offscreen platform is chosen
    QTextBlock,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextTable,
)
from PyQt6.QtWidgets import QApplication  # noqa: E402 - imported once the offscreen platform is chosen

from app.core.render.markdown import render_markdown, render_user_text  # noqa: E402 - imported once the offscreen platform is chosen

HOSTILE = """# Title

Text <script>alert(1)</script> and <img src="file:///etc/passwd"> and <!-- c -->.

![pixel](http://tracker.example/p.png) ![local](file:///etc/passwd)

[ok](https://example.com/a) [js](javascript:alert(1)) [file](file:///etc/passwd)
[data](data:text/html,x) [rel](/x) <http://example.org/b> <me@example.com>
[ref][r]

[r]: JaVaScRiPt:alert(2)

```python
print("hello from code")
```

| a | b |
|---|---|
| 1 | 2 |
"""


def _document() -> QTextDocument:
    """A document with the light theme's code style sheet, as the view makes them."""
    from app.ui.misc.theme import LIGHT

    doc = QTextDocument()
    doc.setDefaultStyleSheet(LIGHT.code_css())
    return doc


def _set_html(html: str) -> QTextDocument:
    doc = _document()
    doc.setHtml(html)
    return doc


def _insert_html(html: str) -> QTextDocument:  # the transcript's path
    doc = _document()
    QTextCursor(doc).insertHtml(html)
    return doc


LOADERS = [pytest.param(_set_html, id="setHtml"), pytest.param(_insert_html, id="insertHtml")]


def blocks(doc: QTextDocument) -> Iterator[QTextBlock]:
    block = doc.begin()
    while block.isValid():
        yield block
        block = block.next()


def fragments(doc: QTextDocument) -> Iterator[tuple[str, QTextCharFormat]]:
    for block in blocks(doc):
        it = block.begin()
        while not it.atEnd():
            fragment = it.fragment()
            yield fragment.text(), fragment.charFormat()
            it += 1


@pytest.mark.parametrize("load", LOADERS)
def test_script_shows_literally(qapp: QApplication, load: Callable[[str], QTextDocument]) -> None:
    doc = load(render_markdown("<script>alert(1)</script>"))
    assert doc.toPlainText().strip() == "<script>alert(1)</script>"


@pytest.mark.parametrize("load", LOADERS)
def test_hostile_reply_shows_no_image_and_only_http_anchors(
    qapp: QApplication, load: Callable[[str], QTextDocument]
) -> None:
    doc = load(render_markdown(HOSTILE))
    text = doc.toPlainText()
    assert "<script>alert(1)</script>" in text
    assert '<img src="file:///etc/passwd">' in text  # shown as text, not loaded
    assert "<!-- c -->" in text
    assert 'print("hello from code")' in text
    assert "pixel local" in text  # images became their alt text
    assert "me@example.com" in text
    formats = [fmt for _, fmt in fragments(doc)]
    assert not any(fmt.isImageFormat() for fmt in formats)
    hrefs = {fmt.anchorHref() for fmt in formats if fmt.isAnchor() or fmt.anchorHref()}
    assert hrefs == {"https://example.com/a", "http://example.org/b"}
    linked = {t for t, fmt in fragments(doc) if fmt.anchorHref()}
    assert linked == {"ok", "http://example.org/b"}


@pytest.mark.parametrize("load", LOADERS)
def test_code_block_is_one_solid_background_and_table_has_borders(
    qapp: QApplication, load: Callable[[str], QTextDocument]
) -> None:
    doc = load(render_markdown("```python\nx = 1\n\ny = 2\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |"))
    code_blocks = list(blocks(doc))[:3]
    assert [b.text() for b in code_blocks] == ["x = 1", "", "y = 2"]
    backgrounds = {b.blockFormat().background().color().name() for b in code_blocks}
    assert backgrounds == {"#f6f8fa"}  # the blank line too: one solid box, no stripes
    colours = {fmt.foreground().color().name() for t, fmt in fragments(doc) if t.strip() == "="}
    assert colours - {"#000000"}  # highlighted
    (table,) = [f for f in doc.rootFrame().childFrames() if isinstance(f, QTextTable)]
    assert table.format().border() == 1 and table.format().cellSpacing() == 0
    assert (table.rows(), table.columns()) == (2, 2)


def test_ordered_list_start_survives(qapp: QApplication) -> None:
    doc = _set_html(render_markdown("3. third\n4. fourth"))
    lists = {b.textList().format().start() for b in blocks(doc) if b.textList()}
    assert lists == {3}


def test_user_text_keeps_lines_spaces_and_markup_literally(qapp: QApplication) -> None:
    typed = "**hi** <b>x</b>\n    indented  twice\n\nlast &amp;"
    doc = _insert_html(render_user_text(typed))
    assert doc.toPlainText() == typed
