"""The sizes Rill keeps text within, in one place (Qt-free).

``MAX_MESSAGE_CHARS``: the longest message Rill keeps, in characters (code
points). An import cuts a longer message to this length and says so (the
cut message ends with ``CUT_MARK``) and names it. About 4 M characters is a book of 2,000 pages, and what a window keeps in
memory for it stays within a few hundred MB."""

from __future__ import annotations

MAX_MESSAGE_CHARS = 4 * 1024 * 1024

#: The longest conversation title an import keeps (a title is one line in the sidebar).
MAX_TITLE_CHARS = 500

#: What ends a message that was cut at ``MAX_MESSAGE_CHARS`` (on its own line).
CUT_MARK = "\n\n[…]"
