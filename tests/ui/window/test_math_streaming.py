"""A reply with TeX math streaming into the window: source first, formulas at the end."""

from __future__ import annotations

from app.core.backends.scripted import ScriptedBackend, tokenize_text

REPLY = (
    "First the formula $x = \\frac{-b \\pm \\sqrt{b^2-4ac}}{2a}$ inline.\n\n"
    "$$\n\\begin{pmatrix}1&2\\\\3&4\\end{pmatrix}\n$$\n\n"
    + "".join(f"Filler line {k} to keep the reply streaming a while.\n\n" for k in range(30))
    + "Last: $\\alpha + \\beta + " + " + ".join(f"a_{{{k}}}" for k in range(60)) + "$ and it costs $5 and $10."
)
LAST = "$\\alpha + \\beta + " + " + ".join(f"a_{{{k}}}" for k in range(60)) + "$"


def test_formulas_show_as_source_while_open_then_as_images(qtbot, make_window) -> None:
    window = make_window(lambda: ScriptedBackend(tokens=tokenize_text(REPLY), rate=300))
    view = window.view
    with qtbot.waitSignal(window.chat.reply_started, timeout=5000):
        window.enter_prompt("roots?")
    reply_id = window.chat.current_reply.message.id
    # The closing $ of the last formula has not arrived yet: its source shows as text.
    qtbot.waitUntil(lambda: "Last: $\\alpha" in view.probe.message_text(reply_id), timeout=20000)
    tail = view.probe.tail_document(reply_id)
    assert tail is not None and "$\\alpha" in tail.toPlainText()
    with qtbot.waitSignal(window.chat.reply_settled, timeout=30000):
        pass
    formulas = view.probe.message_formulas(reply_id)
    assert [f.source for f in formulas] == [
        "$x = \\frac{-b \\pm \\sqrt{b^2-4ac}}{2a}$",
        "$$\n\\begin{pmatrix}1&2\\\\3&4\\end{pmatrix}\n$$",
        LAST,
    ]
    assert all(f.ok for f in formulas)
    shown = view.probe.message_text(reply_id)
    assert f"{LAST} and it costs $5 and $10." in shown  # every character of the source
    assert "\ufffc" not in shown
