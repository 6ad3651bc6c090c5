"""The benchmarks' stall report and issue #18's section of the report: a
missed goal is named and explained by the stalls of the run behind it."""

from __future__ import annotations

from typing import Any

from benchmarks import frame_report, stalls

OTHER = stalls.OTHER


def _stall(at: float, late: float, *doing: tuple[str, float]) -> dict[str, Any]:
    return {"at_ms": at, "late_ms": late, "doing": [list(d) for d in doing]}


def test_summarize_sums_the_work_and_keeps_the_worst() -> None:
    s = stalls.summarize([_stall(10, 9.0, ("paint", 6.0), (OTHER, 3.0)),
                          _stall(900, 20.5, ("send", 15.0), ("paint", 5.0), ("tick", 0.5))])
    assert s["count"] == 2 and s["worst_ms"] == 20.5 and s["worst_at_ms"] == 900
    assert s["worst"] == [["send", 15.0], ["paint", 5.0]]
    assert list(s["by_doing"]) == ["send", "paint", OTHER, "tick"] and s["by_doing"]["paint"] == 11.0
    text = stalls.explain(s)
    assert text.startswith("2 stalls over 8 ms; worst 20.5 ms at 900 ms (send 15, paint 5)")
    assert "in all: send 15, paint 11, other 3" in text
    assert stalls.explain(stalls.summarize([])) == "no stall over 8 ms"


def test_median_run_is_the_one_the_median_row_describes() -> None:
    runs = [{"max": 30.0, "id": "a"}, {"max": 5.0, "id": "b"}, {"max": 9.0, "id": "c"}, {"max": None, "id": "d"}]
    assert (stalls.median_run(runs) or {})["id"] == "c"
    assert stalls.median_run([{"max": None}]) is None


def _ui(renderer: str, rate: int, history: int, p99: float, mx: float, **extra: Any) -> dict[str, Any]:
    return {"renderer": renderer, "rate": rate, "history_chars": history, "content": "", "p99": p99, "max": mx,
            "reps": 3, "all_shown_runs": 3, **extra}


def test_the_section_judges_against_the_naive_renderer_and_explains_each_miss() -> None:
    paint = stalls.summarize([_stall(888, 12.8, ("paint", 11.7), (OTHER, 1.0))])
    results = {
        "ui_lag": [
            _ui("rill", 500, 0, 0.9, 6.0, idle_p99=0.5, idle_max=2.0, stalls=stalls.summarize([])),
            _ui("naive_append", 500, 0, 1.0, 3.0),
            _ui("rill", 5000, 0, 2.0, 12.8, idle_p99=0.5, idle_max=2.0, stalls=paint),
            _ui("naive_append", 5000, 0, 1.5, 4.0),
            _ui("rill", 50000, 0, 7.0, 15.0, all_shown_runs=2),
        ],
        "actions": [{"action": "paste_4mb", "measure": "send", "lag_max_ms": 20.0, "call_ms": 18.0,
                     "baseline_max_ms": 1.0, "stalls": stalls.summarize([_stall(3, 20.0, ("send", 18.0))])}],
        "frames": {"rows": [{"scenario": "real_model", "p99": 3.9, "max": 6.0, "idle_p99": 3.0, "idle_max": 5.0,
                             "stalls": stalls.summarize([])}]},
    }
    rows = {r["goal"]: r for r in frame_report.rows(results)}
    assert rows["500 tok/s, no history"]["met"] is True
    miss = rows["5,000 tok/s, no history"]
    assert miss["met"] is False and "p99 1.5" in miss["naive"] and "paint 11.7" in miss["stalls"]
    assert rows["50,000 tok/s, no history"]["met"] is False, "a token not shown in one run is a miss"
    assert rows["action: Enter with the 4 MB prompt"]["met"] is False
    assert "send 18" in rows["action: Enter with the 4 MB prompt"]["stalls"]
    assert rows["SmolLM2 (llama-cpp-python), 200 tokens"]["met"] is True   # 3.9 <= 3.0 + 1
    text = "\n".join(frame_report.markdown(results))
    assert text.startswith("## Issue #18: the frame budget") and "2 of 5 rows met" in text
    assert frame_report.markdown({}) == []
