"""The retrieval benchmark runs small and finds its needles (so it cannot rot
between the runs that measure it: ``python -m benchmarks.retrieval``)."""

from __future__ import annotations

import json
from typing import Any

from benchmarks import retrieval


def test_the_retrieval_benchmark_finds_both_needles_in_both_modes(capsys: Any) -> None:
    assert retrieval.main(["--chunks", "120", "--documents", "4", "--dim", "16", "--repeat", "1"]) == 0
    res = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert res["chunks"] >= 100
    ranks = {(q["mode"], q["label"]): q["needle_rank"] for q in res["questions"] if q["has_needle"]}
    assert len(ranks) == 4 and set(ranks.values()) == {1}, ranks
