"""The window's attachments: the service, the sending hook, and the window's
ways in and out (the attach button, drops and pastes, the chips above the
message box, the sources listed under each reply).

``AttachmentWiring`` creates the ``AttachmentService`` (its store is the
window's ``StoreService``), hands the ``AttachmentSending`` hook to the
conversation controller, puts the paperclip at the start of the composer's
row and the chip tray and the conversation's files above the text
(``ComposerCard``'s slots), gives the chat view each reply's sources line
(``SourcesMenu``; clicking it opens the passages), takes pasted files and
images (``PromptEdit.file_paste``), and asks the store about each
conversation shown (its attachments and its replies' sources).

Threading rule: GUI thread only. A pasted image is written to a file on a
background call (encoding a screenshot takes longer than a frame); the file
is deleted once read (what was read stays in memory and in the store), and
files a crash left behind are swept by the next paste (``sweep_pasted``).
"""

from __future__ import annotations

import os
import threading
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from PyQt6.QtCore import QMimeData, QObject
from PyQt6.QtGui import QImage

from app.core.attachments.record import Attachment
from app.core.base.settings import data_dir
from app.core.conversation.model import Conversation
from app.ui.attachments.button import AttachButton
from app.ui.attachments.files import ConversationFiles
from app.ui.attachments.sending import AttachmentSending
from app.ui.attachments.service import AttachmentService
from app.ui.attachments.sources import SourcesMenu
from app.ui.attachments.tray import ChipTray
from app.ui.conversation.controller import ChatController
from app.ui.services.background import BackgroundCalls
from app.ui.services.model_session import ModelState
from app.ui.services.store import StoreService
from app.ui.window.chat_area import ChatArea
from app.ui.window.drops import local_files

#: Where pasted images are written before they are read (under the data folder).
PASTED_DIR = "pasted"
#: A pasted image's file older than this was left by an earlier run (a crash): swept.
PASTED_STALE_S = 3600.0


def sweep_pasted(folder: Path, now: float | None = None) -> int:
    """Delete the pasted images under ``folder`` older than ``PASTED_STALE_S``
    (a worker); the number deleted."""
    now = time.time() if now is None else now
    deleted = 0
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return 0
    for entry in entries:
        try:
            if entry.is_file(follow_symlinks=False) and entry.name.startswith("pasted-") \
                    and now - entry.stat(follow_symlinks=False).st_mtime > PASTED_STALE_S:
                os.unlink(entry.path)
                deleted += 1
        except OSError:
            continue
    return deleted


class AttachmentWiring(QObject):
    """See the module docstring."""

    def __init__(self, chat: ChatController, store: StoreService, area: ChatArea, parent: QObject | None = None) -> None:
        super().__init__(parent)
        convs = chat.conversations
        self.chat = chat
        self.service = AttachmentService(store, self)

        def context() -> int:
            info = chat.model_info
            return info.n_ctx if info is not None else 0

        def ready() -> bool:
            return convs.session.state == ModelState.READY and convs.consumer.current is None

        self._context = context
        self.sending = AttachmentSending(
            self.service, context, lambda conv: convs.reply_settings(conv).params.max_tokens, convs.notify, ready, self)
        self.sending.can_see_images = self.can_see_images
        convs.attachments = self.sending
        self._convs = convs
        self.button = AttachButton()
        self.tray = ChipTray(self.service, self.planned, self.can_see_images)
        self._view = area.view
        self.sources = SourcesMenu(lambda message_id: self.service.sources.get(message_id, ()), area.view)
        area.view.set_sources_label(self.sources.line, self.service.sources.keys)
        self.files = ConversationFiles()
        composer = area.composer  # its slots for other features (app.ui.window.composer)
        composer.add_leading_widget(self.button)
        composer.set_tray(self.tray)
        composer.add_tray_widget(self.files)
        area.prompt_area.editor.file_paste = self.take_paste
        self._calls = BackgroundCalls(self)
        self._connect_signals()

    def _connect_signals(self) -> None:
        self._convs.conversation_shown.connect(self._on_conversation_shown)
        self.button.files_chosen.connect(self.attach)
        self.chat.reply_settled.connect(self._on_reply_settled)
        self._view.history_completed.connect(self._view.footers_changed)
        self.service.sources_loaded.connect(self._on_sources_loaded)
        self._view.message_action_requested.connect(self._on_message_action_requested)
        self.service.files_loaded.connect(self._on_files_loaded)
        self.chat.model_ready.connect(self._on_model_ready)

    def can_see_images(self) -> bool:
        """Whether the current model is sent images: a model on a server
        (OpenAI-compatible or Ollama: the server decides whether it can look),
        or a local GGUF model whose vision projector loaded with it
        (``ModelInfo.vision``); other local models are sent text only."""
        info = self.chat.model_info
        return info is not None and (info.vision or info.path.startswith(("http://", "https://")))

    def planned(self) -> list[Attachment]:
        """The pending attachments with the mode they would get now."""
        conv = self._convs.conversation
        reply = self._convs.reply_settings(conv).params.max_tokens
        return self.service.planned(self._context(), reply, [m.content for m in conv.messages])

    def attach(self, paths: Sequence[str]) -> None:
        """Attach files to the message being written (button, drop, paste, doctor)."""
        self.service.add_files(list(paths))

    def take_paste(self, mime: QMimeData) -> bool:
        """A paste or drop into the message box: local files are attached, an
        image is written to a file (on a worker) and attached; True when taken."""
        files = local_files(mime)
        if files:
            self.attach(files)
            return True
        if mime.hasImage():
            image = mime.imageData()
            if isinstance(image, QImage) and not image.isNull():
                self._attach_image(image.copy())
                return True
        return False

    def _attach_image(self, image: QImage) -> None:
        folder = data_dir() / PASTED_DIR
        path = folder / f"pasted-{time.strftime('%Y%m%d-%H%M%S')}-{uuid.uuid4().hex[:6]}.png"  # two in a second differ

        def save(_cancel: threading.Event) -> str:
            sweep_pasted(folder)  # what a crashed run left (no thread of its own at start: closing stays instant)
            folder.mkdir(parents=True, exist_ok=True)
            if not image.save(str(path), "PNG"):
                raise OSError("the pasted image could not be written")
            return str(path)

        def done(result: Any, error: BaseException | None) -> None:
            if error is None and isinstance(result, str):
                self.service.add_files([result], temporary=True)
            else:
                self._convs.notify(self.tr("The pasted image could not be attached."), "error")

        self._calls.run(save, done, name="rill-paste-image")

    def _on_model_ready(self, _info: object) -> None:
        self.button.set_vision(self.can_see_images())
        self.tray.refresh_modes()

    def _on_conversation_shown(self, conv: Conversation) -> None:
        self.service.look_up(conv.id)
        self.files.show_files(self.service.files.get(conv.id, ()))

    def _on_files_loaded(self, conversation_id: str) -> None:
        if self._convs.conversation.id == conversation_id:
            self.files.show_files(self.service.files.get(conversation_id, ()))

    def _on_sources_loaded(self, conversation_id: str) -> None:
        if self._convs.conversation.id == conversation_id:
            self._view.footers_changed()

    def _on_reply_settled(self, stats: Any) -> None:
        if stats.message_id in self.service.sources:
            self._view.footers_changed()

    def _on_message_action_requested(self, action: str, message_id: str) -> None:
        if action == "sources":
            self.sources.open_sources(message_id)
