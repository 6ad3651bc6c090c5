"""Find in conversation (Ctrl+F): a bar under the view.

Matching follows the view's rule (``app.ui.conversation.find``) over the
text each message shows, so it covers messages that hold no layout and the
n-th match counted is the n-th the view highlights; it runs in time-boxed
slices on the GUI thread (``SLICE_BUDGET_S``, a ``TimeSlicer``; a long
message is matched a chunk at a time), so a 10-million-character
conversation never blocks the window. Next / previous scroll to the message of the match, and the view
highlights every match on screen.

Threading rule: GUI thread only.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator

from PyQt6.QtCore import Qt, pyqtSignal
from PyQt6.QtGui import QKeyEvent
from PyQt6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QToolButton, QWidget

from app.core.conversation.model import Message
from app.ui.conversation.find import CHUNK, count_chunks, find_pattern, message_texts
from app.ui.services.slicer import TimeSlicer

SLICE_BUDGET_S = 0.003


class _FindEdit(QLineEdit):
    #: Shift+Enter in the field.
    previous_requested = pyqtSignal()
    #: Esc in the field.
    close_requested = pyqtSignal()

    def keyPressEvent(self, event: QKeyEvent | None) -> None:
        if event is not None and event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            if event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
                self.previous_requested.emit()
            else:
                self.returnPressed.emit()
            return
        if event is not None and event.key() == Qt.Key.Key_Escape:
            self.close_requested.emit()
            return
        super().keyPressEvent(event)


class FindBar(QWidget):
    """Find in the conversation. ``messages`` returns the messages to search."""

    #: The current match moved; args: message id, n-th match within that message (0-based).
    match_selected = pyqtSignal(str, int)
    #: The search text changed (highlight it); arg: the text ('' clears).
    highlight_requested = pyqtSignal(str)
    #: The bar was closed.
    closed = pyqtSignal()
    #: A search pass finished; arg: number of matches.
    search_finished = pyqtSignal(int)
    #: A new count (``search_again``) found the current match again at a new
    #: place in the list; args: message id, n-th match within that message.
    #: Unlike ``match_selected`` nothing is to be scrolled: the reader stays.
    match_kept = pyqtSignal(str, int)

    def __init__(self, messages: Callable[[], list[Message]], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("findBar")
        self._messages = messages
        self.edit = _FindEdit()
        self.edit.setPlaceholderText(self.tr("Find in conversation"))
        self.edit.setAccessibleName(self.tr("Find in conversation"))
        self.edit.setClearButtonEnabled(True)
        self.count_label = QLabel("")
        self.count_label.setObjectName("findCount")
        self.prev_button = QToolButton()
        self.prev_button.setText("↑")
        self.prev_button.setToolTip(self.tr("Previous match (Shift+Enter)"))
        self.prev_button.setAccessibleName(self.tr("Previous match"))
        self.next_button = QToolButton()
        self.next_button.setText("↓")
        self.next_button.setToolTip(self.tr("Next match (Enter)"))
        self.next_button.setAccessibleName(self.tr("Next match"))
        self.close_button = QToolButton()
        self.close_button.setText("✕")
        self.close_button.setToolTip(self.tr("Close (Esc)"))
        self.close_button.setAccessibleName(self.tr("Close find bar"))
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 2, 0, 2)
        layout.addWidget(self.edit, 1)
        layout.addWidget(self.count_label)
        layout.addWidget(self.prev_button)
        layout.addWidget(self.next_button)
        layout.addWidget(self.close_button)
        self.matches: list[tuple[str, int]] = []   # (message id, n-th in message)
        self.current = -1
        self._done = True
        self._pass = 0
        self._keep: tuple[str, int] | None = None   # the match to keep current through a new count
        self._slicer = TimeSlicer(SLICE_BUDGET_S, self)
        self._connect_signals()

    def _connect_signals(self) -> None:
        self.edit.textChanged.connect(self._on_text_changed)
        self.edit.returnPressed.connect(self.find_next)
        self.edit.previous_requested.connect(self.find_previous)
        self.edit.close_requested.connect(self.close_bar)
        self.next_button.clicked.connect(self.find_next)
        self.prev_button.clicked.connect(self.find_previous)
        self.close_button.clicked.connect(self.close_bar)

    def open_bar(self) -> None:
        self.show()
        self.edit.setFocus()
        self.edit.selectAll()
        if self.edit.text():
            self._on_text_changed(self.edit.text())

    def close_bar(self) -> None:
        self._slicer.stop()
        self.hide()
        self.highlight_requested.emit("")
        self.closed.emit()

    def _on_text_changed(self, text: str) -> None:
        self._start(text, keep=None)

    def search_again(self) -> None:
        """The messages searched changed (a version switch, a delete, an
        undo): count again. The current match stays current when it is still
        there (``match_kept``); otherwise none is current until the next
        Enter, which goes to the first."""
        if not self.isVisible() or not self.edit.text():
            return
        keep = self.matches[self.current] if 0 <= self.current < len(self.matches) else None
        self._start(self.edit.text(), keep)

    def _start(self, text: str, keep: tuple[str, int] | None) -> None:
        self.matches = []
        self.current = -1
        self._keep = keep
        self.highlight_requested.emit(text)
        self._slicer.stop()
        pattern = find_pattern(text)
        if pattern is None:
            self._done = True
            self.count_label.setText(self.tr("No matches") if text else "")
            return
        self._done = False
        self._pass += 1
        self.count_label.setText(self.tr("Searching…"))
        messages = list(self._messages())
        self._slicer.queue(f"scan:{self._pass}", lambda: self._scan(pattern, messages))

    def _scan(self, pattern: re.Pattern[str], messages: list[Message]) -> Iterator[None]:
        """Count the matches message by message, each long text a chunk at a
        time; ends the slice whenever the budget is spent, inside a long
        message too."""
        budget = self._slicer.budget_s
        deadline = time.perf_counter() + budget
        matches = self.matches
        for msg in messages:
            k = 0
            for text in message_texts(msg):
                for found in count_chunks(pattern, text, CHUNK):
                    matches.extend((msg.id, k + j) for j in range(found))
                    k += found
                    if time.perf_counter() >= deadline:
                        self._update_label()
                        yield
                        deadline = time.perf_counter() + budget
        self._done = True
        keep, self._keep = self._keep, None
        if keep is not None:
            if keep in matches:
                self.current = matches.index(keep)
                self.match_kept.emit(*keep)
            self._update_label()
            self.search_finished.emit(len(matches))
            return
        self._update_label()
        self.search_finished.emit(len(matches))
        if matches and self.current < 0:
            self.current = 0
            self._select()

    def _update_label(self) -> None:
        n = len(self.matches)
        if not self._done:
            self.count_label.setText(self.tr("%n match(es)…", None, n))  # type: ignore[arg-type]  # PyQt6 stubs: no disambiguation is None
        elif n == 0:
            self.count_label.setText(self.tr("No matches"))
        elif self.current < 0:
            self.count_label.setText(self.tr("%n match(es)", None, n))  # type: ignore[arg-type]  # PyQt6 stubs: no disambiguation is None
        else:
            self.count_label.setText(self.tr("{current} of {total}").format(current=self.current + 1, total=n))

    def find_next(self) -> None:
        if self.matches:
            self.current = (self.current + 1) % len(self.matches)
            self._select()

    def find_previous(self) -> None:
        if self.matches:
            self.current = (self.current - 1) % len(self.matches)
            self._select()

    def _select(self) -> None:
        self._update_label()
        message_id, nth = self.matches[self.current]
        self.match_selected.emit(message_id, nth)

    @property
    def slices(self) -> int:
        """Search slices run (tests)."""
        return self._slicer.slices
