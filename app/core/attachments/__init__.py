"""Files the user attaches to a message (Qt-free): what they are, their text,
their chunks, and how they join the prompt.

* ``record``: ``Attachment`` (what a chip shows), ``Extracted`` (text with page
  starts), ``AttachmentError`` (a sentence for the chip);
* ``kinds``: the kind of a file, from its name and first bytes;
* ``textfile``: text files read in bounded pieces, binaries named ``.txt`` refused;
* ``html_text``: HTML as plain text (stdlib ``html.parser``);
* ``docx``: DOCX paragraphs (``zipfile`` + expat, bounded against ZIP bombs);
* ``pdf``: a PDF's pages through a ``PdfPages`` reader the caller supplies
  (the UI's one is QtPdf, ``app.ui.attachments.pdf_reader``): normalisation,
  page limits, encrypted / empty / scanned PDFs;
* ``extract``: one entry point for any file;
* ``chunking``: ~512-token chunks at paragraph boundaries, pages kept;
* ``context``: whole or retrieval, and the text the model is sent.
"""
