"""User actions: how long each one blocks the GUI thread.

One action per process (``python -m benchmarks.actions --action NAME``): the
real window (``create_window``, offscreen) on the scripted backend, the state
the action needs set up first (not measured: e.g. a 10 M-character
conversation opened and settled), then the action done the way a user does it
(the menu action's ``trigger()``, ``prompt.paste()``, Enter through
``prompt.submit_requested``, ``window.resize``, ``window.close()``) while a 5 ms
PreciseTimer heartbeat (``app.doctor.Heartbeat``'s) runs. An action's cost is
the **maximum heartbeat lateness from the action until its effects settled**
(the view idle, the reply settled...): a stall of the GUI thread makes the
next beat late by about its length (less up to one 5 ms period). The
synchronous call's own duration is reported too (``call_ms``), and the
heartbeat's maximum over 200 ms of idling just before (``baseline_max_ms``:
the machine's noise floor). Every run also times the GUI-thread methods in
``TRACED`` and names the call that overlapped the worst beat (``blocker``).

Actions (several measurements where an action has steps):

* ``enter_after_reply``: a ~200 KB Markdown reply streams at 50,000 tok/s;
  the moment its text has all arrived (``reply_finished``), Enter sends the
  next prompt (what ``rill doctor --turns 2`` does). Window: Enter until the
  long reply's final render is on screen; the follow-up reply (streaming
  meanwhile) is the short sample at 1,000 tok/s, so the window holds Enter
  and the final render, not a second 50,000 tok/s stream. The long reply's
  own streaming is reported as ``long_reply_stream`` (diagnostic, not an
  action).
* ``enter_10m``: Enter (a short prompt) with a 10 M-character conversation
  open; window: until the reply (the sample, 1,000 tok/s) settled.
* ``new_chat``: File > New Chat with a 10 M-character conversation open.
* ``close_idle``: close the window after a reply (no generation).
* ``close_streaming``: close the window while a reply streams.
* ``close_loading``: close while a slow model load is under way (the scripted
  backend's ``load_delay_s``).
* ``paste_1mb`` / ``paste_4mb``: paste a 1 MiB / 4 MiB prompt (realistic mixed
  Markdown, UTF-8 size) into the prompt box (``paste``), then press Enter
  (``send``: until the reply to it settled).
* ``open_2000``: open a 2,000-message conversation of ~2 M characters (as
  the doctor's ``--history-messages`` does: ``conversation.add`` + ``view.add_messages``);
  ``history_open_ms`` = until the first paint after ``viewport_ready``.
* ``open_10m``: the same with a 10 M-character conversation (26,554 messages;
  the view may show the end first and add the rest later: ``all_items_ms``).
* ``resize``: with a 10 M-character conversation, one resize step (900 ->
  1,300 px wide) and a 25-step drag (16 ms apart, back to 900 px).
* ``theme``: with a 10 M-character conversation open (code blocks on
  screen), View › Theme › Dark, then back to Light (``theme_dark``,
  ``theme_light``): the palette and style sheet of every widget, the code
  re-styled.
* ``zoom``: with a 10 M-character conversation, Ctrl+= three times, 100 ms
  apart (``zoom_in``), then Ctrl+0 (``zoom_reset``).
* ``shortcuts_help``: Help › Keyboard Shortcuts (the dialog built and shown).
* ``select_all_copy``: with a 10 M-character conversation, Edit > Select All,
  Edit > Copy (until its text is gathered: a large copy is made in work
  slices after the call), the clipboard's text read back
  (``clipboard_served``: what another application pasting it costs Rill's
  GUI thread: its ``text/plain;charset=utf-8`` bytes, what an X11 or Wayland
  paste asks Qt for; decoding them is the other application's work), and
  Edit > Copy Conversation as Markdown (the same way: ``conversation_served``).

    python -m benchmarks.actions --action NAME [--history-chars N] [--workdir D]
    python -m benchmarks.actions --list
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Generator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks import stalls
from benchmarks.common import PROFILE_VAR, use_profile

HEARTBEAT_S = 0.005
POLL_MS = 10
BASELINE_MS = 200
SETTLE_MS = 200
LONG_REPLY_TOKENS = 50_000       # ~200 KB of the scripted Markdown sample
LONG_REPLY_RATE = 50_000

ACTIONS = ("enter_after_reply", "enter_10m", "new_chat", "close_idle", "close_streaming", "close_loading",
           "paste_1mb", "paste_4mb", "open_2000", "open_10m", "resize", "select_all_copy", "theme", "zoom",
           "shortcuts_help")


# ------------------------------------------------------------------ set-up data (Qt-free)


def history_2000_messages(chars: int = 2_000_000, n: int = 2000) -> list[Any]:
    """``n`` alternating messages of about ``chars`` characters in all: the
    sample's questions, and replies each joined from several of the sample's
    realistic replies (mixed Markdown), so the conversation has both the
    message count and the size asked for. Deterministic."""
    from app.core.conversation.model import Message, MessageMeta, MessageStatus, Role
    from app.core.conversation.sample import history_messages, history_of_chars

    base = history_messages(n)
    users = [m for m in base if m.role == Role.USER.value]
    replies = [m.content for m in history_of_chars(int(chars * 1.2)) if m.role == Role.ASSISTANT.value]
    n_replies = n - len(users)
    per_reply = (chars - sum(len(m) for m in users)) / max(1, n_replies)
    out: list[Any] = []
    k = 0
    total = 0.0
    for msg in base:
        if msg.role == Role.USER.value:
            msg.parent_id = out[-1].id if out else None  # one path: each answers the one before
            out.append(msg)
            continue
        target = per_reply * (len(out) // 2 + 1) - total
        parts: list[str] = []
        size = 0
        while size < target or not parts:
            part = replies[k % len(replies)]
            k += 1
            parts.append(part)
            size += len(part) + 1
        content = "\n".join(parts)
        total += len(content)
        out.append(Message(Role.ASSISTANT.value, content, MessageStatus.COMPLETE,
                           meta=MessageMeta(model="history", finish_reason="stop", tokens=len(content) // 4),
                           parent_id=out[-1].id if out else None))
    return out


def paste_text(nbytes: int) -> str:
    """About ``nbytes`` bytes (UTF-8) of realistic mixed Markdown (the history
    sample's messages, mostly ASCII with some CJK and emoji), cut at a
    character boundary."""
    from app.core.conversation.sample import history_of_chars

    text = "\n\n".join(m.content for m in history_of_chars(nbytes))
    raw = text.encode("utf-8")[:nbytes]
    return raw.decode("utf-8", errors="ignore")


# ------------------------------------------------------------------ the driver (Qt)


@dataclass
class Sleep:
    ms: int


@dataclass
class Until:
    what: str
    predicate: Callable[[], bool]
    timeout_s: float = 60.0
    hold_ms: int = 0        # the predicate must stay true this long


class Measure:
    def __init__(self, harness: Harness, name: str) -> None:
        self.harness = harness
        self.name = name
        self.t0 = time.perf_counter()
        self.t_end: float | None = None
        self.call_s: float = 0.0
        self.extra: dict[str, Any] = {}

    def call(self, fn: Callable[[], Any]) -> Any:
        t0 = time.perf_counter()
        try:
            return fn()
        finally:
            t1 = time.perf_counter()
            self.call_s = max(self.call_s, t1 - t0)
            rec = self.harness.recorder
            if rec is not None:   # the call itself is a blocker too, when nothing inside it is timed
                rec.spans.append((f"({self.name}: the call itself)", t0, t1))

    def end(self, **extra: Any) -> None:
        self.t_end = time.perf_counter()
        self.extra.update(extra)

    def ms_since_start(self) -> float:
        return round((time.perf_counter() - self.t0) * 1000, 1)


class Harness:
    """Runs one action generator on the Qt event loop (see the module docstring)."""

    def __init__(self, args: argparse.Namespace) -> None:
        from PyQt6.QtCore import QTimer

        from app.application import create_window, make_application
        from benchmarks.inproc import BeatLog

        self.args = args
        self.app = make_application()
        self.app.setQuitOnLastWindowClosed(False)   # measure after the window closed
        self.backends: list[Any] = []
        self.window = create_window(*self._factory())
        self.view = self.window.view
        self.chat = self.window.chat
        self.beat = BeatLog()
        self.measures: list[Measure] = []
        self.result: dict[str, Any] = {"action": args.action, "ok": False, "error": ""}
        self.baseline: list[float] = []
        self.paints: list[float] = []
        self.recorder: Any = None
        self._gen: Generator[Any, None, None] | None = None
        self._deadline = QTimer()
        self._deadline.setSingleShot(True)
        self._deadline.timeout.connect(lambda: self._fail(f"timed out after {args.timeout_s:g} s"))
        self._deadline.start(int(args.timeout_s * 1000))
        self._poll = QTimer()
        self._poll.setInterval(POLL_MS)
        self._poll.timeout.connect(self._on_poll)
        self._waiting: Until | None = None
        self._wait_start = 0.0
        self._true_since: float | None = None
        self._started = False

    # -- set-up ------------------------------------------------------------------

    def _factory(self) -> tuple[Any, str]:
        from app.core.factory import scripted_factory

        action = self.args.action
        if action == "enter_after_reply":
            from app.core.backends.scripted import ScriptedBackend

            path = str(self._long_reply_file())

            def make() -> Any:
                backend = ScriptedBackend.from_file(path, rate=LONG_REPLY_RATE)
                self.backends.append(backend)   # the follow-up reply is made short (act_enter_after_reply)
                return backend

            return make, f"scripted producer at {LONG_REPLY_RATE} tok/s"
        if action == "close_streaming":
            return scripted_factory(rate=1000, n_tokens=1_000_000)
        if action == "close_loading":
            from app.core.backends.scripted import ScriptedBackend

            if "load_delay_s" not in inspect.signature(ScriptedBackend.__init__).parameters:
                raise _Skip("TODO: needs the scripted backend's load_delay_s option (not in app/core/backends/scripted.py yet)")
            return scripted_factory(rate=1000, load_delay_s=60.0)
        return scripted_factory(rate=1000)

    def _long_reply_file(self) -> Path:
        from benchmarks.common import write_stream_text

        return write_stream_text(Path(self.args.workdir) / "texts", LONG_REPLY_TOKENS)

    def start(self) -> None:
        from PyQt6.QtCore import QTimer

        if self.args.action == "close_loading":
            # The model never becomes ready: start once the load is under way.
            QTimer.singleShot(300, self._begin)
        else:
            self.chat.model_ready.connect(lambda _info: QTimer.singleShot(0, self._begin))
            self.chat.model_failed.connect(lambda msg: self._fail(f"model failed: {msg}"))
        self.window.show()

    def _begin(self) -> None:
        from app.application import warm_up

        if self._started:
            return
        self._started = True
        warm_up(self.window)
        self.beat.start()
        self._gen = ACTION_FUNCS[self.args.action](self)
        self._step()

    # -- stepping ------------------------------------------------------------------

    def _step(self) -> None:
        from PyQt6.QtCore import QTimer

        assert self._gen is not None
        try:
            cond = next(self._gen)
        except StopIteration:
            self._finish()
            return
        except _Skip as exc:
            self.result["skipped"] = str(exc)
            self._finish()
            return
        except Exception as exc:  # noqa: BLE001 - report, do not hang
            self._fail(f"{type(exc).__name__}: {exc}\n{traceback.format_exc()[-1500:]}")
            return
        if isinstance(cond, Sleep):
            QTimer.singleShot(cond.ms, self._step)
        elif isinstance(cond, Until):
            self._waiting = cond
            self._wait_start = time.monotonic()
            self._true_since = None
            self._poll.start()
        else:
            QTimer.singleShot(0, self._step)

    def _on_poll(self) -> None:
        cond = self._waiting
        if cond is None:
            self._poll.stop()
            return
        now = time.monotonic()
        if cond.predicate():
            if self._true_since is None:
                self._true_since = now
            if (now - self._true_since) * 1000 >= cond.hold_ms:
                self._poll.stop()
                self._waiting = None
                self._step()
                return
        else:
            self._true_since = None
        if now - self._wait_start > cond.timeout_s:
            self._poll.stop()
            self._waiting = None
            self._fail(f"timed out waiting for: {cond.what}")

    # -- helpers for the actions ------------------------------------------------------

    def view_idle(self) -> bool:
        view = self.view
        return not view.busy and view.render_service.pending() == 0

    def chat_idle(self) -> bool:
        return self.chat.current_reply is None and self.chat.replies_pending() == 0

    def settle(self) -> Generator[Any, None, None]:
        """Wait until nothing is going on, then record BASELINE_MS of idle heartbeat."""
        yield Until("view and chat idle", lambda: self.view_idle() and self.chat_idle(), 120, hold_ms=100)
        yield Sleep(SETTLE_MS)
        t0 = time.perf_counter()
        yield Sleep(BASELINE_MS)
        self.baseline.extend(self.beat.lags_between(t0, time.perf_counter()))

    def open_history(self, messages: list[Any]) -> Generator[Any, None, None]:
        """Set-up: open earlier messages as the doctor does, wait until shown."""
        from app.doctor import open_history

        ready = {"flag": False}

        def on_ready() -> None:
            ready["flag"] = True

        self.view.viewport_ready.connect(on_ready)
        open_history(self.window, messages)
        yield Until("history shown", lambda: ready["flag"], 120)
        # A long history may show its end first and the rest later.
        yield Until(f"all {len(messages)} messages in the view", lambda: self.view.item_count() >= len(messages), 120)
        self.view.viewport_ready.disconnect(on_ready)

    def check(self, ok: bool, message: str) -> None:
        """A set-up or an action that did not do what it should: the run is not ok."""
        if not ok and not self.result["error"]:
            self.result["error"] = message

    def begin(self, name: str) -> Measure:
        m = Measure(self, name)
        self.measures.append(m)
        return m

    # -- end ---------------------------------------------------------------------------

    def _fail(self, message: str) -> None:
        self.result["error"] = message
        self._finish()

    def _finish(self) -> None:
        from PyQt6.QtCore import QTimer

        if self.result.get("_finished"):
            return
        self.result["_finished"] = True
        self._poll.stop()
        self._deadline.stop()
        QTimer.singleShot(3 * int(HEARTBEAT_S * 1000), self._report)

    def _report(self) -> None:
        from app.core.pipeline.metrics import percentile
        from app.doctor import stall_entry
        from benchmarks.common import rss_mb

        self.beat.stop()
        out: dict[str, Any] = {}
        for m in self.measures:
            end = m.t_end if m.t_end is not None else time.perf_counter()
            # The beat that ends a stall fires within ~one period after it.
            # Only lateness after the action began counts: an action started
            # inside a slot (Enter at reply_finished) must not inherit the
            # stall it started in.
            window = [(at, min(lag, at - m.t0)) for at, lag in self.beat.beats()
                      if m.t0 < at <= end + 2 * HEARTBEAT_S]
            lags = [lag for _at, lag in window]
            worst = max(window, key=lambda b: b[1], default=None)
            if worst is not None and self.recorder is not None and worst[1] > 0.002:
                found = blocker(self.recorder.spans, *worst, since=m.t0)
                if found is not None:
                    m.extra["blocker"], m.extra["blocker_ms"] = found
            if self.args.spans and self.recorder is not None:
                inside = [x for x in self.recorder.spans if x[2] > m.t0 and x[1] <= end]
                m.extra["top_spans"] = [(n, round((b - a) * 1000, 2), round((a - m.t0) * 1000, 1))
                                        for n, a, b in sorted(inside, key=lambda x: x[1] - x[2])[: self.args.spans]]
            inside = [stall_entry(at + self.beat._start - m.t0, lag, doing, cpu)
                      for at, lag, doing, cpu in self.beat.stalls
                      if m.t0 < self.beat._start + at + lag <= end + 2 * HEARTBEAT_S]
            out[m.name] = {
                "lag_max_ms": round(max(lags, default=0.0) * 1000, 2),
                # every heartbeat over 8 ms in the window and what the GUI thread did (at_ms: since the action)
                "stalls": stalls.summarize(inside),
                "lag_p99_ms": round(percentile(lags, 99) * 1000, 2) if lags else 0.0,
                "beats": len(lags),
                "call_ms": round(m.call_s * 1000, 2),
                "window_ms": round((end - m.t0) * 1000, 1),
                "complete": m.t_end is not None,
                **m.extra,
            }
        self.result.pop("_finished", None)
        self.result["measures"] = out
        self.result["baseline_max_ms"] = round(max(self.baseline, default=0.0) * 1000, 2)
        self.result["rss_mb"] = round(rss_mb(), 1)
        self.result["ok"] = not self.result["error"] and bool(out) and all(v["complete"] for v in out.values())
        self.result["history_messages"] = self.view.item_count()
        try:
            self.chat.shutdown()
        finally:
            self.app.quit()


class _Skip(Exception):
    """The action cannot run here (a missing option): reported, not failed."""


# ------------------------------------------------------------------ the actions


def act_enter_after_reply(h: Harness) -> Generator[Any, None, None]:
    from app.core.backends.scripted import SAMPLE_MARKDOWN, tokenize_text

    state: dict[str, Any] = {}
    short = tokenize_text(SAMPLE_MARKDOWN)

    def on_finished(stats: Any) -> None:
        if "first" in state:
            return
        state["first"] = stats
        state["stream"].end(reply_chars=stats.chars_shown)
        # The follow-up is an ordinary short reply at 1,000 tok/s, so the
        # window measures Enter and the long reply's final render, not a
        # second 50,000 tok/s stream (the UI suite covers that rate). The
        # worker reads these when the next request starts, after Enter.
        for backend in h.backends:
            backend.tokens, backend.rate = short, 1000.0
        m = h.begin("enter")
        m.call(lambda: h.window.enter_prompt("Thanks! And a short follow-up question."))
        m.extra["sent"] = h.chat.current_reply is not None
        h.check(m.extra["sent"], "Enter after the long reply did not send")
        state["m"] = m

    yield from h.settle()
    h.chat.reply_finished.connect(on_finished)
    # Not an action: the long reply streaming (diagnostic, for comparison).
    state["stream"] = h.begin("long_reply_stream")
    state["stream"].extra["diagnostic"] = True
    h.window.enter_prompt("Write a very long reply in Markdown.")
    yield Until("the long reply's text arrived", lambda: "m" in state, 120)
    first_id = state["first"].message_id
    m = state["m"]
    yield Until("the long reply's final render", lambda: h.view.probe.is_settled(first_id), 120)
    m.end(final_render_ms=m.ms_since_start(), reply_chars=len(h.chat.conversation.get(first_id) or ""))
    yield Until("the follow-up reply", h.chat_idle, 120)


def act_enter_10m(h: Harness) -> Generator[Any, None, None]:
    from app.core.conversation.sample import history_of_chars

    yield from h.open_history(history_of_chars(h.args.history_chars))
    yield from h.settle()
    h.window.prompt.setPlainText("One more question about all this.")   # typed: not measured
    yield Sleep(50)
    m = h.begin("enter")
    m.call(h.window.prompt.submit_requested.emit)
    m.extra["sent"] = h.chat.current_reply is not None
    h.check(m.extra["sent"], "Enter did not send")
    yield Until("the reply settled and the view idle", lambda: h.chat_idle() and h.view_idle(), 120, hold_ms=30)
    m.end(settled_ms=m.ms_since_start())


def act_new_chat(h: Harness) -> Generator[Any, None, None]:
    from app.core.conversation.sample import history_of_chars

    yield from h.open_history(history_of_chars(h.args.history_chars))
    yield from h.settle()
    items = h.view.item_count()
    m = h.begin("new_chat")
    m.call(h.window.menus.new_chat_action.trigger)
    yield Until("view idle", h.view_idle, 60, hold_ms=30)
    m.end(items_before=items, items_after=h.view.item_count())
    h.check(h.view.item_count() == 0, f"New Chat left {h.view.item_count()} items")


def _close(h: Harness, m: Measure) -> Generator[Any, None, None]:
    service = h.chat.service
    m.call(h.window.close)
    m.extra["hidden_in_call"] = not h.window.isVisible()
    yield Until("window hidden", lambda: not h.window.isVisible(), 30)
    m.extra["hidden_ms"] = m.ms_since_start()
    yield Until("inference thread ended", service.is_finished, 30)
    m.end(threads_ms=m.ms_since_start())


def act_close_idle(h: Harness) -> Generator[Any, None, None]:
    yield from h.settle()
    h.window.enter_prompt("Write a short reply.")
    yield from h.settle()
    yield from _close(h, h.begin("close_idle"))


def act_close_streaming(h: Harness) -> Generator[Any, None, None]:
    yield from h.settle()
    h.window.enter_prompt("Write an endless reply.")
    yield Sleep(500)
    streaming = h.chat.current_reply is not None
    m = h.begin("close_streaming")
    m.extra["was_streaming"] = streaming
    yield from _close(h, m)


def act_close_loading(h: Harness) -> Generator[Any, None, None]:
    from app.ui.conversation.controller import ChatState

    yield Sleep(200)
    t0 = time.perf_counter()
    yield Sleep(BASELINE_MS)
    h.baseline.extend(h.beat.lags_between(t0, time.perf_counter()))
    m = h.begin("close_loading")
    m.extra["was_loading"] = h.chat.state == ChatState.LOADING
    yield from _close(h, m)


def _paste(h: Harness, nbytes: int) -> Generator[Any, None, None]:
    from PyQt6.QtWidgets import QApplication

    text = paste_text(nbytes)
    yield from h.settle()
    QApplication.clipboard().setText(text)   # copied in another application: not measured
    yield Sleep(100)
    m = h.begin("paste")
    m.call(h.window.prompt.paste)
    yield Sleep(100)
    m.end(chars=len(text), bytes=len(text.encode("utf-8")),
          attachments=len(h.window.prompt_area.attachments()),
          inline_chars=len(h.window.prompt.toPlainText()))
    h.check(len(h.window.prompt_area.text()) >= len(text), "the paste did not reach the prompt")
    yield from h.settle()
    m = h.begin("send")
    n_before = h.view.item_count()
    m.call(h.window.prompt.submit_requested.emit)       # Enter
    m.extra["sent"] = h.view.item_count() > n_before
    h.check(m.extra["sent"], "Enter did not send the pasted prompt")
    yield Until("the reply settled and the view idle", lambda: h.chat_idle() and h.view_idle(), 120, hold_ms=30)
    m.end(settled_ms=m.ms_since_start())


def act_paste_1mb(h: Harness) -> Generator[Any, None, None]:
    yield from _paste(h, 1 << 20)


def act_paste_4mb(h: Harness) -> Generator[Any, None, None]:
    yield from _paste(h, 4 << 20)


def act_open_2000(h: Harness) -> Generator[Any, None, None]:
    yield from _open(h, "open_2000", history_2000_messages(h.args.open_chars, 2000))


def act_open_10m(h: Harness) -> Generator[Any, None, None]:
    from app.core.conversation.sample import history_of_chars

    yield from _open(h, "open_10m", history_of_chars(h.args.history_chars))


def _open(h: Harness, name: str, messages: list[Any]) -> Generator[Any, None, None]:
    from app.doctor import open_history

    yield from h.settle()
    ready: dict[str, float] = {}

    def on_ready() -> None:
        ready.setdefault("at", time.perf_counter())

    from app.doctor import history_conversation

    conv = history_conversation(messages)  # the store thread's part, not timed
    h.view.viewport_ready.connect(on_ready)
    h.paints.clear()
    m = h.begin(name)
    m.call(lambda: open_history(h.window, conv))
    yield Until("viewport_ready", lambda: "at" in ready, 30)
    yield Until("first paint after viewport_ready", lambda: any(p > ready["at"] for p in h.paints), 30)
    first_paint = min(p for p in h.paints if p > ready["at"])
    m.extra.update(
        messages=len(messages), chars=sum(len(x) for x in messages),
        viewport_ready_ms=round((ready["at"] - m.t0) * 1000, 1),
        history_open_ms=round((first_paint - m.t0) * 1000, 1),
    )
    yield Until(f"all {len(messages)} messages in the view", lambda: h.view.item_count() >= len(messages), 120)
    m.extra["all_items_ms"] = m.ms_since_start()
    yield Until("view idle", h.view_idle, 60, hold_ms=30)
    m.end(idle_ms=m.ms_since_start(), live_documents=h.view.probe.live_document_count())


def act_resize(h: Harness) -> Generator[Any, None, None]:
    from app.core.conversation.sample import history_of_chars

    yield from h.open_history(history_of_chars(h.args.history_chars))
    yield from h.settle()
    w0, hgt = h.window.width(), h.window.height()
    m = h.begin("resize_once")
    m.call(lambda: h.window.resize(w0 + 400, hgt))
    yield Until("view idle", h.view_idle, 60, hold_ms=30)
    m.end(width=h.window.width())
    h.check(h.window.width() == w0 + 400, f"the window is {h.window.width()} px wide, not {w0 + 400}")
    yield from h.settle()
    m = h.begin("resize_drag")
    steps = 25
    for k in range(1, steps + 1):
        width = w0 + 400 - round(400 * k / steps)
        m.call(lambda width=width: h.window.resize(width, hgt))
        yield Sleep(16)
    yield Until("view idle", h.view_idle, 60, hold_ms=30)
    m.end(steps=steps, width=h.window.width())


def act_select_all_copy(h: Harness) -> Generator[Any, None, None]:
    from PyQt6.QtWidgets import QApplication

    from app.core.conversation.sample import history_of_chars

    yield from h.open_history(history_of_chars(h.args.history_chars))
    yield from h.settle()
    h.view.setFocus()
    m = h.begin("select_all")
    m.call(h.window.menus.select_all_action.trigger)
    yield Until("view idle", h.view_idle, 60, hold_ms=30)
    m.end()
    yield from h.settle()
    def copied_ready() -> bool:
        # A large copy is gathered in work slices after Copy returns (``LazyTextMime.ready``).
        return h.view_idle() and bool(getattr(QApplication.clipboard().mimeData(), "ready", True))

    def served() -> Any:
        # What another application's paste asks Rill's Qt for (X11's
        # UTF8_STRING, Wayland's text/plain;charset=utf-8): the bytes.
        return QApplication.clipboard().mimeData().data("text/plain;charset=utf-8")

    def copy_then_serve(copy_name: str, served_name: str, action: Any, what: str) -> Generator[Any, None, None]:
        m = h.begin(copy_name)
        if copy_name == "copy":
            m.extra["had_selection"] = h.view.has_selection()
            h.check(m.extra["had_selection"], "Select All selected nothing")
        m.call(action.trigger)
        yield Until("copied text gathered", copied_ready, 60, hold_ms=30)
        m.end()
        yield from h.settle()
        m = h.begin(served_name)
        data = m.call(served)
        yield Sleep(30)
        m.end()
        copied = bytes(data).decode("utf-8")  # the other application's work: after the measure
        m.extra["copied_chars"] = len(copied)
        if len(copied) < 0.9 * h.args.history_chars:
            h.result["error"] = f"{what} put {len(copied):,} characters on the clipboard"

    yield from copy_then_serve("copy", "clipboard_served", h.window.menus.copy_action, "Select All + Copy")
    yield from h.settle()
    yield from copy_then_serve("copy_conversation", "conversation_served", h.window.menus.copy_conversation_action,
                               "Copy Conversation as Markdown")


def act_theme(h: Harness) -> Generator[Any, None, None]:
    from app.core.conversation.sample import history_of_chars

    yield from h.open_history(history_of_chars(h.args.history_chars))
    yield from h.settle()
    for name in ("dark", "light"):
        m = h.begin(f"theme_{name}")
        m.call(h.window.appearance.theme_actions[name].trigger)
        yield Until("view idle", h.view_idle, 60, hold_ms=30)
        m.end()
        yield from h.settle()


def act_zoom(h: Harness) -> Generator[Any, None, None]:
    from app.core.conversation.sample import history_of_chars

    yield from h.open_history(history_of_chars(h.args.history_chars))
    yield from h.settle()
    m = h.begin("zoom_in")
    for _ in range(3):
        m.call(h.window.appearance.zoom_in_action.trigger)
        yield Sleep(100)
    yield Until("view idle", h.view_idle, 60, hold_ms=30)
    m.end(zoom=h.view.zoom)
    yield from h.settle()
    m = h.begin("zoom_reset")
    m.call(h.window.appearance.zoom_reset_action.trigger)
    yield Until("view idle", h.view_idle, 60, hold_ms=30)
    m.end(zoom=h.view.zoom)


def act_shortcuts_help(h: Harness) -> Generator[Any, None, None]:
    yield from h.settle()
    m = h.begin("shortcuts_help")
    m.call(h.window.navigation.shortcuts_action.trigger)
    yield Sleep(100)
    m.end()


ACTION_FUNCS: dict[str, Callable[[Harness], Generator[Any, None, None]]] = {
    "theme": act_theme,
    "zoom": act_zoom,
    "shortcuts_help": act_shortcuts_help,
    "enter_after_reply": act_enter_after_reply,
    "enter_10m": act_enter_10m,
    "new_chat": act_new_chat,
    "close_idle": act_close_idle,
    "close_streaming": act_close_streaming,
    "close_loading": act_close_loading,
    "paste_1mb": act_paste_1mb,
    "paste_4mb": act_paste_4mb,
    "open_2000": act_open_2000,
    "open_10m": act_open_10m,
    "resize": act_resize,
    "select_all_copy": act_select_all_copy,
}


#: GUI-thread methods timed in every action run, to name what blocked
#: (module, class, methods); missing ones are skipped.
TRACED = (
    ("app.ui.conversation.controller", "ChatController", ("send", "new_chat", "stop", "conversation_markdown_parts")),
    ("app.ui.conversation.consumer", "StreamConsumer", ("_on_tick", "_on_generation_finished")),
    ("app.ui.conversation.view", "ChatView", ("_on_rendered", "paintEvent", "_update_live_items",
                                      "add_messages", "add_message", "clear", "resizeEvent", "select_all",
                                      "copy_selection", "selected_text", "append_stream", "finish_stream",
                                      "_on_history_ready", "set_zoom", "restyle")),
    # the view's work its facade hands on (issue #16 split it out of ChatView)
    ("app.ui.conversation.stream_flow", "StreamFlow", ("tail_changed",)),
    ("app.ui.conversation.rows", "ItemRows", ("append_history",)),
    ("app.ui.misc.theme", "ThemeManager", ("_apply", "_on_sheet_due")),
    ("app.ui.conversation.clipboard_text", "LazyTextMime", ("retrieveData",)),
    ("app.ui.services.slicer", "TimeSlicer", ("_on_due",)),
    ("app.ui.conversation.streaming", "StreamingTail", ("tail_insert", "maybe_commit", "cut_tail")),
    ("app.ui.conversation.painter", "ItemPainter", ("paint",)),
    ("app.ui.conversation.find", "FindHighlighter", ("_scan",)),
    ("app.ui.window.main_window", "MainWindow", ("closeEvent", "_on_new_chat_triggered",
                                          "_on_copy_conversation_triggered")),
    ("app.ui.window.send", "SendController", ("send",)),
    ("app.ui.conversation.prompt", "PromptEdit", ("insertFromMimeData",)),
    ("app.ui.conversation.prompt", "PromptArea", ("add_attachment", "text", "clear")),
    ("app.core.conversation.model", "Conversation", ("prompt", "add_user")),
)


def _patch(paints: list[float], rec: Any) -> None:
    """Time the TRACED methods; record when each paint of the view ends (for
    the first paint after opening). Before the window exists."""
    import importlib

    from app.ui.conversation.view import ChatView

    for module, cls_name, methods in TRACED:
        cls = getattr(importlib.import_module(module), cls_name, None)
        for meth in methods:
            fn = cls.__dict__.get(meth) if cls is not None else None
            if callable(fn):
                setattr(cls, meth, rec.wrap(f"{cls_name}.{meth}", fn))
    timed_paint = ChatView.paintEvent

    def paint(self: Any, event: Any) -> None:
        timed_paint(self, event)
        paints.append(time.perf_counter())

    ChatView.paintEvent = paint


def blocker(spans: list[tuple[str, float, float]], fired: float, late: float,
            since: float = 0.0) -> tuple[str, float] | None:
    """The timed call that overlapped a late beat most (the innermost of
    near-equal ones): (name, its duration in ms after ``since``, the action's
    start: a call the action began inside counts from there)."""
    lo = fired - late - HEARTBEAT_S
    scored = []
    for name, t0, t1 in spans:
        overlap = min(t1, fired) - max(t0, lo)
        if overlap > 0:
            scored.append((overlap, t1 - max(t0, since), name))
    if not scored:
        return None
    best = max(o for o, _d, _n in scored)
    if best < late / 3:
        return None
    overlap, dur, name = min((x for x in scored if x[0] >= 0.9 * best), key=lambda x: x[1])
    return name, round(dur * 1000, 2)


def run_action(args: argparse.Namespace) -> dict[str, Any]:
    from benchmarks.inproc import Recorder

    paints: list[float] = []
    rec = Recorder()
    _patch(paints, rec)
    try:
        harness = Harness(args)
    except _Skip as exc:
        return {"action": args.action, "ok": False, "skipped": str(exc), "measures": {}}
    harness.paints = paints
    harness.recorder = rec
    rec.active = True
    harness.start()
    harness.app.exec()
    return harness.result


# ------------------------------------------------------------------ orchestration (Qt-free)


def run(actions: list[str], reps: int, workdir: Path, history_chars: int = 10_000_000) -> dict[str, Any]:
    """Each action ``reps`` times, one process each, alternating actions."""
    from benchmarks.common import ChildFailed, log, run_json, spread

    runs: list[dict[str, Any]] = []
    skipped: set[str] = set()
    total = reps * len(actions)
    i = 0
    for rep in range(reps):
        for action in actions:
            i += 1
            if action in skipped:
                continue  # skipped once (a missing option): skipped in every repetition
            try:
                res = run_json(["-m", "benchmarks.actions", "--action", action, "--workdir", str(workdir),
                                "--history-chars", str(history_chars)], timeout_s=600)
                data = res.data
                data["wall_s"] = round(res.wall_s, 1)
            except ChildFailed as exc:
                data = {"action": action, "ok": False, "error": str(exc)[:1500], "measures": {}}
            data["rep"] = rep
            runs.append(data)
            summary = ", ".join(f"{k} {v['lag_max_ms']} ms (call {v['call_ms']})"
                                for k, v in (data.get("measures") or {}).items())
            note = data.get("skipped") or data.get("error", "")[:200]
            log(f"  actions {i}/{total} {action}: {summary or '-'} {note} ({data.get('wall_s')} s)")
            if data.get("skipped"):
                skipped.add(action)
    rows: list[dict[str, Any]] = []
    for action in actions:
        group = [r for r in runs if r["action"] == action]
        why = next((r.get("skipped") for r in group if r.get("skipped")), None)
        if why:
            rows.append({"action": action, "measure": action, "skipped": why, "reps": 0})
            continue
        names: list[str] = []
        for r in group:
            for name in r.get("measures") or {}:
                if name not in names:
                    names.append(name)
        for name in names:
            ms = [r["measures"][name] for r in group if name in (r.get("measures") or {})]
            lag = spread(x["lag_max_ms"] for x in ms)
            call = spread(x["call_ms"] for x in ms)
            row: dict[str, Any] = {
                "action": action, "measure": name, "reps": len(ms),
                "ok_runs": sum(1 for r in group if r.get("ok")),
                "lag_max_ms": lag["median"], "lag_max_ms_max": lag["max"], "lag_max_ms_min": lag["min"],
                "call_ms": call["median"], "call_ms_max": call["max"],
                "window_ms": spread(x["window_ms"] for x in ms)["median"],
                "baseline_max_ms": spread(r.get("baseline_max_ms") for r in group)["median"],
            }
            for key in ("history_open_ms", "viewport_ready_ms", "all_items_ms", "final_render_ms", "settled_ms",
                        "hidden_ms", "threads_ms", "idle_ms"):
                vals = [x[key] for x in ms if x.get(key) is not None]
                if vals:
                    s = spread(vals)
                    row[key] = s["median"]
                    row[f"{key}_max"] = s["max"]
            if any(x.get("diagnostic") for x in ms):
                row["diagnostic"] = True
            for key in ("chars", "bytes", "messages", "attachments", "inline_chars", "copied_chars",
                        "reply_chars", "items_before", "was_loading", "was_streaming", "sent", "steps"):
                if ms and ms[0].get(key) is not None:
                    row[key] = ms[0][key]
            judged = stalls.median_run(ms, "lag_max_ms")
            row["stalls"] = judged.get("stalls") if judged else None   # the run the median describes
            blockers = [f"{x['blocker']} ({x['blocker_ms']} ms)" for x in ms if x.get("blocker")]
            if blockers:
                row["blockers"] = blockers
            errors = sorted({r.get("error", "")[:300] for r in group if r.get("error")})
            if errors:
                row["errors"] = errors
            rows.append(row)
    return {"rows": rows, "runs": runs, "reps": reps, "history_chars": history_chars}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--action", choices=ACTIONS)
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--history-chars", type=int, default=10_000_000,
                    help="conversation size for new_chat, resize and select_all_copy")
    ap.add_argument("--open-chars", type=int, default=2_000_000, help="open_2000: characters in all")
    ap.add_argument("--workdir", default=None, help="where to write the long reply's text (default: a temp dir)")
    ap.add_argument("--timeout-s", type=float, default=300.0)
    ap.add_argument("--suite", default="", help="run these actions (comma-separated, 'all') from here, one process each")
    ap.add_argument("--reps", type=int, default=1)
    ap.add_argument("--spans", type=int, default=0,
                    help="diagnostic: list the N longest timed calls of each measurement (name, ms, start ms)")
    args = ap.parse_args(argv)
    if args.list:
        print("\n".join(ACTIONS))
        return
    if args.suite:
        names = list(ACTIONS) if args.suite == "all" else args.suite.split(",")
        out = run(names, args.reps, Path(args.workdir or tempfile.mkdtemp(prefix="rill-actions-")),
                  args.history_chars)
        out.pop("runs")
        print(json.dumps(out))
        return
    if not args.action:
        ap.error("--action, --suite or --list")
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    if args.workdir is None:
        args.workdir = tempfile.mkdtemp(prefix="rill-actions-")
    if not os.environ.get(PROFILE_VAR):
        # Run by hand: a fresh profile too, as the suite gives each child (the
        # user's own conversations would be opened at start and grow per run).
        use_profile(os.path.join(args.workdir, "profile"))
    result = run_action(args)
    sys.stdout.write(json.dumps(result) + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
