"""ThoughtsFold: the header label and the plain-text thoughts document."""

from __future__ import annotations

from PyQt6.QtGui import QTextCursor, QTextDocument

from app.core.conversation.model import Message
from app.core.text.textbreak import DisplayBreaker
from app.ui.conversation.find import FindHighlighter
from app.ui.conversation.items import Item, ThoughtsState
from app.ui.conversation.thoughts import ThoughtsFold
from app.ui.services.slicer import TimeSlicer


def test_the_label_counts_the_words_and_the_document_shows_plain_text(qapp) -> None:
    fold = ThoughtsFold(FindHighlighter(TimeSlicer(), lambda: None))
    msg = Message("assistant", "<think>one two three</think>Answer")
    item = Item(msg.id, "assistant", msg)
    item.think = ThoughtsState(7, 20, 28, True)
    assert fold.label(item) == "▸ Thought for 3 words"
    item.think.expanded = True
    assert fold.label(item).startswith("▾")
    doc = QTextDocument()
    think = item.think
    think.doc, think.cursor, think.breaker = doc, QTextCursor(doc), DisplayBreaker(1000)
    fold.insert(think, "  <b>bold</b>  ")
    fold.trim(think)
    assert doc.toPlainText() == "<b>bold</b>"
    fold.drop(think)
    assert think.doc is None and not think.shown
