"""Attachments through the real window: a file read off the GUI thread, the
question sent with its text (whole) or its best chunks (retrieved, with sources)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PyQt6.QtCore import QCoreApplication, Qt

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


# -- the widgets: button, chips, drops and pastes, sources ------------------------------------------


def test_chips_show_what_each_file_is_and_how_it_goes(qtbot: Any, make_window: Any, tmp_path: Path) -> None:
    from app.ui.attachments.button import AttachButton
    from app.ui.attachments.chips import FileChip
    from app.ui.attachments.tray import ChipTray

    window = make_window(lambda: ScriptedBackend(rate=5000, n_tokens=3))
    wiring = window.attachments
    assert isinstance(wiring.button, AttachButton) and "cannot see images" in wiring.button.toolTip()
    tray = wiring.tray
    assert isinstance(tray, ChipTray) and not tray.isVisible()
    notes = tmp_path / "notes.md"
    notes.write_text("The meeting is on Tuesday.", encoding="utf-8")
    pdf = tmp_path / "report.pdf"
    pdf.write_bytes(make_pdf([filler_page(i) for i in range(1, 301)]))
    binary = tmp_path / "photo.txt"
    binary.write_bytes(bytes(range(256)) * 50)
    attach_and_wait(qtbot, window, [notes, pdf, binary])
    assert tray.isVisible()
    chips = list(tray.chips.values())
    assert all(isinstance(c, FileChip) for c in chips)
    texts = [c.summary() for c in chips]
    # together they do not fit the context: both go as their best passages (LM Studio's rule)
    assert texts[0].startswith("notes.md · 26 B · ≈") and texts[0].endswith("best passages (by keywords)")
    assert "report.pdf" in texts[1] and "300 page(s)" in texts[1] and texts[1].endswith("best passages (by keywords)")
    assert "not text" in texts[2] and chips[2].property("failed") is True
    # the preview shows the text read
    qtbot.mouseClick(chips[0], Qt.MouseButton.LeftButton)
    from app.ui.attachments.preview import PREVIEW_CHARS, PreviewDialog

    assert isinstance(tray.preview, PreviewDialog) and "Tuesday" in tray.preview.text_view.toPlainText()
    assert PREVIEW_CHARS >= 10_000
    tray.preview.close()
    # × removes the chip and the file
    with qtbot.waitSignal(window.attachments.service.attachment_removed):
        qtbot.mouseClick(chips[2].remove_button, Qt.MouseButton.LeftButton)
    assert len(tray.chips) == 2 and len(window.attachments.service.pending) == 2


def test_pasting_and_dropping_files_on_the_message_box_attaches_them(qtbot: Any, make_window: Any, tmp_path: Path) -> None:
    from PyQt6.QtCore import QMimeData, QUrl
    from PyQt6.QtGui import QColor, QImage

    window = make_window(lambda: ScriptedBackend(rate=5000, n_tokens=3))
    service = window.attachments.service
    notes = tmp_path / "a.csv"
    notes.write_text("x,y\n1,2\n", encoding="utf-8")
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(notes))])
    window.prompt.setPlainText("draft")
    with qtbot.waitSignal(service.attachment_read, timeout=10000):
        window.prompt.insertFromMimeData(mime)
    assert window.prompt.toPlainText() == "draft" and [a.name for a in service.pending] == ["a.csv"]
    image = QImage(50, 40, QImage.Format.Format_RGB32)
    image.fill(QColor("green"))
    shot = QMimeData()
    shot.setImageData(image)
    with qtbot.waitSignal(service.attachment_read, timeout=10000):
        assert window.prompt.canInsertFromMimeData(shot)
        window.prompt.insertFromMimeData(shot)
    pasted = service.pending[-1]
    assert pasted.kind.value == "image" and pasted.ok and pasted.name.startswith("pasted-")
    assert not Path(pasted.path).exists(), "the pasted image's file goes once read"
    content = service.content(pasted.id)
    assert content is not None and content.image, "what was read stays in memory"
    chip = window.attachments.tray.chips[pasted.id]
    assert "this model cannot see images" in chip.summary()
    # plain text still pastes as text
    text = QMimeData()
    text.setText(" more")
    window.prompt.moveCursor(window.prompt.textCursor().MoveOperation.End)
    window.prompt.insertFromMimeData(text)
    assert window.prompt.toPlainText() == "draft more"


def test_pasted_images_left_by_an_earlier_run_are_swept(tmp_path: Path) -> None:
    import os

    from app.ui.window.attachments import PASTED_STALE_S, sweep_pasted

    old, fresh, other = tmp_path / "pasted-1.png", tmp_path / "pasted-2.png", tmp_path / "notes.png"
    for f in (old, fresh, other):
        f.write_bytes(b"x")
    now = os.stat(fresh).st_mtime
    os.utime(old, (now - PASTED_STALE_S - 5, now - PASTED_STALE_S - 5))
    os.utime(other, (now - PASTED_STALE_S - 5, now - PASTED_STALE_S - 5))
    assert sweep_pasted(tmp_path, now=now) == 1
    assert not old.exists() and fresh.exists() and other.exists(), "only stale pasted images, never the user's files"
    assert sweep_pasted(tmp_path / "missing", now=now) == 0


def _reply_id(window: Any) -> str:
    return next(m.id for m in reversed(window.chat.conversation.messages) if m.role == "assistant")


def _sources_line(window: Any, reply_id: str) -> str:
    return next((t for t in window.view.probe.footer_texts(reply_id) if t.startswith("Sources:")), "")


def test_sources_are_listed_under_the_reply_opened_and_listed_again_after_reopening(
        qtbot: Any, make_window: Any, tmp_path: Path) -> None:
    from app.ui.attachments.sources import SourcesMenu
    from tests.ui.window.test_history import click_action

    window = make_window(lambda: ScriptedBackend(rate=5000, n_tokens=3))
    pages = [filler_page(i) for i in range(1, 301)]
    pages[216] = pages[216] + [LATIN]
    pdf = tmp_path / "report.pdf"
    pdf.write_bytes(make_pdf(pages))
    attach_and_wait(qtbot, window, [pdf])
    with qtbot.waitSignal(window.chat.reply_settled, timeout=20000):
        window.enter_prompt("What is the vault code?")
    reply = _reply_id(window)
    qtbot.waitUntil(lambda: "p. 217" in _sources_line(window, reply), timeout=5000)
    assert _sources_line(window, reply).startswith("Sources: report.pdf p. ")
    user = next(m.id for m in window.chat.conversation.messages if m.role == "user")
    assert _sources_line(window, user) == "", "a question lists no sources"
    menu = window.attachments.sources
    assert isinstance(menu, SourcesMenu)
    # the line is clicked: the passage (the only one here) shows its text
    with qtbot.waitSignal(menu.source_opened) as opened:
        click_action(qtbot, window, reply, "sources")
    assert opened.args[0].page == 217
    assert menu.preview is not None and "heliotrope-7731" in menu.preview.text_view.toPlainText()
    menu.preview.close()
    assert window.attachments.files.text() == "Files in this conversation: report.pdf (best passages)"
    conv_id = window.chat.conversation.id
    window.chat.new_chat()
    assert not window.attachments.files.isVisible()
    # a new window on the same history: the sources come back from the store
    window.close()
    qtbot.waitUntil(lambda: window.services.shutting_down, timeout=20000)
    second = make_window(lambda: ScriptedBackend(rate=5000, n_tokens=3))
    got: list[Any] = []
    second.library.load(conv_id, got.append)
    qtbot.waitUntil(lambda: bool(got), timeout=10000)
    second.chat.show_conversation(got[0])
    qtbot.waitUntil(lambda: "p. 217" in _sources_line(second, reply), timeout=10000)
    assert second.attachments.service.has_attachments(conv_id)
    from app.ui.attachments.files import ConversationFiles

    files = second.attachments.files
    assert isinstance(files, ConversationFiles) and files.isVisible()
    assert files.text() == "Files in this conversation: report.pdf (best passages)"


def test_many_sources_are_cut_to_the_column_whole_in_the_tooltip_and_chosen_from_a_menu(
        qtbot: Any, make_window: Any) -> None:
    from app.core.attachments.context import Source
    from tests.ui.window.test_history import click_action

    window = make_window(lambda: ScriptedBackend(rate=5000, n_tokens=3))
    with qtbot.waitSignal(window.chat.reply_settled, timeout=20000):
        window.enter_prompt("hello")
    reply = _reply_id(window)
    before = window.view.total_height()
    assert _sources_line(window, reply) == ""
    many = tuple(Source(f"a-rather-long-file-name-{n}.pdf", n, 1.0, f"passage {n} text") for n in range(40))
    window.attachments.service.sources[reply] = many
    window.view.footers_changed()
    assert window.view.total_height() > before, "the sources take a line of their own"
    shown = _sources_line(window, reply)
    assert shown.endswith("…") and "a-rather-long-file-name-0.pdf p. 0" in shown
    point = window.view.probe.footer_action_point(reply, "sources")
    assert point is not None
    tip = window.view.tooltip_at(point)
    assert tip.startswith("Sources: ") and "a-rather-long-file-name-39.pdf p. 39" in tip
    menu = window.attachments.sources
    click_action(qtbot, window, reply, "sources")
    qtbot.waitUntil(lambda: menu.menu is not None and menu.menu.isVisible(), timeout=5000)
    assert menu.menu is not None and len(menu.menu.actions()) == 40
    entry = next(a for a in menu.menu.actions() if a.text().startswith("a-rather-long-file-name-7.pdf p. 7 — "))
    with qtbot.waitSignal(menu.source_opened) as opened:
        entry.trigger()
    assert opened.args[0] == many[7]
    assert menu.preview is not None and menu.preview.text_view.toPlainText() == "passage 7 text"
    menu.menu.close()
    menu.preview.close()
    # the sources go: the line goes, and the height with it
    del window.attachments.service.sources[reply]
    window.view.footers_changed()
    assert _sources_line(window, reply) == "" and window.view.total_height() == before


def test_removing_a_file_being_read_cancels_its_read(qtbot: Any, make_window: Any, tmp_path: Path) -> None:
    from app.ui.services.background import join_background_threads

    window = make_window(lambda: ScriptedBackend(rate=5000, n_tokens=3))
    service = window.attachments.service
    big = tmp_path / "big.txt"
    big.write_text("word " * 2_000_000, encoding="utf-8")
    progress: list[float] = []
    service.progress_changed.connect(lambda _id, f: progress.append(f))
    with qtbot.assertNotEmitted(service.attachment_read):
        [att] = window.attachments.service.add_files([str(big)])
        assert service.reading
        service.remove(att.id)
        assert join_background_threads(10.0)
        QCoreApplication.sendPostedEvents()  # a late result, queued by the finished thread, is delivered now
    assert service.pending == [] and window.attachments.tray.chips == {} and not window.attachments.tray.isVisible()
    assert all(0.0 <= f <= 1.0 for f in progress)


def test_gif_and_webp_give_their_first_frame(qtbot: Any, tmp_path: Path) -> None:
    from PyQt6.QtGui import QColor, QImage

    from app.ui.attachments.images import read_image

    image = QImage(300, 200, QImage.Format.Format_RGB32)
    image.fill(QColor("purple"))
    webp = tmp_path / "picture.webp"
    assert image.save(str(webp), "WEBP")
    scaled = read_image(str(webp))
    assert (scaled.width, scaled.height) == (300, 200)
    # a GIF of two 1 x 1 frames, written byte by byte (Qt writes no GIF)
    frame = b"\x21\xf9\x04\x00\x0a\x00\x00\x00\x2c\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02\x44\x01\x00"
    gif = tmp_path / "anim.gif"
    gif.write_bytes(b"GIF89a\x01\x00\x01\x00\x80\x00\x00\xff\x00\x00\x00\x00\xff" + frame + frame + b"\x3b")
    first = read_image(str(gif))
    assert (first.width, first.height) == (1, 1) and first.original == (1, 1)
