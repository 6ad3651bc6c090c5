"""app.core.text.display: outside text shown inside Rill's own, isolated."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from app.core.text.display import FSI, PDI, isolated, without_controls


def test_isolated_wraps_and_drops_controls() -> None:
    assert isolated("abc\u202edef") == f"{FSI}abcdef{PDI}"
    assert isolated("שלום") == f"{FSI}שלום{PDI}", "right-to-left text itself is kept"
    assert isolated("\x1b\u202e") == "" and isolated("") == ""


@given(st.text())
def test_no_control_is_left(text: str) -> None:
    out = without_controls(text)
    assert not any(ord(ch) < 32 or 0x7F <= ord(ch) <= 0x9F or 0x202A <= ord(ch) <= 0x202E or 0x2066 <= ord(ch) <= 0x2069
                   for ch in out)
    inner = isolated(text)
    assert inner == "" or (inner[0] == FSI and inner[-1] == PDI and inner[1:-1] == out)
