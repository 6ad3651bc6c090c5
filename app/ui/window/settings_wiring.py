"""Edit › Settings… and Conversation Settings…: the preferences the chat
sends with, the two dialogs and what accepting them does.

The preferences are read when the window is built (a small file) and handed
to the chat: every request takes them, and its conversation's overrides, when
it is sent; a change never touches the reply streaming. Settings
(``app.ui.dialogs.settings``) also applies the appearance and may load the
model again; Conversation Settings (``app.ui.dialogs.conversation_settings``)
stores one conversation's overrides in the library.

Its strings keep the translation context "MainWindow" (they were its).
Threading rule: GUI thread only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PyQt6 import sip
from PyQt6.QtCore import QCoreApplication, QObject, Qt
from PyQt6.QtWidgets import QStatusBar, QWidget

from app.core.config.preferences import ConversationSettings, Preferences, load_preferences
from app.core.conversation.model import Conversation
from app.core.models import paths as models
from app.ui.conversation.controller import ChatController
from app.ui.dialogs.singleton import SingletonDialog
from app.ui.services.library import ConversationLibrary
from app.ui.services.lifecycle import AppServices
from app.ui.window.appearance_menu import AppearanceControls
from app.ui.window.model_choice import ModelChoice
from app.ui.window.model_menu import ModelMenu

if TYPE_CHECKING:
    from app.ui.attachments.embedding import EmbeddingChoice
    from app.ui.dialogs.conversation_settings import ConversationSettingsDialog
    from app.ui.dialogs.settings import SettingsDialog


class SettingsWiring(QObject):
    """The preferences and the two settings dialogs of the window ``parent``.

    ``chat`` gets the preferences; ``library`` holds the conversations whose
    overrides are edited; ``services`` reads a model file's trained context;
    ``appearance`` is what Settings › Appearance changes; ``model_choice`` and
    ``model_menu`` say what "Reload model now" loads; notices go to
    ``status_bar``; ``embedding`` (None: not wired) takes the embedding model
    of the preferences."""

    def __init__(
        self,
        chat: ChatController,
        library: ConversationLibrary,
        services: AppServices,
        appearance: AppearanceControls,
        model_choice: ModelChoice,
        model_menu: ModelMenu,
        status_bar: QStatusBar,
        parent: QWidget,
        embedding: EmbeddingChoice | None = None,
    ) -> None:
        super().__init__(parent)
        self._chat = chat
        self._library = library
        self._services = services
        self._appearance = appearance
        self._model_choice = model_choice
        self._model_menu = model_menu
        self._status_bar = status_bar
        self._window = parent
        self._embedding = embedding
        self._settings_dialog = SingletonDialog(self._make_settings_dialog)
        #: Conversation Settings…, while it is open (the last one opened).
        self.conversation_settings_dialog: ConversationSettingsDialog | None = None
        #: What the next requests are sent with (Settings).
        self.preferences = load_preferences()
        self._connect_signals()
        self.apply_preferences(self.preferences)

    def _connect_signals(self) -> None:
        if self._embedding is not None:
            self._embedding.failed.connect(self._on_embedding_failed)

    # -- the preferences -------------------------------------------------------------

    def apply_preferences(self, prefs: Preferences) -> None:
        """Sampling and system prompt for the next requests (never the one
        streaming); the embedding model at once."""
        self.preferences = prefs
        self._chat.params = prefs.sampling_params()
        self._chat.default_system_prompt = prefs.system_prompt
        self._chat.overflow = prefs.overflow
        if self._embedding is not None:
            self._embedding.choose(prefs.embedding_model)  # loads off the GUI thread

    def _on_embedding_failed(self, message: str) -> None:
        self._status_bar.showMessage(message, 10000)

    # -- Edit › Settings… ----------------------------------------------------------------

    def open_settings(self) -> None:
        """Show Settings (raised when it is open already)."""
        self._settings_dialog.show()

    @property
    def settings_dialog(self) -> SettingsDialog | None:
        """Edit › Settings…, when it has been opened (None after it closed)."""
        return self._settings_dialog.dialog

    def _make_settings_dialog(self) -> SettingsDialog:
        from app.ui.dialogs.settings import SettingsDialog

        info = self._chat.model_info
        dialog = SettingsDialog(
            self._window, self.preferences, loaded=info,
            reload_available=self._chat.last_load_description is not None,
            appearance=self._appearance.appearance,
        )
        dialog.appearance_applied.connect(self._appearance.apply)
        dialog.preferences_applied.connect(self.apply_preferences)
        dialog.reload_model_requested.connect(self._on_reload_model_requested)
        if info is not None and info.path.lower().endswith(models.MODEL_SUFFIX):
            self._tell_trained_ctx(dialog, info.path)
        return dialog

    def _tell_trained_ctx(self, dialog: SettingsDialog, path: str) -> None:
        """Read the model file's trained context off the GUI thread (its
        header: 10-40 ms) and give it to the dialog (a warning when the
        context length is larger)."""

        def tell(trained_ctx: int | None) -> None:
            if not sip.isdeleted(dialog):
                dialog.set_trained_ctx(trained_ctx)

        self._services.read_trained_context(path, tell)

    def _on_reload_model_requested(self) -> None:
        description = self._chat.last_load_description
        if description is None:
            return
        choice = self._model_menu.current
        if choice is not None:
            self._model_choice.expect_load(description, choice, remember=False)  # the Model menu keeps its check
        self._chat.reload_model()
        self._status_bar.showMessage(
            QCoreApplication.translate("MainWindow", "Loading the model again with the new settings…"), 5000
        )

    # -- Conversation Settings… -----------------------------------------------------------

    def open_conversation_settings(self, conversation_id: str) -> None:
        """Show the Conversation Settings of ``conversation_id`` (read from the
        store when it is not the one shown)."""
        from app.core.config.preferences import conversation_settings
        from app.ui.dialogs.conversation_settings import ConversationSettingsDialog

        def show(conv: Conversation | None) -> None:
            if conv is None:
                self._status_bar.showMessage(
                    QCoreApplication.translate("MainWindow", "That conversation is no longer in the history."), 5000
                )
                return
            dialog = ConversationSettingsDialog(
                conversation_id, conversation_settings(conv),
                self.preferences, getattr(conv, "title", ""), self._window,
            )
            dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
            dialog.settings_accepted.connect(self.save_conversation_settings)
            self.conversation_settings_dialog = dialog
            dialog.open()

        if conversation_id == self._chat.conversation.id:
            show(self._chat.conversation)
        else:
            self._library.load(conversation_id, show)

    def save_conversation_settings(self, conversation_id: str, chosen: ConversationSettings) -> None:
        """Store ``chosen`` as the overrides of ``conversation_id`` (Conversation
        Settings accepted): they apply from its next reply."""

        def store(conv: Conversation | None) -> None:
            if conv is not None:
                self._library.set_overrides(conv, chosen.to_dict())
                self._status_bar.showMessage(
                    QCoreApplication.translate(
                        "MainWindow", "Conversation settings saved: they apply from its next reply."
                    ),
                    5000,
                )

        if conversation_id == self._chat.conversation.id:
            store(self._chat.conversation)
        else:
            self._library.load(conversation_id, store)
