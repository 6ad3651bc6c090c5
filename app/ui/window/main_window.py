"""The main window: a thin view that builds widgets and connects signals."""

from __future__ import annotations

from html import escape as html_escape
from collections.abc import Callable
from pathlib import Path

from PyQt6 import sip
from PyQt6.QtCore import PYQT_VERSION_STR, Qt, QTimer, pyqtSignal, qVersion
from PyQt6.QtGui import QAction, QCloseEvent, QDragEnterEvent, QDragMoveEvent, QDropEvent, QIcon, QShortcut
from PyQt6.QtWidgets import (
    QApplication,
    QSplitter,
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.core.base import about

from app.core.models import paths as models

from app.core.base import settings
from app.core.config.preferences import ConversationSettings, Preferences
from app.core.backends.base import ModelInfo
from app.core.factory import local_factory, remote_factory
from app.core.backends.remote.servers import ServerConfig, load_servers
from app.resources import resource_path
from app.core.pipeline.metrics import HealthSnapshot
from app.core.conversation.deletion import MessageDeletion
from app.ui.conversation.controller import ChatController, ChatState
from app.ui.window.stream_health import StreamHealthMonitor, StreamHealthPanel
from app.ui.conversation.view import ChatView, LazyTextMime
from app.ui.dialogs import exchange as exchange_actions
from app.ui.conversation.find_bar import FindBar
from app.ui.services.library import ConversationLibrary
from app.ui.window.model_menu import LOCAL, ManagedModelMenu, server_choice
from app.ui.sidebar.sidebar import Sidebar
from app.ui.services.store import StoreService
from app.ui.window.context_meter import ContextMeter, ContextTracker
from app.ui.conversation.prompt import PromptArea
from app.ui.conversation.announcer import StreamAnnouncer
from app.ui.window.appearance_menu import AppearanceControls
from app.ui.window.navigation import KeyboardNavigation
from app.ui.misc.shortcuts import bind, bind_shortcut
from app.ui.misc.theme import mark_window, theme_manager


class FirstRunPanel(QFrame):
    """Shown instead of a model banner when Rill found no model at all: how to
    get one (naming the real folder and command) and an Open Model… button."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("firstRun")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.title = QLabel(self.tr("<b>Welcome to Rill: let's get a model</b>"))
        self.body = QLabel()
        self.body.setWordWrap(True)
        self.body.setTextFormat(Qt.TextFormat.RichText)
        self.body.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.open_button = QPushButton(self.tr("Open Model…"))
        self.open_button.setObjectName("firstRunOpen")
        buttons = QHBoxLayout()
        buttons.addWidget(self.open_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(14, 10, 14, 10)
        layout.addWidget(self.title)
        layout.addWidget(self.body)
        layout.addLayout(buttons)
        self.refresh()

    def refresh(self) -> None:
        """Re-read the folder and command (they depend on the environment)."""
        folder = html_escape(str(settings.user_models_dir()))
        command = html_escape(models.install_default_model_command())
        self.body.setText(
            self.tr(
                "Rill runs GGUF language models on this computer; none was found. Any one of these works:"
                "<ul>"
                "<li>Put a <tt>.gguf</tt> model file in <tt>{folder}</tt> and start Rill again.</li>"
                "<li>Install the default model, SmolLM2-135M-Instruct (98 MB, Apache-2.0):<br>"
                "<tt>{command}</tt></li>"
                "<li>Open a <tt>.gguf</tt> file you already have: Rill remembers it for next time.</li>"
                "</ul>"
            ).format(folder=folder, command=command)
        )


#: Settings key: the backend to start with, {"kind": "local"} or
#: {"kind": "server", "server_id": ..., "model": ...} (see application.startup_choice).
LAST_BACKEND_KEY = "last_backend"

UNDO_MS = 10000  # how long a deleted conversation can be brought back
CLOSE_WAIT_MS = 12  # closing waits this long for the threads, then hides the window and closes when they end


class MainWindow(QMainWindow):
    """Rill's window. All behaviour lives in ChatController."""

    #: The user asked for a model file to be opened; arg: its path.
    model_open_requested = pyqtSignal(str)
    #: The user chose Model › Local Model (Default): the model Rill starts with; no args.
    local_model_requested = pyqtSignal()
    #: The user chose a server's model (Model menu, or Servers… › Chat with
    #: This Model); args: ServerConfig, model id ("" = the server's default).
    remote_model_requested = pyqtSignal(object, str)

    def __init__(self, persist: bool = True) -> None:
        super().__init__()
        self.setWindowTitle("Rill")
        self.resize(1120, 760)
        icon = resource_path("icon.svg")
        if icon is not None:
            self.setWindowIcon(QIcon(str(icon)))
        theme_manager()  # the palette and style sheet, app-wide (app.ui.misc.theme)
        mark_window(self)  # this window and its dialogs take the current theme's rules
        self._persist = persist

        self.view = ChatView()
        self.store = StoreService(parent=self, enabled=persist)
        self.library = ConversationLibrary(self.store, self)
        self.chat = ChatController(self.view, self, self.library)
        self.sidebar = Sidebar(self.library)
        self.find_bar = FindBar(lambda: self.chat.conversation.messages)
        self.find_bar.hide()
        self.prompt_area = PromptArea()
        self.prompt = self.prompt_area.editor
        self.prompt.setPlaceholderText(self.tr("Message Rill… (Enter to send, Shift+Enter for a new line)"))
        self.prompt.setFixedHeight(84)
        self.send_button = QPushButton(self.tr("Send"))
        self.send_button.setObjectName("send")
        self.send_button.setToolTip(self.tr("Send the message (Enter)"))
        self.stop_button = QPushButton(self.tr("Stop"))
        self.stop_button.setObjectName("stop")
        self.stop_button.setToolTip(self.tr("Stop the reply (Esc)"))
        self.model_label = QLabel(self.tr("No model"))
        self.state_label = QLabel("")
        self.health_label = QLabel("")
        self.health_label.setObjectName("health")
        self.health_monitor = StreamHealthMonitor(self.chat, self)
        self.health_panel = StreamHealthPanel(self.health_monitor, self)
        self.health_panel.hide()
        self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.health_panel)

        buttons = QVBoxLayout()
        buttons.addWidget(self.send_button)
        buttons.addWidget(self.stop_button)
        buttons.addStretch(1)
        row = QHBoxLayout()
        row.addWidget(self.prompt_area, 1)
        row.addLayout(buttons)
        layout = QVBoxLayout()
        layout.setContentsMargins(10, 10, 10, 6)
        self.first_run = FirstRunPanel()
        self.first_run.hide()
        layout.addWidget(self.first_run)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.find_bar)
        layout.addLayout(row)
        chat_area = QWidget()
        chat_area.setLayout(layout)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(self.sidebar)
        self.splitter.addWidget(chat_area)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([220, 680])
        self.splitter.setChildrenCollapsible(False)
        self.setCentralWidget(self.splitter)
        self.undo_button = QPushButton(self.tr("Undo"))
        self.undo_button.setObjectName("undo")
        self.undo_button.hide()
        self._pending_delete: tuple[Callable[[], None], Callable[[], None] | None] | None = None
        self._editing: str | None = None  # a prompt being edited (its message id)
        self._undo_timer = QTimer(self)
        self._undo_timer.setSingleShot(True)
        self._undo_timer.setInterval(UNDO_MS)
        self.statusBar().addWidget(self.model_label, 1)
        self.context_meter = ContextMeter()
        self.statusBar().addPermanentWidget(self.context_meter)
        self.context_tracker = ContextTracker(self.chat, self.prompt_area, self.context_meter, self)
        self.statusBar().addPermanentWidget(self.health_label)
        self.statusBar().addPermanentWidget(self.state_label)

        self._close_when_shut_down = False
        self.announcer = StreamAnnouncer(self.chat, self.state_label, self.prompt, self.stop_button, self)
        self._build_menus()
        self._stop_shortcut = bind_shortcut(QShortcut(self), "stop")
        self._connect_signals()
        self.install_search()
        self.install_model_manager()
        self.install_settings()
        self._on_state_changed(self.chat.state)
        self.prompt.setFocus()

    def _build_menus(self) -> None:
        bar = self.menuBar()
        file_menu = bar.addMenu(self.tr("&File"))
        self.open_model_action = QAction(self.tr("&Open Model File…"), self)
        bind(self.open_model_action, "open_model")
        self.new_chat_action = QAction(self.tr("&New Chat"), self)
        bind(self.new_chat_action, "new_chat")
        self.quit_action = QAction(self.tr("&Quit"), self)
        bind(self.quit_action, "quit")
        file_menu.addAction(self.open_model_action)
        file_menu.addAction(self.new_chat_action)
        self.rename_action = QAction(self.tr("&Rename Conversation"), self)
        bind(self.rename_action, "rename")
        self.delete_conversation_action = QAction(self.tr("&Delete Conversation"), self)
        self.regenerate_action = QAction(self.tr("Re&generate Reply"), self)
        bind(self.regenerate_action, "regenerate")
        self.addAction(self.regenerate_action)
        file_menu.addAction(self.rename_action)
        file_menu.addAction(self.delete_conversation_action)
        file_menu.addSeparator()
        self.export_action = QAction(self.tr("&Export Conversation…"), self)
        self.export_all_action = QAction(self.tr("Export &All Conversations…"), self)
        self.import_action = QAction(self.tr("&Import Conversations…"), self)
        for action in (self.export_action, self.export_all_action, self.import_action):
            file_menu.addAction(action)
        file_menu.addSeparator()
        file_menu.addAction(self.quit_action)
        edit_menu = bar.addMenu(self.tr("&Edit"))
        self.copy_action = QAction(self.tr("&Copy"), self)
        bind(self.copy_action, "copy")
        self.copy_action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.view.addAction(self.copy_action)
        self.select_all_action = QAction(self.tr("Select &All"), self)
        bind(self.select_all_action, "select_all")
        self.select_all_action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.view.addAction(self.select_all_action)
        self.copy_conversation_action = QAction(self.tr("Copy Conversation as &Markdown"), self)
        bind(self.copy_conversation_action, "copy_chat")
        self.find_action = QAction(self.tr("&Find in Conversation…"), self)
        bind(self.find_action, "find")
        self.find_next_action = QAction(self.tr("Find &Next"), self)
        bind(self.find_next_action, "find_next")
        self.find_previous_action = QAction(self.tr("Find Pre&vious"), self)
        bind(self.find_previous_action, "find_previous")
        for action in (self.copy_action, self.select_all_action):
            edit_menu.addAction(action)
        edit_menu.addSeparator()
        edit_menu.addAction(self.copy_conversation_action)
        edit_menu.addAction(self.regenerate_action)
        edit_menu.addSeparator()
        for action in (self.find_action, self.find_next_action, self.find_previous_action):
            edit_menu.addAction(action)
        self.servers_action = QAction(self.tr("&Servers…"), self)
        self.servers_action.setToolTip(self.tr("Add, test and edit the servers Rill can chat through"))
        self.model_menu = ManagedModelMenu(self.open_model_action, self.servers_action, self)
        self.model_menu.set_servers(load_servers())
        self.model_menu.is_generating = lambda: self.chat.is_generating
        bar.addMenu(self.model_menu)
        view_menu = bar.addMenu(self.tr("&View"))
        self.stream_health_action = self.health_panel.toggleViewAction()
        self.stream_health_action.setText(self.tr("Stream &Health"))
        bind(self.stream_health_action, "stream_health")
        view_menu.addAction(self.stream_health_action)
        self.go_menu = bar.addMenu(self.tr("&Go"))
        self.help_menu = bar.addMenu(self.tr("&Help"))
        self.about_action = QAction(self.tr("&About Rill"), self)
        self.help_menu.addAction(self.about_action)
        self.appearance = AppearanceControls(self, self.view, view_menu, persist=self._persist)
        self.navigation = KeyboardNavigation(
            self, self.go_menu, self.help_menu, sidebar=self.sidebar, prompt=self.prompt,
            chain=[self.view, self.prompt, self.send_button, self.stop_button],
        )

    def _connect_signals(self) -> None:
        self.prompt_area.submit_requested.connect(self._on_send_requested)
        self.send_button.clicked.connect(self._on_send_requested)
        self.stop_button.clicked.connect(self.chat.stop)
        self._stop_shortcut.activated.connect(self._on_escape)
        self.open_model_action.triggered.connect(self._on_open_model_triggered)
        self.new_chat_action.triggered.connect(self._on_new_chat_triggered)
        self.copy_action.triggered.connect(self.view.copy_selection)
        self.select_all_action.triggered.connect(self.view.select_all)
        self.copy_conversation_action.triggered.connect(self._on_copy_conversation_triggered)
        self.find_action.triggered.connect(self.find_bar.open_bar)
        self.find_next_action.triggered.connect(self.find_bar.find_next)
        self.find_previous_action.triggered.connect(self.find_bar.find_previous)
        self.find_bar.highlight_requested.connect(self._on_find_highlight_requested)
        self.find_bar.match_selected.connect(self._on_find_match_selected)
        self.find_bar.closed.connect(self.prompt.setFocus)
        self.view.copied.connect(self._on_copied)
        self.quit_action.triggered.connect(self.close)
        self.about_action.triggered.connect(self._on_about_triggered)
        self.chat.state_changed.connect(self._on_state_changed)
        self.chat.reply_started.connect(self._on_reply_started)
        self.chat.prompt_processed.connect(self._on_prompt_processed)
        self.chat.model_ready.connect(self._on_model_ready)
        self.chat.model_failed.connect(self._on_model_failed)
        self.health_monitor.updated.connect(self._on_health_updated)
        self._connect_backend_choice()
        self._connect_first_run()
        self._connect_store()

    # -- slots ------------------------------------------------------------------

    def _on_send_requested(self) -> None:
        area = self.prompt_area
        reply = self.chat.current_reply
        if reply is not None:
            title = getattr(reply.conversation, "title", "")
            if title:
                text = self.tr(
                    "Not sent: Rill is still answering in “{title}”. Stop it (Esc) or wait; your text stays here."
                ).format(title=title)
            else:
                text = self.tr(
                    "Not sent: Rill is still answering in “a conversation”. Stop it (Esc) or wait; your text stays here."
                )
            self.statusBar().showMessage(text, 8000)
            return
        if area.over_limit():
            self.statusBar().showMessage(
                self.tr("Not sent: the message is longer than the model's context. Remove the attachment or shorten it."),
                8000,
            )
            return
        editing, self._editing = self._editing, None
        if editing is not None and self.chat.conversation.get(editing) is not None:
            if self.chat.send_edit(area.text(), editing):
                area.clear()
            return
        if self.chat.send(area.text()):
            area.clear()

    def enter_prompt(self, text: str, paste: bool = False) -> None:
        """Type (or paste) ``text`` into the prompt box and press Enter, exactly
        as a user does (doctor, benchmarks)."""
        self.prompt.clear()
        if paste:
            clipboard = QApplication.clipboard()
            if clipboard is not None:
                clipboard.setText(text)
            self.prompt.paste()
        else:
            self.prompt.setPlainText(text)
        self.prompt.submit_requested.emit()

    # -- the store and the sidebar ---------------------------------------------------

    def _connect_store(self) -> None:
        self.store.opened.connect(self._on_store_opened)
        self.store.saving_failed.connect(self._on_saving_failed)
        self.store.saving_recovered.connect(self._on_saving_recovered)
        self.library.conversation_changed.connect(self._on_conversation_changed)
        self.sidebar.conversation_activated.connect(self._on_conversation_activated)
        self.sidebar.new_chat_requested.connect(self.new_chat_action.trigger)
        self.sidebar.delete_requested.connect(self._on_delete_requested)
        self.sidebar.model.page_loaded.connect(self._on_first_page_loaded)
        self.chat.conversation_shown.connect(self._on_conversation_shown)
        self.chat.path_changed.connect(self._on_path_changed)
        self.rename_action.triggered.connect(self._on_rename_triggered)
        self.chat.edit_requested.connect(self._on_edit_requested)
        self.sidebar.pin_requested.connect(self._on_pin_requested)
        self.sidebar.export_requested.connect(self._on_export_conversation)
        self.export_action.triggered.connect(lambda: self._on_export_conversation(self.chat.conversation.id))
        self.export_all_action.triggered.connect(self._on_export_all_triggered)
        self.import_action.triggered.connect(self._on_import_triggered)
        self.chat.message_deleted.connect(self._on_message_deleted)
        self.regenerate_action.triggered.connect(self._on_regenerate_triggered)
        self.delete_conversation_action.triggered.connect(self._on_delete_conversation_triggered)
        self.undo_button.clicked.connect(self._on_undo_delete)
        self._undo_timer.timeout.connect(self._commit_pending_delete)
        self.statusBar().addPermanentWidget(self.undo_button)

    def _on_store_opened(self, usable: bool, notices: list[str], read_only: bool) -> None:
        for notice in notices:
            self.chat.notify(f"⚠ {notice}", "warning")
        if not usable and self.store.enabled:
            self.chat.notify(
                self.tr("Conversations are kept for this session only: the history could not be opened."), "warning"
            )
            return
        self.sidebar.model.fetchMore()

    def _on_first_page_loaded(self, count: int) -> None:
        self.sidebar.model.page_loaded.disconnect(self._on_first_page_loaded)
        rows = self.sidebar.model.rows()
        if rows and not self.chat.conversation.messages:
            self._on_conversation_activated(rows[0].id)  # open on the last conversation

    def _on_saving_failed(self, reason: str) -> None:
        self.chat.notify(
            self.tr(
                "⚠ Not saved: {reason}. Your conversation is kept in memory and Rill keeps trying to save it."
            ).format(reason=reason),
            "warning",
        )

    def _on_saving_recovered(self) -> None:
        self.chat.notify(self.tr("Saved again: everything is in the history now."), "info")

    def _on_conversation_changed(self, conversation_id: str) -> None:
        conv = self.library.open.get(conversation_id)
        if conv is not None and conv.messages:
            self.sidebar.model.upsert(conv.id, conv.title or self.tr("New chat"), conv.updated_at, conv.pinned)
            if conv is self.chat.conversation:
                self.sidebar.select(conv.id)

    def _on_conversation_activated(self, conversation_id: str) -> None:
        if conversation_id == self.chat.conversation.id:
            return

        def show(conv: object) -> None:
            if conv is not None:
                self.chat.show_conversation(conv)  # type: ignore[arg-type]

        self.library.load(conversation_id, show)

    def _on_conversation_shown(self, conv: object) -> None:
        self.sidebar.select(getattr(conv, "id", ""))
        self.find_bar.close_bar()
        title = getattr(conv, "title", "") or self.tr("New chat")
        self.setWindowTitle(self.tr("{title} — Rill").format(title=title))

    def _on_path_changed(self, conv: object) -> None:
        if self.find_bar.isVisible():  # stays open; the new path is highlighted, the reader's place kept
            self.view.set_find(self.find_bar.edit.text())

    def _on_rename_triggered(self) -> None:
        self.sidebar.select(self.chat.conversation.id)
        self.sidebar.rename_current()

    def _on_delete_conversation_triggered(self) -> None:
        self._on_delete_requested(self.chat.conversation.id)

    def _on_delete_requested(self, conversation_id: str) -> None:
        """Take the conversation out of the list now; delete it for good when
        the undo time is over (or at close)."""
        row = self.sidebar.model.hide(conversation_id)
        if row is None:
            return
        reply = self.chat.current_reply
        if reply is not None and getattr(reply.conversation, "id", None) == conversation_id:
            self.chat.stop()

        def undo() -> None:
            self.sidebar.model.unhide(row)
            self._on_conversation_activated(conversation_id)

        def commit() -> None:
            self.sidebar.model.forget(conversation_id)
            self.library.delete(conversation_id)

        self._offer_undo(self.tr("Deleted “{title}”").format(title=row.title or self.tr("New chat")), undo, commit)
        if conversation_id == self.chat.conversation.id:
            rows = self.sidebar.model.rows()
            if rows:
                self._on_conversation_activated(rows[0].id)
            else:
                self.chat.new_chat()

    def _on_message_deleted(self, what: str, deletion: MessageDeletion) -> None:
        self._offer_undo(what, lambda: self.chat.undo_delete(deletion))

    def _offer_undo(self, text: str, undo: Callable[[], None], commit: Callable[[], None] | None = None) -> None:
        """Show ``text`` with an Undo button for UNDO_MS; an earlier offer is
        committed first. ``commit`` runs when the time is over (or at close)."""
        self._commit_pending_delete()
        self._pending_delete = (undo, commit)
        self.statusBar().showMessage(text, UNDO_MS)
        self.undo_button.show()
        self._undo_timer.start()

    def _on_undo_delete(self) -> None:
        pending, self._pending_delete = self._pending_delete, None
        self._undo_timer.stop()
        self.undo_button.hide()
        self.statusBar().clearMessage()
        if pending is not None:
            pending[0]()

    def _commit_pending_delete(self) -> None:
        pending, self._pending_delete = self._pending_delete, None
        self._undo_timer.stop()
        self.undo_button.hide()
        if pending is not None and pending[1] is not None:
            pending[1]()

    def _on_edit_requested(self, message_id: str, text: str) -> None:
        """Edit a prompt: it goes back into the box; sending makes a new
        version (the old one and its replies stay, as "1/2")."""
        self._editing = message_id
        self.prompt_area.clear()
        self.prompt.setPlainText(text)
        self.prompt.setFocus()
        self.statusBar().showMessage(self.tr("Editing your message: Enter sends it as a new version, Esc cancels"), 8000)

    def _on_pin_requested(self, conversation_id: str, pinned: bool) -> None:
        self.library.set_pinned(conversation_id, pinned)
        self.sidebar.model.set_pinned(conversation_id, pinned)

    def _on_export_conversation(self, conversation_id: str) -> None:
        conv = self.library.open.get(conversation_id)
        title = (conv.title if conv is not None else "") or "conversation"
        safe = "".join(c if c.isalnum() or c in " -_" else "_" for c in title)[:60].strip() or "conversation"
        path = exchange_actions.ask_export_path(self, f"{safe}.md")
        if path is not None:
            exchange_actions.export_to(self.store, path, [conversation_id], self._on_exchange_done)

    def _on_export_all_triggered(self) -> None:
        path = exchange_actions.ask_export_path(self, "rill-conversations.json")
        if path is not None:
            exchange_actions.export_to(self.store, path, None, self._on_exchange_done)

    def _on_import_triggered(self) -> None:
        path = exchange_actions.ask_import_path(self)
        if path is not None:
            exchange_actions.import_from(self.store, path, self._on_imported)

    def _on_exchange_done(self, message: str) -> None:
        self.statusBar().showMessage(message, 10000)

    def _on_imported(self, message: str, imported: bool) -> None:
        self.chat.notify(message, "info" if imported else "error")
        if imported:
            self.sidebar.model.reset_rows()

    def _on_escape(self) -> None:
        if self._editing is not None:
            self._editing = None
            self.prompt_area.clear()
            self.statusBar().showMessage(self.tr("Edit cancelled"), 2000)
            return
        self.chat.stop()

    def _on_regenerate_triggered(self) -> None:
        self.chat.regenerate()

    def _on_new_chat_triggered(self) -> None:
        self.chat.new_chat()
        self.find_bar.close_bar()
        self.prompt.setFocus()

    def _on_copy_conversation_triggered(self) -> None:
        clipboard = QApplication.clipboard()
        if clipboard is not None:
            # Made when pasted: Copy costs nothing whatever the conversation's length.
            clipboard.setMimeData(LazyTextMime(self.chat.conversation_markdown))
        self.statusBar().showMessage(self.tr("Conversation copied as Markdown"), 3000)

    def _on_copied(self, what: str, text: str) -> None:
        label = {"code": self.tr("Code copied"), "message": self.tr("Message copied")}.get(what) or self.tr("Copied")
        self.statusBar().showMessage(label, 2000)

    def _on_find_highlight_requested(self, text: str) -> None:
        self.view.set_find(text)

    def _on_find_match_selected(self, message_id: str, nth: int) -> None:
        self.view.set_find(self.find_bar.edit.text(), (message_id, nth))

    def _on_state_changed(self, state: ChatState) -> None:
        self.send_button.setEnabled(state == ChatState.IDLE)
        self.stop_button.setEnabled(state == ChatState.GENERATING)
        text = {
            ChatState.NO_MODEL: self.tr("No model loaded"),
            ChatState.LOADING: self.tr("Loading model…"),
            ChatState.IDLE: self.tr("Ready"),
            ChatState.GENERATING: self.tr("Generating…  (Esc to stop)"),
        }[state]
        self.state_label.setText(text)
        if state == ChatState.LOADING:
            self.model_label.setText(self.tr("Loading model…"))

    def _on_reply_started(self, request_id: int) -> None:
        # No token yet means the model is still evaluating the prompt.
        self.state_label.setText(self.tr("Reading the prompt…  (Esc to stop)"))

    def _on_prompt_processed(self, request_id: int) -> None:
        self.state_label.setText(self.tr("Generating…  (Esc to stop)"))

    def _on_health_updated(self, snapshot: HealthSnapshot) -> None:
        self.health_label.setText(snapshot.status_line() if snapshot.generating else "")

    def _on_model_ready(self, info: ModelInfo) -> None:
        self.prompt_area.set_context_limit(info.n_ctx or None)
        parts = [info.name]
        if info.n_ctx:
            parts.append(self.tr("context {n_ctx}").format(n_ctx=info.n_ctx))
        if info.n_threads:
            parts.append(self.tr("1 thread") if info.n_threads == 1 else self.tr("%n threads", None, info.n_threads))
        if info.chat_template:
            parts.append(self.tr("template: {template}").format(template=info.chat_template))
        self.model_label.setText("  ·  ".join(parts))
        self.model_label.setToolTip(info.path)

    def _on_model_failed(self, message: str) -> None:
        self.model_label.setText(self.tr("No model loaded: choose one in the Model menu"))
        self.model_label.setToolTip(message)

    def _on_open_model_triggered(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, self.tr("Open Model"), "", self.tr("GGUF models (*.gguf);;All files (*)")
        )
        if path:
            self.model_open_requested.emit(path)

    # -- first run and the remembered model ----------------------------------------

    def _connect_first_run(self) -> None:
        self._requested_model: str | None = None
        self.first_run.open_button.clicked.connect(self.open_model_action.trigger)
        self.model_open_requested.connect(self._on_model_requested)
        self.chat.model_ready.connect(self._on_model_ready_first_run)
        self.chat.model_failed.connect(self._on_model_failed_first_run)

    def _on_model_requested(self, path: str) -> None:
        self._requested_model = path
        self.expect_load(local_factory(path)[1], LOCAL)

    def _on_model_ready_first_run(self, info: ModelInfo) -> None:
        self.first_run.hide()
        requested, self._requested_model = self._requested_model, None
        if requested and info.path and Path(info.path) == Path(requested):
            # Opened with File › Open Model…: the model to start with next time.
            # A failed write (read-only config dir...) is logged; nothing else changes.
            settings.remember_last_model(info.path)
        elif requested:
            self._requested_model = requested  # an earlier load finished first

    def _on_model_failed_first_run(self, message: str) -> None:
        if models.default_model_path() is None:
            self.first_run.refresh()
            self.first_run.show()

    # -- the Model menu, Servers… and the remembered backend --------------------------

    def _connect_backend_choice(self) -> None:
        # description -> (choice, remember): what a load about to start stands for
        self._expected_loads: dict[str, tuple[dict[str, str], bool]] = {}
        self._loading_choice: tuple[dict[str, str], bool] | None = None
        self.servers_dialog = None
        self.model_menu.local_chosen.connect(self._on_local_model_chosen)
        self.model_menu.server_model_chosen.connect(self._on_server_model_chosen)
        self.servers_action.triggered.connect(self._on_servers_triggered)
        self.chat.service.model_load_started.connect(self._on_model_load_started)
        self.chat.model_ready.connect(self._on_model_ready_backend)
        self.chat.model_failed.connect(self._on_model_failed_backend)

    def expect_load(self, description: str, choice: dict[str, str], remember: bool = True) -> None:
        """The next load described ``description`` is ``choice`` (Model menu
        check); ``remember``: once it has loaded, it is the backend to start with."""
        self._expected_loads[description] = (dict(choice), remember)

    def _on_local_model_chosen(self) -> None:
        self.expect_load(local_factory(None)[1], LOCAL)
        self.local_model_requested.emit()

    def _on_server_model_chosen(self, server: ServerConfig, model: str) -> None:
        # remote_factory only describes here: nothing is built or contacted.
        self.expect_load(remote_factory(server, model)[1], server_choice(server.id, model))
        self.remote_model_requested.emit(server, model)

    def _on_model_load_started(self, description: str) -> None:
        self._loading_choice = self._expected_loads.pop(description, None)
        self.model_menu.set_current(None)  # the previous backend is being replaced

    def _on_model_ready_backend(self, info: ModelInfo) -> None:
        loading, self._loading_choice = self._loading_choice, None
        if loading is None:
            return
        choice, remember = loading
        self.model_menu.set_current(choice)
        if remember:
            # Written once the model works, not when merely chosen; a failed
            # write is logged and changes nothing else.
            data = settings.load_settings()
            data[LAST_BACKEND_KEY] = choice
            settings.save_settings(data)

    def _on_model_failed_backend(self, message: str) -> None:
        self._loading_choice = None
        self.model_menu.set_current(None)

    def _on_servers_triggered(self) -> None:
        from app.ui.dialogs.servers import ServersDialog

        dialog = self.servers_dialog
        if dialog is not None and not sip.isdeleted(dialog) and dialog.isVisible():
            dialog.raise_()
            dialog.activateWindow()
            return
        dialog = ServersDialog(self, known_models=self.model_menu.cache.snapshot())
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.servers_saved.connect(self.model_menu.set_servers)
        dialog.models_fetched.connect(self.model_menu.cache.store)
        dialog.model_chosen.connect(self._on_server_model_chosen)
        self.servers_dialog = dialog
        dialog.open()

    # -- About --------------------------------------------------------------------

    def _about_model(self) -> str:
        info = self.chat.model_info
        if info is None:
            return ""
        return f"{info.name} ({info.path})" if info.path else info.name

    def _on_about_triggered(self) -> None:
        box = QMessageBox(self)
        box.setObjectName("aboutBox")
        box.setWindowTitle(self.tr("About Rill"))
        box.setTextFormat(Qt.TextFormat.RichText)
        box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        icon = self.windowIcon()
        if not icon.isNull():
            box.setIconPixmap(icon.pixmap(64, 64))
        box.setStandardButtons(QMessageBox.StandardButton.Ok)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.setStyleSheet("QLabel#qt_msgbox_label { min-width: 500px; }")
        model = self._about_model()

        def show(llama: about.LlamaInfo | None) -> None:
            box.setText(about.about_html(qVersion() or "", PYQT_VERSION_STR, llama, model))

        llama = about.llama_info_if_loaded()
        show(llama)
        if llama is None:
            # Describing llama.cpp imports it (~0.3 s): off the GUI thread.
            future = about.llama_info_future()
            poll = QTimer(box)
            poll.setInterval(50)

            def check() -> None:
                if future.done():
                    poll.stop()
                    show(future.result())

            poll.timeout.connect(check)
            poll.start()
        self.about_box = box
        box.open()

    def closeEvent(self, event: QCloseEvent | None) -> None:  # noqa: N802 (Qt API)
        """Close without ever blocking the GUI on a worker thread.

        Everything is cancelled and the inference and render threads are
        asked to end. If both have ended within ~10 ms (the usual case:
        cancelling a reply is immediate), the window closes now. Otherwise
        (e.g. a model load between two cancellation points) the window hides
        at once and really closes when ``shutdown_finished`` arrives; a
        QThread must not be destroyed while it runs, so the process cannot
        end before that.
        """
        chat = self.chat
        self._commit_pending_delete()
        chat.request_shutdown()
        if not chat.wait_threads(CLOSE_WAIT_MS):
            if event is not None:
                event.ignore()
            self.hide()
            if not self._close_when_shut_down:
                self._close_when_shut_down = True
                chat.shutdown_finished.connect(self.close)
            return
        if event is not None:
            event.accept()
        if self._close_when_shut_down:
            # quitOnLastWindowClosed only counts windows visible when they
            # close, and this one was hidden above: do its job here. (quit()
            # does nothing unless QApplication.exec() is running.)
            others = [
                w for w in QApplication.topLevelWidgets()
                if w is not self and w.isVisible() and w.testAttribute(Qt.WidgetAttribute.WA_QuitOnClose)
                and w.windowType() not in (Qt.WindowType.ToolTip, Qt.WindowType.Popup)
                and (w.windowHandle() is None or w.windowHandle().transientParent() is None)
            ]
            if QApplication.quitOnLastWindowClosed() and not others:
                QApplication.quit()

    def install_model_manager(self) -> None:
        """Model › Manage Models… (Ctrl+Shift+M, ``app.ui.dialogs.model_manager``),
        the load progress bar with its Cancel button (status bar,
        ``app.ui.window.load_progress``), dropping ``.gguf`` files on the window,
        and every local model that loads joining Rill's list of models."""
        from app.ui.window.load_progress import LoadProgress
        from app.ui.dialogs.model_manager import make_manage_action
        from app.ui.window.drops import GgufDropFilter

        self.models_dialog = None
        self.manage_models_action = make_manage_action(self)
        self.addAction(self.manage_models_action)  # the shortcut works with the menu closed
        self.model_menu.set_manage_action(self.manage_models_action)
        self.load_progress = LoadProgress(self.chat)
        self.statusBar().addPermanentWidget(self.load_progress)
        self.setAcceptDrops(True)
        # The message box takes drops as text: a .gguf dropped there opens instead.
        self._gguf_drop_filter = GgufDropFilter(self.open_dropped, self)
        self.prompt.viewport().installEventFilter(self._gguf_drop_filter)
        self.manage_models_action.triggered.connect(self._on_manage_models_triggered)
        self.chat.model_ready.connect(self._on_model_ready_known)

    def _on_manage_models_triggered(self) -> None:
        from app.ui.dialogs.model_manager import ModelManagerDialog

        dialog = self.models_dialog
        if dialog is not None and not sip.isdeleted(dialog) and dialog.isVisible():
            dialog.raise_()
            dialog.activateWindow()
            return
        dialog = ModelManagerDialog(self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.model_open_requested.connect(self.model_open_requested)
        self.models_dialog = dialog
        dialog.open()

    def _on_model_ready_known(self, info: ModelInfo) -> None:
        # A local model that loaded joins Rill's list (a small settings
        # write, only when it is not there yet; failures are logged).
        if info.path and info.path.lower().endswith(models.MODEL_SUFFIX) and Path(info.path).is_absolute():
            settings.add_known_model(info.path)

    def open_dropped(self, mime: object) -> bool:
        """Dropped files: ``.gguf`` ones join the list and the first one is
        opened; anything else is refused with a status message. True when a
        model was opened."""
        from app.ui.window.drops import gguf_paths_from_mime

        found, others = gguf_paths_from_mime(mime)  # type: ignore[arg-type]
        if not found:
            if others:
                text = self.tr("{name} is not a model: Rill opens .gguf model files.").format(name=Path(others[0]).name)
            else:
                text = self.tr("That is not a model: Rill opens .gguf model files.")
            self.statusBar().showMessage(text, 6000)
            return False
        for path in found:
            settings.add_known_model(path)
        self.model_open_requested.emit(found[0])
        name = Path(found[0]).name
        if len(found) > 1:
            text = self.tr("Opening {name}… (%n more added to Model › Manage Models…)", None, len(found) - 1).format(
                name=name
            )
        else:
            text = self.tr("Opening {name}…").format(name=name)
        self.statusBar().showMessage(text, 6000)
        return True

    def dragEnterEvent(self, event: QDragEnterEvent | None) -> None:  # noqa: N802 (Qt API)
        from app.ui.window.drops import gguf_paths_from_mime

        if event is None:
            return
        found, others = gguf_paths_from_mime(event.mimeData())
        if found:
            event.acceptProposedAction()
        else:
            if others:
                self.statusBar().showMessage(
                    self.tr("{name} is not a model: Rill opens .gguf model files.").format(name=Path(others[0]).name),
                    6000,
                )
            event.ignore()

    def dragMoveEvent(self, event: QDragMoveEvent | None) -> None:  # noqa: N802 (Qt API)
        from app.ui.window.drops import gguf_paths_from_mime

        if event is not None and gguf_paths_from_mime(event.mimeData())[0]:
            event.acceptProposedAction()
        elif event is not None:
            event.ignore()

    def dropEvent(self, event: QDropEvent | None) -> None:  # noqa: N802 (Qt API)
        if event is None:
            return
        if self.open_dropped(event.mimeData()):
            event.acceptProposedAction()
        else:
            event.ignore()

    def install_search(self) -> None:
        """Search all conversations (Ctrl+K, Edit menu): the popup
        (``app.ui.dialogs.search``) and what choosing a match does: open its
        conversation on the branch that holds the message, scroll to it and
        highlight the words searched for."""
        from app.ui.dialogs.search import SearchDialog, highlight_text

        self.search_dialog = SearchDialog(self.store, self)
        self.search_action = QAction(self.tr("&Search All Conversations…"), self)
        bind(self.search_action, "search")
        self.search_action.setToolTip(self.tr("Search all conversations (Ctrl+K)"))
        self.addAction(self.search_action)  # the shortcut works even with the menu bar hidden
        edit_menu = next(
            (a.menu() for a in self.menuBar().actions() if a.menu() is not None and self.find_action in a.menu().actions()),
            None,
        )
        if edit_menu is not None:
            edit_menu.addAction(self.search_action)
        self.search_action.triggered.connect(self.search_dialog.open_search)

        def open_result(conversation_id: str, message_id: str, query: str) -> None:
            pending = self._pending_delete
            if pending is not None and pending[0] == conversation_id:
                self._on_undo_delete()  # found in a conversation just deleted: bring it back

            def show(conv: object) -> None:
                if conv is None:
                    self.statusBar().showMessage(self.tr("That conversation is no longer in the history."), 5000)
                    return
                msg = conv.get(message_id)  # type: ignore[attr-defined]
                on_path = any(m.id == message_id for m in conv.messages)  # type: ignore[attr-defined]
                if msg is not None and not on_path:
                    conv.switch_to(message_id)  # type: ignore[attr-defined]
                    self.library.set_current_leaf(conv)  # type: ignore[arg-type]
                if conv is not self.chat.conversation or not on_path:
                    self.chat.show_conversation(conv)  # type: ignore[arg-type]
                text = highlight_text(query, msg.content if msg is not None else "")

                def reveal() -> None:
                    if self.chat.conversation is conv:
                        self.view.set_find(text, (message_id, 0))

                if self.view.has_item(message_id):
                    reveal()
                else:  # a long conversation: its earlier messages come a moment later

                    def once() -> None:
                        self.view.history_completed.disconnect(once)
                        reveal()

                    self.view.history_completed.connect(once)

            self.library.load(conversation_id, show)

        self.search_dialog.result_activated.connect(open_result)

    # -- Settings and Conversation Settings ----------------------------------------------

    def install_settings(self) -> None:
        """Edit › Settings… (Ctrl+,, ``app.ui.dialogs.settings``) and
        Conversation Settings… (Edit menu, the sidebar's context menu,
        ``app.ui.dialogs.conversation_settings``). The preferences are read here
        (a small file) and handed to the chat: every request takes them, and
        its conversation's overrides, when it is sent."""
        from app.core.config.preferences import load_preferences

        self.settings_dialog = None
        self.conversation_settings_dialog = None
        self.preferences = load_preferences()
        self._apply_preferences(self.preferences)
        self.settings_action = QAction(self.tr("S&ettings…"), self)
        bind(self.settings_action, "settings")
        self.settings_action.setMenuRole(QAction.MenuRole.PreferencesRole)
        self.conversation_settings_action = QAction(self.tr("Conversation Se&ttings…"), self)
        self.conversation_settings_action.setToolTip(self.tr("This conversation's own system prompt and sampling"))
        self.addAction(self.settings_action)  # the shortcut works with the menu bar hidden
        edit_menu = next(
            (a.menu() for a in self.menuBar().actions() if a.menu() is not None and self.find_action in a.menu().actions()),
            None,
        )
        if edit_menu is not None:
            edit_menu.addSeparator()
            edit_menu.addAction(self.conversation_settings_action)
            edit_menu.addAction(self.settings_action)
        self.settings_action.triggered.connect(self._on_settings_triggered)
        self.conversation_settings_action.triggered.connect(self._on_conversation_settings_triggered)
        self.sidebar.settings_requested.connect(self._on_conversation_settings_requested)

    def _apply_preferences(self, prefs: Preferences) -> None:
        """Sampling and system prompt for the next requests (never the one streaming)."""
        self.preferences = prefs
        self.chat.params = prefs.sampling_params()
        self.chat.default_system_prompt = prefs.system_prompt
        self.chat.overflow = prefs.overflow

    def _on_settings_triggered(self) -> None:
        from app.ui.dialogs.settings import SettingsDialog

        dialog = self.settings_dialog
        if dialog is not None and not sip.isdeleted(dialog) and dialog.isVisible():
            dialog.raise_()
            dialog.activateWindow()
            return
        info = self.chat.model_info
        dialog = SettingsDialog(
            self, self.preferences, loaded=info, reload_available=self.chat.last_load_description is not None,
            appearance=self.appearance.appearance,
        )
        dialog.appearance_applied.connect(self.appearance.apply)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.preferences_applied.connect(self._apply_preferences)
        dialog.reload_model_requested.connect(self._on_reload_model_requested)
        self.settings_dialog = dialog
        if info is not None and info.path.lower().endswith(models.MODEL_SUFFIX):
            self._tell_trained_ctx(dialog, info.path)
        dialog.open()

    def _tell_trained_ctx(self, dialog: object, path: str) -> None:
        """Read the model file's trained context off the GUI thread (its
        header: 10-40 ms) and give it to the dialog (a warning when the
        context length is larger)."""
        import threading
        from concurrent.futures import Future

        future: Future[int | None] = Future()

        def read() -> None:
            try:
                from app.core.models.gguf_info import read_gguf_info

                future.set_result(read_gguf_info(path).context_length)
            except Exception:  # noqa: BLE001 - only a warning depends on it
                future.set_result(None)

        threading.Thread(target=read, name="rill-trained-ctx", daemon=True).start()
        poll = QTimer(dialog)  # type: ignore[arg-type]
        poll.setInterval(50)

        def check() -> None:
            if future.done():
                poll.stop()
                if not sip.isdeleted(dialog):  # type: ignore[arg-type]
                    dialog.set_trained_ctx(future.result())  # type: ignore[attr-defined]

        poll.timeout.connect(check)
        poll.start()

    def _on_reload_model_requested(self) -> None:
        description = self.chat.last_load_description
        if description is None:
            return
        choice = self.model_menu.current
        if choice is not None:
            self.expect_load(description, choice, remember=False)  # the Model menu keeps its check
        self.chat.reload_model()
        self.statusBar().showMessage(self.tr("Loading the model again with the new settings…"), 5000)

    def _on_conversation_settings_triggered(self) -> None:
        self._on_conversation_settings_requested(self.chat.conversation.id)

    def _on_conversation_settings_requested(self, conversation_id: str) -> None:
        from app.core.config.preferences import conversation_settings
        from app.ui.dialogs.conversation_settings import ConversationSettingsDialog

        def show(conv: object) -> None:
            if conv is None:
                self.statusBar().showMessage(self.tr("That conversation is no longer in the history."), 5000)
                return
            dialog = ConversationSettingsDialog(
                conversation_id, conversation_settings(conv),  # type: ignore[arg-type]
                self.preferences, getattr(conv, "title", ""), self,  # type: ignore[arg-type]
            )
            dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
            dialog.settings_accepted.connect(self._on_conversation_settings_accepted)
            self.conversation_settings_dialog = dialog
            dialog.open()

        if conversation_id == self.chat.conversation.id:
            show(self.chat.conversation)
        else:
            self.library.load(conversation_id, show)

    def _on_conversation_settings_accepted(self, conversation_id: str, chosen: ConversationSettings) -> None:
        def store(conv: object) -> None:
            if conv is not None:
                self.library.set_overrides(conv, chosen.to_dict())  # type: ignore[arg-type]
                self.statusBar().showMessage(
                    self.tr("Conversation settings saved: they apply from its next reply."), 5000
                )

        if conversation_id == self.chat.conversation.id:
            store(self.chat.conversation)
        else:
            self.library.load(conversation_id, store)
