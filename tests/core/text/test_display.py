"""app.core.text.display: outside text shown or printed by Rill, inert."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from app.core.text.display import FSI, PDI, isolated, without_controls


def test_escapes_controls_and_bidi_overrides_are_dropped() -> None:
    assert without_controls("a\x1b]0;owned\x07b\x1b[2Jc\rd\u202eevil\u2066x\u2069") == "a]0;ownedb[2Jcdevilx"
    assert without_controls("line one\n\tline two 界面 👋 é") == "line one  line two 界面 👋 é"
    assert without_controls("line one\n\tline two", one_line=False) == "line one\n\tline two"
    assert without_controls("\x9b31m C1 CSI \ud800") == "31m C1 CSI \ufffd"
    assert without_controls("\x02hit\x03", keep="\x02\x03") == "\x02hit\x03"


def test_isolated_wraps_and_drops_controls() -> None:
    assert isolated("abc\u202edef") == f"{FSI}abcdef{PDI}"
    assert isolated("שלום") == f"{FSI}שלום{PDI}", "right-to-left text itself is kept"
    assert isolated("\x1b\u202e") == "" and isolated("") == ""


@given(st.text(), st.booleans())
def test_nothing_unsafe_survives(text: str, one_line: bool) -> None:
    out = without_controls(text, one_line=one_line)
    allowed = "" if one_line else "\n\t"
    assert not any((ord(ch) < 32 and ch not in allowed) or 0x7F <= ord(ch) <= 0x9F for ch in out)
    assert not any(ch in out for ch in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
    assert not any(0xD800 <= ord(ch) <= 0xDFFF for ch in out)
    inner = isolated(text)
    assert inner == "" or (inner[0] == FSI and inner[-1] == PDI and inner[1:-1] == without_controls(text))
