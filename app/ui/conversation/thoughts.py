"""A reply's thinking, shown folded above its answer (``ThoughtsFold``):
which messages have their thoughts unfolded (kept per message id, so it
survives an item leaving the live window or the conversation being shown
again), the header's label ("▸ Thought for N words"), and the unfolded
thoughts' document: escaped PLAIN text, never Markdown or HTML, with
display-only breaks.

Threading rule: GUI thread only.
"""

from __future__ import annotations

from PyQt6.QtCore import QCoreApplication
from PyQt6.QtGui import QTextCursor

from app.core.text.thinking import count_words
from app.ui.conversation.find import FindHighlighter
from app.ui.conversation.items import WORDS_EXACT_LIMIT, Item, ThoughtsState


class ThoughtsFold:
    """The unfolded set and the thoughts' documents' text (see the module docstring)."""

    def __init__(self, find: FindHighlighter) -> None:
        self._find = find
        self.open: set[str] = set()  # ids of messages whose thoughts are unfolded

    def insert(self, think: ThoughtsState, text: str) -> None:
        """Append thoughts to their document as PLAIN text (never parsed),
        with display-only breaks (no paragraph outgrows ``BREAK_LIMIT``);
        leading whitespace is not shown."""
        assert think.cursor is not None and think.breaker is not None
        if not think.shown:
            text = text.lstrip()
            if not text:
                return
            think.shown = True
        cursor = think.cursor
        cursor.movePosition(QTextCursor.MoveOperation.End)
        start = 0
        for b in think.breaker.feed(text):
            if b > start:
                cursor.insertText(text[start:b])
            if not cursor.atBlockStart():
                cursor.insertBlock()
            start = b
        cursor.insertText(text[start:])
        if think.doc is not None:
            self._find.changed(think.doc)

    def trim(self, think: ThoughtsState) -> None:
        """Drop the trailing whitespace shown (the thoughts are complete)."""
        doc = think.doc
        if doc is None:
            return
        end = doc.characterCount() - 1
        pos = end
        while pos > 0 and doc.characterAt(pos - 1).isspace():
            pos -= 1
        if pos < end:
            cursor = QTextCursor(doc)
            cursor.setPosition(pos)
            cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
            cursor.removeSelectedText()
            self._find.invalidate(doc)

    def drop(self, think: ThoughtsState) -> None:
        if think.doc is not None:
            think.doc.deleteLater()
        think.doc = think.cursor = think.breaker = None
        think.filling, think.pending, think.shown = False, [], False

    def words(self, item: Item) -> tuple[int, bool]:
        """(words in the thoughts, estimated?): counted once, when first shown."""
        think = item.think
        assert think is not None
        if think.words < 0:
            n = think.end - think.start
            if n > WORDS_EXACT_LIMIT or item.message is None:
                return n // 6, True
            think.words = count_words(item.message.content[think.start : think.end])
        return think.words, False

    def label(self, item: Item) -> str:
        think = item.think
        assert think is not None
        arrow = "▾" if think.expanded else "▸"
        words, estimated = self.words(item)
        # The English plural is chosen here ("1 word" / "2 words"); %n lets
        # other languages choose their own forms.
        if item.streaming and not think.closed:
            if not words:
                text = QCoreApplication.translate("ChatView", "Thinking…")
            elif estimated:
                text = QCoreApplication.translate("ChatView", "Thinking… · ~%n words", None, words)  # type: ignore[arg-type]  # PyQt6 stubs: no disambiguation is None
            elif words == 1:
                text = QCoreApplication.translate("ChatView", "Thinking… · 1 word")
            else:
                text = QCoreApplication.translate("ChatView", "Thinking… · %n words", None, words)  # type: ignore[arg-type]  # PyQt6 stubs: no disambiguation is None
        elif not words:
            text = QCoreApplication.translate("ChatView", "Thoughts")
        elif estimated:
            text = QCoreApplication.translate("ChatView", "Thought for ~%n words", None, words)  # type: ignore[arg-type]  # PyQt6 stubs: no disambiguation is None
        elif words == 1:
            text = QCoreApplication.translate("ChatView", "Thought for 1 word")
        else:
            text = QCoreApplication.translate("ChatView", "Thought for %n words", None, words)  # type: ignore[arg-type]  # PyQt6 stubs: no disambiguation is None
        return f"{arrow} {text}"
