"""File › Print…'s job: what the print dialog chose, carried to the child
process as options and printed there (here: on a printer writing a PDF file)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from PyQt6.QtGui import QPageLayout, QPageSize
from PyQt6.QtPrintSupport import QPrinter

from app.ui.services import printing
from app.ui.services.printing import PrintError, PrintJob
from tests.ui.services.test_pdf_export import store  # noqa: F401 - the fixture

_ = store


def _pdf_printer(path: Path) -> QPrinter:
    printer = QPrinter(QPrinter.PrinterMode.HighResolution)
    printer.setOutputFormat(QPrinter.OutputFormat.PdfFormat)
    printer.setOutputFileName(str(path))
    return printer


def _pages(path: Path) -> int:
    from PyQt6.QtPdf import QPdfDocument

    doc = QPdfDocument(None)
    doc.load(str(path))
    return doc.pageCount()


def test_the_dialogs_choices_become_a_job_and_options(qapp) -> None:
    printer = QPrinter(QPrinter.PrinterMode.HighResolution)
    printer.setCopyCount(3)
    printer.setPrintRange(QPrinter.PrintRange.PageRange)
    printer.setFromTo(2, 4)
    printer.setPageSize(QPageSize(QPageSize.PageSizeId.Letter))
    printer.setPageOrientation(QPageLayout.Orientation.Landscape)
    printer.setColorMode(QPrinter.ColorMode.GrayScale)
    job = printing.job_from_printer(printer)
    assert job.printer == printer.printerName()  # no printer here: Qt keeps none set
    job = replace(job, printer="Office")
    assert job == PrintJob("Office", 3, 2, 4, landscape=True, grayscale=True, duplex=False, paper="Letter")
    assert printing.job_arguments(job) == [
        "--printer", "Office", "--copies", "3", "--pages", "2-4", "--paper", "Letter", "--landscape", "--grayscale"]
    everything = printing.job_from_printer(QPrinter())
    assert (everything.first_page, everything.last_page) == (0, 0)
    assert "--pages" not in printing.job_arguments(everything)


def test_a_job_sets_up_a_printer(qapp, tmp_path: Path) -> None:
    printer = _pdf_printer(tmp_path / "x.pdf")
    printing.apply_job(printer, PrintJob("p", 2, 3, 0, landscape=True, paper="a5"))
    assert printer.copyCount() == 2 and printer.fromPage() == 3
    assert printer.printRange() == QPrinter.PrintRange.PageRange
    assert printer.pageLayout().orientation() == QPageLayout.Orientation.Landscape
    assert printer.pageLayout().pageSize().id() == QPageSize.PageSizeId.A5


def test_printed_pages_follow_the_printers_paper_and_range(qapp, store: Any, tmp_path: Path) -> None:
    whole = tmp_path / "whole.pdf"
    assert printing.print_conversations(store, None, _pdf_printer(whole)) == (1, 2)
    total = _pages(whole)
    assert total >= 2
    landscape = tmp_path / "landscape.pdf"
    printer = _pdf_printer(landscape)
    printing.apply_job(printer, PrintJob("p", landscape=True))
    printing.print_conversations(store, None, printer)
    assert _pages(landscape) > total  # shorter pages, more of them
    part = tmp_path / "part.pdf"
    printer = _pdf_printer(part)
    printing.apply_job(printer, PrintJob("p", first_page=2, last_page=2))
    printing.print_conversations(store, None, printer)
    assert _pages(part) == 1


def test_a_printer_that_is_not_there_is_a_plain_error(qapp) -> None:
    with pytest.raises(PrintError, match="no printer named 'nowhere'"):
        printing.printer_for(PrintJob("nowhere"))
