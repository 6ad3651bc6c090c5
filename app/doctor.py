"""``rill doctor``: one prompt through the real window, measured, as JSON.

It presses Enter the way a user does (the prompt box's submit signal), watches
a 5 ms GUI-thread heartbeat from send to the end of the final render, and
prints one JSON object on stdout. Exit status 0 when the reply came through.

The window is set up as ``rill`` sets it up (``app.cli``): the user's language
(system or Settings) and the executable's bundled fonts. The JSON says which:
``language``, the ``translators`` loaded (catalogue files) and ``fonts`` (the
bundled font files, and the application's Han and emoji fallback families).

Threading rule: GUI thread (``run_doctor`` owns the application).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from dataclasses import replace
from typing import Any

from PyQt6.QtCore import QChar, QCoreApplication, QObject, Qt, QTimer, QTranslator, pyqtSignal
from PyQt6.QtGui import QFontDatabase
from PyQt6.QtWidgets import QApplication

from app.application import warm_up
from app.core.backends.base import FinishReason, ModelInfo
from app.core.config.appearance import load_appearance
from app.core.conversation.model import Conversation, Message
from app.core.conversation.sample import history_messages, history_of_chars
from app.core.pipeline.metrics import percentile, summarize_ms
from app.core.render.mathscan import find_math
from app.core.text.thinking import strip_thinking
from app.ui.conversation.controller import ReplyStats
from app.ui.misc.fonts import BundledFonts, install_bundled_fonts
from app.ui.misc.i18n import install_translations
from app.ui.services.activity import ACTIVITY
from app.ui.window.main_window import MainWindow

HEARTBEAT_MS = 5
#: ``--prompt-file``: Enter this long after the paste (a person's hands take longer).
ENTER_AFTER_PASTE_MS = 50
#: The longest the doctor waits for the render process to start before it sends.
RENDER_PROCESS_WAIT_S = 30.0


class Heartbeat(QObject):
    """A 5 ms GUI-thread timer; its lateness is the UI's lag."""

    #: A heartbeat fired (after its lateness was taken); no args.
    beat = pyqtSignal()

    #: A heartbeat later than this is a stall (the ``stalls`` report).
    STALL_S = 0.008
    #: At most this many stalls are reported (the worst ones).
    MAX_STALLS = 500

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.lags_s: list[float] = []
        #: Heartbeats later than STALL_S: (when, since start; lateness; what the GUI thread did;
        #: the GUI thread's CPU seconds since the beat before).
        self.stalls: list[tuple[float, float, list[tuple[str, float]], float]] = []
        self._last = 0.0
        self._last_cpu = 0.0
        self._start = 0.0
        self._timer = QTimer(self)
        self._timer.setTimerType(Qt.TimerType.PreciseTimer)
        self._timer.setInterval(HEARTBEAT_MS)
        self._timer.timeout.connect(self._on_timeout)

    def start(self) -> None:
        self.lags_s.clear()
        self.stalls.clear()
        ACTIVITY.clear()
        ACTIVITY.enabled = True
        self._last = self._start = time.perf_counter()
        self._last_cpu = time.thread_time()
        self._timer.start()

    def stop(self) -> None:
        self._timer.stop()
        ACTIVITY.enabled = False

    def _on_timeout(self) -> None:
        now = time.perf_counter()
        due = self._last + HEARTBEAT_MS / 1000
        lag = max(0.0, now - due)
        self.lags_s.append(lag)
        cpu = time.thread_time()
        if lag > self.STALL_S:
            self.stalls.append((due - self._start, lag, ACTIVITY.blame(due, now), cpu - self._last_cpu))
        self._last, self._last_cpu = now, cpu
        self.beat.emit()

    def stall_report(self) -> list[dict[str, Any]]:
        """The doctor's ``stalls``: every heartbeat later than 8 ms (the worst
        MAX_STALLS, in time order) with what the GUI thread was doing meanwhile
        and ``gui_cpu_ms``, the GUI thread's CPU time since the beat before
        (an interval of 5 ms + ``late_ms``): the rest of it the thread waited,
        mostly for the GIL while another thread ran Python."""
        worst = sorted(self.stalls, key=lambda s: -s[1])[: self.MAX_STALLS]
        return [stall_entry(at, lag, doing, cpu) for at, lag, doing, cpu in sorted(worst)]


def stall_entry(at_s: float, lag_s: float, doing: list[tuple[str, float]], cpu_s: float) -> dict[str, Any]:
    """One ``stalls`` entry (the doctor's and the benchmarks' actions suite's)."""
    return {"at_ms": round(at_s * 1000, 1), "late_ms": round(lag_s * 1000, 2),
            "doing": [[label, ms] for label, ms in doing], "gui_cpu_ms": round(cpu_s * 1000, 2)}


def rss_mb() -> float:
    """This process's resident set size in MB (Linux /proc; 0 elsewhere)."""
    try:
        with open("/proc/self/statm") as f:
            pages = int(f.read().split()[1])
        return round(pages * os.sysconf("SC_PAGE_SIZE") / 2**20, 1)
    except (OSError, ValueError, IndexError):
        return 0.0


def history_conversation(messages: list[Message]) -> Conversation:
    """A conversation of earlier messages, built the way the store thread
    builds one it opens (off the GUI thread in the app)."""
    conv = Conversation(title="Earlier conversation")
    conv.load(messages)
    return conv


def open_history(window: MainWindow, conv: Conversation | list[Message]) -> None:
    """Open a long conversation exactly as the sidebar does (the view lays
    out only what is on screen, renders Markdown off the GUI thread, and
    prepares very long histories on a helper thread). A list of messages is
    first made into a conversation (set-up, as the store thread does)."""
    if isinstance(conv, list):
        conv = history_conversation(conv)
    window.chat.show_conversation(conv)


class DoctorRun(QObject):
    def __init__(self, window: MainWindow, args: argparse.Namespace) -> None:
        super().__init__(window)
        self.window = window
        self.args = args
        self.heartbeat = Heartbeat(self)
        self.heartbeat.beat.connect(self._on_beat)
        #: Heartbeats while a reply streamed with the view neither at the bottom
        #: nor gliding to it (the doctor never scrolls: the view lost the bottom).
        self._off_bottom_beats = 0
        self._streaming = False
        self.result: dict[str, Any] = {"ok": False, "error": ""}
        self.exit_code = 1
        self._stats: ReplyStats | None = None
        self._history_chars = 0
        self._info: ModelInfo | None = None
        chat = window.chat
        chat.model_ready.connect(self._on_model_ready)
        chat.model_failed.connect(self._on_model_failed)
        chat.reply_settled.connect(self._on_reply_settled)
        chat.prompt_progressed.connect(self._on_prompt_progressed)
        chat.reply_finished.connect(self._on_reply_finished)
        self._turns_sent = 0
        self._enters = 0  # turns whose Enter was pressed (a paste's comes 50 ms after it)
        self._turn_stats: list[ReplyStats] = []
        self._send_ms: list[float] = []
        self._paste_ms: list[float] = []  # --prompt-file: each turn's paste
        self._prompt_reports = 0  # prompt-reading progress reports that reached the window
        self._history_count = 0
        self._find_matches = 0
        self._history_open_ms: float | None = None
        self._render_wait_t0 = 0.0
        self._render_waited_ms = 0.0
        self._rss_start = 0.0
        self._rss_history: float | None = None
        self._attach_started = self._attach_done = False
        self._attach_t0 = 0.0
        self._attach_read_ms: float | None = None
        self._conv: Conversation | None = None
        #: ``--idle-ms``: the heartbeat while the window idled first (the idle floor)
        self._idle: dict[str, Any] | None = None
        self._deadline = QTimer(self)
        self._deadline.setSingleShot(True)
        self._deadline.timeout.connect(self._on_timeout)
        self._deadline.start(int(args.timeout_s * 1000))

    def _on_model_ready(self, info: ModelInfo) -> None:
        self._info = info
        warm_up(self.window)  # start-up work must not land inside the measurement
        # A person types for seconds before the first reply; the doctor sends
        # at once. It waits (a bounded time) for the render process to be up,
        # as it would be, so that the run measures the window as people meet
        # it, and says how long it waited.
        self._render_wait_t0 = time.perf_counter()
        self._when_render_process_answered()

    def _when_render_process_answered(self) -> None:
        pool = self.window.view.render_service.pool
        waited = time.perf_counter() - self._render_wait_t0
        if pool is not None and not pool.answered and waited < RENDER_PROCESS_WAIT_S:
            QTimer.singleShot(20, self._when_render_process_answered)
            return
        self._render_waited_ms = round(waited * 1000, 1)
        self._begin()

    def _begin(self) -> None:
        chat = self.window.chat
        chat.params = replace(
            chat.params,
            seed=self.args.seed if self.args.seed is not None else chat.params.seed,
            max_tokens=self.args.max_tokens or chat.params.max_tokens,
            ignore_eos=self.args.ignore_eos,
        )
        self._rss_start = rss_mb()
        # Making the sample history is set-up (a store reads it on its own
        # thread), not an action of the window: it is not measured.
        history: list[Message] = []
        if self.args.history_messages > 0:
            history = history_messages(self.args.history_messages)
        elif self.args.history_chars > 0:
            history = history_of_chars(self.args.history_chars)
        conv = history_conversation(history) if history else None
        self._history_chars = sum(len(m) for m in history)
        self._history_count = len(history)
        if self.args.prompt_file:
            self._copy_prompt_file()
        self._conv = conv
        if conv is not None:  # in the store first, as an opened conversation is (set-up: not measured)
            self.window.library.store_whole(conv, self._on_history_stored)
            return
        self._on_history_stored(True)

    def _on_history_stored(self, ok: bool) -> None:
        if not ok:
            self._finish({"error": "the sample history could not be stored", "finish_reason": "error"})
            return
        if self.args.idle_ms > 0:
            self.heartbeat.start()
            QTimer.singleShot(self.args.idle_ms, self._on_idle_done)
            return
        self._run()

    def _on_idle_done(self) -> None:
        """The idle floor measured: the same heartbeat with nothing going on."""
        self.heartbeat.stop()
        self._idle = {"ui_lag_ms": summarize_ms(self.heartbeat.lags_s), "heartbeats": len(self.heartbeat.lags_s),
                      "stalls": self.heartbeat.stall_report()}
        self._run()

    def _run(self) -> None:
        conv, self._conv = self._conv, None
        self.heartbeat.start()  # the whole run counts, actions included
        if conv is not None:
            self._history_t0 = time.perf_counter()
            self.window.view.viewport_ready.connect(self._on_history_shown)
            open_history(self.window, conv)
        else:
            QTimer.singleShot(50, self._send)

    def _on_history_shown(self) -> None:
        self.window.view.viewport_ready.disconnect(self._on_history_shown)
        self._history_open_ms = round((time.perf_counter() - self._history_t0) * 1000, 1)
        self._rss_history = rss_mb()
        QTimer.singleShot(50, self._send)

    def _on_model_failed(self, message: str) -> None:
        self._finish({"error": f"model failed to load: {message}", "finish_reason": "error"})

    def _copy_prompt_file(self) -> None:
        """Put ``--prompt-file``'s text on the clipboard, as a user copies it
        in another application before pasting: set-up, done before the
        heartbeat starts (reading 4 MB and copying it are not the window's
        work; pasting it, each turn, is)."""
        with open(self.args.prompt_file, encoding="utf-8", errors="replace") as f:
            text = f.read()
        clipboard = QApplication.clipboard()
        if clipboard is not None:
            clipboard.setText(text)

    def _send(self) -> None:
        """Type (or paste, for a prompt file) and press Enter, as a user does
        (``--attach`` files first join the message, as the attach button does)."""
        if self.args.attach and not self._attach_done:
            self._attach()
            return
        self._turns_sent += 1
        if self._turns_sent == 1 and self.args.find:
            bar = self.window.find_bar
            bar.open_bar()
            bar.edit.setText(self.args.find)  # highlighted in the reply while it streams
        turn = f" (turn {self._turns_sent})" if self._turns_sent > 1 else ""
        if self.args.prompt_file:
            # Paste, then Enter: two events, as a person's hands make them.
            t0 = time.perf_counter()
            self.window.paste_prompt(then_type=turn)
            self._paste_ms.append(round((time.perf_counter() - t0) * 1000, 2))
            QTimer.singleShot(ENTER_AFTER_PASTE_MS, self._press_enter)
            return
        self.window.prompt.clear()
        self.window.prompt.setPlainText(str(self.args.prompt) + turn)
        self._press_enter()

    def _press_enter(self) -> None:
        self._enters += 1
        t0 = time.perf_counter()
        self.window.press_enter()
        self._streaming = True
        self._send_ms.append(round((time.perf_counter() - t0) * 1000, 2))
        if self.window.chat.current_reply is None and not self.window.attachments.sending.preparing:
            status = self.window.statusBar()
            said = status.currentMessage() if status is not None else ""
            self._finish({"error": "the prompt was not sent: " + said,
                          "finish_reason": "error"})
            return
        if self.args.stop_after_ms is not None:
            QTimer.singleShot(int(self.args.stop_after_ms), self.window.stop_button.click)

    def _attach(self) -> None:
        if self._attach_started:
            return
        self._attach_started = True
        self._attach_t0 = time.perf_counter()
        service = self.window.attachments.service
        service.pending_changed.connect(self._on_attachments_changed)
        self.window.attachments.attach(self.args.attach)
        self._on_attachments_changed()

    def _on_attachments_changed(self) -> None:
        service = self.window.attachments.service
        if service.reading or self._attach_done:
            return
        self._attach_done = True
        self._attach_read_ms = round((time.perf_counter() - self._attach_t0) * 1000, 1)
        service.pending_changed.disconnect(self._on_attachments_changed)
        QTimer.singleShot(0, self._send)

    def _attachments(self) -> list[dict[str, Any]]:
        """Per attachment: ``name``, ``kind``, ``pages``, ``chars``, ``tokens``,
        ``mode``, ``error`` (and ``size``, ``notice``); for retrieval the
        chosen ``chunks`` (``file``, ``page``, ``score``, ``text``: the first
        80 characters)."""
        plan = self.window.attachments.service.last_plan
        if plan is None:
            return [a.to_report() for a in self.window.attachments.service.pending]
        out = []
        for a in plan.attachments:
            item = a.to_report()
            item["chunks"] = [src.to_report() for src in plan.sources if src.attachment_id == a.id]
            out.append(item)
        return out

    def _print_prompt(self) -> None:
        """The messages the backend was given (attachments joined), to stderr:
        each as ``<|role|>``, a newline, its text."""
        for m in self.window.attachments.sending.last_prompt:
            sys.stderr.write(f"<|{m.role}|>\n{m.content}\n")
        sys.stderr.flush()
    def _on_prompt_progressed(self, _rid: int, _done: int, _total: int) -> None:
        self._prompt_reports += 1

    def _on_beat(self) -> None:
        view = self.window.view
        if self._streaming and not view.at_bottom() and not view.gliding:
            self._off_bottom_beats += 1

    def _on_reply_finished(self, stats: ReplyStats) -> None:
        self._streaming = False
        if self._turns_sent < self.args.turns:
            self._turn_stats.append(stats)
            # Right after the reply ended (its final render goes on), as the
            # next event: a person's hands are not inside the window's tick.
            QTimer.singleShot(0, self._send)

    def _on_reply_settled(self, stats: ReplyStats) -> None:
        if stats.request_id != self._last_request_id():
            return
        self._stats = stats
        # Let the heartbeat fire a few more times so the lateness the final
        # render caused is counted, then stop it.
        QTimer.singleShot(4 * HEARTBEAT_MS, self._on_settled)

    def _last_request_id(self) -> int:
        reply = self.window.chat.current_reply
        if reply is not None or self._enters < self.args.turns:
            return -1  # a turn to come (its paste may be in the box already)
        return self.window.chat.last_request_id

    def _on_settled(self) -> None:
        if self.window.view.busy:
            QTimer.singleShot(HEARTBEAT_MS, self._on_settled)  # earlier turns still rendering
            return
        self.heartbeat.stop()
        if self.args.find:
            # Count the matches in the whole conversation now (the bar
            # searches again in slices), then report.
            bar = self.window.find_bar
            bar.search_finished.connect(self._on_find_counted)
            bar.open_bar()
            return
        self._report()

    def _on_find_counted(self, matches: int) -> None:
        self.window.find_bar.search_finished.disconnect(self._on_find_counted)
        self._find_matches = matches
        self._report()

    def _report(self) -> None:
        s = self._stats
        assert s is not None
        reply_text = self.window.view.probe.message_text(s.message_id)
        links = self.window.view.probe.message_links(s.message_id)
        gen_s = (s.last_token_at - s.first_token_at) if (s.last_token_at and s.first_token_at) else 0.0
        tps = (s.tokens_shown - 1) / gen_s if gen_s > 0 and s.tokens_shown > 1 else 0.0
        reason = s.finish_reason.value if s.finish_reason else "error"
        complete = s.finish_reason == FinishReason.CANCELLED or s.tokens_shown == s.tokens_produced
        ok = reason != "error" and s.seq_errors == 0 and complete
        out: dict[str, Any] = {
            "ok": ok,
            "error": s.error or ("" if complete else f"{s.tokens_produced - s.tokens_shown} tokens never shown"),
            "finish_reason": reason,
            "reply_text": reply_text,
            "reply_links": links,
            "tokens": s.tokens_shown,
            "tokens_produced": s.tokens_produced,
            "ttft_ms": round((s.first_token_at - s.sent_at) * 1000, 2) if s.first_token_at else None,
            "tokens_per_s": round(tps, 2),
            "ui_lag_ms": summarize_ms(self.heartbeat.lags_s),
            "stalls": self.heartbeat.stall_report(),
            "heartbeats": len(self.heartbeat.lags_s),
            # --idle-ms: the same heartbeat while the window idled before the run
            # (ui_lag_ms, heartbeats, stalls); None without it
            "idle": self._idle,
            "token_to_screen_ms": {
                "p50": round(percentile(s.token_to_screen_s.values, 50) * 1000, 2),
                "p95": round(percentile(s.token_to_screen_s.values, 95) * 1000, 2),
            },
            "buffer_max_depth": self.window.chat.service.buffer.max_depth_chars,
            "ticks": s.ticks,
            "render_passes": s.render_passes,
            "view_slice_max_ms": round(self.window.view.max_slice_s * 1000, 2),
            "view_slices": self.window.view.slices,
            # paint events of the conversation's viewport: of all of it, of a strip
            "viewport_paints": self.window.view.probe.viewport_paints,
            # heartbeats while the reply streamed with the view neither at the bottom nor gliding there: 0
            "off_bottom_beats": self._off_bottom_beats,
            "seq_errors": s.seq_errors,
            "stop_to_idle_ms": None,
            "worker_exit_ms": None,
            "history_chars": self._history_chars,
            "history_messages": self._history_count,
            "history_open_ms": self._history_open_ms,
            "turns": self._turns_sent,
            "send_ms": self._send_ms,
            "paste_ms": self._paste_ms,
            "prompt_progress_reports": self._prompt_reports,
            "rss_mb": rss_mb(),
            "rss_start_mb": self._rss_start,
            "rss_history_mb": self._rss_history,
            "backend": self.args.backend or "local",
            "model": self._info.name if self._info else "",
            "vision": self._vision(),
            "n_threads": self._info.n_threads if self._info else 0,
            "find": {"text": self.args.find, "matches": self._find_matches} if self.args.find else None,
            "render_process": self._render_process(),
            "math": self._math(s.message_id),
            "prompt_tokens": s.prompt_tokens,
            "attachments": self._attachments(),
            # from the files given to the window to the last of them read (extracted, chunked, embedded)
            "attach_read_ms": self._attach_read_ms,
            "retrieval": "keyword+vector" if self.window.attachments.service.embedder is not None else "keyword",
            "embedding_model": self.window.attachments.service.embedding.path,
            "embedding_error": self.window.attachments.service.embedding.error,
        }
        if self.args.print_prompt:
            self._print_prompt()
        if s.stop_pressed_at is not None:
            out["stop_to_idle_ms"] = round(((s.idle_at or s.stop_pressed_at) - s.stop_pressed_at) * 1000, 3)
            if s.worker_exit_at is not None:
                out["worker_exit_ms"] = round(max(0.0, s.worker_exit_at - s.stop_pressed_at) * 1000, 2)
        if s.first_token_at and s.producer_done_at and s.first_shown_at and s.last_shown_at:
            produce_s = max(1e-6, s.producer_done_at - s.first_token_at)
            display_s = max(1e-6, s.last_shown_at - s.first_shown_at)
            out["produce_tok_s"] = round(s.tokens_produced / produce_s, 1)
            out["display_tok_s"] = round(s.tokens_shown / display_s, 1)
            out["display_ratio"] = round((s.tokens_shown / display_s) / (s.tokens_produced / produce_s), 3)
        out["backlog_end"] = s.backlog_at_producer_done
        out["producer_blocked_ms"] = round(self.window.chat.service.buffer.blocked_s * 1000, 1)
        self.exit_code = 0 if ok else 1
        self._finish(out)

    def _math(self, message_id: str) -> dict[str, Any]:
        """The reply's formulas: found in its source, typeset, shown as source
        (broken TeX), the p95 of the time typesetting took (render process), and
        how long formulas waited from their closing delimiter to their image."""
        probe = self.window.view.probe
        formulas = probe.message_formulas(message_id)
        source = probe.message_source(message_id)
        rendered = sum(f.ok for f in formulas)
        delays = probe.formula_delays_ms(message_id)
        return {
            "spans": len(find_math(strip_thinking(source))),
            "rendered": rendered,
            "fallback": len(formulas) - rendered,
            "render_ms_p95": round(percentile([f.ms for f in formulas], 95), 2) if formulas else 0.0,
            # from a formula's closing delimiter reaching the window to its image on screen
            "shown_ms_p95": round(percentile(delays, 95), 1) if delays else 0.0,
            "shown_ms_max": round(max(delays), 1) if delays else 0.0,
        }

    def _vision(self) -> dict[str, Any]:
        """Whether the model is sent images (``sees_images``: a local model
        whose projector loaded, or a server's model), the projector's file
        (``projector``, "" : none) and, when one was found but refused, why
        (``warning``)."""
        info = self._info
        return {
            "sees_images": self.window.attachments.can_see_images(),
            "projector": info.projector if info else "",
            "warning": info.projector_error if info else "",
        }

    def _render_process(self) -> dict[str, float] | None:
        """Jobs rendered by the worker process and, while it started, here,
        and how long the run waited for it to start; None: no process."""
        pool = self.window.view.render_service.pool
        if pool is None:
            return None
        return {"in_worker": pool.in_worker, "in_process": pool.in_process, "restarts": pool.restarts,
                "start_wait_ms": self._render_waited_ms}

    def _on_timeout(self) -> None:
        self._finish({"error": f"timed out after {self.args.timeout_s:g} s", "finish_reason": "error"})

    def _finish(self, data: dict[str, Any]) -> None:
        self._deadline.stop()
        self.result.update(data)
        self.window.close()


def ui_environment(app: QCoreApplication, language: str, fonts: BundledFonts) -> dict[str, Any]:
    """The language shown, the translation catalogues loaded (file paths) and
    the fonts registered, as Qt has them."""
    return {
        "language": language,
        "translators": [t.filePath() for t in app.findChildren(QTranslator) if not t.isEmpty()],
        "fonts": {
            "bundled": list(fonts.files),
            "han_fallback": QFontDatabase.applicationFallbackFontFamilies(QChar.Script.Script_Han),
            "emoji": QFontDatabase.applicationEmojiFontFamilies(),
        },
    }


def run_doctor(args: argparse.Namespace) -> int:
    from app.application import backend_from_args, create_window, make_application

    app = make_application()
    # As the window users open is set up (app.cli): their language, the bundled fonts.
    language = install_translations(app, load_appearance().language)
    fonts = install_bundled_fonts(app)
    window = create_window(*backend_from_args(args), persist=False)  # a check leaves no trace in the history
    if getattr(args, "embedding_model", None):
        # as Settings › Documents does (for this run only: nothing is saved)
        window.attachments.service.embedding.choose(args.embedding_model)
    run = DoctorRun(window, args)
    window.show()
    app.exec()
    result = {**run.result, **ui_environment(app, language, fonts)}
    sys.stdout.write(json.dumps(result, ensure_ascii=False) + "\n")
    sys.stdout.flush()
    return run.exit_code
