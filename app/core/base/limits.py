"""Rill's limits on what comes from outside, in one place (Qt-free).

Every input is bounded in bytes, time and memory (issue #17); the limits a
person can meet are named in their messages and listed in README's
reliability section.
"""

from __future__ import annotations

#: The longest message Rill keeps, in characters (code points). An import
#: cuts a longer message to this length and says so (the cut message ends
#: with ``CUT_MARK``). About 4 M characters is a book of 2,000 pages.
MAX_MESSAGE_CHARS = 4 * 1024 * 1024

#: The longest conversation title an import keeps (a title is one line in the sidebar).
MAX_TITLE_CHARS = 500

#: What ends a message that was cut at ``MAX_MESSAGE_CHARS`` (on its own line).
CUT_MARK = "\n\n[…]"

#: One reply: the worker stops the generation here and says so (a local
#: model's context holds far less; a server may send without end).
MAX_REPLY_CHARS = 2_000_000

#: The worker hands text on in pieces of at most this many characters, so one
#: huge delta from a server is shown in ticks, not in one freezing call.
MAX_PIECE_CHARS = 4096
