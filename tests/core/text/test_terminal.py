"""app.core.text.terminal: nothing printed can drive the terminal."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from app.core.text.terminal import terminal_safe


def test_escapes_controls_and_bidi_overrides_are_dropped() -> None:
    assert terminal_safe("a\x1b]0;owned\x07b\x1b[2Jc\rd\u202eevil\u2066x\u2069") == "a]0;ownedb[2Jcdevilx"
    assert terminal_safe("line one\n\tline two 界面 👋 é") == "line one  line two 界面 👋 é"
    assert terminal_safe("line one\n\tline two", one_line=False) == "line one\n\tline two"
    assert terminal_safe("\x9b31m C1 CSI \ud800") == "31m C1 CSI \ufffd"


@given(st.text(), st.booleans())
def test_nothing_unsafe_survives(text: str, one_line: bool) -> None:
    out = terminal_safe(text, one_line=one_line)
    allowed = "" if one_line else "\n\t"
    assert not any((ord(ch) < 32 and ch not in allowed) or 0x7F <= ord(ch) <= 0x9F for ch in out)
    assert not any(ch in out for ch in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
    assert not any(0xD800 <= ord(ch) <= 0xDFFF for ch in out)
