"""View › Stream health and the status-bar line."""

from __future__ import annotations

from PyQt6.QtCore import Qt

from app.core.backends.scripted import ScriptedBackend
from app.core.pipeline.metrics import RateMeter


def test_rate_meter_measures_over_its_window() -> None:
    meter = RateMeter(window_s=1.0)
    assert meter.sample(0.0, 0) == 0.0
    assert meter.sample(0.5, 50) == 100.0
    assert meter.sample(1.0, 100) == 100.0
    # Old samples fall out of the window: only the last second counts.
    assert meter.sample(3.0, 100) == 0.0


def test_health_readout_while_streaming_and_quiet_when_idle(qtbot, make_window) -> None:
    window = make_window(lambda: ScriptedBackend(rate=400, n_tokens=100000))
    monitor = window.health_monitor
    assert not monitor.active, "no sampling while idle with the panel closed"
    window.menus.stream_health_action.trigger()
    qtbot.waitUntil(lambda: window.health_panel.isVisible(), timeout=2000)
    assert monitor.active
    window.prompt.setPlainText("go")
    qtbot.keyClick(window.prompt, Qt.Key.Key_Return)
    qtbot.waitUntil(
        lambda: monitor.last is not None and monitor.last.generating and monitor.last.displayed_tok_s > 50,
        timeout=10000,
    )
    snap = monitor.last
    assert snap.produced_tok_s > 50 and snap.ttft_ms is not None
    assert "tok/s" in window.health_label.text() and "TTFT" in window.health_label.text()
    panel_text = window.health_panel._rows["displayed"].text()
    assert "tok/s" in panel_text and panel_text != "–"
    with qtbot.waitSignal(window.chat.reply_finished, timeout=5000):
        window.stop_button.click()
    qtbot.waitUntil(lambda: window.health_label.text() == "", timeout=2000)
    window.menus.stream_health_action.trigger()
    qtbot.waitUntil(lambda: not monitor.active, timeout=2000)


def test_the_monitor_samples_only_while_needed(qtbot, make_window) -> None:
    from app.ui.window.stream_health import StreamHealthMonitor

    window = make_window(lambda: ScriptedBackend(rate=2000))
    monitor = window.health_monitor
    assert isinstance(monitor, StreamHealthMonitor) and not monitor.active  # idle, panel closed
    monitor.set_panel_open(True)
    assert monitor.active
    with qtbot.waitSignal(monitor.updated, timeout=5000) as blocker:
        pass
    assert blocker.args[0] is monitor.last
    monitor.set_panel_open(False)
    assert not monitor.active
