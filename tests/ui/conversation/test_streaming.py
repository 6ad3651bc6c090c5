"""StreamingTail: thinking routed to the thoughts, the answer to the tail,
a committed prefix cut off the tail's front exactly."""

from __future__ import annotations

from PyQt6.QtCore import QObject
from PyQt6.QtGui import QFont

from app.core.conversation.model import Message, MessageStatus
from app.core.text.thinking import ThinkingSplitter
from app.ui.conversation.documents import DocumentFactory
from app.ui.conversation.find import FindHighlighter
from app.ui.conversation.geometry import Metrics
from app.ui.conversation.items import Item
from app.ui.conversation.streaming import StreamingTail
from app.ui.conversation.thoughts import ThoughtsFold
from app.ui.services.slicer import TimeSlicer


class _NoRender:
    def __init__(self) -> None:
        self.jobs: list[object] = []

    def request(self, job: object, priority: int) -> None:
        self.jobs.append(job)


def test_thinking_goes_to_the_thoughts_and_the_answer_to_the_tail(qapp) -> None:
    owner = QObject()
    metrics = Metrics(QFont(), lambda: 600)
    find = FindHighlighter(TimeSlicer(), lambda: None)
    render = _NoRender()
    tail = StreamingTail(DocumentFactory(owner, metrics), metrics, ThoughtsFold(find), find, render)
    msg = Message("assistant", status=MessageStatus.STREAMING)
    item = Item(msg.id, "assistant", msg, streaming=True, splitter=ThinkingSplitter())
    tail.new_tail(item)
    for piece in ("<think>one two</think>", "First para.\n\n", "Second"):
        msg.append(piece)
        tail.stream_text(item, piece)
    assert item.think is not None and item.think.words == 2
    assert item.tail is not None and item.tail.toPlainText() == "First para.\n\nSecond"
    tail.maybe_commit(item)
    assert len(render.jobs) == 1  # the completed first block goes to the render thread
    tail.cut_tail(item, msg.content.index("Second"))
    assert item.tail.toPlainText() == "Second"
