"""The main window: the widgets around the services it is given
(``app.ui.services.lifecycle.AppServices``, built by ``app.application``),
and the signals between them.

Its parts live in their own modules: the chat column (``chat_area``), the
menu bar (``menus``), the Undo offer (``undo``), which model runs and what is
remembered of it (``model_choice``), the model dialogs (``model_dialogs``),
Settings and Conversation Settings with the preferences (``settings_wiring``),
the history (``library_wiring``), the first-run panel (``first_run``), dropped
model files (``drops``) and the About box (``app.ui.dialogs.about``). Closing
runs the services' ordered shutdown (``closeEvent``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PyQt6.QtCore import QMimeData, Qt, pyqtSignal
from PyQt6.QtGui import QCloseEvent, QDragEnterEvent, QDragMoveEvent, QDropEvent, QIcon, QShortcut, QTextCursor
from PyQt6.QtWidgets import QApplication, QFileDialog, QMainWindow, QSplitter, QToolButton, QVBoxLayout, QWidget

from app.core.backends.base import ModelInfo
from app.core.backends.remote.servers import ServerConfig
from app.core.text.display import without_controls
from app.resources import resource_path
from app.ui.conversation.announcer import StreamAnnouncer
from app.ui.conversation.clipboard_text import LazyTextMime
from app.ui.conversation.controller import ChatController, ChatState
from app.ui.conversation.find_bar import FindBar
from app.ui.conversation.view import ChatView
from app.ui.dialogs.about import open_about_box
from app.ui.hub.offer import DemoModelOffer
from app.ui.misc.shortcuts import bind_shortcut
from app.ui.misc.theme import mark_window, theme_manager
from app.ui.services.lifecycle import AppServices
from app.ui.sidebar.sidebar import Sidebar
from app.ui.window.appearance_menu import AppearanceControls
from app.ui.window.attachments import AttachmentWiring
from app.ui.window.chat_area import ChatArea
from app.ui.window.context_meter import ContextMeter, ContextTracker
from app.ui.window.empty_state import EmptyState
from app.ui.window.library_wiring import LibraryWiring
from app.ui.window.menus import MenuBar
from app.ui.window.model_choice import ModelChoice
from app.ui.window.model_dialogs import ModelDialogs
from app.ui.window.navigation import KeyboardNavigation
from app.ui.window.queued import QueuedMessages
from app.ui.window.send import SendController
from app.ui.window.settings_wiring import SettingsWiring
from app.ui.window.status import StatusLabels
from app.ui.window.stream_health import StreamHealthMonitor, StreamHealthPanel
from app.ui.window.undo import UndoBar

if TYPE_CHECKING:
    from app.ui.dialogs.model_manager import ModelManagerDialog
    from app.ui.dialogs.servers import ServersDialog
    from app.ui.dialogs.settings import SettingsDialog


CLOSE_WAIT_MS = 12  # closing waits this long for the threads, then hides the window and closes when they end


def quit_if_last_window(window: QWidget) -> None:
    """Quit the application when ``window`` was its last window.

    ``quitOnLastWindowClosed`` only counts windows visible when they close,
    and a window that waited for its threads was hidden first: do its job
    here. (``quit()`` does nothing unless ``QApplication.exec()`` is running.)"""
    others = [
        w for w in QApplication.topLevelWidgets()
        if w is not window and w.isVisible() and w.testAttribute(Qt.WidgetAttribute.WA_QuitOnClose)
        and w.windowType() not in (Qt.WindowType.ToolTip, Qt.WindowType.Popup)
        and ((handle := w.windowHandle()) is None or handle.transientParent() is None)
    ]
    if QApplication.quitOnLastWindowClosed() and not others:
        QApplication.quit()


class MainWindow(QMainWindow):
    """Rill's window. All behaviour lives in ChatController."""

    #: The user asked for a model file to be opened; arg: its path.
    model_open_requested = pyqtSignal(str)
    #: The user chose Model › Local Model (Default): the model Rill starts with; no args.
    local_model_requested = pyqtSignal()
    #: The user chose a server's model (Model menu, or Servers… › Chat with
    #: This Model); args: ServerConfig, model id ("" = the server's default).
    remote_model_requested = pyqtSignal(object, str)

    def __init__(self, services: AppServices, persist: bool = True) -> None:
        """``services``: the application's services (``app.application`` builds
        them); ``persist`` False: no appearance or history written (doctor)."""
        super().__init__()
        self.setWindowTitle("Rill")
        self.resize(1120, 760)
        icon = resource_path("icon.svg")
        if icon is not None:
            self.setWindowIcon(QIcon(str(icon)))
        theme_manager()  # the palette and style sheet, app-wide (app.ui.misc.theme)
        mark_window(self)  # this window and its dialogs take the current theme's rules
        self._persist = persist

        self.services = services
        status_bar = self.statusBar()
        assert status_bar is not None  # a QMainWindow makes one on demand
        self._status_bar = status_bar
        self.store = services.store
        self.library = services.library
        self.view = ChatView(render_service=services.render)
        self.chat = ChatController(self.view, self, self.library, service=services.inference)
        self.sidebar = Sidebar(self.library)
        self.find_bar = FindBar(lambda: self.chat.conversation.messages)
        self.find_bar.hide()
        self.chat_area = ChatArea(self.view, self.find_bar)
        self.first_run = self.chat_area.first_run
        self.prompt_area = self.chat_area.prompt_area
        self.prompt = self.prompt_area.editor
        self.send_button = self.chat_area.send_button
        self.stop_button = self.chat_area.stop_button
        self.health_monitor = StreamHealthMonitor(self.chat, self)
        self.status_labels = StatusLabels(self.chat, self.health_monitor, self)
        self.model_label = self.status_labels.model_label
        self.state_label = self.status_labels.state_label
        self.health_label = self.status_labels.health_label
        self.health_panel = StreamHealthPanel(self.health_monitor, self)
        self.health_panel.hide()
        self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.health_panel)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(self.sidebar)
        self.splitter.addWidget(self.chat_area)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([220, 680])
        self.splitter.setChildrenCollapsible(False)
        self.setCentralWidget(self.splitter)
        self._status_bar.addWidget(self.model_label, 1)
        self.context_meter = ContextMeter()
        self._status_bar.addPermanentWidget(self.context_meter)
        self.context_tracker = ContextTracker(self.chat, self.prompt_area, self.context_meter, self)
        self._status_bar.addPermanentWidget(self.health_label)
        self._status_bar.addPermanentWidget(self.state_label)
        self.undo_bar = UndoBar(self._status_bar, self)
        self.undo_button = self.undo_bar.button

        self._close_when_shut_down = False
        self.announcer = StreamAnnouncer(self.chat, self.state_label, self.prompt, self.stop_button, self)
        self._build_menus()
        self._stop_shortcut = bind_shortcut(QShortcut(self), "stop")
        self.empty_state = EmptyState(self.view, self.chat)
        self.queued = QueuedMessages(self.chat, self)
        self.chat_area.composer.add_tray_widget(self.queued.tray)
        self.send_controller = SendController(self.chat, self.prompt_area, self._status_bar, self, self.queued)
        self.attachments = AttachmentWiring(self.chat, self.store, self.chat_area, self)
        self._connect_signals()
        self.install_search()
        self.install_model_files()
        self.install_settings()
        self._on_state_changed(self.chat.state)
        self.prompt.setFocus()

    def _build_menus(self) -> None:
        self.menus = MenuBar(self, self.view, self.health_panel, lambda: self.chat.is_generating)
        self.edit_menu = self.menus.edit_menu
        self.model_menu = self.menus.model_menu
        self.appearance = AppearanceControls(self, self.view, self.menus.view_menu, persist=self._persist)
        self.navigation = KeyboardNavigation(
            self, self.menus.go_menu, self.menus.help_menu, sidebar=self.sidebar, prompt=self.prompt,
            chain=[self.view, self.prompt, self.send_button, self.stop_button],
        )

    def _connect_signals(self) -> None:
        self.send_button.clicked.connect(self.send_controller.send)
        self.stop_button.clicked.connect(self.chat.stop)
        self._stop_shortcut.activated.connect(self.send_controller.escape)
        self.queued.text_returned.connect(self._on_queued_text_returned)
        self.empty_state.example_chosen.connect(self._on_queued_text_returned)  # (the same: into the box)
        self.menus.open_model_action.triggered.connect(self._on_open_model_triggered)
        self.menus.new_chat_action.triggered.connect(self._on_new_chat_triggered)
        self.menus.copy_action.triggered.connect(self.view.copy_selection)
        self.menus.select_all_action.triggered.connect(self.view.select_all)
        self.menus.copy_conversation_action.triggered.connect(self._on_copy_conversation_triggered)
        self.menus.find_action.triggered.connect(self.find_bar.open_bar)
        self.menus.find_next_action.triggered.connect(self.find_bar.find_next)
        self.menus.find_previous_action.triggered.connect(self.find_bar.find_previous)
        self.find_bar.highlight_requested.connect(self._on_find_highlight_requested)
        self.find_bar.match_selected.connect(self._on_find_match_selected)
        self.find_bar.match_kept.connect(self._on_find_match_kept)
        self.find_bar.closed.connect(self.prompt.setFocus)
        self.view.copied.connect(self._on_copied)
        self.menus.quit_action.triggered.connect(self.close)
        self.menus.about_action.triggered.connect(self._on_about_triggered)
        self.chat.state_changed.connect(self._on_state_changed)
        self.chat.model_ready.connect(self._on_model_ready)
        self._connect_model_choice()
        self._connect_store()

    # -- slots ------------------------------------------------------------------

    def enter_prompt(self, text: str, paste: bool = False) -> None:
        """Type (or paste) ``text`` into the prompt box and press Enter, exactly
        as a user does (doctor, benchmarks)."""
        if paste:
            clipboard = QApplication.clipboard()
            if clipboard is not None:
                clipboard.setText(text)
            self.paste_prompt()
        else:
            self.prompt.clear()
            self.prompt.setPlainText(text)
        self.press_enter()

    def paste_prompt(self, then_type: str = "") -> None:
        """Paste what the clipboard holds into the empty prompt box and type
        ``then_type`` after it, as a user does (the doctor puts a prompt file
        on the clipboard once, before it measures: copying it in another
        application is not the window's work)."""
        self.prompt.clear()
        self.prompt.paste()
        if then_type:
            self.prompt.moveCursor(QTextCursor.MoveOperation.End)
            self.prompt.insertPlainText(then_type)

    def press_enter(self) -> None:
        """Enter in the prompt box (doctor, benchmarks)."""
        self.prompt.submit_requested.emit()

    # -- the store and the sidebar ---------------------------------------------------

    def _connect_store(self) -> None:
        self.library_wiring = LibraryWiring(
            self.chat, self.store, self.library, self.sidebar, self.undo_bar, self._status_bar, self
        )
        self.sidebar.new_chat_requested.connect(self.menus.new_chat_action.trigger)
        self.chat.conversation_shown.connect(self._on_conversation_shown)
        self.chat.path_changed.connect(self._on_path_changed)
        self.menus.rename_action.triggered.connect(self.library_wiring.rename_current)
        self.menus.export_action.triggered.connect(
            lambda: self.library_wiring.export_conversation(self.chat.conversation.id)
        )
        self.menus.export_html_action.triggered.connect(
            lambda: self.library_wiring.export_conversation(self.chat.conversation.id, ".html")
        )
        self.menus.export_pdf_action.triggered.connect(
            lambda: self.library_wiring.export_conversation(self.chat.conversation.id, ".pdf")
        )
        self.menus.print_action.triggered.connect(
            lambda: self.library_wiring.print_conversation(self.chat.conversation.id)
        )
        self.menus.export_all_action.triggered.connect(self.library_wiring.export_all)
        self.menus.import_action.triggered.connect(self.library_wiring.import_conversations)
        self.menus.regenerate_action.triggered.connect(self._on_regenerate_triggered)
        self.menus.delete_conversation_action.triggered.connect(self._on_delete_conversation_triggered)

    def _on_conversation_shown(self, conv: object) -> None:
        self.sidebar.select(getattr(conv, "id", ""))
        self.find_bar.close_bar()
        title = without_controls(getattr(conv, "title", "")) or self.tr("New chat")
        self.setWindowTitle(self.tr("{title} — Rill").format(title=title))

    def _on_path_changed(self, conv: object) -> None:
        if self.find_bar.isVisible():  # stays open; the new path is highlighted and counted, the reader's place kept
            self.view.set_find(self.find_bar.edit.text())
            self.find_bar.search_again()

    def _on_delete_conversation_triggered(self) -> None:
        self.library_wiring.delete_conversation(self.chat.conversation.id)

    def _on_regenerate_triggered(self) -> None:
        self.chat.regenerate()

    def _on_new_chat_triggered(self) -> None:
        self.chat.new_chat()
        self.find_bar.close_bar()
        self.prompt.setFocus()

    def _on_copy_conversation_triggered(self) -> None:
        clipboard = QApplication.clipboard()
        if clipboard is not None:
            # Gathered in work slices: Copy and a paste cost little whatever the conversation's length.
            clipboard.setMimeData(LazyTextMime(self.chat.conversation_markdown_parts()))
        self._status_bar.showMessage(self.tr("Conversation copied as Markdown"), 3000)

    def _on_copied(self, what: str, text: str) -> None:
        label = {"code": self.tr("Code copied"), "message": self.tr("Message copied")}.get(what) or self.tr("Copied")
        self._status_bar.showMessage(label, 2000)

    def _on_find_highlight_requested(self, text: str) -> None:
        self.view.set_find(text)

    def _on_find_match_kept(self, message_id: str, nth: int) -> None:
        self.view.set_find(self.find_bar.edit.text(), (message_id, nth), reveal=False)

    def _on_find_match_selected(self, message_id: str, nth: int) -> None:
        self.view.set_find(self.find_bar.edit.text(), (message_id, nth))

    def _on_queued_text_returned(self, text: str) -> None:
        """A queued message's Edit, or an example prompt of the empty
        conversation: the text in the box, after what is there."""
        if self.prompt.toPlainText().strip():
            text = self.prompt.toPlainText() + "\n" + text
        self.prompt.setPlainText(text)
        self.prompt.moveCursor(QTextCursor.MoveOperation.End)
        self.prompt.setFocus()

    def _on_state_changed(self, state: ChatState) -> None:
        self.send_button.setEnabled(state == ChatState.IDLE)
        self.stop_button.setEnabled(state == ChatState.GENERATING)
        self.chat_area.composer.set_running(state == ChatState.GENERATING)

    def _on_model_ready(self, info: ModelInfo) -> None:
        self.prompt_area.set_context_limit(info.n_ctx or None)
        self.chat_area.composer.set_model_name(info.name)
        self.hub_offer.model_loaded(info.path or "")

    def _on_open_model_triggered(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, self.tr("Open Model"), "", self.tr("GGUF models (*.gguf);;All files (*)")
        )
        if path:
            self.model_open_requested.emit(path)

    # -- the model the window runs (app.ui.window.model_choice) ------------------------

    def _connect_model_choice(self) -> None:
        self.model_choice = ModelChoice(self.chat, self.model_menu, self.first_run, self)
        self.model_dialogs = ModelDialogs(self.model_menu, self, hub=self.services.hub)
        self.first_run.open_button.clicked.connect(self.menus.open_model_action.trigger)
        self.model_open_requested.connect(self.model_choice.file_requested)
        self.model_menu.local_chosen.connect(self._on_local_model_chosen)
        self.model_menu.server_model_chosen.connect(self._on_server_model_chosen)
        self.model_dialogs.server_model_chosen.connect(self._on_server_model_chosen)
        self.model_dialogs.model_open_requested.connect(self.model_open_requested)
        self.menus.servers_action.triggered.connect(self.model_dialogs.open_servers)
        self.menus.manage_models_action.triggered.connect(self.model_dialogs.open_models)
        self.menus.get_models_action.triggered.connect(lambda: self.model_dialogs.open_hub())
        self.first_run.get_button.clicked.connect(lambda: self.model_dialogs.open_hub())
        # The model running is named in the status bar; this button beside it is the picker.
        self.model_button = QToolButton()
        self.model_button.setObjectName("modelPicker")
        self.model_button.setText(self.tr("Models"))
        self.model_button.setToolTip(self.tr("Choose the model: local files, servers' models, Get More Models…"))
        self.model_button.setAccessibleName(self.tr("Choose the model"))
        self.model_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.model_button.setMenu(self.model_menu)
        self._status_bar.insertWidget(0, self.model_button)
        self.chat_area.composer.set_model_menu(self.model_menu)  # the picker in the composer opens it too
        self.hub_offer = DemoModelOffer(self.chat_area)
        chat_layout = self.chat_area.layout()
        assert isinstance(chat_layout, QVBoxLayout)
        chat_layout.insertWidget(1, self.hub_offer)  # under the first-run panel, above the conversation
        self.hub_offer.get_requested.connect(self.model_dialogs.open_hub)
        self.hub_offer.browse_requested.connect(lambda: self.model_dialogs.open_hub())

    def expect_load(self, description: str, choice: dict[str, str], remember: bool = True) -> None:
        """See ``ModelChoice.expect_load``."""
        self.model_choice.expect_load(description, choice, remember)

    def _on_local_model_chosen(self) -> None:
        self.model_choice.local_chosen()
        self.local_model_requested.emit()

    def _on_server_model_chosen(self, server: ServerConfig, model: str) -> None:
        self.model_choice.server_chosen(server, model)
        self.remote_model_requested.emit(server, model)

    @property
    def servers_dialog(self) -> ServersDialog | None:
        """Model › Servers…, when it has been opened (None after it closed)."""
        return self.model_dialogs.servers_dialog

    @property
    def models_dialog(self) -> ModelManagerDialog | None:
        """Model › Manage Models…, when it has been opened (None after it closed)."""
        return self.model_dialogs.models_dialog

    # -- About --------------------------------------------------------------------

    def _about_model(self) -> str:
        info = self.chat.model_info
        if info is None:
            return ""
        return f"{info.name} ({info.path})" if info.path else info.name

    def _on_about_triggered(self) -> None:
        self.about_box = open_about_box(self, self.services, self._about_model())

    def closeEvent(self, event: QCloseEvent | None) -> None:
        """Close without ever blocking the GUI on a worker thread.

        The undo offer is committed, the reply stopped and the services'
        ordered shutdown started (``AppServices.request_shutdown``). If it is
        over within ~10 ms (the usual case: cancelling a reply is immediate)
        the window closes now; otherwise it hides at once and closes when
        ``shutdown_finished`` arrives: a QThread must not be destroyed while
        it runs, so the process cannot end before that.
        """
        if not self.library_wiring.quit_guard.allow_close():  # unsaved work: the user is asked first
            if event is not None:
                event.ignore()
            return
        services = self.services
        self.undo_bar.commit()
        self.library_wiring.stop_exports()
        self.chat.stop()
        services.request_shutdown()
        if not services.wait(CLOSE_WAIT_MS):
            if event is not None:
                event.ignore()
            self.hide()
            if not self._close_when_shut_down:
                self._close_when_shut_down = True
                services.shutdown_finished.connect(self.close)
            return
        if event is not None:
            event.accept()
        if self._close_when_shut_down:
            quit_if_last_window(self)

    def install_model_files(self) -> None:
        """The load progress bar with its Cancel button (status bar,
        ``app.ui.window.load_progress``) and dropping ``.gguf`` files on the
        window (Manage Models… is ``model_dialogs``)."""
        from app.ui.window.drops import GgufDropFilter, GgufDrops
        from app.ui.window.load_progress import LoadProgress

        self.load_progress = LoadProgress(self.chat)
        self._status_bar.addPermanentWidget(self.load_progress)
        self.setAcceptDrops(True)
        self._drops = GgufDrops(self._status_bar, self.model_open_requested.emit, self, attach=self.attachments.attach)
        # The message box takes drops as text: a .gguf dropped there opens instead.
        self._gguf_drop_filter = GgufDropFilter(self.open_dropped, self)
        viewport = self.prompt.viewport()
        assert viewport is not None
        viewport.installEventFilter(self._gguf_drop_filter)

    def open_dropped(self, mime: QMimeData | None) -> bool:
        """Dropped files (see ``GgufDrops.open_dropped``); True when a model was opened."""
        return self._drops.open_dropped(mime)

    def dragEnterEvent(self, event: QDragEnterEvent | None) -> None:
        if event is not None:
            self._drops.drag_entered(event)

    def dragMoveEvent(self, event: QDragMoveEvent | None) -> None:
        if event is not None:
            self._drops.drag_moved(event)

    def dropEvent(self, event: QDropEvent | None) -> None:
        if event is not None:
            self._drops.dropped(event)

    def install_search(self) -> None:
        """Search all conversations (Ctrl+K, Edit menu): the popup
        (``app.ui.dialogs.search``) and what choosing a match does: open its
        conversation on the branch that holds the message, scroll to it and
        highlight the words searched for."""
        from app.ui.dialogs.search import SearchDialog
        from app.ui.window.search_results import SearchResultOpener

        self.search_dialog = SearchDialog(self.store, self)
        self.menus.search_action.triggered.connect(self.search_dialog.open_search)
        self.search_results = SearchResultOpener(
            self.chat, self.view, self.library, self.undo_bar, self._status_bar, self
        )
        self.search_dialog.result_activated.connect(self.search_results.open_message)

    # -- Settings and Conversation Settings (app.ui.window.settings_wiring) ------------------

    def install_settings(self) -> None:
        """Edit › Settings… (Ctrl+,) and Conversation Settings… (Edit menu, the
        sidebar's context menu): see ``SettingsWiring``."""
        self.settings_wiring = SettingsWiring(
            self.chat, self.library, self.services, self.appearance, self.model_choice, self.model_menu,
            self._status_bar, self, embedding=self.attachments.service.embedding,
        )
        self.menus.settings_action.triggered.connect(self.settings_wiring.open_settings)
        self.menus.conversation_settings_action.triggered.connect(self._on_conversation_settings_triggered)
        self.sidebar.settings_requested.connect(self.settings_wiring.open_conversation_settings)

    @property
    def settings_dialog(self) -> SettingsDialog | None:
        """Edit › Settings…, when it has been opened (None after it closed)."""
        return self.settings_wiring.settings_dialog

    def _on_conversation_settings_triggered(self) -> None:
        self.settings_wiring.open_conversation_settings(self.chat.conversation.id)
