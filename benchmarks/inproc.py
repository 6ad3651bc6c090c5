"""In-process measurement helpers for the benchmark children (imports Qt:
never import this from the orchestrating process).

* ``BeatLog``: the doctor's 5 ms PreciseTimer heartbeat (``app.doctor.Heartbeat``,
  same lateness definition), which also records *when* each beat fired, so the
  lag can be split by phase or by action (``lags_between``).
* ``run_doctor``: ``rill doctor`` in this process (the doctor's own parser,
  window and ``DoctorRun``), with a ``BeatLog`` heartbeat; returns the doctor's
  JSON result plus the beats and the times of the reply signals.
* ``Recorder``: wraps GUI-thread methods to time every call (``lag_sources``).

``python -m benchmarks.inproc [doctor options]`` runs the doctor this way and
prints its JSON result with ``lag_phases`` added: the heartbeat lag before the
first send (opening the history), from the first send to the last reply's
last token (streaming), and after it (final render).
"""

from __future__ import annotations

import functools
import json
import os
import resource
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from app import doctor
from app.core.pipeline.metrics import summarize_ms


class BeatLog(doctor.Heartbeat):
    """``doctor.Heartbeat`` plus the perf_counter time each beat fired."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.fired: list[float] = []
        self.on_start: list[Callable[[], None]] = []
        self.on_stop: list[Callable[[], None]] = []

    def start(self) -> None:
        self.fired.clear()
        for fn in self.on_start:
            fn()
        super().start()

    def stop(self) -> None:
        super().stop()
        for fn in self.on_stop:
            fn()

    def _on_timeout(self) -> None:
        super()._on_timeout()
        self.fired.append(self._last)

    def beats(self) -> list[tuple[float, float]]:
        """(fired_at, lateness) of every beat, seconds (perf_counter)."""
        return list(zip(self.fired, self.lags_s, strict=False))

    def lags_between(self, t0: float, t1: float) -> list[float]:
        """Lateness (s) of the beats that fired in (t0, t1]: a stall that began
        in the window shows in the first beat after it, which fires when the
        stall ends."""
        return [lag for at, lag in zip(self.fired, self.lags_s, strict=False) if t0 < at <= t1]

    def pending_lag_s(self) -> float:
        return max(0.0, time.perf_counter() - self._last - doctor.HEARTBEAT_MS / 1000)


def summary_ms(lags_s: Sequence[float]) -> dict[str, float]:
    return summarize_ms(list(lags_s)) if lags_s else {"p50": 0.0, "p99": 0.0, "max": 0.0}


class Recorder:
    """Times every call of the wrapped functions while ``active``."""

    def __init__(self) -> None:
        self.spans: list[tuple[str, float, float]] = []   # (source, start, end), perf_counter
        self.active = False

    def wrap(self, name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        # A slot connected to a signal with more arguments (QAction.triggered
        # passes ``checked``) gets only as many as it takes: PyQt drops the
        # rest for the method itself, so the wrapper must too.
        import inspect

        params = inspect.signature(fn).parameters.values()
        takes_any = any(p.kind == p.VAR_POSITIONAL for p in params)
        n_positional = sum(1 for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if not takes_any and len(args) > n_positional:
                args = args[:n_positional]
            t0 = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                if self.active:
                    self.spans.append((name, t0, time.perf_counter()))
        return wrapper


@dataclass
class DoctorOutcome:
    result: dict[str, Any]
    exit_code: int
    beats: list[tuple[float, float]]
    sent_at: list[float] = field(default_factory=list)       # perf_counter, reply_started
    finished_at: list[float] = field(default_factory=list)   # reply_finished
    settled_at: list[float] = field(default_factory=list)    # reply_settled


def run_doctor(argv: Sequence[str], heartbeat_factory: Callable[[Any], BeatLog] | None = None) -> DoctorOutcome:
    """``rill doctor <argv>`` in this process, with a BeatLog heartbeat.
    Patch GUI classes *before* calling this (the window is created here)."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from app.application import backend_from_args, create_window, make_application
    from app.cli import build_parser

    args = build_parser().parse_args(["doctor", *argv])
    app = make_application()
    window = create_window(*backend_from_args(args))
    run = doctor.DoctorRun(window, args)
    beat = heartbeat_factory(run) if heartbeat_factory else BeatLog(run)
    run.heartbeat = beat
    out = DoctorOutcome({}, 1, [])
    chat = window.chat
    chat.reply_started.connect(lambda _rid: out.sent_at.append(time.perf_counter()))
    chat.reply_finished.connect(lambda _s: out.finished_at.append(time.perf_counter()))
    chat.reply_settled.connect(lambda _s: out.settled_at.append(time.perf_counter()))
    window.show()
    app.exec()
    out.result = run.result
    out.exit_code = run.exit_code
    out.beats = beat.beats()
    return out


def lag_phases(out: DoctorOutcome) -> dict[str, Any]:
    """The heartbeat lag split at the first send and the last reply's last token."""
    beats = out.beats
    if not beats:
        return {}
    first_send = out.sent_at[0] if out.sent_at else float("inf")
    last_done = out.finished_at[-1] if out.finished_at else float("inf")
    phases = {
        "open": [lag for at, lag in beats if at <= first_send],
        "stream": [lag for at, lag in beats if first_send < at <= last_done],
        "final": [lag for at, lag in beats if at > last_done],
    }
    return {name: {**summary_ms(lags), "beats": len(lags)} for name, lags in phases.items()}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    out = run_doctor(argv)
    result = dict(out.result)
    result["lag_phases"] = lag_phases(out)
    result["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    sys.stdout.write(json.dumps(result, ensure_ascii=False) + "\n")
    sys.stdout.flush()
    return out.exit_code


if __name__ == "__main__":
    sys.exit(main())
