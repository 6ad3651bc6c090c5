"""The transcript: a read-only QTextBrowser that streams replies cheaply.

Streaming text is appended as plain text at the end through a private
QTextCursor (O(1) per append, the user's selection untouched). Completed
Markdown blocks of the reply are later spliced in as HTML, only by document
range, a slice at a time; when the reply ends the rest is rendered the same
way, and a reply whose Markdown crosses blocks (reference links) gets one full
render. Nothing ever calls setHtml/setPlainText on the transcript.

Invariant while a reply streams: it is the last thing in the document, and its
plain tail (``_Reply.tail_doc_len`` positions) ends the document and starts at
a block boundary.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from PyQt6.QtCore import QUrl, pyqtSignal
from PyQt6.QtGui import (
    QColor,
    QDesktopServices,
    QFont,
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
)
from PyQt6.QtWidgets import QTextBrowser, QWidget

from app.core import render

ALLOWED_LINK_SCHEMES = ("http", "https")
_USER_COLOR = "#1f6feb"
_REPLY_COLOR = "#8250df"
_LEAD_PARAGRAPH = "<p>\u200b</p>"  # see _insert_html
# A commit renders about this many characters at a time: python-markdown with
# Pygments costs roughly 5-8 ms per KB here, and inserting a table costs Qt
# ~11 ms in a 1 M-character transcript (linear in the tables above it), so a
# slice holds one or two blocks and a pass stays within budget.
_COMMIT_SLICE_CHARS = 320


# The streaming tail breaks paragraphs longer than this for display (QTextLayout
# re-lays the whole paragraph on every append: ~30 ms at 100 KB).
_PARAGRAPH_LIMIT = 2000
# Blocks longer than this stay plain text: rendering one would block the GUI
# thread for tens of milliseconds (about 1.3 ms per KB).
_RENDER_LIMIT = 8000


def _next_cut(pending: str, final: bool) -> int:
    """Where the next slice of complete blocks ends in ``pending`` (0: none yet).

    Prefers a slice of about _COMMIT_SLICE_CHARS; a single longer block is
    taken whole. With ``final`` the end of the text is a valid cut too.
    """
    limit = _COMMIT_SLICE_CHARS
    while True:
        if final and len(pending) <= limit:
            return len(pending)
        cut = render.find_cut(pending[:limit], 0)
        if cut or limit >= len(pending):
            return cut
        limit *= 2


def utf16_len(text: str) -> int:
    """Length in QTextDocument positions (UTF-16 code units)."""
    return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)


@dataclass(frozen=True)
class MessageSpan:
    """A message body's range in the document (positions, end exclusive)."""

    start: int
    end: int


@dataclass
class _Reply:
    body_start: int
    committed: list[str] = field(default_factory=list)  # raw text already shown as HTML
    pending: list[str] = field(default_factory=list)    # raw text shown as the plain tail
    tail_doc_len: int = 0                                # the tail's length in the document
    committed_len: int = 0                               # len("".join(committed))
    total_len: int = 0                                   # len(text())
    # Raw offsets where a display-only block break was put into an overlong
    # paragraph of the tail (it sits just before the character at the offset).
    breaks: list[int] = field(default_factory=list)

    def doc_len(self, start: int, end: int, raw: str) -> int:
        """Document length of raw text [start, end) of the tail, breaks included."""
        return utf16_len(raw) + sum(1 for b in self.breaks if start < b < end)

    def text(self) -> str:
        return "".join(self.committed) + "".join(self.pending)


class TranscriptView(QTextBrowser):
    """The conversation as the user sees it (GUI thread only)."""

    #: An http(s) link was clicked and handed to the system browser; arg: the URL.
    link_opened = pyqtSignal(QUrl)
    #: A link with a disallowed scheme was clicked and ignored; arg: the URL.
    link_blocked = pyqtSignal(QUrl)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("transcript")
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self.setReadOnly(True)
        doc = self.document()
        doc.setUndoRedoEnabled(False)
        doc.setDocumentMargin(12)
        self._cursor = QTextCursor(doc)
        self._reply: _Reply | None = None
        self._plain_fmt = QTextCharFormat()
        self._plain_block = QTextBlockFormat()
        self._plain_block.setBottomMargin(0)
        self._plain_block.setTopMargin(0)
        self.last_span: MessageSpan | None = None
        self.anchorClicked.connect(self._on_anchor_clicked)

    # -- safety -------------------------------------------------------------

    def loadResource(self, type_: int, name: QUrl) -> object:  # noqa: N802 (Qt API)
        """Never load anything a message refers to (images, local files...)."""
        return None

    def _on_anchor_clicked(self, url: QUrl) -> None:
        if url.scheme().lower() in ALLOWED_LINK_SCHEMES and url.host():
            QDesktopServices.openUrl(url)
            self.link_opened.emit(url)
        else:
            self.link_blocked.emit(url)

    # -- building blocks ----------------------------------------------------

    def _at_bottom(self) -> bool:
        sb = self.verticalScrollBar()
        return sb.value() >= sb.maximum() - 4

    def _scroll_to_bottom(self) -> None:
        sb = self.verticalScrollBar()
        sb.setValue(sb.maximum())

    def _selection_touching(self, position: int) -> tuple[int, int] | None:
        """The user's selection (anchor, position) if it ends at ``position``:
        text inserted there would stretch it. None otherwise."""
        tc = self.textCursor()
        if not tc.hasSelection() or max(tc.anchor(), tc.position()) < position:
            return None
        return tc.anchor(), tc.position()

    def _restore_selection(self, selection: tuple[int, int]) -> None:
        tc = QTextCursor(self.document())
        tc.setPosition(selection[0])
        tc.setPosition(selection[1], QTextCursor.MoveMode.KeepAnchor)
        sb = self.verticalScrollBar()
        value = sb.value()
        self.setTextCursor(tc)  # may scroll to the cursor: put the view back
        sb.setValue(value)

    def _end(self) -> QTextCursor:
        self._cursor.movePosition(QTextCursor.MoveOperation.End)
        return self._cursor

    def _new_block(self, cursor: QTextCursor) -> None:
        """Start a fresh, unformatted block at the end (none for an empty document)."""
        if self.document().characterCount() > 1:
            cursor.insertBlock(self._plain_block, self._plain_fmt)
        else:
            cursor.setBlockFormat(self._plain_block)
            cursor.setCharFormat(self._plain_fmt)

    def _insert_html(self, cursor: QTextCursor, html: str, floor: int) -> None:
        """Insert rendered HTML at ``cursor``, which is at the start of an empty block.

        QTextCursor.insertHtml merges the fragment's first block into the
        current one, which loses that block's own format (a code block's
        background, a list's structure). So a throw-away first paragraph goes
        in front and is removed afterwards, together with its block. A table
        never merges (it is a frame); the empty block left in front of it is
        folded into the block before, unless that is at or before ``floor``
        (the message's header) or is itself part of a frame.
        """
        if not html:
            return
        start = cursor.position()
        if html.lstrip().startswith("<table"):
            cursor.insertHtml(html)
            if start - 1 > floor:
                before = QTextCursor(self.document())
                before.setPosition(start - 1)
                if before.currentTable() is None and before.currentFrame() == self.document().rootFrame():
                    before.setPosition(start, QTextCursor.MoveMode.KeepAnchor)
                    before.removeSelectedText()
            return
        cursor.insertHtml(_LEAD_PARAGRAPH + html)
        fix = QTextCursor(self.document())
        fix.setPosition(start)
        fix.movePosition(QTextCursor.MoveOperation.NextBlock, QTextCursor.MoveMode.KeepAnchor)
        fix.removeSelectedText()

    def _insert_header(self, label: str, color: str) -> None:
        cursor = self._end()
        pinned = self._selection_touching(cursor.position())
        self._new_block(cursor)
        if pinned is not None:
            self._restore_selection(pinned)
        fmt = QTextBlockFormat(self._plain_block)
        fmt.setTopMargin(14)
        fmt.setBottomMargin(2)
        cursor.setBlockFormat(fmt)
        char = QTextCharFormat()
        char.setFontWeight(QFont.Weight.Bold)
        char.setForeground(QColor(color))
        cursor.insertText(label, char)

    # -- messages -------------------------------------------------------------

    def add_user_message(self, text: str) -> MessageSpan:
        """The user's message, as typed (no Markdown)."""
        return self._add_message("You", _USER_COLOR, render.render_user_text(text))

    def add_rendered_reply(self, text: str, label: str = "Rill") -> MessageSpan:
        """A finished reply from earlier (history), rendered in one go."""
        return self._add_message(label, _REPLY_COLOR, render.render_markdown(text))

    def _add_message(self, label: str, color: str, html: str) -> MessageSpan:
        stick = self._at_bottom()
        self._insert_header(label, color)
        cursor = self._end()
        self._new_block(cursor)
        start = cursor.position()
        self._insert_html(cursor, html, start)
        span = MessageSpan(start, self._end().position())
        if stick:
            self._scroll_to_bottom()
        return span

    def add_notice(self, text: str, kind: str = "info") -> None:
        """A line outside the conversation: model errors, warnings, status."""
        colors = {"error": "#b42318", "warning": "#9a6700", "info": "#57606a"}
        stick = self._at_bottom()
        cursor = self._end()
        self._new_block(cursor)
        fmt = QTextBlockFormat(self._plain_block)
        fmt.setTopMargin(8)
        cursor.setBlockFormat(fmt)
        char = QTextCharFormat()
        char.setForeground(QColor(colors.get(kind, colors["info"])))
        if kind != "info":
            char.setFontWeight(QFont.Weight.DemiBold)
        cursor.insertText(text, char)
        if stick:
            self._scroll_to_bottom()

    def begin_reply(self, label: str = "Rill") -> None:
        stick = self._at_bottom()
        self._insert_header(label, _REPLY_COLOR)
        cursor = self._end()
        self._new_block(cursor)
        self._reply = _Reply(body_start=cursor.position())
        if stick:
            self._scroll_to_bottom()

    @property
    def streaming(self) -> bool:
        return self._reply is not None

    def append_reply_text(self, text: str) -> None:
        """Append streamed text at the end of the reply: O(len(text)).

        Layout cost grows with the length of the paragraph being edited, so a
        tail paragraph longer than _PARAGRAPH_LIMIT gets a display-only block
        break at the next space (the final render shows the paragraph whole).
        """
        reply = self._reply
        if reply is None or not text:
            return
        stick = self._at_bottom()
        end = self._end()
        pinned = self._selection_touching(end.position())
        split = -1
        if end.block().length() > _PARAGRAPH_LIMIT:
            newline, space = text.find("\n"), text.find(" ")
            if space >= 0 and (newline < 0 or space < newline):
                split = space + 1
        if split > 0:
            end.insertText(text[:split], self._plain_fmt)
            end.insertBlock(self._plain_block, self._plain_fmt)
            end.insertText(text[split:], self._plain_fmt)
            reply.breaks.append(reply.total_len + split)
            reply.tail_doc_len += 1
        else:
            end.insertText(text, self._plain_fmt)
        if pinned is not None:
            self._restore_selection(pinned)
        reply.pending.append(text)
        reply.total_len += len(text)
        reply.tail_doc_len += utf16_len(text)
        if stick:
            self._scroll_to_bottom()

    def commit_completed_blocks(self, budget_s: float = 0.006, final: bool = False) -> int:
        """Render the reply's newly completed Markdown blocks in place.

        Works on the plain tail only, a slice of blocks at a time, until
        ``budget_s`` is spent (at least one slice). With ``final`` the stream
        has ended, so the whole tail counts as complete. Returns how many
        characters of raw text were committed.
        """
        reply = self._reply
        if reply is None or not reply.pending:
            return 0
        deadline = time.perf_counter() + budget_s
        pending = "".join(reply.pending)
        done = 0
        stick = self._at_bottom()
        while pending:
            cut = _next_cut(pending, final)
            if cut == 0:
                break
            block, pending = pending[:cut], pending[cut:]
            if len(block) > _RENDER_LIMIT:
                # Pathologically long block: rendering it would stall the
                # GUI, so it stays as the plain text already on screen.
                self._keep_plain(reply, block)
            else:
                self._splice_block(reply, block, render.render_markdown(block))
            reply.committed.append(block)
            reply.committed_len += len(block)
            done += cut
            # Stop early rather than overrun: the next slice may cost as much.
            if time.perf_counter() >= deadline - budget_s / 2:
                break
        reply.pending = [pending] if pending else []
        if stick:
            self._scroll_to_bottom()
        return done

    @property
    def pending_chars(self) -> int:
        """Characters of the streaming reply still shown as plain text."""
        return sum(map(len, self._reply.pending)) if self._reply else 0

    def _block_doc_len(self, reply: _Reply, block: str) -> int:
        """The document length of ``block`` at the start of the tail; forgets
        the display-only breaks inside it."""
        start, end = reply.committed_len, reply.committed_len + len(block)
        length = reply.doc_len(start, end, block)
        if reply.breaks:
            reply.breaks = [b for b in reply.breaks if b >= end]
        return length

    def _keep_plain(self, reply: _Reply, block: str) -> None:
        reply.tail_doc_len -= self._block_doc_len(reply, block)

    def _splice_block(self, reply: _Reply, block: str, html: str) -> None:
        """Replace ``block`` (the start of the plain tail) by its HTML."""
        doc_end = self.document().characterCount() - 1
        tail_start = doc_end - reply.tail_doc_len
        block_len = self._block_doc_len(reply, block)
        cur = QTextCursor(self.document())
        cur.beginEditBlock()
        cur.setPosition(tail_start)
        cur.setPosition(tail_start + block_len, QTextCursor.MoveMode.KeepAnchor)
        cur.removeSelectedText()
        if html.strip() and block_len < reply.tail_doc_len:
            # The rest of the tail now starts at tail_start: give the HTML a
            # block of its own in front of it. (Blank lines render as nothing
            # and get no block.)
            cur.insertBlock(self._plain_block, self._plain_fmt)
            cur.setPosition(tail_start)
        self._insert_html(cur, html, reply.body_start)
        cur.endEditBlock()
        reply.tail_doc_len -= block_len

    def finalize_reply(self, note: str, note_kind: str = "info") -> MessageSpan:
        """Close the streaming reply: render what is left, mark how it ended.

        Normally the tail was committed already, slice by slice
        (``commit_completed_blocks(final=True)``); whatever is left is rendered
        here. Markdown whose meaning crosses blocks (reference links defined
        later) gets one full render of the message.
        """
        reply = self._reply
        if reply is None:
            raise RuntimeError("no reply is streaming")
        stick = self._at_bottom()
        self.commit_completed_blocks(budget_s=float("inf"), final=True)
        text = reply.text()
        if len(reply.committed) > 1 and len(text) <= _RENDER_LIMIT and render.needs_full_render(text):
            cur = QTextCursor(self.document())
            cur.beginEditBlock()
            cur.setPosition(reply.body_start)
            cur.movePosition(QTextCursor.MoveOperation.End, QTextCursor.MoveMode.KeepAnchor)
            cur.removeSelectedText()
            cur.setBlockFormat(self._plain_block)
            cur.setCharFormat(self._plain_fmt)
            self._insert_html(cur, render.render_markdown(text), reply.body_start)
            cur.endEditBlock()
        span = MessageSpan(reply.body_start, self._end().position())
        self._reply = None
        self.last_span = span
        if note:
            self.add_notice(note, note_kind)
        if stick:
            self._scroll_to_bottom()
        return span

    def warm_up(self, sample_markdown: str) -> None:
        """Lay out a throw-away document with the transcript's fonts, so the
        first reply does not pay for font loading and glyph fallback (CJK,
        emoji, monospace: tens of ms, once). Call at start-up idle."""
        doc = QTextDocument()
        doc.setDefaultFont(self.document().defaultFont())
        doc.setTextWidth(max(200, self.viewport().width()))
        cur = QTextCursor(doc)
        cur.insertHtml(render.render_markdown(sample_markdown))
        cur.insertText(sample_markdown)
        doc.documentLayout().documentSize()

    # -- reading back -----------------------------------------------------------

    def span_text(self, span: MessageSpan) -> str:
        cur = QTextCursor(self.document())
        cur.setPosition(span.start)
        cur.setPosition(span.end, QTextCursor.MoveMode.KeepAnchor)
        return cur.selection().toPlainText()

    def span_links(self, span: MessageSpan) -> list[str]:
        """The href of every link in ``span``, in document order."""
        links: list[str] = []
        block = self.document().findBlock(span.start)
        while block.isValid() and block.position() < span.end:
            it = block.begin()
            while not it.atEnd():
                frag = it.fragment()
                if frag.isValid() and span.start <= frag.position() < span.end:
                    fmt = frag.charFormat()
                    if fmt.isAnchor() and fmt.anchorHref():
                        links.append(fmt.anchorHref())
                it += 1
            block = block.next()
        return links

    def clear_transcript(self) -> None:
        self._reply = None
        self.last_span = None
        self.document().clear()
        self._cursor = QTextCursor(self.document())
