"""Telling assistive technology what a reply is doing, at a human rate.

A screen reader must not read every token. The announcer gives the status
bar's state label an accessible name that is the latest announcement (its
visible text stays the short state); Qt reports each change to the
platform's accessibility layer as a name change of a status-bar label, which
screen readers such as Orca and NVDA read out. Announced: a reply started, "still writing, N tokens so far"
at most every ``PROGRESS_MS``, and how it ended (finished, stopped, failed).
PyQt6 has no binding for Qt's QAccessibleAnnouncementEvent, so this is the
portable way.

It also keeps the keyboard focus where the user can go on: when a reply ends
or Stop is pressed, a focus left on the Stop button (now disabled) or nowhere
goes back to the message box.

Threading rule: GUI thread only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PyQt6.QtCore import QObject, QTimer, pyqtSignal
from PyQt6.QtWidgets import QApplication, QLabel, QWidget

from app.ui.conversation.reply import ReplyStats

if TYPE_CHECKING:
    from app.ui.conversation.controller import ChatController

__all__ = ["StreamAnnouncer", "PROGRESS_MS"]

PROGRESS_MS = 15_000  # "still writing" at most this often


class StreamAnnouncer(QObject):
    """See the module docstring."""

    #: Something was announced; arg: the text (for tests and logs).
    announced = pyqtSignal(str)

    def __init__(
        self, chat: ChatController, label: QLabel, prompt: QWidget, stop_button: QWidget, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self._chat = chat
        self._label = label
        self._prompt = prompt
        self._stop_button = stop_button
        self._label.setAccessibleDescription(self.tr("What the reply is doing"))
        self._progress = QTimer(self)
        self._progress.setInterval(PROGRESS_MS)
        self._connect_signals()

    def _connect_signals(self) -> None:
        self._chat.reply_started.connect(self._on_reply_started)
        self._chat.reply_finished.connect(self._on_reply_finished)
        self._chat.reply_stopped.connect(self._on_reply_stopped)
        self._progress.timeout.connect(self._on_progress_due)

    def announce(self, text: str) -> None:
        self._label.setAccessibleName(text)
        self.announced.emit(text)

    def _on_reply_started(self, request_id: int) -> None:
        self.announce(self.tr("Rill is writing a reply."))
        self._progress.start()

    def _on_progress_due(self) -> None:
        reply = self._chat.current_reply
        if reply is None:
            self._progress.stop()
            return
        tokens = reply.stats.tokens_shown
        self.announce(self.tr("Still writing: %n token(s) so far.", "", tokens))

    def _on_reply_stopped(self, request_id: int) -> None:
        self._progress.stop()
        self.announce(self.tr("Reply stopped. What was written is kept."))
        self._keep_focus()

    def _on_reply_finished(self, stats: ReplyStats) -> None:
        self._progress.stop()
        if stats.stop_pressed_at is not None:
            return  # announced by _on_reply_stopped
        if stats.error:
            self.announce(self.tr("The reply failed: {error}").format(error=stats.error))
        else:
            self.announce(self.tr("Reply finished: %n token(s).", "", stats.tokens_shown))
        self._keep_focus()

    def _keep_focus(self) -> None:
        """A focus on the (now disabled) Stop button, or on no widget of the
        window, goes to the message box; focus elsewhere stays put."""
        focused = QApplication.focusWidget()
        window = self._prompt.window()
        assert window is not None
        if focused is None or focused is self._stop_button or not window.isAncestorOf(focused):
            if window.isActiveWindow() or focused is self._stop_button:
                self._prompt.setFocus()
