"""Two naive streaming renderers, the way many PyQt chat apps stream, kept as
references for the UI-responsiveness suite (``benchmarks/ui_lag.py``).

* ``append``: a worker QThread emits one ``pyqtSignal(str)`` per token; the
  GUI slot does ``moveCursor(End)`` + ``insertPlainText`` on a QTextEdit.
* ``rerender``: one signal per token; the slot re-renders the whole reply
  from Markdown to HTML (``app.core.render.markdown.render_markdown``, the renderer
  Rill uses) and replaces the reply's range of the document with it.

Everything else is Rill's: the token source (``ScriptedBackend`` on the same
text file and rate), the history (the same messages as ``rill doctor
--history-chars``, ``app.core.conversation.sample.history_of_chars``, rendered
with Rill's renderer into the one QTextEdit), the heartbeat (``app.doctor.Heartbeat``, a 5 ms
PreciseTimer) and the metric definitions of ``rill doctor``. One run per
process; it prints one JSON object on stdout:

    python -m benchmarks.naive --mode append|rerender --rate R
        [--history-chars H] [--text-file F] [--cap-s 20] [--cache-dir D]

A naive renderer may never catch up: ``--cap-s`` seconds after the producer
finished the run is cut and the backlog reported (``capped``, ``unshown``);
so is a run whose producer, starved of the GIL by the flooded GUI thread,
is still producing ``--cap-s`` seconds after it should have finished
(``producer_finished`` false; rates then run to the cut).
Tokens never shown then count in token-to-screen with their latency so far
(a lower bound), flagged by ``t2s_lower_bound``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from PyQt6.QtCore import QObject, QThread, pyqtSignal, pyqtSlot
from PyQt6.QtGui import QTextCursor
from PyQt6.QtWidgets import QApplication, QMainWindow, QTextEdit

from app.core.backends.base import ChatMessage, GenerationRequest
from app.core.backends.scripted import ScriptedBackend
from app.core.pipeline.metrics import percentile, summarize_ms
from app.core.render import markdown as render
from app.doctor import HEARTBEAT_MS, Heartbeat

MODES = ("append", "rerender")


class OpenHeartbeat(Heartbeat):
    """The doctor's heartbeat, plus the lateness of the beat still pending: a
    GUI thread flooded with queued signals may not run the timer at all
    until the run is cut, and that stall must count."""

    def pending_lag_s(self) -> float:
        return max(0.0, time.perf_counter() - self._last - HEARTBEAT_MS / 1000)

_USER_HEADER = '<p style="margin-top:14px"><b><span style="color:#1f6feb">You</span></b></p>'
_REPLY_HEADER = '<p style="margin-top:14px"><b><span style="color:#8250df">Rill</span></b></p>'
_FILL_BATCH_MESSAGES = 200


def history_html(chars: int, cache_dir: str | None = None) -> list[str]:
    """The earlier conversation ``rill doctor --history-chars`` opens
    (``app.core.conversation.sample.history_of_chars``: same messages, same
    character count), each message rendered to HTML with Rill's own renderer
    under a You / Rill header. Cached as JSON in ``cache_dir`` (rendering 10 M
    characters takes seconds; the orchestrator passes its work folder)."""
    from app.core.conversation.sample import history_of_chars

    path = os.path.join(cache_dir, f"naive-history-{chars}.json") if cache_dir else None
    if path and os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    render.warm_up()
    memo: dict[tuple[str, str], str] = {}
    out: list[str] = []
    for msg in history_of_chars(chars):
        key = (msg.role, msg.content)
        html = memo.get(key)
        if html is None:
            if msg.role == "user":
                html = _USER_HEADER + render.render_user_text(msg.content)
            else:
                html = _REPLY_HEADER + render.render_markdown(msg.content)
            memo[key] = html
        out.append(html)
    if path:
        os.makedirs(cache_dir, exist_ok=True)
        tmp = path + f".{os.getpid()}.tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(out, f)
        os.replace(tmp, path)
    return out


def fill_history(edit: QTextEdit, chars: int, cache_dir: str | None = None) -> int:
    """The same earlier conversation as the doctor's ``--history-chars``
    (``history_html``), inserted into the QTextEdit in batches of messages
    (quicker to set up than one message at a time; the resulting document is
    the same). Laid out before the measurement starts. Returns the number of
    source characters."""
    from app.core.conversation.sample import history_of_chars

    shown = sum(len(m) for m in history_of_chars(chars))
    htmls = history_html(chars, cache_dir)
    cursor = QTextCursor(edit.document())
    for i in range(0, len(htmls), _FILL_BATCH_MESSAGES):
        cursor.movePosition(QTextCursor.MoveOperation.End)
        cursor.insertHtml("".join(htmls[i:i + _FILL_BATCH_MESSAGES]))
    edit.document().documentLayout().documentSize()
    sb = edit.verticalScrollBar()
    sb.setValue(sb.maximum())
    return shown


@dataclass
class Shared:
    """State the producer thread, the GUI thread and the watchdog all read.
    Appends and int updates are atomic under the GIL; readers copy."""

    produced_at: list[float] = field(default_factory=list)   # monotonic, per token
    shown_at: list[float] = field(default_factory=list)      # monotonic, per token shown
    shown: int = 0
    producer_done_at: float | None = None
    backlog_end: int = 0
    done: threading.Event = field(default_factory=threading.Event)


class TokenWorker(QObject):
    """Runs the scripted producer on its own QThread; one signal per token."""

    token = pyqtSignal(str)

    def __init__(self, backend: ScriptedBackend, shared: Shared) -> None:
        super().__init__()
        self._backend = backend
        self._shared = shared
        self.cancel = threading.Event()

    @pyqtSlot()
    def run(self) -> None:
        request = GenerationRequest(1, (ChatMessage("user", "benchmark"),))
        shared = self._shared
        for piece in self._backend.generate(request, self.cancel):
            shared.produced_at.append(time.monotonic())
            self.token.emit(piece)
        shared.producer_done_at = time.monotonic()
        shared.backlog_end = len(shared.produced_at) - shared.shown
        shared.done.set()


class NaiveWindow(QMainWindow):
    """A chat window with a QTextEdit transcript and a naive per-token slot."""

    def __init__(self, mode: str, shared: Shared) -> None:
        super().__init__()
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}")
        self.mode = mode
        self.shared = shared
        self.edit = QTextEdit()
        self.edit.setReadOnly(True)
        self.setCentralWidget(self.edit)
        self.resize(900, 720)
        self._reply_start = 0
        self._reply = ""

    def begin_reply(self, question: str) -> None:
        cursor = QTextCursor(self.edit.document())
        cursor.movePosition(QTextCursor.MoveOperation.End)
        cursor.insertHtml(_USER_HEADER + render.render_user_text(question) + _REPLY_HEADER)
        cursor.insertBlock()
        self._reply_start = cursor.position()
        self.edit.setTextCursor(cursor)

    @pyqtSlot(str)
    def on_token_append(self, text: str) -> None:
        self.edit.moveCursor(QTextCursor.MoveOperation.End)
        self.edit.insertPlainText(text)
        self._shown()

    @pyqtSlot(str)
    def on_token_rerender(self, text: str) -> None:
        self._reply += text
        html = render.render_markdown(self._reply)
        cursor = QTextCursor(self.edit.document())
        cursor.beginEditBlock()
        cursor.setPosition(self._reply_start)
        cursor.movePosition(QTextCursor.MoveOperation.End, QTextCursor.MoveMode.KeepAnchor)
        cursor.removeSelectedText()
        cursor.insertHtml(html)
        cursor.endEditBlock()
        sb = self.edit.verticalScrollBar()
        sb.setValue(sb.maximum())
        self._shown()

    def _shown(self) -> None:
        s = self.shared
        s.shown_at.append(time.monotonic())
        s.shown += 1


class Watchdog(threading.Thread):
    """Ends the run from outside the (possibly flooded) GUI thread: once every
    token is shown (plus a few heartbeats), or ``cap_s`` after the producer
    finished, it takes a snapshot, prints the JSON and exits the process."""

    def __init__(self, run: NaiveRun, cap_s: float, timeout_s: float) -> None:
        super().__init__(daemon=True)
        self.run_ = run
        self.cap_s = cap_s
        self.timeout_s = timeout_s

    def run(self) -> None:
        shared = self.run_.shared
        t_start = time.monotonic()
        capped = False
        while True:
            time.sleep(0.005)
            now = time.monotonic()
            if shared.done.is_set():
                if shared.shown >= len(shared.produced_at):
                    time.sleep(4 * HEARTBEAT_MS / 1000)  # count the lateness the last slot caused
                    break
                if shared.producer_done_at is not None and now - shared.producer_done_at >= self.cap_s:
                    capped = True
                    break
            if now - t_start > self.timeout_s:
                capped = True
                break
        data = self.run_.snapshot(capped)
        sys.stdout.write(json.dumps(data) + "\n")
        sys.stdout.flush()
        os._exit(0)  # the GUI thread may still be flooded with queued tokens


class NaiveRun:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.shared = Shared()
        self.window = NaiveWindow(args.mode, self.shared)
        self.heartbeat = OpenHeartbeat()
        if args.text_file:
            self.backend = ScriptedBackend.from_file(args.text_file, rate=args.rate)
        else:
            self.backend = ScriptedBackend(rate=args.rate)
        self.worker = TokenWorker(self.backend, self.shared)
        self.thread = QThread()
        self.worker.moveToThread(self.thread)
        self.thread.started.connect(self.worker.run)
        slot = self.window.on_token_append if args.mode == "append" else self.window.on_token_rerender
        self.worker.token.connect(slot)
        self.history_chars = 0
        self.sent_at = 0.0
        self.ended_at = 0.0

    def start(self) -> None:
        self.window.show()
        QApplication.processEvents()
        render.warm_up()
        if self.args.history_chars > 0:
            self.history_chars = fill_history(self.window.edit, self.args.history_chars, self.args.cache_dir)
        QApplication.processEvents()
        self.window.begin_reply("Write a reply in Markdown.")
        expected_s = len(self.backend.tokens) / self.args.rate if self.args.rate > 0 else 10.0
        # Cut at cap_s after the producer finished, or once the producer (its
        # thread starved of the GIL by the flooded GUI) is cap_s late.
        Watchdog(self, self.args.cap_s, timeout_s=expected_s + self.args.cap_s + 2).start()
        self.sent_at = time.monotonic()
        self.heartbeat.start()
        self.thread.start()

    def snapshot(self, capped: bool) -> dict[str, Any]:
        now = time.monotonic()
        s = self.shared
        lags = list(self.heartbeat.lags_s)
        pending = self.heartbeat.pending_lag_s()
        if pending > 0.001:
            lags.append(pending)
        produced = list(s.produced_at)
        shown_at = list(s.shown_at)
        n_shown = len(shown_at)
        n_prod = len(produced)
        t2s = [shown_at[i] - produced[i] for i in range(min(n_shown, n_prod))]
        unshown = max(0, n_prod - n_shown)
        t2s_all = t2s + [now - t for t in produced[n_shown:]]
        out: dict[str, Any] = {
            "ok": not capped and unshown == 0,
            "renderer": f"naive_{self.args.mode}",
            "capped": capped,
            "tokens": n_shown,
            "tokens_produced": n_prod,
            "unshown": unshown,
            "ui_lag_ms": summarize_ms(lags),
            "heartbeats": len(lags),
            "token_to_screen_ms": {
                "p50": round(percentile(t2s_all, 50) * 1000, 2),
                "p95": round(percentile(t2s_all, 95) * 1000, 2),
            },
            "t2s_lower_bound": unshown > 0,
            "history_chars": self.history_chars,
            "rate": self.args.rate,
            "backlog_end": s.backlog_end if s.producer_done_at is not None else unshown,
        }
        # A producer starved by a flooded GUI thread may not have finished
        # when the run is cut: its rate then runs to the snapshot.
        producer_end = s.producer_done_at if s.producer_done_at is not None else now
        out["producer_finished"] = s.producer_done_at is not None
        if produced and n_shown:
            produce_s = max(1e-6, producer_end - produced[0])
            display_s = max(1e-6, shown_at[-1] - shown_at[0])
            out["produce_tok_s"] = round(n_prod / produce_s, 1)
            out["display_tok_s"] = round(n_shown / display_s, 1)
            out["display_ratio"] = round((n_shown / display_s) / (n_prod / produce_s), 3)
        elif produced:
            out["produce_tok_s"] = round(n_prod / max(1e-6, producer_end - produced[0]), 1)
            out["display_tok_s"] = 0.0
            out["display_ratio"] = 0.0
        return out


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mode", choices=MODES, required=True)
    ap.add_argument("--rate", type=float, default=500.0)
    ap.add_argument("--history-chars", type=int, default=0)
    ap.add_argument("--text-file", default=None)
    ap.add_argument("--cap-s", type=float, default=20.0,
                    help="stop waiting this long after the producer finished")
    ap.add_argument("--cache-dir", default=None,
                    help="keep the rendered history HTML here between runs")
    return ap


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    app = QApplication.instance() or QApplication(sys.argv[:1])
    run = NaiveRun(args)
    run.start()
    app.exec()  # the watchdog ends the process
    return 0


if __name__ == "__main__":
    sys.exit(main())
