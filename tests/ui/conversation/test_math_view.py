"""Formulas in the conversation view: images in the documents, copy, tooltip, colours."""

from __future__ import annotations

from PyQt6.QtCore import QPointF, QUrl
from PyQt6.QtGui import QColor, QFont, QTextDocument

from app.core.conversation.model import Message
from app.core.render.blocks import render_units
from app.core.render.mathsvg import render_formula
from app.ui.misc.math_images import MathImages, formula_at, formula_tip, text_with_formulas

REPLY = (
    "The roots are $x = \\frac{-b \\pm \\sqrt{b^2-4ac}}{2a}$ here.\n\n"
    "$$\n\\begin{pmatrix}1&2\\\\3&4\\end{pmatrix}\n$$\n\n"
    "Broken: \\(\\foo{x}\\) stays."
)


def _images(doc: QTextDocument) -> list[str]:
    names: list[str] = []
    block = doc.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fmt = it.fragment().charFormat()
            if fmt.isImageFormat():
                names.append(fmt.toImageFormat().name())
            it += 1
        block = block.next()
    return names


def _ink(image) -> list[QColor]:
    return [image.pixelColor(x, y) for y in range(image.height()) for x in range(image.width())
            if image.pixelColor(x, y).alpha() == 255]


def test_formulas_are_images_in_the_documents_and_copy_as_tex(qtbot, view) -> None:
    msgs = [Message("user", "roots?"), Message("assistant", REPLY)]
    with qtbot.waitSignal(view.viewport_ready, timeout=10000):
        view.add_messages(msgs)
    reply = msgs[1].id
    qtbot.waitUntil(lambda: len(view.probe.documents(reply)) == 3, timeout=10000)
    first, display, broken = view.probe.documents(reply)
    assert len(_images(first)) == 1 and _images(first)[0].startswith("rill-math:")
    assert first.resource(QTextDocument.ResourceType.ImageResource.value, QUrl(_images(first)[0])) is not None
    assert len(_images(display)) == 1 and _images(broken) == []
    assert "\\(\\foo{x}\\)" in broken.toPlainText()  # the source, in code style
    # A selection inside the first paragraph copies the formula's TeX.
    view.probe.select(reply, 0, first.characterCount() - 1)
    assert view.selected_text() == "The roots are $x = \\frac{-b \\pm \\sqrt{b^2-4ac}}{2a}$ here."
    # Copy message / a whole selection gives the Markdown source unchanged.
    view.select_all()
    assert view.selected_text() == f"roots?\n\n{REPLY}"
    # Over the broken formula, the tooltip says why.
    point = view.probe.point_of_text(reply, "\\foo")
    assert point is not None
    assert view.tooltip_at(point) == "Unknown command \\foo."


def test_tooltip_and_copy_on_a_bare_document(qapp) -> None:
    unit = render_units("a $x^2$ b \\(\\sqrt\\) c")[0]
    images, font = MathImages(), QFont()
    font.setPixelSize(14)
    doc = QTextDocument()
    doc.setDocumentMargin(0)  # as the view's documents
    images.add_to(doc, unit.math, font, QColor("black"), 1.0, 400)
    doc.setHtml(unit.body)
    doc.setTextWidth(400)
    assert doc.size().height() > 0  # laid out
    assert text_with_formulas(doc, 0, doc.characterCount() - 1, unit.math) == "a $x^2$ b \\(\\sqrt\\) c"
    block = doc.begin()
    line = block.layout().lineAt(0)
    code_at = doc.toPlainText().index("\\(") + 2
    x = line.cursorToX(code_at)[0]
    found = formula_at(doc, QPointF(x, line.y() + line.height() / 2), unit.math)
    assert found is not None and not found.ok and formula_tip(found).startswith("A command is missing")
    image_x = line.cursorToX(2)[0] + 2
    found = formula_at(doc, QPointF(image_x, line.y() + line.height() / 2), unit.math)
    assert found is not None and formula_tip(found) == "$x^2$"
    assert formula_at(doc, QPointF(1, 1), ()) is None


def test_images_follow_the_theme_colour_and_are_cached(qapp) -> None:
    formula = render_formula("$x$", "x", False)
    images, font = MathImages(), QFont()
    font.setPixelSize(20)
    light = images.image(formula, font, QColor("#1f2328"), 1.0, 500)
    dark = images.image(formula, font, QColor("#e6edf3"), 1.0, 500)
    assert images.rasterised == 2
    assert images.image(formula, font, QColor("#1f2328"), 1.0, 500) is light
    assert images.rasterised == 2
    assert {c.name() for c in _ink(light)} == {"#1f2328"}
    assert {c.name() for c in _ink(dark)} == {"#e6edf3"}


def test_a_wide_formula_is_scaled_to_the_column_and_the_ratio_is_kept(qapp) -> None:
    tex = " + ".join(f"x_{{{k}}}" for k in range(60))
    formula = render_formula(f"$${tex}$$", tex, True)
    images, font = MathImages(), QFont()
    font.setPixelSize(14)
    image = images.image(formula, font, QColor("black"), 2.0, 300)
    assert image.devicePixelRatio() == 2.0
    assert 1.0 <= MathImages.scale(small := render_formula("$z$", "z", False), font, 300) * 16 / 14 <= 1.2
    assert small.ok
    assert image.width() <= 300 * 2 + 1
    assert images.refit([formula], font, 300, 400)
    small = render_formula("$y$", "y", False)
    assert not images.refit([small], font, 300, 400)


def test_inline_formula_sits_on_the_text_baseline(qapp) -> None:
    """Qt puts a middle-aligned image's baseline at (height + xHeight / 2) / 2
    from its top; the padding puts the formula's own baseline there: the
    bottom of an ``x`` (which sits on the baseline) is that row."""
    from PyQt6.QtGui import QFontMetricsF

    images, font = MathImages(), QFont()
    font.setPixelSize(40)
    half_x = QFontMetricsF(font).xHeight() / 2
    for source, tex in (("$x$", "x"), ("$\\hat{x}$", "\\hat{x}"), ("$x^{2^{2^2}}$", "x^{2^{2^2}}")):
        image = images.image(render_formula(source, tex, False), font, QColor("black"), 1.0, 500)
        qt_baseline = (image.height() + half_x) / 2
        ink_bottom = max(y for y in range(image.height()) for x in range(image.width())
                         if image.pixelColor(x, y).alpha() > 128) + 1
        assert abs(ink_bottom - qt_baseline) <= 1.5, source


def test_formula_images_are_drawn_one_per_work_step(qapp) -> None:
    from tests.ui.conversation.parts import Parts

    parts = Parts()
    unit = render_units("a $x$ b $y^2$ c \\(\\foo\\)")[0]
    assert len(list(parts.docs.prepare(unit))) == 2  # the broken one has no image
    drawn = parts.docs.math.rasterised
    slot = parts.docs.build_unit(unit)
    assert parts.docs.math.rasterised == drawn  # the document found them drawn
    assert slot.doc is not None and len(_images(slot.doc)) == 2


def test_a_selected_formula_is_drawn_in_the_selected_text_colour(qapp) -> None:
    from PyQt6.QtGui import QAbstractTextDocumentLayout, QImage, QPainter, QTextCharFormat, QTextCursor

    unit = render_units("Text $x^2$ more $y$ text.")[0]
    images, font = MathImages(), QFont()
    font.setPixelSize(28)
    doc = QTextDocument()
    doc.setDocumentMargin(0)
    doc.setDefaultFont(font)
    images.add_to(doc, unit.math, font, QColor("#202020"), 1.0, 600)
    doc.setHtml(unit.body)
    doc.setTextWidth(600)
    extra = images.selected(doc, 0, 7, unit.math, font, QColor("#ffffff"), 1.0, 600)
    assert len(extra) == 1  # x^2 only: y is outside the selection
    assert len(images.selected(doc, 0, 7, unit.math, font, QColor("#ffffff"), 1.0, 600)) == 1  # resource kept

    def ink_of_first_formula(selections: list) -> set[str]:
        image = QImage(600, 60, QImage.Format.Format_ARGB32)
        image.fill(QColor("#0969da"))
        painter = QPainter(image)
        ctx = QAbstractTextDocumentLayout.PaintContext()
        ctx.selections = selections
        doc.documentLayout().draw(painter, ctx)
        painter.end()
        line = doc.begin().layout().lineAt(0)
        x0, x1 = int(line.cursorToX(5)[0]), int(line.cursorToX(6)[0])
        return {image.pixelColor(x, y).name() for x in range(x0, x1) for y in range(60)
                if image.pixelColor(x, y).name() not in ("#0969da",)}

    cursor = QTextCursor(doc)
    cursor.setPosition(0)
    cursor.setPosition(7, QTextCursor.MoveMode.KeepAnchor)
    base = QAbstractTextDocumentLayout.Selection()
    base.cursor = cursor
    fmt = QTextCharFormat()
    fmt.setBackground(QColor("#0969da"))
    fmt.setForeground(QColor("#ffffff"))
    base.format = fmt
    assert "#ffffff" in ink_of_first_formula([base, *extra])
    assert "#ffffff" not in ink_of_first_formula([base])  # without: dark on the highlight
