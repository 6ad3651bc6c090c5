"""Every bound Rill puts on what comes from outside, in one place (Qt-free).

A server, a model file or an import file may be broken or hostile: each input
is read up to a limit, and passing the limit gives a clear message that names
it (never an unbounded read, never a silent cut). Change a number here and the
messages follow (they format the limit with ``size_text``).

Who uses which:

* model lists (``app.core.backends.remote``): ``MAX_MODEL_LIST_BYTES`` of body
  (after any gzip/deflate is unpacked), ``MAX_MODELS`` kept (the rest are
  counted and the count is shown), ``MAX_MODEL_NAME_CHARS`` per name,
  ``MODEL_LIST_TIMEOUT_S`` for the whole list (not per read);
* streams (SSE and NDJSON): ``MAX_LINE_BYTES`` per line, ``MAX_EVENT_BYTES``
  per SSE event; a compressed stream is refused (Rill asks for identity);
* a reply (``app.ui.services.inference``, every backend): ``MAX_REPLY_CHARS``
  in all (the rest is cut, with a notice), handed on to the view in pieces of
  at most about ``MAX_PIECE_CHARS``; a remote backend already hands a huge
  delta on in pieces of ``MAX_DELTA_CHARS`` (one never travels as one string);
* a message (import): ``MAX_MESSAGE_CHARS``, a title ``MAX_TITLE_CHARS``
  (``app.core.store.exchange``), a cut message ending with ``CUT_MARK``;
* error text quoted from a server (bodies, headers, reason phrases):
  ``MAX_ERROR_BODY_BYTES`` read, ``MAX_QUOTED_CHARS`` shown, after redaction;
* a non-streamed JSON reply: ``MAX_JSON_BODY_BYTES``;
* the Hugging Face Hub (``app.core.hub``): ``MAX_HUB_JSON_BYTES`` per API
  reply, ``MAX_HUB_SEARCH_RESULTS`` repositories a search, ``MAX_HUB_FILES``
  files a repository (``MAX_HUB_TREE_PAGES`` pages), ``MAX_HUB_FILENAME_CHARS``
  per file name, ``HUB_TIMEOUT_S`` per API call; downloads give up after
  ``HUB_STALL_S`` without a byte or when less than ``HUB_MIN_RATE_BYTES_S``
  arrive over ``HUB_RATE_WINDOW_S`` (a trickling server), keep
  ``HUB_DISK_MARGIN_BYTES`` free on the disk, retry a dropped connection
  ``HUB_RETRIES`` times and wait at most ``HUB_MAX_RETRY_AFTER_S`` for a
  ``Retry-After``; a remote GGUF header is read in at most
  ``HUB_HEADER_MAX_REQUESTS`` range requests.
* TeX math in a reply (``app.core.render.mathsvg``): ``MAX_FORMULA_CHARS`` per
  formula, ``MAX_FORMULAS_PER_MESSAGE`` typeset per message, in at most
  ``MAX_MATH_RENDER_S`` seconds per render.
"""

from __future__ import annotations

MB = 1024 * 1024

#: A model list's body (``/v1/models``, ``/api/tags``), after decompression:
#: 200,000 short ids are 7.6 MB; hosted APIs' entries run ~100 bytes each.
MAX_MODEL_LIST_BYTES = 16 * MB
#: Models kept from one list; the others are counted (``ModelNames.dropped``).
MAX_MODELS = 10_000
#: A model id longer than this is not kept (it is counted as dropped).
MAX_MODEL_NAME_CHARS = 512
#: Seconds for a whole model list: connecting, headers and body together.
MODEL_LIST_TIMEOUT_S = 10.0

#: One line of an SSE or NDJSON stream.
MAX_LINE_BYTES = 4 * MB
#: One SSE event's data (its ``data:`` lines together).
MAX_EVENT_BYTES = 4 * MB

#: One reply's text, in characters; beyond it the reply is cut with a notice
#: (the inference worker stops the generation: every backend).
MAX_REPLY_CHARS = 4 * 1024 * 1024   # = MAX_MESSAGE_CHARS: a reply always fits a message
#: The longest piece of text a remote backend hands on at once.
MAX_DELTA_CHARS = 64 * 1024
#: The inference worker hands text on to the view in pieces of about this
#: many characters, so one huge delta is shown over ticks, not in one call.
MAX_PIECE_CHARS = 4096

#: The longest message Rill keeps, in characters (code points). An import
#: cuts a longer message to this length and says so (the cut message ends
#: with ``CUT_MARK``). About 4 M characters is a book of 2,000 pages.
MAX_MESSAGE_CHARS = 4 * 1024 * 1024
#: The longest conversation title an import keeps (a title is one line in the sidebar).
MAX_TITLE_CHARS = 500
#: What ends a message that was cut at ``MAX_MESSAGE_CHARS`` (on its own line).
CUT_MARK = "\n\n[…]"

#: At most this much of an error body is read.
MAX_ERROR_BODY_BYTES = 64 * 1024
#: At most this much of anything a server said is quoted in a message.
MAX_QUOTED_CHARS = 200
#: A complete (non-streamed) JSON reply.
MAX_JSON_BODY_BYTES = 8 * MB


#: One Hub API reply (a search, a repository's details, one page of its files).
MAX_HUB_JSON_BYTES = 16 * MB
#: Repositories kept from one search.
MAX_HUB_SEARCH_RESULTS = 100
#: Files kept from one repository's listing, and the pages read for it.
MAX_HUB_FILES = 5_000
MAX_HUB_TREE_PAGES = 20
#: A file name longer than this (a Hub path) is not offered.
MAX_HUB_FILENAME_CHARS = 255
#: Seconds for one Hub API call (connect + reply).
HUB_TIMEOUT_S = 20.0
#: A download gives up after this many seconds without a byte...
HUB_STALL_S = 30.0
#: ...or when fewer than HUB_MIN_RATE_BYTES_S bytes a second arrived over the last HUB_RATE_WINDOW_S seconds.
HUB_MIN_RATE_BYTES_S = 1024
HUB_RATE_WINDOW_S = 60.0
#: Disk space left free after a download (the check before it starts).
HUB_DISK_MARGIN_BYTES = 256 * MB
#: A dropped connection is resumed this many times before the download stops (its part is kept).
HUB_RETRIES = 3
#: The longest ``Retry-After`` a download waits for by itself (longer: it stops and says when to retry).
HUB_MAX_RETRY_AFTER_S = 60.0
#: A remote GGUF header is read in at most this many range requests.
HUB_HEADER_MAX_REQUESTS = 4


def size_text(n_bytes: int) -> str:
    """``n_bytes`` for a message: "4 MB", "64 KB", "512 bytes" (binary units,
    the way the limits above are written)."""
    if n_bytes >= MB and n_bytes % MB == 0:
        return f"{n_bytes // MB} MB"
    if n_bytes >= 1024 and n_bytes % 1024 == 0:
        return f"{n_bytes // 1024} KB"
    return f"{n_bytes:,} bytes"


def count_text(n: int) -> str:
    """A count for a message, with thousands separators: "10,000"."""
    return f"{n:,}"

#: A TeX formula longer than this (characters between its delimiters) is shown
#: as its source, not typeset (``app.core.render.mathsvg``): typesetting is
#: pure Python, ~1 ms per 10 characters.
MAX_FORMULA_CHARS = 4000
#: Formulas typeset per message; later ones are shown as their source.
MAX_FORMULAS_PER_MESSAGE = 2000
#: Seconds of typesetting per render of a message (formulas already typeset
#: cost nothing): later formulas are shown as their source, so a render job
#: stays well inside the render process's timeout (``RENDER_TIMEOUT_S``, 15 s).
MAX_MATH_RENDER_S = 8.0

# -- attachments (app.core.attachments) ------------------------------------------
#
# A file the user attaches may be huge, broken or hostile: it is read in
# pieces of ``ATTACH_READ_PIECE_BYTES`` (never whole), refused above
# ``MAX_ATTACH_FILE_BYTES``, and its text is cut at ``MAX_ATTACH_CHARS`` (with a
# notice on its chip). A DOCX is a ZIP: its document part is read up to
# ``MAX_DOCX_XML_BYTES`` *unpacked* (a ZIP bomb stops there) and the archive may
# hold at most ``MAX_DOCX_MEMBERS`` entries. A PDF gives at most
# ``MAX_ATTACH_PAGES`` pages of text. An image larger than ``MAX_IMAGE_PIXELS``
# is decoded straight to a smaller size (never whole).

#: A file larger than this is refused (with a message on its chip).
MAX_ATTACH_FILE_BYTES = 256 * MB
#: Text files are read in pieces of this size.
ATTACH_READ_PIECE_BYTES = 1 * MB
#: Text kept from one attachment, in characters (a ~2,000-page book); the rest is cut, with a notice.
MAX_ATTACH_CHARS = 4 * 1024 * 1024
#: Pages of text read from one PDF; later pages are left out, with a notice.
MAX_ATTACH_PAGES = 2000
#: A DOCX's word/document.xml, unpacked.
MAX_DOCX_XML_BYTES = 64 * MB
#: Entries in a DOCX archive (a real one has a few dozen).
MAX_DOCX_MEMBERS = 5000
#: Attachments on one message.
MAX_ATTACHMENTS_PER_MESSAGE = 20
#: The share of non-text bytes (NUL, other control bytes) above which a "text" file is called binary.
MAX_BINARY_SHARE = 0.01
#: An image's decoded pixels (width × height) above which it is decoded scaled down.
MAX_IMAGE_PIXELS = 40_000_000

#: Chunks of attachments read before the embedding model was chosen that get
#: their vectors when a question is planned (per question: the rest follow
#: with the next questions), so a question waits for at most this many.
MAX_LAZY_EMBEDDED_CHUNKS = 32
