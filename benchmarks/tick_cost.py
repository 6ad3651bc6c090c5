"""Per-tick cost vs conversation length (0 to 10,000,000 characters of history).

In one window (the real MainWindow, offscreen, no model), for each history
size: New Chat (``view.clear()``), open the history the way the doctor does
(``view.add_messages(history_of_chars(n))``, waiting for ``viewport_ready``
and for the view to finish its work), then stream one reply into a new
message exactly as the controller's tick feeds it: ``Message.append`` +
``ChatView.append_stream`` of one tick's worth of text (25 ms of a 5,000
tok/s stream: 125 scripted tokens, ~500 characters), timed alone. Between
ticks the event loop runs until the next 25 ms tick is due (render results,
the view's work slices, paint), and the time spent in it is timed too
("between ticks": everything else the GUI thread did for this reply). Then
the reply is finished (``finish_stream``) and its settle time recorded.

The goal: the tick's cost is flat (within +-20 %) from 0 to 10 M characters
of history, because the view never puts the conversation into one document.

    python -m benchmarks.tick_cost [--levels 0,100000,...] [--ticks 120]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

LEVELS = (0, 10_000, 100_000, 1_000_000, 3_000_000, 10_000_000)
TICK_TOKENS = 125           # 25 ms at 5,000 tok/s
TICK_S = 0.025


def _ms(values: list[float], q: float) -> float:
    from app.core.pipeline.metrics import percentile

    return round(percentile(values, q) * 1000, 3) if values else 0.0


def _spin(app: Any, until: Any, timeout_s: float) -> bool:
    """Process events until ``until()`` (True) or the timeout (False)."""
    end = time.monotonic() + timeout_s
    while not until():
        if time.monotonic() > end:
            return False
        app.processEvents()
        time.sleep(0.001)
    return True


def run(levels: list[int], ticks: int) -> list[dict[str, Any]]:
    from PyQt6.QtWidgets import QApplication

    from app.application import make_application, warm_up
    from app.core.backends.scripted import tokenize_text
    from app.core.conversation.model import Message, MessageStatus, Role
    from app.core.conversation.sample import history_of_chars
    from app.ui.services.lifecycle import AppServices
    from app.ui.window.main_window import MainWindow
    from benchmarks.common import stream_text

    app = make_application()
    window = MainWindow(AppServices())
    window.show()
    app.processEvents()
    warm_up(window)
    view = window.view
    tokens = tokenize_text(stream_text(TICK_TOKENS * ticks))
    chunks = [
        b"".join(tokens[i:i + TICK_TOKENS]).decode("utf-8")
        for i in range(0, len(tokens), TICK_TOKENS)
    ]
    ready = {"flag": False}
    view.viewport_ready.connect(lambda: ready.__setitem__("flag", True))

    def idle() -> bool:
        return not view.busy and view.render_service.pending() == 0

    rows: list[dict[str, Any]] = []
    try:
        for level in levels:
            view.clear()
            history = history_of_chars(level) if level > 0 else []
            t0 = time.perf_counter()
            ready["flag"] = False
            if history:
                view.add_messages(history)
                add_s = time.perf_counter() - t0
                _spin(app, lambda: ready["flag"], 30.0)
                # A long history may show its end first and the rest later.
                _spin(app, lambda: view.item_count() >= len(history), 60.0)
            else:
                add_s = 0.0
            open_s = time.perf_counter() - t0
            _spin(app, idle, 30.0)
            t_end = time.monotonic() + 0.2
            _spin(app, lambda: time.monotonic() > t_end, 1.0)
            msg = Message(Role.ASSISTANT.value, "", MessageStatus.STREAMING)
            view.add_message(msg)
            app.processEvents()
            view.reset_slice_stats()
            slices0 = view.slices
            append_s: list[float] = []
            between_s: list[float] = []
            for text in chunks:
                tick_at = time.perf_counter()
                msg.append(text)
                view.append_stream(msg.id, text)
                append_s.append(time.perf_counter() - tick_at)
                busy = 0.0
                while True:
                    t1 = time.perf_counter()
                    QApplication.processEvents()
                    busy += time.perf_counter() - t1
                    if time.perf_counter() - tick_at >= TICK_S:
                        break
                    time.sleep(0.0005)
                between_s.append(busy)
            msg.status = MessageStatus.COMPLETE
            t0 = time.perf_counter()
            view.finish_stream(msg.id)
            settled = _spin(app, lambda: view.probe.is_settled(msg.id) and idle(), 30.0)
            settle_s = time.perf_counter() - t0
            row = {
                "history_chars": level,
                "history_chars_actual": sum(len(m) for m in history),
                "history_messages": len(history),
                "add_messages_ms": round(add_s * 1000, 1),
                "viewport_ready_ms": round(open_s * 1000, 1),
                "tick_chars": round(sum(map(len, chunks)) / len(chunks)),
                "reply_chars": len(msg),
                "ticks": len(append_s),
                "tick_ms_p50": _ms(append_s, 50),
                "tick_ms_p99": _ms(append_s, 99),
                "tick_ms_max": round(max(append_s) * 1000, 3),
                "between_ms_p50": _ms(between_s, 50),
                "between_ms_p99": _ms(between_s, 99),
                "between_ms_max": round(max(between_s) * 1000, 3),
                "view_slices": view.slices - slices0,
                "view_slice_max_ms": round(view.max_slice_s * 1000, 3),
                "final_settle_ms": round(settle_s * 1000, 1) if settled else None,
                "live_documents": view.probe.live_document_count(),
            }
            rows.append(row)
            print(f"tick_cost {level}: {row}", file=sys.stderr, flush=True)
    finally:
        window.chat.shutdown()
    return rows


def flatness(rows: list[dict[str, Any]], key: str = "tick_ms_p50") -> dict[str, Any]:
    """Each level's ``key`` relative to the empty conversation's (or the
    smallest level's): the goal is every ratio within 0.8-1.2."""
    if not rows:
        return {}
    base = rows[0][key]
    ratios = {str(r["history_chars"]): round(r[key] / base, 3) if base else None for r in rows}
    vals = [v for v in ratios.values() if v is not None]
    return {"key": key, "base_history": rows[0]["history_chars"], "ratios": ratios,
            "min_ratio": min(vals, default=None), "max_ratio": max(vals, default=None)}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--levels", default=",".join(map(str, LEVELS)))
    ap.add_argument("--ticks", type=int, default=120)
    args = ap.parse_args(argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    rows = run([int(x) for x in args.levels.split(",")], args.ticks)
    print(json.dumps({"rows": rows, "flatness": flatness(rows),
                      "flatness_p99": flatness(rows, "tick_ms_p99")}))


if __name__ == "__main__":
    main()
