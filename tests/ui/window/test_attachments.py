"""Attachments through the real window: a file read off the GUI thread, the
question sent with its text (whole) or its best chunks (retrieved, with sources)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from app.core.attachments.record import AttachmentMode
from app.core.backends.scripted import ScriptedBackend
from app.ui.attachments.sending import AttachmentSending
from app.ui.attachments.service import AttachmentService
from app.ui.window.attachments import AttachmentWiring
from tests.helpers.pdfs import filler_page, make_pdf

LATIN = "The vault code is heliotrope-7731."
CHINESE = "金库的密码是紫罗兰七七三一。"


def attach_and_wait(qtbot: Any, window: Any, paths: list[Path]) -> None:
    service = window.attachments.service
    with qtbot.waitSignals([service.attachment_read] * len(paths), timeout=60000):
        window.attachments.attach([str(p) for p in paths])
    assert not service.reading


def user_text(window: Any) -> str:
    return [m for m in window.attachments.sending.last_prompt if m.role == "user"][-1].content


def test_a_short_file_goes_in_whole(qtbot: Any, make_window: Any, tmp_path: Path) -> None:
    window = make_window(lambda: ScriptedBackend(rate=5000, n_tokens=3))
    assert isinstance(window.attachments, AttachmentWiring)
    assert isinstance(window.attachments.service, AttachmentService)
    assert isinstance(window.attachments.sending, AttachmentSending)
    notes = tmp_path / "notes.md"
    notes.write_text("# Notes\n\nThe meeting is on Tuesday.", encoding="utf-8")
    attach_and_wait(qtbot, window, [notes])
    [pending] = window.attachments.service.pending
    assert pending.ok and pending.tokens > 0
    with qtbot.waitSignal(window.chat.reply_settled, timeout=20000):
        window.enter_prompt("When is the meeting?")
    sent = user_text(window)
    assert sent.startswith('<attachment name="notes.md">') and sent.endswith("When is the meeting?")
    assert "Tuesday" in sent
    assert window.attachments.service.pending == []
    plan = window.attachments.service.last_plan
    assert [a.mode for a in plan.attachments] == [AttachmentMode.WHOLE] and plan.sources == ()
    # the next question in the same conversation still has the file
    with qtbot.waitSignal(window.chat.reply_settled, timeout=20000):
        window.enter_prompt("And the day after?")
    assert "Tuesday" in [m.content for m in window.attachments.sending.last_prompt if m.role == "user"][0]


def test_a_long_pdf_is_retrieved_with_sources(qtbot: Any, make_window: Any, tmp_path: Path) -> None:
    window = make_window(lambda: ScriptedBackend(rate=5000, n_tokens=3))
    pages = [filler_page(i) for i in range(1, 301)]
    pages[216] = pages[216] + [LATIN]
    pages[99] = pages[99] + [CHINESE]
    pdf = tmp_path / "report.pdf"
    pdf.write_bytes(make_pdf(pages))
    attach_and_wait(qtbot, window, [pdf])
    sending = window.attachments.sending
    with qtbot.waitSignal(window.chat.reply_settled, timeout=20000), \
            qtbot.waitSignal(sending.sources_attached, timeout=20000) as sourced:
        window.enter_prompt("What is the vault code?")
    reply_id, sources = sourced.args
    assert sources[0].file == "report.pdf" and sources[0].page == 217
    sent = user_text(window)
    assert '<excerpt source="report.pdf p. 217">' in sent and "heliotrope-7731" in sent
    assert window.attachments.service.sources[reply_id] == sources
    with qtbot.waitSignal(window.chat.reply_settled, timeout=20000), \
            qtbot.waitSignal(sending.sources_attached, timeout=20000) as sourced:
        window.enter_prompt("金库的密码是什么？")
    assert sourced.args[1][0].page == 100 and "紫罗兰" in user_text(window)


def test_sending_waits_for_a_file_still_being_read(qtbot: Any, make_window: Any, tmp_path: Path) -> None:
    window = make_window(lambda: ScriptedBackend(rate=5000, n_tokens=3))
    service = window.attachments.service
    big = tmp_path / "big.txt"
    big.write_text("word " * 200_000, encoding="utf-8")
    with qtbot.waitSignal(service.attachment_read, timeout=60000):
        window.attachments.attach([str(big)])
        assert service.reading  # the chip is there before the file is read
        window.enter_prompt("summarise")
        assert window.chat.conversation.messages == [] and window.prompt.toPlainText() == "summarise"


def test_removing_cancels_and_errors_stay_on_their_chip(qtbot: Any, make_window: Any, tmp_path: Path) -> None:
    window = make_window(lambda: ScriptedBackend(rate=5000, n_tokens=3))
    service = window.attachments.service
    binary = tmp_path / "photo.txt"
    binary.write_bytes(bytes(range(256)) * 50)
    attach_and_wait(qtbot, window, [binary, tmp_path / "gone.pdf"])
    errors = [a.error for a in service.pending]
    assert "not text" in errors[0] and "no longer there" in errors[1]
    with qtbot.waitSignal(service.attachment_removed):
        service.remove(service.pending[0].id)
    assert len(service.pending) == 1
    with qtbot.waitSignal(window.chat.reply_settled, timeout=20000):
        window.enter_prompt("hello")
    assert user_text(window) == "hello"  # a failed file adds nothing
