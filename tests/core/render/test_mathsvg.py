"""Typesetting formulas (ziamath) and formulas inside rendered Markdown."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.core.base.limits import MAX_FORMULA_CHARS
from app.core.render import mathfallback, mathsvg
from app.core.render.blocks import render_units, units_plain_text
from app.core.render.mathmarkdown import formula_html, keys_in
from app.core.render.mathsvg import Formula, render_formula

MODEL_FORMULAS = [
    r"\frac{-b \pm \sqrt{b^2-4ac}}{2a}",
    r"\begin{aligned} a &= b + c \\ d &= e \end{aligned}",
    r"\begin{align} a &= b \end{align}",
    r"f(x) = \begin{cases} 1 & x > 0 \\ 0 & \text{otherwise} \end{cases}",
    r"\begin{pmatrix} 1 & 2 \\ 3 & 4 \end{pmatrix}",
    r"\begin{bmatrix} a \end{bmatrix} \begin{vmatrix} a & b \\ c & d \end{vmatrix}",
    r"\begin{array}{cc} 1 & 2 \end{array}",
    r"\boxed{E = mc^2}",
    r"x \in \mathbb{R}, \operatorname{sgn}(x)",
    r"\text{café} = 1",
]


@pytest.mark.parametrize("tex", MODEL_FORMULAS)
def test_what_models_write_is_typeset(tex: str) -> None:
    formula = render_formula(f"$${tex}$$", tex, True)
    assert formula.ok, formula.reason()
    assert formula.svg.startswith("<svg") and "<symbol" not in formula.svg  # SVG 1.1 for QtSvg
    assert formula.width > 0 and formula.height > 0 and 0 < formula.ascent <= formula.height
    assert formula.error == ""


@pytest.mark.parametrize(
    ("tex", "error", "detail"),
    [
        (r"\frac{1}{", mathsvg.E_BRACES, ""),
        (r"x}", mathsvg.E_BRACES, ""),
        (r"\sqrt", mathsvg.E_ARGUMENT, ""),
        (r"\begin{pmatrix} 1", mathsvg.E_ENVIRONMENT, ""),
        (r"\left( x", mathsvg.E_LEFT_RIGHT, ""),
        (r"\foo{x}", mathsvg.E_UNKNOWN, r"\foo"),
        ("\\text{\u0fff}", mathsvg.E_GLYPH, "\u0fff"),  # an unassigned code point: no font has it
        ("{" * 400 + "}" * 400, None, None),  # RecursionError inside the parser
        ("x" * (MAX_FORMULA_CHARS + 1), mathsvg.E_TOO_LONG, str(MAX_FORMULA_CHARS)),
    ],
)
def test_broken_tex_falls_back_with_a_reason(tex: str, error: str | None, detail: str | None) -> None:
    formula = render_formula(f"${tex}$", tex, False)
    assert not formula.ok
    assert formula.reason()
    if error is not None:
        assert (formula.error, formula.detail) == (error, detail)
    html = formula_html(formula)
    assert html.startswith('<code title="rill-math:') and keys_in(html) == [formula.key]


needs_cjk_font = pytest.mark.skipif(
    mathfallback.find_fallback_font() is None, reason="no CJK font (fonts-noto-cjk) on this machine")


@needs_cjk_font
@pytest.mark.parametrize("tex", [r"\text{你好} = x^2", r"\frac{\text{总收入}}{\text{人数}}", r"\text{面積と速度}"])
def test_cjk_inside_text_is_typeset_from_the_system_font(tex: str) -> None:
    formula = render_formula(f"$${tex}$$", tex, True)
    assert formula.ok, formula.reason()
    latin = render_formula("$$\\text{ab}$$", "\\text{ab}", True)
    # two ideographs are about two ems wide (1 em = BASE_PX), twice as wide as "ab"
    wide = render_formula("$$\\text{你好}$$", "\\text{你好}", True)
    assert 1.6 * mathsvg.BASE_PX < wide.width < 2.6 * mathsvg.BASE_PX
    assert wide.width > 1.5 * latin.width
    assert wide.svg.count("<path") >= 2


@needs_cjk_font
def test_a_borrowed_glyph_is_scaled_to_the_math_font() -> None:
    found = mathfallback.find_fallback_font()
    assert found is not None
    glyphs = mathfallback.FallbackGlyphs(*found, units_per_em=1000)
    outline = glyphs.outline("中")
    assert outline is not None
    ops, (xmin, xmax, ymin, ymax), advance = outline
    assert 900 <= advance <= 1100 and ops
    assert 0 <= xmin < xmax <= advance and ymin < 0 < ymax  # 中 reaches below the baseline
    assert glyphs.outline("\u0fff") is None and not glyphs.has("\u0fff")


def test_without_a_fallback_font_cjk_shows_the_source(monkeypatch: pytest.MonkeyPatch) -> None:
    from ziamath import zmath

    render_formula("$x$", "x", False)  # the fonts are loaded
    default = zmath.loadedfonts["default"]
    monkeypatch.setattr(mathfallback, "_loaded", [None])
    monkeypatch.setitem(zmath.loadedfonts, "rill-math",
                        mathfallback.math_font_with_fallback(default.fname, default.basesize))
    monkeypatch.setattr(mathsvg, "_cache", type(mathsvg._cache)())
    formula = render_formula("$\\text{你}$", "\\text{你}", False)
    assert (formula.error, formula.detail) == (mathsvg.E_GLYPH, "你")


def test_cached_and_keyed_by_source() -> None:
    a = render_formula("$x$", "x", False)
    assert render_formula("$x$", "x", False) is a
    assert render_formula(r"\(x\)", "x", False).key != a.key
    assert render_formula("$x$", "x", True).key != a.key


def test_formulas_in_rendered_markdown() -> None:
    text = (
        "Roots $x = \\frac{-b}{2a}$, costs $5 and $10, `$code$`.\n\n"
        "$$\n\\begin{pmatrix}1&2\\\\3&4\\end{pmatrix}\n$$\n\n"
        "Broken \\(\\foo\\) and $a_i * b_i$ with *emph*.\n"
    )
    units = render_units(text)
    assert len(units) == 3
    first, display, last = units
    assert [f.source for f in first.math] == ["$x = \\frac{-b}{2a}$"]
    assert "costs $5 and $10" in first.body and "<code>$code$</code>" in first.body
    assert display.body.startswith('<p align="center"><img src="rill-math:')
    assert [f.ok for f in last.math] == [False, True]
    assert "<em>emph</em>" in last.body and "<em> b_i" not in last.body  # TeX is not Markdown
    shown = units_plain_text(units)
    assert "$x = \\frac{-b}{2a}$" in shown and "\\(\\foo\\)" in shown
    assert "\\begin{pmatrix}1&2\\\\3&4\\end{pmatrix}" in shown


def test_hostile_html_in_and_around_math_stays_text() -> None:
    units = render_units('$<script>alert(1)</script>$ and $x$ <img src="file:///etc/passwd">')
    body = "".join(u.body for u in units)
    assert "<script>" not in body and "<img src=\"file" not in body
    assert "&lt;img" in body


def test_no_math_means_no_formulas() -> None:
    units = render_units("It costs $5.\n\nplain")
    assert all(u.math == () for u in units)


def test_formula_reason_is_formatted() -> None:
    formula = Formula("k", "$\\foo$", False, error=mathsvg.E_UNKNOWN, detail="\\foo")
    assert formula.reason() == "Unknown command \\foo."


def test_a_display_formula_on_its_own_lines_is_its_own_centred_paragraph() -> None:
    units = render_units("The solution is:\n$$\nx = 1\n$$\nand then more.")
    assert [u.body.split(">", 1)[0] for u in units] == ["<p", '<p align="center"', "<p"]
    assert units_plain_text(units) == "The solution is:\n$$\nx = 1\n$$\nand then more."
    # inline in a sentence, or indented (a list item's): left where it is
    assert len(render_units("so $$x$$ inline")) == 1
    assert render_units("- item\n  $$x$$\n- next")[0].body.startswith("<ul>")


_PIECES = st.sampled_from(["$", "$$", "\\(", "\\)", "\\[", "\\]", "x", "^2", "_i", "{", "}", "\\frac", "\\foo", " ",
                           "\n", "\n\n", "`", "&", "\\\\", "\\begin{cases}", "\\end{cases}", "*", "<b>", "5"])


@settings(max_examples=60, deadline=None)
@given(st.lists(_PIECES, max_size=30).map("".join))
def test_rendering_math_never_raises_and_every_image_has_its_formula(text: str) -> None:
    from app.core.render.mathscan import find_math

    units = render_units(text)
    for unit in units:
        named = set(keys_in(unit.body))
        assert named == {f.key for f in unit.math}
    assert sum(len(u.math) for u in units) <= len(find_math(text))


def test_past_the_time_budget_formulas_show_as_source_but_typeset_ones_still_render(monkeypatch) -> None:
    from app.core.render import mathmarkdown

    render_units("warm $a_{budget}$")  # typeset once: cached
    monkeypatch.setattr(mathmarkdown, "MAX_MATH_RENDER_S", -1.0)
    unit = render_units("cached $a_{budget}$ and new $b_{budget}$")[0]
    ok, late = unit.math
    assert ok.ok and not late.ok and late.error == mathmarkdown.E_TOO_SLOW
    assert "<code" in unit.body and late.reason().startswith("Typesetting this message's formulas took more than")
