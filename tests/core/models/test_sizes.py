"""Sizes and counts as the model list and the About box show them."""

from __future__ import annotations

from app.core.models.sizes import format_bytes, format_count


def test_counts() -> None:
    assert format_count(134_515_008) == "135M"
    assert format_count(7_241_732_096) == "7.2B"
    assert format_count(7_000_000_000) == "7B"  # no ".0"
    assert format_count(1_500) == "1.5K" and format_count(2 * 10**12) == "2T"
    assert format_count(999) == "999"


def test_bytes() -> None:
    assert format_bytes(98_362_432) == "93.8 MiB"
    assert format_bytes(None) == ""
    assert format_bytes(512) == "512 B" and format_bytes(2048) == "2.0 KiB"
    assert format_bytes(5 * 1024**3) == "5.0 GiB"
    assert format_bytes(3 * 1024**4) == "3072.0 GiB"  # GiB is the largest unit
