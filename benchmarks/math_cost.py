"""TeX math: what a formula costs, off and on the GUI thread (issue #20).

``python -m benchmarks.math_cost`` (offscreen) prints JSON:

* ``typeset_ms``: ziamath per formula (``render_formula``, what the render
  process does), each formula typeset for the first time: p50, p95, max over
  ``FORMULAS`` (LLM-style: fractions, matrices, cases, aligned...), after one
  warm-up formula (the import and font load, reported as ``first_ms``).
* ``raster_ms``: the GUI thread's part per formula: ``MathImages.image`` (one
  QSvgRenderer paint at the text's size, 2× pixel ratio) and ``add_to`` +
  ``setHtml`` + layout of a one-formula paragraph minus the same paragraph
  with plain text (``insert_ms``), p50/p95/max; ``cached_ms``: the same image
  asked again (a final render, a relayout).
* ``reply_200``: a reply with 200 formulas (inline and display mixed) rendered
  to units in one go (``render_units``) — the worker's cost of a final render.
"""

from __future__ import annotations

import json
import os
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

FORMULAS = [
    r"\frac{-b \pm \sqrt{b^2-4ac}}{2a}",
    r"\begin{pmatrix} a & b \\ c & d \end{pmatrix}^{-1} = \frac{1}{ad-bc}\begin{pmatrix} d & -b \\ -c & a \end{pmatrix}",
    r"f(x) = \begin{cases} x^2 & x \ge 0 \\ -x & \text{otherwise} \end{cases}",
    r"\begin{aligned} (a+b)^2 &= a^2 + 2ab + b^2 \\ (a-b)^2 &= a^2 - 2ab + b^2 \end{aligned}",
    r"\int_{-\infty}^{\infty} e^{-x^2}\,dx = \sqrt{\pi}",
    r"\sum_{k=1}^{n} k = \frac{n(n+1)}{2}",
    r"\boxed{E = mc^2}",
    r"\mathbb{E}[X] = \sum_x x\,P(X = x)",
    r"\lim_{h \to 0} \frac{f(x+h) - f(x)}{h}",
    r"\operatorname{Var}(X) = \mathbb{E}[X^2] - \mathbb{E}[X]^2",
    r"\nabla \cdot \vec{E} = \frac{\rho}{\varepsilon_0}",
    r"\begin{bmatrix} 1 & 0 & 0 \\ 0 & 1 & 0 \\ 0 & 0 & 1 \end{bmatrix}",
    r"\det \begin{vmatrix} a & b \\ c & d \end{vmatrix} = ad - bc",
    r"P(A \mid B) = \frac{P(B \mid A)\,P(A)}{P(B)}",
    r"\binom{n}{k} = \frac{n!}{k!\,(n-k)!}",
    r"x_{1,2}",
    r"\alpha + \beta = \gamma",
    r"e^{i\pi} + 1 = 0",
    r"\sqrt[3]{x^3 + y^3}",
    r"\hat{\theta} = \arg\max_\theta \mathcal{L}(\theta)",
]


def _stats(values: list[float]) -> dict[str, float]:
    from app.core.pipeline.metrics import percentile

    return {"p50": round(percentile(values, 50), 2), "p95": round(percentile(values, 95), 2),
            "max": round(max(values), 2)}


def main() -> None:
    from PyQt6.QtGui import QColor, QFont, QTextDocument
    from PyQt6.QtWidgets import QApplication

    from app.core.render.blocks import render_units
    from app.core.render.mathsvg import render_formula
    from app.ui.misc.math_images import MathImages

    app = QApplication([])
    start = time.perf_counter()
    render_formula("$y$", "y", False)
    first_ms = (time.perf_counter() - start) * 1000
    typeset, formulas = [], []
    for display in (False, True):
        for tex in FORMULAS:
            start = time.perf_counter()
            formula = render_formula(f"${tex}$" if not display else f"$${tex}$$", tex, display)
            typeset.append((time.perf_counter() - start) * 1000)
            formulas.append(formula)
    font = QFont()
    font.setPixelSize(14)
    images = MathImages()
    images.image(render_formula("$y$", "y", False), font, QColor("black"), 2.0, 700)  # QtSvg's first use
    raster, cached, insert = [], [], []
    for formula in formulas:
        start = time.perf_counter()
        images.image(formula, font, QColor("#1f2328"), 2.0, 700)
        raster.append((time.perf_counter() - start) * 1000)
        start = time.perf_counter()
        images.image(formula, font, QColor("#1f2328"), 2.0, 700)
        cached.append((time.perf_counter() - start) * 1000)
        body = f'<p>Text before <img src="rill-math:{formula.key}" style="vertical-align:middle"> and after.</p>'
        plain = "<p>Text before x and after.</p>"
        times = []
        for html, with_math in ((plain, False), (body, True)):
            doc = QTextDocument()
            doc.setDefaultFont(font)
            start = time.perf_counter()
            if with_math:
                images.add_to(doc, [formula], font, QColor("#1f2328"), 2.0, 700)
            doc.setHtml(html)
            doc.setTextWidth(700)
            doc.size()
            times.append((time.perf_counter() - start) * 1000)
        insert.append(max(0.0, times[1] - times[0]))
    reply = "\n\n".join(
        f"Step {k}: we get $x_{{{k}}} = \\frac{{{k}}}{{{k + 1}}}$ and so\n\n$$\\sum_{{i=1}}^{{{k}}} i^2$$"
        for k in range(100)
    )
    start = time.perf_counter()
    units = render_units(reply)
    reply_ms = (time.perf_counter() - start) * 1000
    print(json.dumps({
        "first_ms": round(first_ms, 1),
        "typeset_ms": _stats(typeset),
        "raster_ms": _stats(raster),
        "cached_ms": _stats(cached),
        "insert_ms": _stats(insert),
        "reply_200": {"formulas": sum(len(u.math) for u in units), "render_ms": round(reply_ms, 1)},
    }, indent=2))
    app.quit()


if __name__ == "__main__":
    main()
