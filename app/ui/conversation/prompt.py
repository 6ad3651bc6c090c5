"""The prompt area: the message box plus the pasted-text attachments above it.

Rule: no user action blocks the GUI thread for more than 16 ms. Laying out
text is what costs (a 64 KB line without spaces takes ~30 ms to paste and
~15 ms per keystroke after it; a 1 MB one ~0.4 s), so large pasted text never
enters a Qt text widget:

* ``PromptEdit`` inserts a paste or a drop only when it is at most
  ``PASTE_INLINE_LIMIT`` characters *and* none of its lines is longer than
  ``PASTE_LINE_LIMIT`` characters. Anything bigger is handed over with
  ``large_text_pasted`` and the editor stays as it was.
* ``PromptArea`` keeps such text as a Python ``str`` (an *attachment*) and shows
  a small chip for it: kind, size, estimated tokens, a tooltip preview of its
  first ``PREVIEW_CHARS`` characters, and a remove button. Its cost at paste
  time is bounded: ``app.core.text.tokens_estimate.estimate`` samples long
  non-ASCII text instead of scanning it.

The thresholds were measured on the development VM (2 cores, offscreen Qt,
paste + repaint of an 84 px high prompt box; medians); see
``PASTE_INLINE_LIMIT`` below.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from dataclasses import dataclass

import regex
from PyQt6.QtCore import QLocale, QMimeData, QPoint, QRect, QSize, Qt, QTimer, pyqtSignal
from PyQt6.QtGui import QKeyEvent
from PyQt6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QLayout,
    QLayoutItem,
    QPlainTextEdit,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.core.text.tokens_estimate import TextEstimate, estimate, format_byte_size, format_token_count
from app.ui.services.activity import traced

#: Largest paste (in characters) that goes into the editor; longer text becomes
#: an attachment. Measured through PromptArea (paste + repaint, 2-core VM,
#: medians of 5; with the Noto CJK font for CJK): ordinary prose stays under
#: 2 ms even at 64 K characters, but one long line is laid out whole: a line
#: without spaces costs 4.1 ms at 4 K characters, 6.8 ms at 8 K, 9.7 ms at 16 K;
#: a CJK line 7.9 / 22 / 27 ms. With lines capped at ``PASTE_LINE_LIMIT`` the
#: worst 8 K paste measured 8.8 ms for CJK, 10.7 ms for emoji (16 K: 13.7 ms,
#: too close to the 16 ms budget for slower machines).
PASTE_INLINE_LIMIT = 8192
#: Longest line (in characters) a paste may contain and still go inline. A long
#: line is also re-laid out on every later keystroke (a 4 K-character CJK line:
#: ~4.5 ms per key; 16 K: ~13 ms), so lines are capped more tightly than the total.
PASTE_LINE_LIMIT = 2048
#: Characters of an attachment shown in its tooltip.
PREVIEW_CHARS = 60
#: While typed text is at most this long its token estimate is refreshed on each
#: change; a longer document is re-estimated after a short pause.
IMMEDIATE_ESTIMATE_CHARS = 32 * 1024
ESTIMATE_DELAY_MS = 150

# Where QTextCursor.insertText starts a new block (a new line to lay out).
_BLOCK_BREAK = re.compile("[\n\r\u2029]")
_GRAPHEME = regex.compile(r"\X")


def pasted_text_is_large(text: str) -> bool:
    """True when ``text`` should become an attachment instead of going inline."""
    if len(text) > PASTE_INLINE_LIMIT:
        return True
    if len(text) <= PASTE_LINE_LIMIT:
        return False
    return max(map(len, _BLOCK_BREAK.split(text))) > PASTE_LINE_LIMIT


#: UTF-8 longer than this is always more than ``PASTE_INLINE_LIMIT`` characters (an attachment).
ATTACHMENT_BYTES = 4 * PASTE_INLINE_LIMIT
_ASCII_SPACE = b" \t\n\r\x0b\x0c"
_SCAN = 4096


def ascii_space_bounds(data: memoryview) -> tuple[int, int]:
    """``(start, end)``: ``data`` without the ASCII white space at both ends
    (read in 4 KB pieces: a paste of nothing but spaces costs no Python step
    per byte)."""
    start, end = 0, len(data)
    while start < end:
        piece = bytes(data[start : start + _SCAN])
        kept = piece.lstrip(_ASCII_SPACE)
        start += len(piece) - len(kept)
        if kept:
            break
    while end > start:
        piece = bytes(data[max(start, end - _SCAN) : end])
        kept = piece.rstrip(_ASCII_SPACE)
        end -= len(piece) - len(kept)
        if kept:
            break
    return start, end


def mime_text(source: QMimeData) -> str:
    """``source.text()``, without PyQt's slow QString conversion; text long
    enough to become an attachment comes without the white space at its
    ends (trimmed before it is decoded: sending it then copies nothing).

    PyQt turns a QString into a str at ~2 ms per MB of ASCII (8 ms for a 4 MB
    paste); Qt's own UTF-8 encoder plus Python's UTF-8 decoder take ~0.5 ms
    for the same text (CJK: 4.7 ms vs 3.1 ms per 1.4 M characters; worst
    measured, mixed emoji: ~2.2 ms per MB either way). Same formats, same
    order as ``QMimeData::text()``; falls back to it for URL-only data or
    bytes that are not UTF-8."""
    for fmt in ("text/plain;charset=utf-8", "text/plain"):
        if source.hasFormat(fmt):
            raw = source.data(fmt)
            if raw.isEmpty():
                break
            data = memoryview(raw)  # type: ignore[arg-type]  # PyQt6 stubs: QByteArray is a buffer (no copy)
            if len(data) > ATTACHMENT_BYTES:
                start, end = ascii_space_bounds(data)
                data = data[start:end]
            try:
                return str(data, "utf-8")
            except UnicodeDecodeError:
                break
    return source.text()


def preview(text: str, limit: int = PREVIEW_CHARS) -> str:
    """The first ``limit`` characters (whole grapheme clusters, runs of
    whitespace shown as one space), with "…" when the text goes on. Reads at
    most a few hundred characters of ``text``."""
    head = text[: limit * 4]
    clusters = _GRAPHEME.findall(" ".join(head.split()))[: limit + 1]
    if len(clusters) > limit or len(text) > len(head):
        return "".join(clusters[:limit]).rstrip() + "…"
    return "".join(clusters)


class PromptEdit(QPlainTextEdit):
    """The message box: Enter sends, Shift+Enter starts a new line; large
    pasted or dropped text is not inserted but handed over with
    ``large_text_pasted`` (connect it, e.g. through ``PromptArea``)."""

    #: The user pressed Enter to send the prompt.
    submit_requested = pyqtSignal()
    #: Pasted or dropped text too large to go inline; arg: the text (a str,
    #: declared ``object`` so megabytes pass by reference, not via a QString copy).
    large_text_pasted = pyqtSignal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        #: Takes a paste or drop of files or an image (True: taken, nothing is inserted).
        self.file_paste: Callable[[QMimeData], bool] | None = None
        self.setAccessibleName(self.tr("Message"))
        self.setToolTip(
            self.tr(
                "Type your message. Enter sends it, Shift+Enter starts a new line. "
                "Long pasted text becomes an attachment above the box."
            )
        )

    def keyPressEvent(self, event: QKeyEvent | None) -> None:  # noqa: N802 (Qt API)
        if (
            event is not None
            and event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter)
            and not event.modifiers() & Qt.KeyboardModifier.ShiftModifier
        ):
            self.submit_requested.emit()
            return
        super().keyPressEvent(event)

    def canInsertFromMimeData(self, source: QMimeData | None) -> bool:  # noqa: N802 (Qt API)
        # Qt's default converts the whole text to test that it is non-empty, on
        # every drag-move event; asking for the format is O(1).
        if source is None:
            return False
        if self.file_paste is not None and (source.hasUrls() or source.hasImage()):
            return True
        return source.hasText() or super().canInsertFromMimeData(source)

    @traced("paste")
    def insertFromMimeData(self, source: QMimeData | None) -> None:  # noqa: N802 (Qt API)
        """Paste (Ctrl+V, middle click, context menu) and drop both end here."""
        if source is None:
            return
        if self.file_paste is not None and self.file_paste(source):
            return  # files or an image: attached (app.ui.window.attachments)
        if source.hasText():
            text = mime_text(source)
            if pasted_text_is_large(text):
                self.large_text_pasted.emit(text)
                return
        super().insertFromMimeData(source)


class _FlowLayout(QLayout):
    """Lays chips out left to right and wraps them onto more rows, so many
    attachments never force the window wider (Qt's flow layout example)."""

    def __init__(self, parent: QWidget | None = None, spacing: int = 6) -> None:
        super().__init__(parent)
        self._items: list[QLayoutItem] = []
        self._gap = spacing

    def addItem(self, item: QLayoutItem | None) -> None:  # noqa: N802 (Qt API)
        if item is not None:
            self._items.append(item)

    def count(self) -> int:
        return len(self._items)

    def itemAt(self, index: int) -> QLayoutItem | None:  # noqa: N802 (Qt API)
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int) -> QLayoutItem | None:  # noqa: N802 (Qt API)
        return self._items.pop(index) if 0 <= index < len(self._items) else None

    def expandingDirections(self) -> Qt.Orientation:  # noqa: N802 (Qt API)
        return Qt.Orientation(0)

    def hasHeightForWidth(self) -> bool:  # noqa: N802 (Qt API)
        return True

    def heightForWidth(self, width: int) -> int:  # noqa: N802 (Qt API)
        return self._arrange(QRect(0, 0, width, 0), move=False)

    def setGeometry(self, rect: QRect) -> None:  # noqa: N802 (Qt API)
        super().setGeometry(rect)
        self._arrange(rect, move=True)

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt API)
        return self.minimumSize()

    def minimumSize(self) -> QSize:  # noqa: N802 (Qt API)
        size = QSize()
        for item in self._items:
            size = size.expandedTo(item.minimumSize())
        m = self.contentsMargins()
        return size + QSize(m.left() + m.right(), m.top() + m.bottom())

    def _arrange(self, rect: QRect, move: bool) -> int:
        m = self.contentsMargins()
        area = rect.adjusted(m.left(), m.top(), -m.right(), -m.bottom())
        x, y, row_height = area.x(), area.y(), 0
        for item in self._items:
            if item.isEmpty():
                continue
            hint = item.sizeHint()
            if x > area.x() and x + hint.width() > area.right() + 1:
                x, y, row_height = area.x(), y + row_height + self._gap, 0
            if move:
                item.setGeometry(QRect(QPoint(x, y), hint))
            x += hint.width() + self._gap
            row_height = max(row_height, hint.height())
        return y + row_height - rect.y() + m.bottom()


@dataclass(frozen=True)
class Attachment:
    """Text kept beside the message box (never in a Qt text widget)."""

    text: str
    size: TextEstimate


class AttachmentChip(QFrame):
    """One attachment shown as "Pasted text · 4.2 MB · ≈1.2 M tokens" [×]."""

    #: The user clicked the chip's remove button.
    remove_requested = pyqtSignal()

    def __init__(self, attachment: Attachment, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("attachmentChip")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        size = attachment.size
        size_text = format_byte_size(size.utf8_bytes)
        summary = self.tr("Pasted text · {size} · ≈{tokens} tokens").format(
            size=size_text, tokens=format_token_count(size.tokens)
        )
        tip = self.tr(
            "Pasted text ({size}, {chars} characters), sent after your message. Begins: “{preview}”"
        ).format(size=size_text, chars=QLocale().toString(size.chars), preview=preview(attachment.text))
        # Escaped and marked as rich text: pasted markup must not be rendered.
        rich_tip = "<p>" + html.escape(tip) + "</p>"

        self.label = QLabel(summary)
        self.label.setObjectName("attachmentLabel")
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.label.setAccessibleName(summary)
        self.label.setToolTip(rich_tip)
        self.remove_button = QToolButton()
        self.remove_button.setObjectName("attachmentRemove")
        self.remove_button.setText("×")
        self.remove_button.setAutoRaise(True)
        self.remove_button.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.remove_button.setAccessibleName(self.tr("Remove pasted text ({size})").format(size=size_text))
        self.remove_button.setToolTip(self.tr("Remove this attachment: it will not be sent"))
        self.remove_button.clicked.connect(self.remove_requested)

        self.setAccessibleName(summary)
        self.setAccessibleDescription(preview(attachment.text))
        self.setToolTip(rich_tip)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 1, 2, 1)
        layout.setSpacing(4)
        layout.addWidget(self.label)
        layout.addWidget(self.remove_button)


class PromptArea(QWidget):
    """The message box with its attachments and a context-size warning.

    ``text()`` is what to send: the typed text (when it is not blank), then
    each attachment in the order it was pasted, joined by a blank line.
    """

    #: The user pressed Enter in the message box.
    submit_requested = pyqtSignal()
    #: An attachment was added or removed (also by ``clear()``).
    attachments_changed = pyqtSignal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("promptArea")
        self.setAccessibleName(self.tr("Message composer"))
        self._attachments: list[Attachment] = []
        self._chips: list[AttachmentChip] = []
        self._context_limit: int | None = None
        self._typed_tokens = 0
        self._typed_blank = True
        self._typed_dirty = True

        self.editor = PromptEdit()
        self.editor.setObjectName("prompt")

        self.chips_row = QWidget()
        self.chips_row.setObjectName("attachments")
        self.chips_row.setAccessibleName(self.tr("Attachments"))
        self.chips_row.setToolTip(self.tr("Pasted text sent with your message"))
        self._chips_layout = _FlowLayout(self.chips_row)
        self._chips_layout.setContentsMargins(0, 0, 0, 0)
        self.chips_row.hide()

        self.warning = QLabel()
        self.warning.setObjectName("promptWarning")
        self.warning.setTextFormat(Qt.TextFormat.PlainText)
        self.warning.setWordWrap(True)
        self.warning.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
        self.warning.setAccessibleName(self.tr("Message too long"))
        self.warning.setToolTip(
            self.tr("Tokens are estimated without the model's tokenizer; the real count differs a little.")
        )
        self.warning.hide()

        # (the chip and the warning are styled by the theme: resources/style.qss)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        layout.addWidget(self.chips_row)
        layout.addWidget(self.editor, 1)
        layout.addWidget(self.warning)
        self.setFocusProxy(self.editor)

        self._estimate_timer = QTimer(self)
        self._estimate_timer.setSingleShot(True)
        self._estimate_timer.setInterval(ESTIMATE_DELAY_MS)
        self._connect_signals()

    def _connect_signals(self) -> None:
        self.editor.submit_requested.connect(self.submit_requested)
        self.editor.large_text_pasted.connect(self.add_attachment)
        self.editor.textChanged.connect(self._on_text_changed)
        self._estimate_timer.timeout.connect(self._update_warning)

    # -- message -----------------------------------------------------------

    def text(self) -> str:
        """The message to send: the typed text (stripped; left out when blank)
        and then each attachment in paste order, separated by a blank line
        ("\\n\\n"). Without attachments: the typed text as is."""
        typed = self.editor.toPlainText()
        if not self._attachments:
            return typed
        parts = [a.text for a in self._attachments]
        typed = typed.strip()  # (the message is stripped when sent: here, that copies no attachment)
        if typed:
            parts.insert(0, typed)
        return "\n\n".join(parts)

    def clear(self) -> None:
        """Empty the message box and drop every attachment."""
        self.editor.clear()
        if self._attachments:
            self._attachments.clear()
            for chip in self._chips:
                self._discard_chip(chip)
            self._chips.clear()
            self._attachments_changed()

    # -- attachments -------------------------------------------------------

    def attachments(self) -> tuple[str, ...]:
        """The attachments' texts, in paste order."""
        return tuple(a.text for a in self._attachments)

    def chips(self) -> tuple[AttachmentChip, ...]:
        """The attachment chips, in paste order."""
        return tuple(self._chips)

    def add_attachment(self, text: str) -> None:
        """Keep ``text`` beside the message (what large pastes do)."""
        attachment = Attachment(text, estimate(text))
        chip = AttachmentChip(attachment)
        chip.remove_requested.connect(lambda: self._remove_chip(chip))
        self._attachments.append(attachment)
        self._chips.append(chip)
        self._chips_layout.addWidget(chip)
        self.chips_row.show()
        self._attachments_changed()

    def remove_attachment(self, index: int) -> None:
        """Drop the attachment at ``index`` (paste order)."""
        self._attachments.pop(index)
        self._discard_chip(self._chips.pop(index))
        self._attachments_changed()

    def _remove_chip(self, chip: AttachmentChip) -> None:
        if chip in self._chips:
            had_focus = chip.remove_button.hasFocus()
            self.remove_attachment(self._chips.index(chip))
            if had_focus:
                self.editor.setFocus(Qt.FocusReason.OtherFocusReason)

    def _discard_chip(self, chip: AttachmentChip) -> None:
        self._chips_layout.removeWidget(chip)
        chip.hide()
        chip.deleteLater()

    def _attachments_changed(self) -> None:
        self.chips_row.setVisible(bool(self._chips))
        self._update_warning()
        self.attachments_changed.emit()

    # -- context limit -----------------------------------------------------

    def set_context_limit(self, n_tokens: int | None) -> None:
        """The model's context size in tokens (None: unknown, no warning)."""
        self._context_limit = n_tokens
        self._update_warning()

    def estimated_tokens(self) -> int:
        """Estimated tokens of ``text()`` (see ``app.core.text.tokens_estimate``), without building it."""
        if self._typed_dirty:
            typed = self.editor.toPlainText()
            self._typed_blank = not typed.strip()
            self._typed_tokens = estimate(typed).tokens
            self._typed_dirty = False
        typed_tokens = 0 if self._attachments and self._typed_blank else self._typed_tokens
        parts = len(self._attachments) + (1 if typed_tokens else 0)
        separators = max(0, parts - 1)  # "\n\n": about one token each
        return typed_tokens + sum(a.size.tokens for a in self._attachments) + separators

    def over_limit(self) -> bool:
        """True when ``text()`` is estimated to exceed the context limit."""
        return self._context_limit is not None and self.estimated_tokens() > self._context_limit

    def _on_text_changed(self) -> None:
        self._typed_dirty = True
        if self._context_limit is None:
            return
        document = self.editor.document()
        assert document is not None
        if document.characterCount() <= IMMEDIATE_ESTIMATE_CHARS:
            self._update_warning()
        else:
            self._estimate_timer.start()

    def _update_warning(self) -> None:
        self._estimate_timer.stop()
        context_limit = self._context_limit
        if context_limit is None or not self.over_limit():
            self.warning.hide()
            self.warning.clear()
            return
        tokens = format_token_count(self.estimated_tokens())
        limit = QLocale().toString(context_limit)
        n = len(self._attachments)
        if n == 0:
            text = self.tr(
                "This message is about {tokens} tokens; the model's context holds {limit}. "
                "Send a shorter message."
            )
        elif n == 1:
            text = self.tr(
                "This message is about {tokens} tokens; the model's context holds {limit}. "
                "Remove the attachment or send a shorter part."
            )
        else:
            text = self.tr(
                "This message is about {tokens} tokens; the model's context holds {limit}. "
                "Remove an attachment or send a shorter part."
            )
        self.warning.setText(text.format(tokens=tokens, limit=limit))
        self.warning.show()
