"""PDFs made by the test, read by QtPdf on a worker thread: a needle on one
page of 300 (Latin and Chinese), encrypted, damaged, scanned and empty PDFs."""

from __future__ import annotations

import threading
from pathlib import Path

from pytestqt.qtbot import QtBot

from app.core.attachments.extract import extract
from app.core.attachments.record import Attachment, AttachmentKind, Extracted
from app.ui.attachments.pdf_reader import open_pdf
from tests.helpers.pdfs import filler_page, make_pdf

LATIN = "The vault code is heliotrope-7731."
CHINESE = "金库的密码是紫罗兰七七三一。"


def on_worker(path: Path) -> tuple[Attachment, Extracted | None]:
    out: list[tuple[Attachment, Extracted | None]] = []
    t = threading.Thread(target=lambda: out.append(extract(path, pdf_opener=open_pdf)))
    t.start()
    t.join(60)
    return out[0]


def test_needle_in_300_pages(qtbot: QtBot, tmp_path: Path) -> None:
    pages = [filler_page(i) for i in range(1, 301)]
    pages[216] = pages[216] + [LATIN, CHINESE]
    path = tmp_path / "report.pdf"
    path.write_bytes(make_pdf(pages))
    att, ext = on_worker(path)
    assert att.ok, att.error
    assert att.kind is AttachmentKind.PDF and att.pages == 300 and ext is not None
    at = ext.text.index(LATIN)
    assert ext.page_at(at) == 217 and ext.page_at(ext.text.index(CHINESE)) == 217
    assert ext.text.count("heliotrope") == 1


def test_bad_pdfs_say_what_is_wrong(qtbot: QtBot, tmp_path: Path) -> None:
    cases = {
        "locked.pdf": (make_pdf([["secret"]], encrypted=True), "password"),
        "damaged.pdf": (b"%PDF-1.7\n" + b"\x00garbage" * 100, "damaged"),
        "scan.pdf": (make_pdf([None, None, None]), "no text layer"),
        "blank.pdf": (make_pdf([[], []]), "no text layer"),
    }
    for name, (data, expected) in cases.items():
        path = tmp_path / name
        path.write_bytes(data)
        att, ext = on_worker(path)
        assert ext is None and expected in att.error, (name, att.error)


def test_deleted_after_attaching(qtbot: QtBot, tmp_path: Path) -> None:
    path = tmp_path / "gone.pdf"
    path.write_bytes(make_pdf([["x"]]))
    path.unlink()
    att, _ = on_worker(path)
    assert "no longer there" in att.error
