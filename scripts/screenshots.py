"""Drive the real window on the scripted backend and save screenshots.

Run through scripts/screenshots.sh (it starts Xvfb, and gives every scene a
fresh profile). Reproducible: the scripted backend streams a fixed text, the
earlier exchange is fixed too. Scenes:

* ``main``: a conversation with code, a table and a stopped reply (main.png);
  ``--theme dark`` makes dark.png; ``--lang zh_CN`` (with ``--theme dark``)
  zh_CN.png: what a Chinese-speaking user on a dark desktop gets.
* ``thinking``: a reasoning model's reply, thoughts opened; the Servers dialog.
* ``math``: a reply with TeX math (math.png; ``--theme dark``: math-dark.png).
* ``library``: several conversations, the sidebar and Search with results
  (search.png), then Settings (settings.png) and Models (models.png).
* ``hub``: Model › Get More Models… against a fake Hub on 127.0.0.1
  (scripts/screenshots_hub.py): hub.png.
* ``attachments``: a 300-page PDF and an image attached (attachments.png),
  then the answer with its source page (sources.png).
* ``composer``: a new conversation's welcome (empty.png), a long prompt
  being read (progress.png), and a message queued meanwhile (queued.png).
"""

from __future__ import annotations

import sys
from pathlib import Path

from PyQt6.QtCore import QTimer
from PyQt6.QtGui import QGuiApplication

from app.application import create_window, make_application
from app.core.config.appearance import Appearance, save_appearance
from app.core.conversation.model import Message, MessageMeta, MessageStatus
from app.core.factory import scripted_factory
from app.ui.misc.i18n import install_translations


def save_shot(widget: object, path: Path) -> None:
    """What the screen shows of ``widget``'s window frame, as a PNG."""
    screen = QGuiApplication.primaryScreen()
    assert screen is not None
    screen.grabWindow(0).copy(widget.frameGeometry()).save(str(path))  # type: ignore[attr-defined]


EARLIER_QUESTION = "How do I read a file line by line in Python?"
EARLIER_ANSWER = """\
Use a `with` block, so the file is closed even if something fails:

```python
with open("notes.txt", encoding="utf-8") as f:
    for number, line in enumerate(f, start=1):
        print(number, line.rstrip())
```

| mode | meaning |
|------|---------|
| `r`  | read    |
| `w`  | write   |
"""


ZH_QUESTION = "在 Python 里怎样逐行读取文件？"
ZH_ANSWER = """\
用 `with` 语句打开文件，出错时也会自动关闭：

```python
with open("notes.txt", encoding="utf-8") as f:
    for number, line in enumerate(f, start=1):
        print(number, line.rstrip())
```

| 模式 | 含义 |
|------|------|
| `r`  | 读取 |
| `w`  | 写入 |
"""
ZH_REPLY = """\
好的，下面是一个表格、一段代码和一个列表：

| 模型 | 参数量 | 上下文长度 |
|------|--------|------------|
| SmolLM2 | 1.35 亿 | 8,192 |
| Qwen3 | 80 亿 | 32,768 |

```python
def 平均值(数字):
    return sum(数字) / len(数字)
```

- 本地运行，数据不出电脑 🙂
- 回复逐字显示，界面始终流畅
- 随时按 Esc 停止
"""


def main(out_dir: str, theme: str = "light", lang: str = "en") -> int:
    import tempfile

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    save_appearance(Appearance(language=lang, theme=theme))  # (a fresh profile: scripts/screenshots.sh)
    app = make_application()
    install_translations(app, lang)
    name = "main.png" if (theme, lang) == ("light", "en") else ("zh_CN.png" if lang == "zh_CN" else f"{theme}.png")
    question, answer = (ZH_QUESTION, ZH_ANSWER) if lang == "zh_CN" else (EARLIER_QUESTION, EARLIER_ANSWER)
    text_file = None
    if lang == "zh_CN":
        text_file = Path(tempfile.mkdtemp()) / "reply.md"
        text_file.write_text(ZH_REPLY, encoding="utf-8")
    prompts = (
        ("给我一个表格、一段代码和一个列表。", "再来一次，不过我会中途停止你。")
        if lang == "zh_CN"
        else ("Show me a table, some code and a list.", "And once more, but I will stop you halfway.")
    )
    # (the Chinese reply is short: slower, so that Stop lands halfway)
    factory = scripted_factory(rate=60 if text_file else 400, text_file=str(text_file) if text_file else None)
    window = create_window(*factory, persist=False)  # pictures only: no history
    window.resize(980, 900)
    window.show()
    step = {"n": 0}

    def shot(name: str) -> None:
        save_shot(window, out / name)

    def on_ready(_info: object) -> None:
        user = Message("user", question)
        reply = Message(
            "assistant", answer, MessageStatus.COMPLETE,
            meta=MessageMeta(model="SmolLM2-135M-Instruct", tokens=71, tokens_per_s=48.2, ttft_ms=212.0),
        )
        for m in (user, reply):
            window.chat.conversation.add(m)
        window.view.add_messages([user, reply])
        QTimer.singleShot(300, lambda: window.enter_prompt(prompts[0]))

    def on_settled(_stats: object) -> None:
        step["n"] += 1
        if step["n"] == 1:
            window.enter_prompt(prompts[1])
            QTimer.singleShot(500, window.stop_button.click)
        elif step["n"] == 2:
            QTimer.singleShot(600, finish)

    def finish() -> None:
        sb = window.view.verticalScrollBar()
        sb.setValue(sb.maximum())
        QTimer.singleShot(500, lambda: (shot(name), window.close()))

    window.chat.model_ready.connect(on_ready)
    window.chat.reply_settled.connect(on_settled)
    QTimer.singleShot(60000, app.quit)
    return app.exec()


THINKING_REPLY = """<think>
The user asks which river is longer. The Nile is about 6,650 km, the Amazon
about 6,400 km by the usual measure, though some surveys give the Amazon more.
I should give the usual answer and mention the dispute.
</think>
The **Nile** is usually listed as the longest river (about 6,650 km), with the
**Amazon** close behind (about 6,400 km).

Some surveys measure the Amazon from a more distant source and put it ahead:
the answer depends on where a river is said to start.
"""


def thinking_scene(out_dir: str) -> int:
    """A reasoning model's reply, its thoughts opened, and the Servers dialog."""
    import tempfile

    from app.core.backends.remote.servers import ServerConfig, save_servers
    from app.ui.dialogs.servers import ServersDialog

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    text = Path(tempfile.mkdtemp()) / "thinking.md"
    text.write_text(THINKING_REPLY, encoding="utf-8")
    save_servers([
        ServerConfig("llama-server on the desk", "openai", "http://127.0.0.1:8080", "qwen3-8b-q4_k_m"),
        ServerConfig("Ollama on the NAS", "ollama", "http://nas.local:11434", "deepseek-r1:8b"),
    ])
    app = make_application()
    window = create_window(*scripted_factory(rate=300, text_file=str(text)))
    window.resize(980, 700)
    window.show()

    def shot(widget, name: str) -> None:  # type: ignore[no-untyped-def]
        save_shot(widget, out / name)

    def on_ready(_info: object) -> None:
        QTimer.singleShot(300, lambda: window.enter_prompt("Which is longer, the Nile or the Amazon?"))

    def on_settled(stats) -> None:  # type: ignore[no-untyped-def]
        window.view.set_thoughts_expanded(stats.message_id, True)
        QTimer.singleShot(800, lambda: (shot(window, "thinking.png"), servers()))

    def servers() -> None:
        dialog = ServersDialog(window)
        dialog.resize(780, 460)
        dialog.show()
        QTimer.singleShot(600, lambda: (shot(dialog, "servers.png"), dialog.reject(), window.close()))

    window.chat.model_ready.connect(on_ready)
    window.chat.reply_settled.connect(on_settled)
    QTimer.singleShot(60000, app.quit)
    return app.exec()


LONG_PROMPT = "Here is the quarterly report, please read it and tell me the three biggest risks."


def composer_scene(out_dir: str) -> int:
    """The welcome of an empty conversation, a long prompt's reading
    progress, and a message queued while it is read."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    app = make_application()
    factory = scripted_factory(rate=200, prefill_s=30.0, prompt_tokens=12288, prompt_batch=512)
    window = create_window(*factory, persist=False)
    window.resize(980, 700)
    window.show()

    def shot(name: str) -> None:
        save_shot(window, out / name)

    def on_ready(_info: object) -> None:
        QTimer.singleShot(800, lambda: (shot("empty.png"), read()))

    def read() -> None:
        window.enter_prompt(LONG_PROMPT)
        QTimer.singleShot(4500, lambda: (shot("progress.png"), queue()))

    def queue() -> None:
        window.prompt.setPlainText("Then a one-paragraph summary for the board, please.")
        window.send_controller.send()
        window.prompt.setPlainText("And draft")
        QTimer.singleShot(700, lambda: (shot("queued.png"), window.chat.stop(), window.close()))

    window.chat.model_ready.connect(on_ready)
    QTimer.singleShot(60000, app.quit)
    return app.exec()


def attachments_scene(out_dir: str) -> int:
    """A 300-page PDF and a screenshot attached (their chips), then a question
    answered from the PDF's best passages, with its sources."""
    import tempfile

    from PyQt6.QtGui import QColor, QImage

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from tests.helpers.pdfs import filler_page, make_pdf

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    files = Path(tempfile.mkdtemp())
    pages = [filler_page(n) for n in range(1, 301)]
    pages[216] = pages[216] + ["The audit found that the warehouse in Tromso stores exactly 4,711 crates."]
    (files / "annual-report.pdf").write_bytes(make_pdf(pages))
    image = QImage(1280, 800, QImage.Format.Format_RGB32)
    image.fill(QColor("#3b6ea5"))
    image.save(str(files / "screenshot.png"))
    answer = files / "answer.md"
    answer.write_text("The warehouse in Tromsø stores **4,711 crates** (page 217 of the report).\n", encoding="utf-8")
    app = make_application()
    factory = scripted_factory(rate=200, text_file=str(answer))
    window = create_window(*factory, persist=False)
    window.resize(980, 700)
    window.show()

    def on_ready(_info: object) -> None:
        window.attachments.attach([str(files / "annual-report.pdf"), str(files / "screenshot.png")])
        window.prompt.setPlainText("How many crates does the warehouse in Tromsø store?")
        QTimer.singleShot(4000, lambda: (save_shot(window, out / "attachments.png"), ask()))

    def ask() -> None:
        window.chat.reply_settled.connect(lambda _s: QTimer.singleShot(
            600, lambda: (save_shot(window, out / "sources.png"), window.close())))
        window.send_controller.send()

    window.chat.model_ready.connect(on_ready)
    QTimer.singleShot(60000, app.quit)
    return app.exec()


LIBRARY = [
    ("Plan a three-day trip to Kyoto", "Day 1: Fushimi Inari early, then Gion in the evening."),
    ("Explain Python decorators", "A decorator takes a function and returns a new one that wraps it."),
    ("Rust borrow checker error E0502", "You borrow `v` mutably while an immutable borrow is still alive."),
    ("Write a haiku about rivers", "Spring melt in the hills / a rill finds its way downhill / the sea, patient, waits"),
    ("Python list comprehension vs map", "Comprehensions read better in Python; map shines with a named function."),
]


def library_scene(out_dir: str) -> int:
    """Several conversations in the history: the sidebar and a search; then
    Settings and the Models dialog."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    app = make_application()
    window = create_window(*scripted_factory(rate=2000))
    window.resize(980, 700)
    window.show()
    todo = list(LIBRARY)

    def shot(widget, name: str) -> None:  # type: ignore[no-untyped-def]
        save_shot(widget, out / name)

    def next_conversation(_arg: object = None) -> None:
        if not todo:
            QTimer.singleShot(800, search)
            return
        title, _ = todo.pop(0)
        window.menus.new_chat_action.trigger()
        QTimer.singleShot(200, lambda: window.enter_prompt(title))

    def search() -> None:
        window.menus.search_action.trigger()
        window.search_dialog.edit.setText("python")
        QTimer.singleShot(1200, lambda: (shot(window, "search.png"), window.search_dialog.close(), settings()))

    def settings() -> None:
        window.menus.settings_action.trigger()
        QTimer.singleShot(800, lambda: (shot(window.settings_dialog, "settings.png"), window.settings_dialog.reject(),
                                        models()))

    def models() -> None:
        window.model_menu.manage_action.trigger()
        window.models_dialog.resize(1150, 440)
        QTimer.singleShot(1500, lambda: (shot(window.models_dialog, "models.png"), window.models_dialog.reject(),
                                         window.close()))

    window.chat.model_ready.connect(next_conversation)
    window.chat.reply_settled.connect(next_conversation)
    QTimer.singleShot(90000, app.quit)
    return app.exec()


MATH_REPLY = r"""The roots of $ax^2 + bx + c = 0$ (with $a \ne 0$) come from the quadratic formula
$x = \frac{-b \pm \sqrt{b^2-4ac}}{2a}$, shown large:

$$
x = \frac{-b \pm \sqrt{b^2-4ac}}{2a}
$$

A matrix and its determinant, a piecewise function, and a derivation:

$$
A = \begin{pmatrix} 1 & 2 \\ 3 & 4 \end{pmatrix}, \qquad \det A = -2
$$

$$
f(x) = \begin{cases} x^2 & x \ge 0 \\ -x & \text{otherwise} \end{cases}
\qquad \text{面积} = \pi r^2
$$

\[
\begin{aligned}
(a+b)^2 &= a^2 + 2ab + b^2 \\
\boxed{E} &= mc^2
\end{aligned}
\]

Prices stay text: it costs $5 and $10. Code keeps its dollars: `echo $HOME`.
A broken formula shows its source: \(\frac{1}{\foo{x}}\).
"""


def math_scene(out_dir: str, theme: str) -> int:
    """A reply with inline and display math, matrices, cases, aligned and a broken formula."""
    import tempfile

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    save_appearance(Appearance(theme=theme))
    text = Path(tempfile.mkdtemp()) / "math.md"
    text.write_text(MATH_REPLY, encoding="utf-8")
    app = make_application()
    window = create_window(*scripted_factory(rate=400, text_file=str(text)), persist=False)
    window.resize(980, 900)
    window.show()

    def on_ready(_info: object) -> None:
        QTimer.singleShot(300, lambda: window.enter_prompt("Solve a quadratic, and show me some matrices."))

    def on_settled(_stats: object) -> None:
        name = "math.png" if theme == "light" else "math-dark.png"
        QTimer.singleShot(800, lambda: (save_shot(window, out / name), window.close()))

    window.chat.model_ready.connect(on_ready)
    window.chat.reply_settled.connect(on_settled)
    QTimer.singleShot(60000, app.quit)
    return app.exec()


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser()
    parser.add_argument("--scene", default="main", choices=["main", "thinking", "library", "hub", "math", "composer",
                                                                      "attachments"])
    parser.add_argument("--theme", default="light", choices=["light", "dark"])
    parser.add_argument("--lang", default="en")
    parser.add_argument("out", nargs="?", default="docs/screenshots")
    ns = parser.parse_args()
    if ns.scene == "thinking":
        sys.exit(thinking_scene(ns.out))
    if ns.scene == "library":
        sys.exit(library_scene(ns.out))
    if ns.scene == "hub":
        from screenshots_hub import hub_scene

        app = make_application()
        window = create_window(*scripted_factory(rate=2000))
        window.resize(980, 700)
        window.show()
        sys.exit(hub_scene(ns.out, window, app, save_shot))
    if ns.scene == "math":
        sys.exit(math_scene(ns.out, ns.theme))
    if ns.scene == "composer":
        sys.exit(composer_scene(ns.out))
    if ns.scene == "attachments":
        sys.exit(attachments_scene(ns.out))
    sys.exit(main(ns.out, ns.theme, ns.lang))
