"""A file's text is read in a child process: the same record, text and
chunks as in this process; progress relayed; Cancel reaches the child."""

from __future__ import annotations

import threading
from dataclasses import replace
from pathlib import Path

from app.core.attachments.chunking import chunk
from app.core.attachments.extract import extract
from app.core.store.search import short_terms
from app.ui.attachments.pdf_reader import open_pdf
from app.ui.attachments.reading_process import read_out_of_process
from tests.helpers.pdfs import filler_page, make_pdf


def test_a_pdf_read_in_the_child_is_what_this_process_reads(tmp_path: Path) -> None:
    path = tmp_path / "report.pdf"
    path.write_bytes(make_pdf([filler_page(n) for n in range(1, 41)]))
    seen: list[float] = []
    att, extracted, chunks = read_out_of_process(str(path), threading.Event(), seen.append)
    here_att, here = extract(str(path), pdf_opener=open_pdf)
    assert att.ok and att.pages == here_att.pages == 40
    assert extracted is not None and here is not None and extracted.text == here.text
    # the same chunks, each with its short-index terms made in the child
    assert chunks == tuple(replace(c, terms=short_terms(c.text)) for c in chunk(here))
    assert all(c.terms for c in chunks)
    assert seen and seen == sorted(seen) and seen[-1] == 1.0


def test_cancel_reaches_the_child(tmp_path: Path) -> None:
    path = tmp_path / "long.pdf"
    path.write_bytes(make_pdf([filler_page(n) for n in range(1, 301)]))
    cancel = threading.Event()
    cancel.set()
    att, extracted, chunks = read_out_of_process(str(path), cancel)
    assert not att.ok and "cancelled" in att.error and chunks == ()


def test_a_missing_file_is_a_message_not_a_crash(tmp_path: Path) -> None:
    att, extracted, chunks = read_out_of_process(str(tmp_path / "gone.txt"), threading.Event())
    assert not att.ok and "gone.txt" in att.error and extracted is None
