"""Closing never drops unsaved work silently (``QuitGuard``).

The window asks ``allow_close()`` first thing in its ``closeEvent``. The
guard makes the pending Undo offer final and stops the reply (their writes
are queued), then:

* the store is hurried (a lock is waited for a fraction of a second, not
  5 s) and the queued saves run (the window waits at most ``CLOSE_FLUSH_MS``:
  milliseconds as a rule; if they take longer, the window stays visible and
  the answer comes on the event loop);
* everything landed: the window closes at once;
* something the history could not take (a locked, read-only or full
  database, or none at all): ``UnsavedDialog`` says which conversations and
  why, and offers Retry (flush again), Export to a File… (the unsaved
  conversations as Rill JSON, written off the GUI thread, importable later),
  Quit Anyway, or Cancel (Rill stays open and saves as usual again).

After any way out, the services' ordered shutdown runs with the store
hurried, so no invisible process outlives the window for more than about a
second (``app.ui.services.store``).

Threading rule: GUI thread only.
"""

from __future__ import annotations

import logging
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PyQt6 import sip
from PyQt6.QtCore import QCoreApplication, QObject, pyqtSignal
from PyQt6.QtWidgets import QWidget

from app.core.store import exchange
from app.ui.conversation.controller import ChatController
from app.ui.dialogs import exchange as exchange_actions
from app.ui.dialogs.unsaved import UnsavedDialog
from app.ui.services.background import BackgroundCalls
from app.ui.services.library import ConversationLibrary
from app.ui.services.store import StoreService
from app.ui.window.undo import UndoBar

log = logging.getLogger(__name__)

#: Closing waits at most this long for the queued saves (hurried: milliseconds,
#: a fraction of a second under a lock) before it answers on the event loop instead.
CLOSE_FLUSH_MS = 400

#: Asks where to export: (parent, suggested file name) -> the path, or None (cancelled).
AskPath = Callable[[QWidget, str], "Path | None"]


def write_export(path: Path, reader: exchange.ConversationsReader) -> tuple[int, int]:
    """Write ``reader``'s conversations to ``path`` as Rill JSON, through a
    temporary file beside it (the whole file or nothing). Any thread."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=str(path.parent))
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as out:
            counts = exchange.write_json(reader, None, out)
        os.replace(tmp, path)
        return counts
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class QuitGuard(QObject):
    """See the module docstring. ``window`` is closed again (``close()``)
    once the guard lets it go.

    ``ask_path`` chooses the export file (a file dialog; tests replace it)."""

    #: The unsaved-work question is shown; arg: the UnsavedDialog.
    asked = pyqtSignal(object)
    #: The unsaved conversations were written to a file; arg: its path (str).
    exported = pyqtSignal(str)

    def __init__(
        self,
        window: QWidget,
        store: StoreService,
        library: ConversationLibrary,
        chat: ChatController,
        undo_bar: UndoBar,
    ) -> None:
        super().__init__(window)
        self._window = window
        self._store = store
        self._library = library
        self._chat = chat
        self._undo_bar = undo_bar
        self._let_go = False
        self._busy = False  # flushing or exporting: a second close waits for it
        self._background = BackgroundCalls(self)
        self.dialog: UnsavedDialog | None = None
        self.ask_path: AskPath = exchange_actions.ask_export_path

    # -- the window's question -----------------------------------------------------------

    def allow_close(self) -> bool:
        """May the window close now? False: it must stay (the guard closes
        it later, or the user chose to stay)."""
        if self._let_go or not self._store.enabled:
            return True
        if self._busy or (self.dialog is not None and self.dialog.isVisible()):
            return False
        self._undo_bar.commit()
        self._chat.stop()
        self._store.hurry()  # a lock is waited for briefly: the last saves land or fail within a fraction of a second
        self._store.retry_now()  # after the queued saves: what failed earlier gets one more try
        if self._store.wait_flushed(CLOSE_FLUSH_MS):
            if not self._store.unsaved_now():
                return True  # the usual case: a few milliseconds
            self._ask()
            return False
        self._flush()  # slower than that: the answer comes back to the GUI thread
        return False

    # -- flushing, asking, acting ----------------------------------------------------------

    def _flush(self) -> None:
        self._busy = True
        self._store.retry_now(self._on_flushed)

    def _on_flushed(self, _saved: bool) -> None:
        self._busy = False
        if not self._store.unsaved_now():
            self._close()
            return
        self._ask()

    def _ask(self) -> None:
        if self.dialog is None:
            self.dialog = UnsavedDialog(self._window)
            self.dialog.retry_requested.connect(self._on_retry_requested)
            self.dialog.export_requested.connect(self._on_export_requested)
            self.dialog.quit_requested.connect(self._on_quit_requested)
            self.dialog.stay_requested.connect(self._on_stay_requested)
        titles, others = self._unsaved_titles()
        reason = self._store.failure or QCoreApplication.translate("QuitGuard", "The history could not be written.")
        self.dialog.ask(titles, others, reason)
        self.asked.emit(self.dialog)

    def _unsaved_titles(self) -> tuple[list[str], int]:
        titles: list[str] = []
        others = 0
        for conversation_id in self._store.unsaved_conversations:
            conv = self._library.open.get(conversation_id)
            if conv is None:
                others += 1
            else:
                titles.append(conv.title or QCoreApplication.translate("MainWindow", "New chat"))
        return titles, others

    def _on_retry_requested(self) -> None:
        self._flush()

    def _on_quit_requested(self) -> None:
        log.warning("quitting with unsaved conversations: %s", self._store.unsaved_conversations)
        self._close()

    def _on_stay_requested(self) -> None:
        self._store.hurry(False)  # Rill stays open: writes wait for a lock as usual again

    def _on_export_requested(self) -> None:
        path = self.ask_path(self._window, "rill-unsaved-conversations.json")
        if path is None:
            self._ask()
            return
        convs = [c for cid in self._store.unsaved_conversations if (c := self._library.open.get(cid)) is not None]
        reader = exchange.ConversationsReader(convs)  # snapshots, taken here on the GUI thread
        self._busy = True

        def done(_counts: Any, error: BaseException | None) -> None:
            self._busy = False
            if error is not None:
                log.warning("exporting the unsaved conversations to %s failed: %s", path, error)
                self._chat.notify(QCoreApplication.translate(
                    "QuitGuard", "Export failed: {error}").format(error=getattr(error, "strerror", None) or error),
                    "error")
                self._ask()
                return
            self.exported.emit(str(path))
            self._close()

        self._background.run(lambda _cancel: write_export(path, reader), done, name="rill-export-unsaved")

    def _close(self) -> None:
        self._let_go = True
        if not sip.isdeleted(self._window):
            self._window.close()
