"""Per-tick append cost vs transcript length (1 k to 2 M characters of history).

In one window (the real MainWindow, offscreen, no model), the history grows
step by step; at each size one reply streams in the way the consumer tick
feeds it: ``TranscriptView.append_reply_text`` of one tick's worth of text
(25 ms of a 5,000 tok/s stream: 125 scripted tokens, ~500 characters),
timed alone, with a deferred Markdown pass (``commit_completed_blocks`` with
the controller's budget) every 5 ticks as the 120 ms throttle would, and
the event processing that follows (layout + paint) timed separately. The
append must stay flat as the history grows.

    python -m benchmarks.tick_cost [--levels 1000,10000,...] [--ticks 120] [--history plain]

``--history plain`` (diagnostic) fills the same number of characters as
plain-text paragraphs instead of rendered turns (no tables, no code
blocks): it separates "the document is long" from "the document holds many
tables".
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

LEVELS = (1_000, 10_000, 100_000, 300_000, 1_000_000, 2_000_000)
TICK_TOKENS = 125           # 25 ms at 5,000 tok/s
RENDER_EVERY = 5            # ticks between deferred Markdown passes (120 ms / 25 ms)


def _ms(values: list[float], q: float) -> float:
    from app.core.metrics import percentile

    return round(percentile(values, q) * 1000, 3)


_PLAIN_PARAGRAPH = "Plain paragraph of earlier conversation, no Markdown structure at all. " * 25 + "\n"


def fill_plain(transcript: Any, chars: int) -> int:
    from PyQt6.QtGui import QTextCursor

    cursor = QTextCursor(transcript.document())
    cursor.movePosition(QTextCursor.MoveOperation.End)
    n = max(1, chars // len(_PLAIN_PARAGRAPH))
    cursor.insertText(_PLAIN_PARAGRAPH * n)
    transcript.document().documentLayout().documentSize()
    return n * len(_PLAIN_PARAGRAPH)


def run(levels: list[int], ticks: int, history_kind: str = "chat") -> list[dict[str, Any]]:
    from PyQt6.QtGui import QTextCursor
    from PyQt6.QtWidgets import QApplication

    from app.application import make_application, warm_up
    from app.core.scripted import tokenize_text
    from app.ui.chat import RENDER_BUDGET_S
    from app.ui.main_window import MainWindow
    from benchmarks.common import stream_text
    from benchmarks.naive import fill_history

    app = make_application()
    window = MainWindow()
    window.show()
    app.processEvents()
    warm_up(window)
    transcript = window.transcript
    tokens = tokenize_text(stream_text(TICK_TOKENS * ticks))
    chunks = [
        b"".join(tokens[i:i + TICK_TOKENS]).decode("utf-8")
        for i in range(0, len(tokens), TICK_TOKENS)
    ]
    rows: list[dict[str, Any]] = []
    history = 0
    try:
        for level in levels:
            if level > history:
                fill = fill_history if history_kind == "chat" else fill_plain
                history += fill(transcript, level - history)
            app.processEvents()
            doc = transcript.document()
            reply_at = doc.characterCount() - 1
            transcript.begin_reply()
            app.processEvents()
            append_s: list[float] = []
            render_s: list[float] = []
            events_s: list[float] = []
            for i, text in enumerate(chunks):
                t0 = time.perf_counter()
                transcript.append_reply_text(text)
                append_s.append(time.perf_counter() - t0)
                if i % RENDER_EVERY == RENDER_EVERY - 1:
                    t0 = time.perf_counter()
                    transcript.commit_completed_blocks(RENDER_BUDGET_S)
                    render_s.append(time.perf_counter() - t0)
                t0 = time.perf_counter()
                QApplication.processEvents()
                events_s.append(time.perf_counter() - t0)
            transcript.finalize_reply("")
            doc_chars = doc.characterCount()
            # Drop the measured reply: the next size starts from history only.
            cursor = QTextCursor(doc)
            cursor.setPosition(reply_at)
            cursor.movePosition(QTextCursor.MoveOperation.End, QTextCursor.MoveMode.KeepAnchor)
            cursor.removeSelectedText()
            row = {
                "history_chars": level,
                "history_kind": history_kind,
                "history_chars_actual": history,
                "document_chars_with_reply": doc_chars,
                "tick_chars": round(sum(map(len, chunks)) / len(chunks)),
                "ticks": len(append_s),
                "tick_ms_p50": _ms(append_s, 50),
                "tick_ms_p99": _ms(append_s, 99),
                "tick_ms_max": round(max(append_s) * 1000, 3),
                "render_pass_ms_p50": _ms(render_s, 50),
                "render_pass_ms_p99": _ms(render_s, 99),
                "render_pass_ms_max": round(max(render_s, default=0.0) * 1000, 3),
                "events_ms_p50": _ms(events_s, 50),
                "events_ms_p99": _ms(events_s, 99),
            }
            rows.append(row)
            print(f"tick_cost {level}: {row}", file=sys.stderr, flush=True)
    finally:
        window.chat.shutdown()
    return rows


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--levels", default=",".join(map(str, LEVELS)))
    ap.add_argument("--ticks", type=int, default=120)
    ap.add_argument("--history", choices=("chat", "plain"), default="chat")
    args = ap.parse_args(argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    rows = run([int(x) for x in args.levels.split(",")], args.ticks, args.history)
    print(json.dumps({"rows": rows}))


if __name__ == "__main__":
    main()
