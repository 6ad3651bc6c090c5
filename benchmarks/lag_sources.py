"""Where Rill's GUI-thread lag comes from (a diagnostic, not a goal check).

Runs ``rill doctor``'s measurement in-process on the scripted backend, with
the GUI thread's units of work wrapped in timers: the consumer tick
(``ChatController._on_tick``, which includes ``append_reply_text``), the
deferred Markdown pass (``_on_render_due``), the final-render slices
(``_on_finalize_step``) and the transcript's paint. Each late heartbeat
(lateness > 2 ms) is blamed on the unit of work that overlapped it most;
the summary gives, per source, its duration p50/p99/max and how many late
heartbeats (and how much lateness) it caused.

    python -m benchmarks.lag_sources --rate 5000 --history-chars 1000000 [--text-file F]

Wrapping adds ~1 us per call; the doctor's own numbers are reported too.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import sys
import time
from collections.abc import Callable
from typing import Any

LATE_S = 0.002


class Recorder:
    def __init__(self) -> None:
        self.spans: list[tuple[str, float, float]] = []   # (source, start, end), perf_counter
        self.active = False

    def wrap(self, name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                if self.active:
                    self.spans.append((name, t0, time.perf_counter()))
        return wrapper


def _patch(rec: Recorder) -> None:
    from PyQt6.QtWidgets import QTextBrowser

    from app.ui.chat import ChatController
    from app.ui.transcript import TranscriptView

    ChatController._on_tick = rec.wrap("tick (drain + append)", ChatController._on_tick)  # type: ignore[method-assign]
    ChatController._on_render_due = rec.wrap("render pass (streaming)", ChatController._on_render_due)  # type: ignore[method-assign]
    ChatController._on_finalize_step = rec.wrap("final render slice", ChatController._on_finalize_step)  # type: ignore[method-assign]
    ChatController._on_generation_finished = rec.wrap(  # type: ignore[method-assign]
        "generation finished (+ last tick)", ChatController._on_generation_finished)

    def paint(self: TranscriptView, event: Any) -> None:
        QTextBrowser.paintEvent(self, event)

    TranscriptView.paintEvent = rec.wrap("transcript paint", paint)  # type: ignore[method-assign]


def analyse(rec: Recorder, beats: list[tuple[float, float]]) -> dict[str, Any]:
    """``beats``: (expected_at, fired_at) for each heartbeat."""
    from app.core.metrics import percentile

    by_source: dict[str, dict[str, Any]] = {}
    for name, t0, t1 in rec.spans:
        d = by_source.setdefault(name, {"durations": [], "late_beats": 0, "late_ms": 0.0})
        d["durations"].append(t1 - t0)
    unexplained = {"late_beats": 0, "late_ms": 0.0}
    spans = sorted(rec.spans, key=lambda s: s[1])
    for expected, fired in beats:
        late = fired - expected
        if late <= LATE_S:
            continue
        best, best_overlap = None, 0.0
        for name, t0, t1 in spans:
            if t0 > fired:
                break
            overlap = min(t1, fired) - max(t0, expected - 0.005)
            if overlap > best_overlap:
                best, best_overlap = name, overlap
        if best is None or best_overlap < late / 3:
            unexplained["late_beats"] += 1
            unexplained["late_ms"] += late * 1000
        else:
            by_source[best]["late_beats"] += 1
            by_source[best]["late_ms"] += late * 1000
    out: dict[str, Any] = {}
    for name, d in by_source.items():
        ds = d["durations"]
        out[name] = {
            "calls": len(ds),
            "ms_p50": round(percentile(ds, 50) * 1000, 2),
            "ms_p99": round(percentile(ds, 99) * 1000, 2),
            "ms_max": round(max(ds) * 1000, 2),
            "late_beats": d["late_beats"],
            "late_ms": round(d["late_ms"], 1),
        }
    out["other (event loop, layout, signals, GIL)"] = {
        "late_beats": unexplained["late_beats"], "late_ms": round(unexplained["late_ms"], 1)}
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rate", type=float, default=5000)
    ap.add_argument("--history-chars", type=int, default=0)
    ap.add_argument("--text-file", default=None)
    args = ap.parse_args(argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

    rec = Recorder()
    _patch(rec)

    from app import doctor
    from app.application import create_window, make_application
    from app.core.factory import scripted_factory

    beats: list[tuple[float, float]] = []

    class TimedHeartbeat(doctor.Heartbeat):
        def start(self) -> None:
            beats.clear()
            rec.spans.clear()
            rec.active = True
            super().start()

        def stop(self) -> None:
            rec.active = False
            super().stop()

        def _on_timeout(self) -> None:
            expected = self._last + doctor.HEARTBEAT_MS / 1000
            super()._on_timeout()
            beats.append((expected, self._last))

    from app.cli import build_parser

    # The doctor's own parser, so its defaults (and any option added later) apply.
    doctor_argv = ["doctor", "--backend", "scripted", "--rate", str(args.rate),
                   "--history-chars", str(args.history_chars), "--prompt", "Write a reply in Markdown."]
    if args.text_file:
        doctor_argv += ["--text-file", args.text_file]
    dargs = build_parser().parse_args(doctor_argv)
    app = make_application()
    window = create_window(*scripted_factory(rate=args.rate, text_file=args.text_file))
    run = doctor.DoctorRun(window, dargs)
    run.heartbeat = TimedHeartbeat(run)
    window.show()
    app.exec()
    res = run.result
    print(json.dumps({
        "rate": args.rate,
        "history_chars": args.history_chars,
        "ok": res.get("ok"),
        "ui_lag_ms": res.get("ui_lag_ms"),
        "heartbeats": res.get("heartbeats"),
        "late_beats": sum(1 for e, f in beats if f - e > LATE_S),
        "sources": analyse(rec, beats),
    }))


if __name__ == "__main__":
    sys.exit(main())
