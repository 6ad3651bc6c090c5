"""Attachments in the window: reading files off the GUI thread (QtPdf for
PDFs, QImageReader for images), the attach button, the chips above the
message box, and the sources under a reply."""
