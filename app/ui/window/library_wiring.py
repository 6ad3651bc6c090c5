"""The history behind the window: the store's notices (opened, saving
failed or recovered), the sidebar kept in step with the library (changed
conversations, pins, deletions with their Undo offer, the first page opening
the last conversation), export/import and printing, and the quit guard that asks before
unsaved work is dropped (``quit_guard``).

Threading rule: GUI thread only.
"""

from __future__ import annotations

from PyQt6.QtCore import QCoreApplication, QObject, Qt
from PyQt6.QtPrintSupport import QPrintDialog, QPrinter
from PyQt6.QtWidgets import QStatusBar, QWidget

from app.core.conversation.deletion import MessageDeletion
from app.core.conversation.model import Conversation
from app.ui.conversation.controller import ChatController
from app.ui.dialogs import exchange as exchange_actions
from app.ui.dialogs.export_process import ExportProcess
from app.ui.services.library import ConversationLibrary
from app.ui.services.store import StoreService
from app.ui.sidebar.sidebar import Sidebar
from app.ui.window.quit_guard import QuitGuard
from app.ui.window.undo import UndoBar


class LibraryWiring(QObject):
    """Connects ``store``, ``library`` and ``sidebar`` to ``chat``; notices go
    to ``status_bar``, the Undo offers to ``undo_bar``; ``parent`` is the
    window the export and import file dialogs belong to."""

    def __init__(
        self,
        chat: ChatController,
        store: StoreService,
        library: ConversationLibrary,
        sidebar: Sidebar,
        undo_bar: UndoBar,
        status_bar: QStatusBar,
        parent: QWidget,
    ) -> None:
        super().__init__(parent)
        self._chat = chat
        self._store = store
        #: Web page and PDF exports run here (a child process, one at a time).
        self._exports = ExportProcess(self)
        self._library = library
        self._sidebar = sidebar
        self._undo_bar = undo_bar
        self._status_bar = status_bar
        self._window = parent
        #: Asked by the window's closeEvent: closing never drops unsaved work silently.
        self.quit_guard = QuitGuard(parent, store, library, chat, undo_bar)
        self._print_dialog: QPrintDialog | None = None
        self._connect_signals()

    def _connect_signals(self) -> None:
        self._store.opened.connect(self._on_store_opened)
        self._store.saving_failed.connect(self._on_saving_failed)
        self._store.saving_recovered.connect(self._on_saving_recovered)
        self._store.write_refused.connect(self._on_write_refused)
        self._library.conversation_changed.connect(self._on_conversation_changed)
        self._sidebar.conversation_activated.connect(self.open_conversation)
        self._sidebar.delete_requested.connect(self.delete_conversation)
        self._sidebar.model.page_loaded.connect(self._on_first_page_loaded)
        self._sidebar.pin_requested.connect(self._on_pin_requested)
        self._sidebar.export_requested.connect(self.export_conversation)
        self._chat.message_deleted.connect(self._on_message_deleted)
        self._exports.progressed.connect(self._on_export_progressed)

    # -- what the window's menus ask for ---------------------------------------------

    def open_conversation(self, conversation_id: str) -> None:
        """Show the conversation (read from the store when it is not open)."""
        if conversation_id == self._chat.conversation.id:
            return

        def show(conv: Conversation | None) -> None:
            if conv is not None:
                self._chat.show_conversation(conv)

        self._library.load(conversation_id, show)

    def rename_current(self) -> None:
        """Edit the shown conversation's title in the sidebar."""
        self._sidebar.select(self._chat.conversation.id)
        self._sidebar.rename_current()

    def delete_conversation(self, conversation_id: str) -> None:
        """Take the conversation out of the list now; delete it for good when
        the undo time is over (or at close)."""
        model = self._sidebar.model
        row = model.hide(conversation_id)
        if row is None:
            return
        reply = self._chat.current_reply
        if reply is not None and getattr(reply.conversation, "id", None) == conversation_id:
            self._chat.stop()

        def undo() -> None:
            model.unhide(row)
            self.open_conversation(conversation_id)

        def commit() -> None:
            model.forget(conversation_id)
            self._library.delete(conversation_id)

        title = row.title or QCoreApplication.translate("MainWindow", "New chat")
        self._undo_bar.offer(
            QCoreApplication.translate("MainWindow", "Deleted “{title}”").format(title=title), undo, commit, conversation_id
        )
        if conversation_id == self._chat.conversation.id:
            rows = model.rows()
            if rows:
                self.open_conversation(rows[0].id)
            else:
                self._chat.new_chat()

    def export_conversation(self, conversation_id: str, suffix: str = ".md") -> None:
        """Ask where, then write the conversation (Markdown, JSON, HTML or PDF: the file's type)."""
        conv = self._library.open.get(conversation_id)
        title = (conv.title if conv is not None else "") or "conversation"
        safe = "".join(c if c.isalnum() or c in " -_" else "_" for c in title)[:60].strip() or "conversation"
        path = exchange_actions.ask_export_path(self._window, f"{safe}{suffix}")
        if path is not None:
            exchange_actions.export_to(self._store, path, [conversation_id], self._on_exchange_done, self._exports)

    def print_conversation(self, conversation_id: str) -> None:
        """Ask where and how (Qt's print dialog, window-modal), then print the
        conversation as the PDF export lays it out, in a child process."""
        printer = QPrinter(QPrinter.PrinterMode.HighResolution)
        conv = self._library.open.get(conversation_id)
        printer.setDocName((conv.title if conv is not None else "") or "Rill")
        dialog = QPrintDialog(printer, self._window)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.accepted.connect(lambda: self._on_print_accepted(printer, conversation_id))
        self._print_dialog = dialog  # the printer lives as long as its dialog
        dialog.open()

    def _on_print_accepted(self, printer: QPrinter, conversation_id: str) -> None:
        self._print_dialog = None
        exchange_actions.print_on(self._store, printer, [conversation_id], self._on_exchange_done, self._exports)

    def stop_exports(self) -> None:
        """The window closes: an export still running ends with it."""
        self._exports.stop()

    def export_all(self) -> None:
        """Ask where, then write every conversation (JSON)."""
        path = exchange_actions.ask_export_path(self._window, "rill-conversations.json")
        if path is not None:
            exchange_actions.export_to(self._store, path, None, self._on_exchange_done, self._exports)

    def import_conversations(self) -> None:
        """Ask for a file, then import its conversations (as copies)."""
        path = exchange_actions.ask_import_path(self._window)
        if path is not None:
            exchange_actions.import_from(self._store, path, self.show_import_result)

    def show_import_result(self, message: str, imported: bool) -> None:
        """An import's outcome: its notice, and the sidebar read again when
        something came in."""
        self._chat.notify(message, "info" if imported else "error")
        if imported:
            self._sidebar.model.reset_rows()

    # -- slots --------------------------------------------------------------------

    def _on_store_opened(self, usable: bool, notices: list[str], read_only: bool) -> None:
        for notice in notices:
            self._chat.notify(f"⚠ {notice}", "warning")
        if not usable and self._store.enabled:
            self._chat.notify(
                QCoreApplication.translate(
                    "MainWindow", "Conversations are kept for this session only: the history could not be opened."
                ),
                "warning",
            )
            return
        self._sidebar.model.fetchMore()

    def _on_first_page_loaded(self, count: int) -> None:
        self._sidebar.model.page_loaded.disconnect(self._on_first_page_loaded)
        rows = self._sidebar.model.rows()
        if rows and not self._chat.conversation.messages:
            self.open_conversation(rows[0].id)  # open on the last conversation

    def _on_saving_failed(self, reason: str) -> None:
        self._chat.notify(
            QCoreApplication.translate(
                "MainWindow",
                "⚠ Not saved: {reason}. Your conversation is kept in memory and Rill keeps trying to save it.",
            ).format(reason=reason),
            "warning",
        )

    def _on_write_refused(self, reason: str) -> None:
        self._chat.notify(f"⚠ {reason}", "warning")

    def _on_saving_recovered(self) -> None:
        self._chat.notify(
            QCoreApplication.translate("MainWindow", "Saved again: everything is in the history now."), "info"
        )

    def _on_conversation_changed(self, conversation_id: str) -> None:
        conv = self._library.open.get(conversation_id)
        if conv is not None and conv.messages:
            title = conv.title or QCoreApplication.translate("MainWindow", "New chat")
            self._sidebar.model.upsert(conv.id, title, conv.updated_at, conv.pinned)
            if conv is self._chat.conversation:
                self._sidebar.select(conv.id)

    def _on_pin_requested(self, conversation_id: str, pinned: bool) -> None:
        self._library.set_pinned(conversation_id, pinned)
        self._sidebar.model.set_pinned(conversation_id, pinned)

    def _on_message_deleted(self, what: str, deletion: MessageDeletion) -> None:
        self._undo_bar.offer(what, lambda: self._chat.undo_delete(deletion))

    def _on_export_progressed(self, percent: int) -> None:
        self._status_bar.showMessage(
            QCoreApplication.translate("MainWindow", "Exporting… {percent}%").format(percent=percent), 10000
        )

    def _on_exchange_done(self, message: str) -> None:
        self._status_bar.showMessage(message, 10000)
