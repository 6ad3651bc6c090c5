"""Drive the real window on the scripted backend and save screenshots.

Run through scripts/screenshots.sh (it starts Xvfb). Reproducible: the
scripted backend streams a fixed text, the earlier exchange is fixed too.
"""

from __future__ import annotations

import sys
from pathlib import Path

from PyQt6.QtCore import QTimer
from PyQt6.QtGui import QGuiApplication

from app.application import create_window, make_application
from app.core.conversation import Message, MessageMeta, MessageStatus
from app.core.factory import scripted_factory

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


def main(out_dir: str) -> int:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    app = make_application()
    window = create_window(*scripted_factory(rate=400), persist=False)  # pictures only: no history
    window.resize(980, 900)
    window.show()
    step = {"n": 0}

    def shot(name: str) -> None:
        screen = QGuiApplication.primaryScreen()
        assert screen is not None
        pixmap = screen.grabWindow(0).copy(window.frameGeometry())
        pixmap.save(str(out / name))

    def on_ready(_info: object) -> None:
        user = Message("user", EARLIER_QUESTION)
        reply = Message(
            "assistant", EARLIER_ANSWER, MessageStatus.COMPLETE,
            meta=MessageMeta(model="SmolLM2-135M-Instruct", tokens=71, tokens_per_s=48.2, ttft_ms=212.0),
        )
        for m in (user, reply):
            window.chat.conversation.add(m)
        window.view.add_messages([user, reply])
        QTimer.singleShot(300, lambda: window.enter_prompt("Show me a table, some code and a list."))

    def on_settled(_stats: object) -> None:
        step["n"] += 1
        if step["n"] == 1:
            window.enter_prompt("And once more, but I will stop you halfway.")
            QTimer.singleShot(500, window.stop_button.click)
        elif step["n"] == 2:
            QTimer.singleShot(600, finish)

    def finish() -> None:
        sb = window.view.verticalScrollBar()
        sb.setValue(sb.maximum())
        QTimer.singleShot(500, lambda: (shot("main.png"), window.close()))

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

    from app.core.remote.servers import ServerConfig, save_servers
    from app.ui.servers_dialog import ServersDialog

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
        screen = QGuiApplication.primaryScreen()
        assert screen is not None
        screen.grabWindow(0).copy(widget.frameGeometry()).save(str(out / name))

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


if __name__ == "__main__":
    args = sys.argv[1:]
    scene = "main"
    if args and args[0] == "--scene":
        scene, args = args[1], args[2:]
    target = args[0] if args else "docs/screenshots"
    sys.exit(thinking_scene(target) if scene == "thinking" else main(target))
