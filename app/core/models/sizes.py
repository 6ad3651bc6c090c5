"""Sizes and counts for people: ``format_bytes`` (98362432 -> "93.8 MiB")
and ``format_count`` (7241732096 -> "7.2B"). Qt-free."""

from __future__ import annotations

__all__ = ["format_bytes", "format_count"]


def format_count(n: int) -> str:
    """135000000 -> "135M", 7241732096 -> "7.2B"."""
    for unit, scale in (("T", 1e12), ("B", 1e9), ("M", 1e6), ("K", 1e3)):
        if n >= scale:
            value = n / scale
            text = f"{value:.1f}" if value < 10 else f"{value:.0f}"
            return text.removesuffix(".0") + unit
    return str(n)


def format_bytes(n: int | None) -> str:
    """98362432 -> "93.8 MiB"; None -> ""."""
    if n is None:
        return ""
    size = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} GiB"  # pragma: no cover
