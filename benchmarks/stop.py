"""Stop: how fast the UI is idle and the worker exits, with the real model.

In-process (one model load for all runs): the real window
(``app.application.create_window`` + ``local_factory(None)``), a prompt sent
the way Enter does (``window.prompt.submit_requested``), Stop pressed with
``window.stop_button.click()`` after a delay, and the ``ReplyStats`` read
from ``window.chat.reply_settled`` (emitted once the final render is done
and the stopped worker has reported its exit), then starts a new
chat (File > New Chat) and the next run. Runs alternate:

* ``generation``: a short prompt; Stop 20-300 ms after the first token was
  produced (varied so Stop lands anywhere within a token);
* ``prefill``: a ~1,500-token prompt (a unique first line, so no KV-cache
  prefix is reused); Stop 60-400 ms after sending, while the prompt is being
  evaluated (runs where a token came first are counted apart).

Reported: stop -> UI idle (``idle_at - stop_pressed_at``), the whole
``click()`` on the GUI thread, stop -> worker exit, and the time per token
(worker exit must be within one token + 20 ms during generation).

    python -m benchmarks.stop [--runs 50]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

GEN_DELAYS_MS = (20, 90, 160, 230, 300)
PREFILL_DELAYS_MS = (60, 150, 250, 400)
SHORT_PROMPT = "Tell me about rivers and the towns built along them."
_PARAGRAPH = (
    "The river carried small boats past the old mill while the town prepared "
    "for the autumn market, and the children counted the geese on the bank. "
)


def long_prompt(nonce: int, approx_tokens: int = 1500) -> str:
    # ~27 tokens per paragraph for SmolLM2's tokenizer.
    body = _PARAGRAPH * max(1, approx_tokens // 27)
    return f"Request {nonce}: summarise this text.\n\n{body}"


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=50, help="runs of each kind")
    ap.add_argument("--timeout-s", type=float, default=900)
    args = ap.parse_args(argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

    from PyQt6.QtCore import QObject, QTimer

    from app.application import create_window, make_application, warm_up
    from app.core.factory import local_factory
    from app.core.pipeline.metrics import percentile
    from app.ui.conversation.controller import ChatState, ReplyStats

    app = make_application()
    window = create_window(*local_factory(None))

    class Harness(QObject):
        def __init__(self) -> None:
            super().__init__(window)
            self.plan = [k for _ in range(args.runs) for k in ("generation", "prefill")]
            self.i = 0
            self.rows: list[dict[str, Any]] = []
            self.error = ""
            self.n_threads = 0
            self.stats: ReplyStats | None = None
            self.click_s = 0.0
            self.first_token_at: float | None = None
            self.sent_at = 0.0
            chat = window.chat
            chat.model_ready.connect(self.on_ready)
            chat.model_failed.connect(self.on_failed)
            chat.reply_settled.connect(self.on_finished)
            chat.service.first_token_produced.connect(self.on_first_token)

        def on_ready(self, info: Any) -> None:
            self.n_threads = info.n_threads
            warm_up(window)
            QTimer.singleShot(200, self.next_run)

        def on_failed(self, message: str) -> None:
            self.error = message
            app.quit()

        def next_run(self) -> None:
            if self.i >= len(self.plan):
                app.quit()
                return
            kind = self.plan[self.i]
            self.stats = None
            self.first_token_at = None
            prompt = SHORT_PROMPT if kind == "generation" else long_prompt(self.i)
            window.prompt.setPlainText(prompt)
            self.sent_at = time.monotonic()
            window.prompt.submit_requested.emit()  # what Enter does
            if window.chat.state != ChatState.GENERATING:
                self.error = "the prompt was not sent"
                app.quit()
                return
            if kind == "prefill":
                delay = PREFILL_DELAYS_MS[(self.i // 2) % len(PREFILL_DELAYS_MS)]
                QTimer.singleShot(delay, self.press_stop)

        def on_first_token(self, rid: int, at: float) -> None:
            self.first_token_at = at
            if self.i < len(self.plan) and self.plan[self.i] == "generation":
                delay = GEN_DELAYS_MS[(self.i // 2) % len(GEN_DELAYS_MS)]
                QTimer.singleShot(delay, self.press_stop)

        def press_stop(self) -> None:
            if window.chat.state != ChatState.GENERATING:
                return  # the reply ended by itself first: on_finished records it
            t0 = time.perf_counter()
            window.stop_button.click()
            self.click_s = time.perf_counter() - t0

        def on_finished(self, stats: ReplyStats) -> None:
            self.stats = stats
            self.record(stats)
            window.chat.new_chat()  # File > New Chat
            self.i += 1
            QTimer.singleShot(100, self.next_run)

        def record(self, s: ReplyStats) -> None:
            kind = self.plan[self.i]
            row: dict[str, Any] = {"kind": kind, "stopped": s.stop_pressed_at is not None,
                                   "tokens": s.tokens_produced, "prompt_tokens": s.prompt_tokens}
            if s.stop_pressed_at is not None:
                stop = s.stop_pressed_at
                row["idle_ms"] = round(((s.idle_at or stop) - stop) * 1000, 4)
                row["click_ms"] = round(self.click_s * 1000, 3)
                row["worker_ms"] = round(max(0.0, (s.worker_exit_at or stop) - stop) * 1000, 2)
                row["stop_after_send_ms"] = round((stop - self.sent_at) * 1000, 1)
                row["during_prefill"] = self.first_token_at is None or self.first_token_at > stop
                if self.first_token_at is not None and s.tokens_produced > 1 and self.first_token_at < stop:
                    row["token_ms"] = round((stop - self.first_token_at) / max(1, s.tokens_produced - 1) * 1000, 2)
            self.rows.append(row)
            print(f"stop {self.i + 1}/{len(self.plan)}: {row}", file=sys.stderr, flush=True)

    harness = Harness()
    QTimer.singleShot(int(args.timeout_s * 1000), app.quit)
    window.show()
    app.exec()
    window.chat.shutdown()

    rows = harness.rows

    def ms(key: str, rs: list[dict[str, Any]], q: float | None) -> float | None:
        vals = [r[key] for r in rs if r.get(key) is not None]
        if not vals:
            return None
        return round(max(vals) if q is None else percentile(vals, q), 3)

    gen = [r for r in rows if r["kind"] == "generation" and r["stopped"] and not r["during_prefill"]]
    pre = [r for r in rows if r["kind"] == "prefill" and r["stopped"] and r["during_prefill"]]
    stopped = [r for r in rows if r["stopped"]]
    over_budget = [r for r in gen if r.get("token_ms") is not None and r["worker_ms"] > r["token_ms"] + 20]
    print(json.dumps({
        "error": harness.error,
        "n_threads": harness.n_threads,
        "runs": len(rows),
        "generation_runs": len(gen),
        "prefill_runs": len(pre),
        "prefill_runs_missed": sum(1 for r in rows if r["kind"] == "prefill" and not (r["stopped"] and r["during_prefill"])),
        "idle_ms_p50": ms("idle_ms", stopped, 50),
        "idle_ms_max": ms("idle_ms", stopped, None),
        "click_ms_p50": ms("click_ms", stopped, 50),
        "click_ms_max": ms("click_ms", stopped, None),
        "worker_ms_p50": ms("worker_ms", gen, 50),
        "worker_ms_p95": ms("worker_ms", gen, 95),
        "worker_ms_max": ms("worker_ms", gen, None),
        "token_ms_p50": ms("token_ms", gen, 50),
        "token_ms_max": ms("token_ms", gen, None),
        "worker_over_token_plus_20ms": len(over_budget),
        "prefill_worker_ms_p50": ms("worker_ms", pre, 50),
        "prefill_worker_ms_p95": ms("worker_ms", pre, 95),
        "prefill_worker_ms_max": ms("worker_ms", pre, None),
        "prefill_prompt_tokens": ms("prompt_tokens", pre, 50),
        "rows": rows,
    }))


if __name__ == "__main__":
    main()
