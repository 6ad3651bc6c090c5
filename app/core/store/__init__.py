"""Conversations that last: one SQLite file (Qt-free, stdlib ``sqlite3``).

The file is ``$XDG_DATA_HOME/rill/rill.db`` (``~/.local/share/rill/rill.db``);
``Store.open`` creates the folder. WAL journal, ``synchronous=NORMAL`` (every
committed transaction survives the app being killed; only a power cut can lose
the last few), foreign keys on. A write waits up to 5 s for another program's
lock (``writes.BUSY_PATIENCE_S``, in short slices so that ``hurry()`` can cut
the wait short when the app closes).

Threading rule
--------------
A ``Store`` is not thread-safe: it is used from ONE thread at a time (the app
opens and uses it on its store thread, the CLI on the main thread; handing it
from one thread to another needs a happens-before, e.g. a queued signal).
Nothing here touches the network, and every public method is one short
transaction, so a caller that must not block (the GUI thread) only ever waits
for a queue hop, never for another caller's long job.

Faults: nothing is lost, and each is said in plain words
---------------------------------------------------------
``Store.open`` never raises for a bad file; it returns an ``OpenResult`` whose
``notices`` are messages for the user:

* a damaged file (not a database, a garbage header, a truncated file,
  ``PRAGMA quick_check`` not ok) is moved aside, with its ``-wal``/``-shm``,
  to ``rill.db.corrupt-YYYYmmdd-HHMMSS``, the notice says where, and a fresh
  database is started; an SQLite file that is not Rill's goes to
  ``rill.db.foreign-…`` the same way;
* a database written by a newer Rill (``user_version`` > ``SCHEMA_VERSION``)
  is not touched at all: ``store`` is None and the notice names the file (the
  app then keeps conversations in memory);
* a database Rill cannot write (read-only file or folder; a full disk with
  no room for its ``-wal``/``-shm`` files) opens read-only: ``read_only`` is
  True, reads work, and the notice names the real cause; a database another
  program holds right now is NOT read-only: it opens, and its writes wait or
  queue (below);
* no file and none can be created (a read-only folder, a full disk): ``store``
  is None, and the notice says which.

Each cause has its own words: locked ("another program is using…"),
read-only, disk full, newer format; an older format is only mentioned when
the file really is older and cannot be upgraded.

``Store.open_read_only`` (``rill export``, ``rill search``) never creates,
moves, upgrades or writes anything: a missing, empty, damaged, foreign, older
or newer file gives no store and a notice.

Text is cleaned at this boundary (``clean``): a lone surrogate becomes
U+FFFD, a title loses its control characters. Writes that fail for a reason
outside the program (read-only file or folder, disk full, database locked by
another program, I/O error: any ``sqlite3.OperationalError``) raise
``StoreWriteError``, whose message is plain words, never a traceback. Values
that cannot be written at all raise it with reason ``invalid`` and are not
kept. The retry protocol:

1. the failed write is kept in the store's pending queue, the only retry
   queue: the newest snapshot of each message (a later save replaces the
   queued values, so nothing older is ever written after something newer);
2. while anything is pending, every later write is queued behind it (after
   one attempt to flush the queue, skipped right after a wait for a lock gave
   up), so the order of writes is kept; each of these raises
   ``StoreWriteError`` too; ``pending_conversations()`` names what is unsaved;
3. the caller keeps its data in memory (it does anyway), tells the user the
   conversation is not saved, and calls ``retry_pending()`` now and then
   (say every 10 s); it returns True once everything is written
   (``pending_count`` is then 0). A read-only store reopens its file for
   writing there, in case the user fixed the permissions.

Writes inside ``with store.batch():`` (an import) are all or nothing and are
not queued: the ``StoreWriteError`` reaches the caller with nothing written.

Programming errors are not faults: adding a message to an unknown
conversation or under an unknown parent raises ``KeyError``.

Schema
------
``PRAGMA user_version`` is the schema version; ``MIGRATIONS[v]`` upgrades
version v to v+1, each in one transaction (an empty file is version 0).

* v1: ``conversations`` and ``messages`` (``V1_SQL``, kept verbatim in the tests).
* v2: ``conversations.pinned`` and ``conversations.params``; the search
  indexes and their triggers (see ``app.core.store.search``); an index for the
  sidebar order (pinned first, then newest) and a partial index of streaming
  messages (``recover_interrupted`` at start-up costs nothing).
* v3: per-conversation overrides of the Settings
  (``app.core.config.preferences.ConversationSettings``). ``system_prompt`` NULL now
  means "the default system prompt of Settings" (v2 read NULL as no system
  prompt: those rows become ''); a row holding Rill's built-in default
  (``DEFAULT_SYSTEM_PROMPT``, which every conversation got when it was made)
  becomes NULL, so it follows the default the user sets. ``params`` holds the
  sampling overrides (only the keys overridden; a random seed is
  ``"seed": null``). No new column: the version bump keeps a v2 Rill, which
  would read NULL as "no system prompt", from opening the file.
* v4: attachments (``app.core.store.chunks``): ``blobs`` (content-addressed
  by sha256: a file's text or an image's scaled bytes, stored once),
  ``attachments`` (per conversation, ``ON DELETE CASCADE``; a trigger frees a
  blob with its last attachment), ``chunks`` with their own trigram and
  short-term FTS5 indexes, and ``reply_sources`` (the chunks a reply was given).
* v5: an embedding model's vectors of a blob's chunks are one float32 matrix
  in ``blob_vectors`` (``ON DELETE CASCADE`` from the blob) instead of a row
  per chunk in v4's ``chunk_vectors``: a question reads a row per file, not
  per chunk. The migration moves each blob's vectors (chunks 0..n-1 in order).
* v6: the messages' search triggers give ``rill_short_terms`` the text's
  UTF-8 bytes (``CAST(content AS BLOB)``): a copy instead of a decode into a
  Python string, which held the GIL the window needs for ~4 ms per call on a
  4 MB prompt. The terms, and so the indexes, are the same. No new column:
  the bump keeps an older Rill, whose function takes strings only, from
  writing to the file (its writes would fail in the triggers).

Message rows have no cascade chains: ``delete_message`` and
``delete_conversation`` unlink parents before deleting, because SQLite runs
``ON DELETE CASCADE`` as nested triggers and stops at a depth of 1000 (a long
conversation is a deeper chain than that).

The search index uses the messages' rowids; ``VACUUM`` keeps them (tested).
``rebuild_search_index()`` rebuilds both indexes from the messages if needed.

The package: ``schema`` (the schema and its migrations), ``opening`` (probe,
header check, moving aside, read-only and newer files, the notices),
``rows`` (the only row ↔ object mapping), ``clean`` (text at the boundary),
``writes`` (transactions and the retry queue), ``store`` (``Store``: conversations, messages, search),
``search`` (the indexes), ``chunks`` and ``attachments`` (attachments: tables, retrieval, the
store's methods), ``exchange`` (export and import).
"""

from app.core.store.errors import StoreError, StoreWriteError
from app.core.store.opening import (
    DB_FILE_NAME,
    QUICK_CHECK_MAX_BYTES,
    OpenResult,
    default_path,
)
from app.core.store.rows import (
    ConversationInfo,
    conversation_from_info,
    info_from_conversation,
)
from app.core.store.schema import MIGRATIONS, SCHEMA_VERSION
from app.core.store.search import SearchHit
from app.core.store.store import Store

__all__ = [
    "DB_FILE_NAME",
    "MIGRATIONS",
    "QUICK_CHECK_MAX_BYTES",
    "SCHEMA_VERSION",
    "ConversationInfo",
    "OpenResult",
    "SearchHit",
    "Store",
    "StoreError",
    "StoreWriteError",
    "conversation_from_info",
    "default_path",
    "info_from_conversation",
]
