"""Fit labels and the recommended model for a machine."""

from __future__ import annotations

import json
from pathlib import Path

from app.core.hub.fit import FITS, MAY_BE_SLOW, UNKNOWN, WONT_FIT, Machine, estimate_needed, fit_for, this_machine
from app.core.hub.recommended import load_recommended, parse_recommended, pick_for
from app.core.models.gguf_info import read_gguf_info
from tests.helpers.gguf_files import tiny_model

GB = 1024 ** 3


def test_labels() -> None:
    m = Machine(total=16 * GB, available=8 * GB)
    assert fit_for(4 * GB, m).level == FITS
    assert fit_for(10 * GB, m).level == MAY_BE_SLOW
    assert fit_for(15 * GB, m).level == WONT_FIT
    assert fit_for(1, Machine(None, None)).level == UNKNOWN
    assert fit_for(4 * GB, m).label == "Fits"
    assert "available" in fit_for(10 * GB, m).explanation


def test_estimate_uses_the_header_when_read(tmp_path: Path) -> None:
    info = read_gguf_info(tiny_model(tmp_path / "t.gguf"))
    assert info.ok
    size = info.file_size
    assert estimate_needed(size, info, 4096) == info.memory_estimate(4096)
    assert estimate_needed(size, info, 32768) > estimate_needed(size, info, 4096)   # the KV cache grows
    assert estimate_needed(size) > size


def test_this_machine_has_memory() -> None:
    m = this_machine()
    assert m.total and m.available and m.available <= m.total


def test_the_shipped_list_is_valid_and_picks_by_memory() -> None:
    models = load_recommended()
    assert len(models) >= 6
    assert [m.approx_size for m in models] == sorted(m.approx_size for m in models)
    assert {m.size_class for m in models} == {"tiny", "small", "medium", "large"}
    small = pick_for(models, Machine(2 * GB, 1 * GB))
    big = pick_for(models, Machine(64 * GB, 48 * GB))
    assert small is not None and big is not None
    assert small.approx_size < 600 * 1024 * 1024 and big.size_class == "large"
    tiny = pick_for(models, Machine(256 * 1024 * 1024, 128 * 1024 * 1024))
    assert tiny == models[0]   # nothing fits: the smallest


def test_bad_lists(tmp_path: Path) -> None:
    assert load_recommended(tmp_path / "missing.json") == []
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert load_recommended(bad) == []
    entries = parse_recommended({"models": [{"repo": "../x", "file": "a.gguf", "name": "x", "approx_size": 5},
                                            {"repo": "a/b", "file": "a.gguf", "name": "ok", "approx_size": 5},
                                            {"repo": "a/b"}]})
    assert [e.name for e in entries] == ["ok"]
    bad.write_text(json.dumps({"models": "nope"}))
    assert load_recommended(bad) == []
