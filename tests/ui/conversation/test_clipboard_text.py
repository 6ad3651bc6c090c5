"""Clipboard text gathered in work slices after Copy (LazyTextMime)."""

from __future__ import annotations

import pytest

from app.core.text.utf8 import PIECE_CHARS
from app.ui.conversation import clipboard_text
from app.ui.conversation.clipboard_text import LazyTextMime


def test_a_paste_before_the_text_is_gathered_gets_all_of_it_once(qapp) -> None:
    made: list[int] = []

    def pieces():
        for k in range(3):
            made.append(k)
            yield f"piece {k} "

    mime = LazyTextMime(pieces())
    assert made == [] and not mime.ready, "nothing is made before the event loop turns"
    assert mime.hasFormat("text/plain") and mime.hasFormat("text/plain;charset=utf-8")
    assert not mime.hasFormat("text/html") and mime.hasText() and made == []
    assert mime.text() == "piece 0 piece 1 piece 2 " and mime.ready
    assert mime.text() == "piece 0 piece 1 piece 2 " and made == [0, 1, 2], "made once"
    assert bytes(mime.data("text/plain;charset=utf-8")) == b"piece 0 piece 1 piece 2 "
    assert mime.data("text/html").isEmpty()


def test_the_text_is_gathered_in_slices_after_copy(qtbot, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(clipboard_text, "SLICE_S", 0.0)  # every slice's time is up after one part
    made: list[int] = []

    def pieces():
        for k in range(4):
            made.append(k)
            yield str(k)

    mime = LazyTextMime(pieces())
    mime._slicer.run_slice()
    assert made == [0] and not mime.ready, "one slice, one part"
    with qtbot.waitSignal(mime.prepared, timeout=5000):
        pass  # the rest comes from the event loop
    assert mime.ready and made == [0, 1, 2, 3]
    assert mime.text() == "0123"


def test_another_application_gets_utf8_bytes_of_long_and_wide_text(qtbot) -> None:
    from PyQt6.QtWidgets import QApplication

    text = "日本語 😀 " * (PIECE_CHARS // 3) + "end"
    mime = LazyTextMime(iter([text, "", "\ud800!"]))
    with qtbot.waitSignal(mime.prepared, timeout=10000):
        pass
    clipboard = QApplication.clipboard()
    assert clipboard is not None
    clipboard.setMimeData(mime)
    served = clipboard.mimeData()
    assert served is not None
    assert bytes(served.data("text/plain;charset=utf-8")).decode("utf-8") == text + "?!", "a lone surrogate is ?"
    assert clipboard.text() == text + "?!"
