"""ContextMeter: hidden until the limit is known; "≈" while estimated."""

from __future__ import annotations

from typing import Any

from app.ui.window.context_meter import ContextMeter


def test_the_meter_shows_used_of_limit(qtbot: Any) -> None:
    meter = ContextMeter()
    qtbot.addWidget(meter)
    meter.set_used(100, exact=False)
    assert not meter.isVisible()  # no limit yet
    meter.set_limit(2048)
    assert meter.isVisible() and "≈" in meter.format() and meter.value() == 100
    meter.set_used(3000, exact=True)
    assert "≈" not in meter.format() and meter.value() == 2048
    assert meter.property("level") == "full" and "no longer sees" in meter.toolTip()


def test_the_level_follows_the_share_both_ways(qtbot: Any) -> None:
    """The style is re-applied only when the level changes; it must still change back."""
    meter = ContextMeter()
    qtbot.addWidget(meter)
    meter.set_limit(1000)
    seen = []
    for used in (10, 20, 850, 900, 1000, 100):
        meter.set_used(used, exact=False)
        seen.append(meter.property("level"))
    assert seen == ["ok", "ok", "high", "high", "full", "ok"]
