"""Stream health: a live readout of the pipeline (View › Stream health, status bar).

Off the hot path: it samples counters the pipeline keeps anyway (buffer
depth and token counters, the reply's stats) twice a second, plus a 20 ms
heartbeat for GUI lag, and it runs only while a reply streams or the panel is
open.
"""

from __future__ import annotations

import time
from collections import deque

from PyQt6.QtCore import QObject, Qt, QTimer, pyqtSignal
from PyQt6.QtWidgets import QDockWidget, QFormLayout, QLabel, QWidget

from app.core.pipeline.metrics import HealthSnapshot, RateMeter
from app.ui.conversation.controller import ChatController, ChatState

HEARTBEAT_MS = 20
SAMPLE_MS = 500


class StreamHealthMonitor(QObject):
    """Samples the pipeline of one ChatController (GUI thread)."""

    #: A new reading; arg: HealthSnapshot.
    updated = pyqtSignal(object)

    def __init__(self, chat: ChatController, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._chat = chat
        self._produced = RateMeter()
        self._displayed = RateMeter()
        self._lags: deque[tuple[float, float]] = deque()
        self._last_beat = 0.0
        self._panel_open = False
        self.last: HealthSnapshot | None = None
        self._heartbeat = QTimer(self)
        self._heartbeat.setTimerType(Qt.TimerType.PreciseTimer)
        self._heartbeat.setInterval(HEARTBEAT_MS)
        self._sampler = QTimer(self)
        self._sampler.setInterval(SAMPLE_MS)
        self._connect_signals()

    def _connect_signals(self) -> None:
        self._heartbeat.timeout.connect(self._on_heartbeat)
        self._sampler.timeout.connect(self._on_sample_due)
        self._chat.state_changed.connect(self._on_state_changed)

    @property
    def active(self) -> bool:
        return self._sampler.isActive()

    def set_panel_open(self, is_open: bool) -> None:
        self._panel_open = is_open
        self._update_activity()

    def _on_state_changed(self, state: ChatState) -> None:
        if state == ChatState.GENERATING:
            self._produced.reset()
            self._displayed.reset()
        self._update_activity()
        self._on_sample_due()

    def _update_activity(self) -> None:
        want = self._panel_open or self._chat.state == ChatState.GENERATING
        if want and not self._sampler.isActive():
            self._last_beat = time.perf_counter()
            self._lags.clear()
            self._heartbeat.start()
            self._sampler.start()
        elif not want and self._sampler.isActive():
            self._heartbeat.stop()
            self._sampler.stop()

    def _on_heartbeat(self) -> None:
        now = time.perf_counter()
        self._lags.append((now, max(0.0, now - self._last_beat - HEARTBEAT_MS / 1000)))
        self._last_beat = now
        while self._lags and now - self._lags[0][0] > 1.0:
            self._lags.popleft()

    def _on_sample_due(self) -> None:
        chat = self._chat
        buffer = chat.service.buffer
        stats = chat.current_stats or chat.last_stats
        now = time.monotonic()
        generating = chat.state == ChatState.GENERATING
        shown = stats.tokens_shown if stats else 0
        ttft = None
        if stats and stats.first_token_at is not None:
            ttft = (stats.first_token_at - stats.sent_at) * 1000
        snapshot = HealthSnapshot(
            generating=generating,
            produced_tok_s=self._produced.sample(now, buffer.tokens_put) if generating else 0.0,
            displayed_tok_s=self._displayed.sample(now, shown) if generating else 0.0,
            ttft_ms=ttft,
            buffer_chars=buffer.depth_chars,
            buffer_max_chars=buffer.max_depth_chars,
            gui_lag_ms=max((lag for _, lag in self._lags), default=0.0) * 1000,
            render_ms=self._chat.view.last_slice_s * 1000 if self._chat.view.slices else None,
            tokens_shown=shown,
            producer_blocked_ms=buffer.blocked_s * 1000,
        )
        self.last = snapshot
        self.updated.emit(snapshot)


class StreamHealthPanel(QDockWidget):
    """View › Stream health: the monitor's readings, one row each."""

    def __init__(self, monitor: StreamHealthMonitor, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Stream health"))
        self.setObjectName("stream_health")
        self._monitor = monitor
        body = QWidget()
        form = QFormLayout(body)
        self._rows: dict[str, QLabel] = {}
        for key, title in [
            ("state", self.tr("State")),
            ("produced", self.tr("Produced")),
            ("displayed", self.tr("Displayed")),
            ("ttft", self.tr("Time to first token")),
            ("buffer", self.tr("Buffer depth")),
            ("lag", self.tr("GUI lag (max, last 1 s)")),
            ("render", self.tr("Last render pass")),
            ("blocked", self.tr("Producer blocked (total)")),
        ]:
            label = QLabel("–")
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            self._rows[key] = label
            form.addRow(title, label)
        self.setWidget(body)
        self._connect_signals()

    def _connect_signals(self) -> None:
        self._monitor.updated.connect(self._on_updated)
        self.visibilityChanged.connect(self._monitor.set_panel_open)

    def _on_updated(self, s: HealthSnapshot) -> None:
        rows = self._rows
        rows["state"].setText(self.tr("generating") if s.generating else self.tr("idle"))
        rows["produced"].setText(f"{s.produced_tok_s:.0f} tok/s")
        rows["displayed"].setText(
            self.tr("{rate:.0f} tok/s  ({tokens} tokens this reply)").format(
                rate=s.displayed_tok_s, tokens=s.tokens_shown
            )
        )
        rows["ttft"].setText("–" if s.ttft_ms is None else f"{s.ttft_ms:.0f} ms")
        rows["buffer"].setText(
            self.tr("{chars} chars (max {max_chars})").format(chars=s.buffer_chars, max_chars=s.buffer_max_chars)
        )
        rows["lag"].setText(f"{s.gui_lag_ms:.1f} ms")
        rows["render"].setText("–" if s.render_ms is None else f"{s.render_ms:.1f} ms")
        rows["blocked"].setText(f"{s.producer_blocked_ms:.0f} ms")
