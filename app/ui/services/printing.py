"""File › Print…: the PDF export's page, printed on a printer (``PrintJob``).

The window asks where and how in Qt's print dialog (on the GUI thread, which
only asks); what was chosen becomes a :class:`PrintJob`, which travels to a
child ``rill export --printer NAME …`` process as command-line options
(:func:`job_arguments`), because laying out and printing the page is Qt text
work that holds the GIL (see ``pdf_export``). There :func:`print_conversations`
makes a ``QPrinter`` from the job again and prints the page with the
printer's paper, margins, copies and page range. "Print to File" in the
dialog is a PDF export of the same page (the window sends it there).

Threading rule: the child process's main thread (the CLI), or tests.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from PyQt6.QtCore import QMarginsF
from PyQt6.QtGui import QPageLayout, QPageSize
from PyQt6.QtPrintSupport import QPrinter, QPrinterInfo

from app.core.store.exchange.export_json import StoreReader
from app.ui.services.pdf_export import MARGIN_MM, export_page, print_page

__all__ = ["PrintError", "PrintJob", "job_arguments", "job_from_printer", "print_conversations", "printer_for"]


_LAST_PAGE = 999_999


class PrintError(Exception):
    """The job cannot be printed (no such printer); the message says why."""


@dataclass(frozen=True)
class PrintJob:
    """What the print dialog chose, as plain values."""

    printer: str
    copies: int = 1
    first_page: int = 0  # 0: from the first page
    last_page: int = 0  # 0: to the last page
    landscape: bool = False
    grayscale: bool = False
    duplex: bool = False
    paper: str = ""  # a QPageSize key ("A4", "Letter"); "": the printer's default


def job_from_printer(printer: QPrinter) -> PrintJob:
    """The job ``printer`` (as the print dialog left it) describes."""
    ranged = printer.printRange() == QPrinter.PrintRange.PageRange
    layout = printer.pageLayout()
    return PrintJob(
        printer=printer.printerName(),
        copies=max(1, printer.copyCount()),
        first_page=printer.fromPage() if ranged else 0,
        last_page=printer.toPage() if ranged and printer.toPage() < _LAST_PAGE else 0,
        landscape=layout.orientation() == QPageLayout.Orientation.Landscape,
        grayscale=printer.colorMode() == QPrinter.ColorMode.GrayScale,
        duplex=printer.duplex() not in (QPrinter.DuplexMode.DuplexNone,),
        paper=QPageSize.key(layout.pageSize().id()),
    )


def job_arguments(job: PrintJob) -> list[str]:
    """``rill export`` options that carry ``job``."""
    args = ["--printer", job.printer, "--copies", str(job.copies)]
    if job.first_page or job.last_page:
        args += ["--pages", f"{job.first_page or 1}-{job.last_page or ''}"]
    if job.paper:
        args += ["--paper", job.paper]
    args += [flag for flag, on in (("--landscape", job.landscape), ("--grayscale", job.grayscale),
                                   ("--duplex", job.duplex)) if on]
    return args


def _page_size(key: str) -> QPageSize | None:
    for size_id in QPageSize.PageSizeId:
        if size_id != QPageSize.PageSizeId.Custom and QPageSize.key(size_id).lower() == key.lower():
            return QPageSize(size_id)
    return None


def printer_for(job: PrintJob) -> QPrinter:
    """A ``QPrinter`` for ``job``; PrintError when the printer is not there."""
    names = QPrinterInfo.availablePrinterNames()
    if job.printer not in names:
        known = ", ".join(names) if names else "none"
        raise PrintError(f"There is no printer named {job.printer!r} (printers here: {known}).")
    printer = QPrinter(QPrinterInfo.printerInfo(job.printer), QPrinter.PrinterMode.HighResolution)
    apply_job(printer, job)
    return printer


def apply_job(printer: QPrinter, job: PrintJob) -> None:
    """Set ``job``'s copies, pages, paper and modes on ``printer``."""
    printer.setDocName("Rill")
    printer.setCopyCount(job.copies)
    if job.first_page or job.last_page:
        printer.setPrintRange(QPrinter.PrintRange.PageRange)
        # "3-": to the end (QTextDocument.print stops at its last page)
        printer.setFromTo(job.first_page or 1, job.last_page or _LAST_PAGE)
    size = _page_size(job.paper) if job.paper else None
    if size is not None:
        printer.setPageSize(size)
    printer.setPageOrientation(
        QPageLayout.Orientation.Landscape if job.landscape else QPageLayout.Orientation.Portrait)
    printer.setPageMargins(QMarginsF(MARGIN_MM, MARGIN_MM, MARGIN_MM, MARGIN_MM), QPageLayout.Unit.Millimeter)
    printer.setColorMode(QPrinter.ColorMode.GrayScale if job.grayscale else QPrinter.ColorMode.Color)
    printer.setDuplex(QPrinter.DuplexMode.DuplexAuto if job.duplex else QPrinter.DuplexMode.DuplexNone)


def print_conversations(
    store: StoreReader,
    conversation_ids: Iterable[str] | None,
    printer: QPrinter,
    progress: Callable[[float], None] | None = None,
) -> tuple[int, int]:
    """Print the export's page on ``printer``; (conversations, messages shown)."""
    page, formulas, shown = export_page(store, conversation_ids, progress)
    print_page(page, formulas, printer)
    return len(shown), sum(shown)
