"""Where Rill's GUI-thread lag comes from (a diagnostic, not a goal check).

Runs ``rill doctor``'s measurement in-process (``benchmarks.inproc``) on the
scripted backend, with the GUI thread's units of work wrapped in timers:

* the consumer tick (``StreamConsumer._on_tick``: drain + ``Reply.add_text``
  + ``ChatView.append_stream``),
* the view's time-boxed work slices (``TimeSlicer._on_due``: building
  unit documents, swapping in stream commits and the final render),
* render-result handling (``ChatView._on_rendered``: results of the render
  thread arriving on the GUI thread),
* paint (``ChatView.paintEvent``),
* and, where they run, the visibility update (``ChatView._update_live_items``),
  opening the history (``ChatView.add_messages``), Enter
  (``ChatController.send``) and the worker's end (``_on_generation_finished``).

Each late heartbeat (lateness > 2 ms) is blamed on the unit of work that
overlapped it most; the summary gives, per source, its duration p50/p99/max
and how many late heartbeats (and how much lateness) it caused.

    python -m benchmarks.lag_sources --rate 5000 --history-chars 1000000 [--text-file F]

Wrapping adds ~1 us per call; the doctor's own numbers are reported too.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

LATE_S = 0.002

SOURCES = {
    # (class, method): label
    ("StreamConsumer", "_on_tick"): "tick (drain + append_stream)",
    ("TimeSlicer", "_on_due"): "view work slices",
    ("ChatView", "_on_rendered"): "render results (_on_rendered)",
    ("ChatView", "paintEvent"): "view paint",
    ("ChatView", "_update_live_items"): "visibility update",
    ("ChatView", "add_messages"): "history open (add_messages)",
    ("ChatController", "send"): "Enter (ChatController.send)",
    ("StreamConsumer", "_on_generation_finished"): "worker finished (+ last tick)",
}


def _patch(rec: Any) -> None:
    from app.ui.conversation.consumer import StreamConsumer
    from app.ui.conversation.controller import ChatController
    from app.ui.conversation.view import ChatView
    from app.ui.services.slicer import TimeSlicer

    classes = {"ChatController": ChatController, "StreamConsumer": StreamConsumer, "ChatView": ChatView,
               "TimeSlicer": TimeSlicer}
    for (cls_name, meth), label in SOURCES.items():
        cls = classes[cls_name]
        fn = getattr(cls, meth, None)
        if fn is not None:
            setattr(cls, meth, rec.wrap(label, fn))


def analyse(spans: list[tuple[str, float, float]], beats: list[tuple[float, float]]) -> dict[str, Any]:
    """``beats``: (fired_at, lateness) for each heartbeat (perf_counter s)."""
    from app.core.pipeline.metrics import percentile

    by_source: dict[str, dict[str, Any]] = {}
    for name, t0, t1 in spans:
        d = by_source.setdefault(name, {"durations": [], "late_beats": 0, "late_ms": 0.0})
        d["durations"].append(t1 - t0)
    unexplained = {"late_beats": 0, "late_ms": 0.0}
    # Nested spans (a send inside a tick...) both overlap: the outer one wins
    # only when it overlaps more.
    spans = sorted(spans, key=lambda s: s[1])
    for fired, late in beats:
        if late <= LATE_S:
            continue
        expected = fired - late
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
    for name, d in sorted(by_source.items(), key=lambda kv: -kv[1]["late_ms"]):
        ds = d["durations"]
        out[name] = {
            "calls": len(ds),
            "ms_p50": round(percentile(ds, 50) * 1000, 2),
            "ms_p99": round(percentile(ds, 99) * 1000, 2),
            "ms_max": round(max(ds) * 1000, 2),
            "ms_total": round(sum(ds) * 1000, 1),
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

    from benchmarks.inproc import Recorder, lag_phases, run_doctor

    rec = Recorder()
    _patch(rec)

    heartbeat = recording_heartbeat(rec)

    doctor_argv = ["--backend", "scripted", "--rate", str(args.rate),
                   "--history-chars", str(args.history_chars), "--prompt", "Write a reply in Markdown."]
    if args.text_file:
        doctor_argv += ["--text-file", args.text_file]
    out = run_doctor(doctor_argv, heartbeat)
    res = out.result
    print(json.dumps({
        "rate": args.rate,
        "history_chars": args.history_chars,
        "ok": res.get("ok"),
        "ui_lag_ms": res.get("ui_lag_ms"),
        "lag_phases": lag_phases(out),
        "heartbeats": res.get("heartbeats"),
        "late_beats": sum(1 for _f, late in out.beats if late > LATE_S),
        "sources": analyse(rec.spans, out.beats),
    }))




def recording_heartbeat(rec: Any) -> Any:
    """A heartbeat factory for ``run_doctor`` that records ``rec``'s spans
    only while the heartbeat runs."""
    from benchmarks.inproc import BeatLog

    def heartbeat(parent: Any) -> BeatLog:
        beat = BeatLog(parent)

        def start() -> None:
            rec.spans.clear()
            rec.active = True

        def stop() -> None:
            rec.active = False

        beat.on_start.append(start)
        beat.on_stop.append(stop)
        return beat

    return heartbeat


if __name__ == "__main__":
    sys.exit(main())
