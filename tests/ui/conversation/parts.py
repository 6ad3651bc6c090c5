"""The conversation view's collaborators wired as ``ChatView`` wires them,
without the widget: a bare scroll bar, a fixed page, a fake render service,
work slices run when the test says (``run``). For the unit tests of the
collaborators that coordinate others (rows, live items, stream flow, styling)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import cast

from PyQt6.QtCore import QObject
from PyQt6.QtGui import QFont, QPalette
from PyQt6.QtWidgets import QScrollBar

from app.core.conversation.model import Message
from app.core.render import blocks
from app.ui.conversation.documents import DocumentFactory
from app.ui.conversation.find import FindHighlighter
from app.ui.conversation.find_reveal import FindReveal
from app.ui.conversation.geometry import ItemLayout, Metrics
from app.ui.conversation.history import HistoryLoader
from app.ui.conversation.items import Item, ItemList
from app.ui.conversation.live_items import LiveItems
from app.ui.conversation.render_results import RenderResults
from app.ui.conversation.rows import ItemRows
from app.ui.conversation.scrolling import ScrollKeeper
from app.ui.conversation.selection import Selection
from app.ui.conversation.stream_flow import StreamFlow
from app.ui.conversation.streaming import StreamingTail
from app.ui.conversation.styling import ItemStyler
from app.ui.conversation.thoughts import ThoughtsFold
from app.ui.conversation.unfolding import ThoughtsUnfolder
from app.ui.conversation.unit_window import UnitWindow
from app.ui.conversation.virtualizer import LiveWindow
from app.ui.services.render import RenderJob, RenderService
from app.ui.services.slicer import TimeSlicer


class FakeRender:
    """What the collaborators ask of ``RenderService``, recorded."""

    def __init__(self) -> None:
        self.jobs: list[tuple[RenderJob, int]] = []
        self.cancelled: list[str] = []
        self.cancelled_all = 0

    def request(self, job: RenderJob, priority: int) -> None:
        self.jobs.append((job, priority))

    def cancel(self, message_id: str) -> None:
        self.cancelled.append(message_id)

    def cancel_all(self) -> None:
        self.cancelled_all += 1


class Parts:
    PAGE = 300

    def __init__(self, width: int = 500) -> None:
        self.owner = QObject()
        self.items = ItemList()
        self.bar = QScrollBar()
        self.width = width
        self.metrics = Metrics(QFont(), lambda: self.width)
        self.docs = DocumentFactory(self.owner, self.metrics)
        self.slicer = TimeSlicer(0.003, self.owner)
        self.find = FindHighlighter(self.slicer, lambda: None)
        self.fold = ThoughtsFold(self.find)
        self.sel = Selection(self.items, QPalette)
        self.render = FakeRender()
        render = cast(RenderService, self.render)
        self.jobs: list[tuple[str, Callable[[], Iterator[None] | None]]] = []
        self.repaints = 0
        self.schedules = 0
        self.settled: list[str] = []
        self.toggled: list[tuple[str, bool]] = []
        self.ready = 0
        self.completed = 0
        self.scroll = ScrollKeeper(self.items, self.bar, lambda: self.PAGE)
        self.window = LiveWindow(self.items, lambda: (self.bar.value(), self.PAGE))
        self.stream = StreamingTail(self.docs, self.metrics, self.fold, self.find, render)
        self.footer: list[tuple[str, str]] = []  # every item's footer actions
        self.layout = ItemLayout(self.items, self.metrics, self.fold.label, lambda _item: self.footer)
        self.units = UnitWindow(self.items, self.layout, self.metrics, lambda: (self.bar.value(), self.PAGE))
        self.results = RenderResults(
            self.items, self.docs, self.metrics, self.stream, self.queue, self.scroll.set_height,
            lambda item: self.flow.tail_changed(item), lambda mid, _first: self.settled.append(mid), self.schedule, self.units,
        )
        self.unfolder = ThoughtsUnfolder(
            self.items, self.fold, self.docs, self.metrics, self.queue, self.sel, self.scroll.set_height,
            self.schedule, self.repaint, lambda mid, on: self.toggled.append((mid, on)),
        )
        self.shown: list[str] = []
        self.reveal = FindReveal(
            self.items, self.find, self.layout, self.unfolder, self.scroll, self.shown.append, self.repaint
        )
        self.live = LiveItems(
            self.items, self.window, self.docs, self.metrics, render, self.queue, self.fold, self.unfolder,
            self.reveal, self.sel, self.scroll.set_height, self.repaint, self.viewport_ready,
            self.units,
        )
        self.flow = StreamFlow(
            self.items, self.stream, self.fold, self.unfolder, self.results, self.metrics, render, self.window,
            self.scroll.set_height, self.repaint,
        )
        self.styler = ItemStyler(
            self.items, self.metrics, self.docs, self.window, self.results, self.scroll, self.queue, QFont,
            self.schedule, self.repaint,
        )
        self.history = HistoryLoader(self.owner)
        self.rows = ItemRows(
            self.items, self.scroll, self.metrics, self.flow, self.unfolder, self.live, self.results, render,
            self.history, self.slicer, self.sel, self.reveal, self.schedule, self.repaint, self.history_completed,
        )

    def queue(self, key: str, job: Callable[[], Iterator[None] | None]) -> None:
        """As ``TimeSlicer.queue``: a key already queued (or running) is not queued twice."""
        if any(k == key for k, _ in self.jobs):
            return
        self.jobs.append((key, job))

    def run(self) -> list[str]:
        """Run every queued job to its end (jobs queued meanwhile too); their keys."""
        keys: list[str] = []
        while self.jobs:
            key, job = self.jobs[0]
            keys.append(key)
            steps = job()
            if steps is not None:
                for _ in steps:
                    pass
            self.jobs.pop(0)
        return keys

    def start_first(self) -> None:
        """Take the first queued job one step, leaving it queued (suspended
        half-way, as a slice that ran out of time leaves it)."""
        key, job = self.jobs[0]
        steps = job()
        if steps is None:
            self.jobs.pop(0)
            return
        next(steps, None)
        self.jobs[0] = (key, lambda: steps)

    def repaint(self) -> None:
        self.repaints += 1

    def schedule(self) -> None:
        self.schedules += 1

    def viewport_ready(self) -> None:
        self.ready += 1

    def history_completed(self) -> None:
        self.completed += 1

    @staticmethod
    def rendered(messages: list[Message]) -> list[Message]:
        """The messages with their units already made (as a stored
        conversation's are), so that no render is awaited."""
        for m in messages:
            m.rendered = blocks.user_units(m.content)
        return messages

    def item(self, message: Message) -> Item:
        item = self.items.get(message.id)
        assert item is not None
        return item
