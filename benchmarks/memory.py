"""Memory: the bounded buffer under a stalled GUI, and send/stop/clear cycles.

``stalled``: a scripted producer at 20,000 tok/s is asked for 1,000,000
tokens (``--tokens``) while the GUI thread is deliberately blocked (a sleep
loop on the GUI thread, no events processed) for as long as the producer
would need. RSS is sampled every 50 ms from inside the stall together with
the buffer's depth and the producer's blocked time. A bounded pipeline holds
the producer once the buffer is full: RSS barely grows and the producer
spends the stall blocked. Then Stop is pressed.

``cycles``: with the real model, ``--cycles`` times: send a prompt, press
Stop 100 ms after the first token, wait for the worker to exit, File > New
Chat; RSS after each cycle.

``history``: RSS of the real window (scripted backend) with a 10 M-character
conversation (``--chars``) against the same window empty: empty (model
ready, warmed up), the history opened (as ``rill doctor --history-chars``
does, until shown and the view idle), one reply streamed and settled, after
jumping to ``--positions`` places spread over the whole conversation (each
shown, then the view idle: documents are built near the viewport and dropped
far from it), and after New Chat. The goal: RSS with 10 M of history at most
250 MB above the empty window.

``backend`` (diagnostic, no Qt): Rill's ``LlamaBackend.generate`` called
``--requests`` times for a few tokens each, RSS after each; ``--fix close``
closes llama-cpp-python's per-generate sampler after each request,
``--fix gc`` runs ``gc.collect()`` instead. Separates the model backend's
memory from the window's (``cycles --backend scripted`` is the window alone).

    python -m benchmarks.memory stalled [--tokens 1000000] [--rate 20000]
    python -m benchmarks.memory cycles [--cycles 100] [--backend local|scripted]
    python -m benchmarks.memory history [--chars 10000000] [--positions 20]
    python -m benchmarks.memory backend [--requests 60] [--fix none|close|gc]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

from benchmarks.common import rss_mb

SAMPLE_S = 0.05


def _stalled(tokens: int, rate: float) -> dict[str, Any]:
    from PyQt6.QtCore import QTimer

    from app.application import create_window, make_application, warm_up
    from app.core.factory import scripted_factory
    from app.ui.conversation.controller import ChatState

    app = make_application()
    window = create_window(*scripted_factory(rate=rate, n_tokens=tokens))
    chat = window.chat
    buffer = chat.service.buffer
    stall_s = tokens / rate
    out: dict[str, Any] = {"tokens_requested": tokens, "rate": rate, "stall_s": round(stall_s, 1)}
    timeline: list[tuple[float, float, int]] = []

    def stall() -> None:
        # The GUI thread is stuck here: no tick, no paint, no events.
        rss0 = rss_mb()
        blocked0 = buffer.blocked_s
        put0 = getattr(buffer, "tokens_put", None)
        t0 = time.monotonic()
        while (now := time.monotonic()) - t0 < stall_s:
            timeline.append((round(now - t0, 3), round(rss_mb(), 2), buffer.depth_chars))
            time.sleep(SAMPLE_S)
        rss_max = max(r for _, r, _ in timeline)
        out.update({
            "rss_start_mb": round(rss0, 1),
            "rss_max_mb": round(rss_max, 1),
            "rss_end_mb": timeline[-1][1],
            "stalled_rss_growth_mb": round(rss_max - rss0, 2),
            "buffer_max_depth_chars": buffer.max_depth_chars,
            "buffer_capacity_chars": buffer.max_chars,
            "tokens_produced_during_stall": (
                buffer.tokens_put - put0 if put0 is not None else None),
        })
        out["_blocked0"] = blocked0
        window.stop_button.click()

    def on_worker_done(_result: Any) -> None:
        # ChunkBuffer.blocked_s grows when a wait ends: read it once the
        # producer, blocked for the whole stall, was released by Stop.
        if "_blocked0" in out:
            blocked = buffer.blocked_s - out.pop("_blocked0")
            out["producer_blocked_ms"] = round(blocked * 1000, 1)
            out["producer_blocked_share"] = round(blocked / stall_s, 3)
            QTimer.singleShot(100, app.quit)

    def on_ready(_info: Any) -> None:
        warm_up(window)
        window.prompt.setPlainText("Stream a long reply.")
        window.prompt.submit_requested.emit()
        if chat.state != ChatState.GENERATING:
            out["error"] = "the prompt was not sent"
            app.quit()
            return
        QTimer.singleShot(300, stall)  # stream normally for a moment first

    chat.model_ready.connect(on_ready)
    chat.service.generation_finished.connect(on_worker_done)
    window.show()
    app.exec()
    chat.shutdown()
    out["timeline"] = timeline[:: max(1, len(timeline) // 400)]
    return out


def _cycles(cycles: int, backend: str = "local", trace: bool = False) -> dict[str, Any]:
    from PyQt6.QtCore import QTimer

    from app.application import create_window, make_application, warm_up
    from app.core.factory import local_factory, scripted_factory
    from app.ui.conversation.controller import ChatState, ReplyStats

    if trace:
        import tracemalloc

        tracemalloc.start(25)
    app = make_application()
    factory = local_factory(None) if backend == "local" else scripted_factory(rate=40.0)
    window = create_window(*factory)
    chat = window.chat
    rss: list[float] = []
    state: dict[str, Any] = {"i": 0, "stats": None, "error": ""}

    def send() -> None:
        if state["i"] >= cycles:
            app.quit()
            return
        state["stats"] = None
        window.prompt.setPlainText(f"Tell me about rivers, question {state['i']}.")
        window.prompt.submit_requested.emit()
        if chat.state != ChatState.GENERATING:
            state["error"] = "the prompt was not sent"
            app.quit()

    def on_first_token(_rid: int, _at: float) -> None:
        QTimer.singleShot(100, press_stop)

    def press_stop() -> None:
        if chat.state == ChatState.GENERATING:
            window.stop_button.click()

    def on_finished(stats: ReplyStats) -> None:
        state["stats"] = stats
        chat.new_chat()
        QTimer.singleShot(30, sample)

    def sample() -> None:
        rss.append(round(rss_mb(), 2))
        state["i"] += 1
        if state["i"] % 10 == 0:
            print(f"cycles {state['i']}/{cycles}: rss {rss[-1]} MB", file=sys.stderr, flush=True)
        QTimer.singleShot(20, send)

    def on_ready(_info: Any) -> None:
        warm_up(window)
        state["rss_before"] = round(rss_mb(), 2)
        if trace:
            state["snap0"] = tracemalloc.take_snapshot()
        QTimer.singleShot(100, send)

    chat.model_ready.connect(on_ready)
    chat.reply_settled.connect(on_finished)
    chat.service.first_token_produced.connect(on_first_token)
    window.show()
    app.exec()
    if trace and "snap0" in state:
        snap = tracemalloc.take_snapshot()
        for stat in snap.compare_to(state["snap0"], "traceback")[:8]:
            print(stat, file=sys.stderr)
            for line in stat.traceback.format()[-8:]:
                print("   ", line, file=sys.stderr)
        print("traced total MB", sum(s.size for s in snap.statistics("filename")) / 2**20, file=sys.stderr)
    chat.shutdown()
    out: dict[str, Any] = {"cycles": len(rss), "backend": backend, "error": state["error"], "rss_mb": rss,
                           "rss_before_mb": state.get("rss_before")}
    if len(rss) >= 2:
        out["cycles_rss_growth_mb"] = round(rss[-1] - rss[0], 2)    # after cycle 1 -> after the last
        out["rss_growth_from_start_mb"] = round(rss[-1] - (state.get("rss_before") or rss[0]), 2)
        half = len(rss) // 2
        out["second_half_growth_mb"] = round(rss[-1] - rss[half], 2)
        n = len(rss)
        xs = range(n)
        mx, my = (n - 1) / 2, sum(rss) / n
        den = sum((x - mx) ** 2 for x in xs)
        out["slope_kb_per_cycle"] = round(sum((x - mx) * (y - my) for x, y in zip(xs, rss, strict=False)) / den * 1024, 2)
    return out


def _history(chars: int, positions: int) -> dict[str, Any]:
    import gc

    from PyQt6.QtWidgets import QApplication

    from app.application import create_window, make_application, warm_up
    from app.core.conversation.sample import history_of_chars
    from app.core.factory import scripted_factory
    from app.doctor import open_history

    app = make_application()
    window = create_window(*scripted_factory(rate=5000))
    view, chat = window.view, window.chat
    out: dict[str, Any] = {"history_chars_requested": chars, "error": ""}
    ready = {"flag": False}
    view.viewport_ready.connect(lambda: ready.__setitem__("flag", True))

    def spin(until: Any, timeout_s: float = 60.0, hold_s: float = 0.1) -> bool:
        end = time.monotonic() + timeout_s
        since: float | None = None
        while time.monotonic() < end:
            app.processEvents()
            if until():
                since = since or time.monotonic()
                if time.monotonic() - since >= hold_s:
                    return True
            else:
                since = None
            time.sleep(0.002)
        return False

    def idle() -> bool:
        return not view.busy and view.render_service.pending() == 0 and chat.current_reply is None

    window.show()
    if not spin(lambda: chat.model_info is not None, 30):
        return {"error": "the scripted backend did not load"}
    warm_up(window)
    spin(idle)
    gc.collect()
    rss: dict[str, float] = {"empty": round(rss_mb(), 1)}
    history = history_of_chars(chars)
    out["history_chars"] = sum(len(m) for m in history)
    out["history_messages"] = len(history)
    ready["flag"] = False
    n_messages = len(history)
    open_history(window, history)
    del history
    # A long history may show its end first and the rest later.
    spin(lambda: ready["flag"] and view.item_count() >= n_messages and idle(), 120)
    rss["history_open"] = round(rss_mb(), 1)
    window.enter_prompt("Write a reply in Markdown.")
    spin(lambda: chat.current_reply is None and chat.replies_pending() == 0 and idle(), 120)
    rss["after_reply"] = round(rss_mb(), 1)
    sb = view.verticalScrollBar()
    docs: list[int] = []
    for k in range(positions):
        ready["flag"] = False
        sb.setValue(round(sb.maximum() * k / max(1, positions - 1)))
        spin(lambda: ready["flag"] and idle(), 60, hold_s=0.05)
        docs.append(view.probe.live_document_count())
    spin(idle)
    gc.collect()
    rss["after_scrolling"] = round(rss_mb(), 1)
    out["live_documents_max_while_scrolling"] = max(docs, default=0)
    out["live_documents_after_scrolling"] = view.probe.live_document_count()
    window.menus.new_chat_action.trigger()
    QApplication.processEvents()
    spin(idle)
    gc.collect()
    rss["after_new_chat"] = round(rss_mb(), 1)
    chat.shutdown()
    out["rss_mb"] = rss
    out["growth_mb"] = {k: round(v - rss["empty"], 1) for k, v in rss.items() if k != "empty"}
    with_history = {k: v for k, v in out["growth_mb"].items() if k != "after_new_chat"}
    worst = max(with_history, key=lambda k: with_history[k])
    out["history_rss_growth_mb"] = with_history[worst]
    out["history_rss_growth_at"] = worst
    out["positions"] = positions
    return out


def _backend(requests: int, fix: str) -> dict[str, Any]:
    import gc
    import threading

    from app.core.backends.base import ChatMessage, GenerationRequest, SamplingParams
    from app.core.backends.llama.backend import LlamaBackend
    from app.core.models.paths import default_model_path

    backend = LlamaBackend(str(default_model_path()))
    backend.load()
    rss: list[float] = []
    try:
        for i in range(requests):
            msgs = (ChatMessage("system", "You are Rill."), ChatMessage("user", f"Tell me about rivers, question {i}."))
            for _piece in backend.generate(GenerationRequest(i, msgs, SamplingParams(max_tokens=8)),
                                           threading.Event()):
                pass
            if fix == "close":
                llm = backend._llm
                sampler = getattr(llm, "_sampler", None)
                if sampler is not None:
                    sampler.close()
                    llm._sampler = None
            elif fix == "gc":
                gc.collect()
            rss.append(round(rss_mb(), 2))
    finally:
        backend.close()
    skip = min(5, len(rss) - 1)
    return {"requests": len(rss), "fix": fix, "rss_mb": rss,
            "kb_per_request": round((rss[-1] - rss[skip]) / max(1, len(rss) - 1 - skip) * 1024, 1)}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    s = sub.add_parser("stalled")
    s.add_argument("--tokens", type=int, default=1_000_000)
    s.add_argument("--rate", type=float, default=20_000)
    c = sub.add_parser("cycles")
    c.add_argument("--cycles", type=int, default=100)
    c.add_argument("--backend", choices=("local", "scripted"), default="local")
    c.add_argument("--trace", action="store_true", help="print the top Python allocations (tracemalloc)")
    h = sub.add_parser("history")
    h.add_argument("--chars", type=int, default=10_000_000)
    h.add_argument("--positions", type=int, default=20)
    b = sub.add_parser("backend")
    b.add_argument("--requests", type=int, default=60)
    b.add_argument("--fix", choices=("none", "close", "gc"), default="none")
    args = ap.parse_args(argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    if args.command == "stalled":
        print(json.dumps(_stalled(args.tokens, args.rate)))
    elif args.command == "history":
        print(json.dumps(_history(args.chars, args.positions)))
    elif args.command == "backend":
        print(json.dumps(_backend(args.requests, args.fix)))
    else:
        print(json.dumps(_cycles(args.cycles, args.backend, args.trace)))


if __name__ == "__main__":
    main()
