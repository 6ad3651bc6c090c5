"""BottomGlide: a send glides the view to the bottom; the reader's own scroll wins."""

from __future__ import annotations

from PyQt6.QtWidgets import QScrollBar, QWidget

from app.ui.conversation.glide import MAX_PAGES, BottomGlide


def _bar(qtbot, maximum: int = 3000, page: int = 400) -> tuple[QScrollBar, QWidget]:
    host = QWidget()
    qtbot.addWidget(host)
    bar = QScrollBar(host)
    bar.setRange(0, maximum)
    bar.setPageStep(page)
    return bar, host


def test_a_glide_eases_to_the_bottom_in_several_steps(qtbot) -> None:
    bar, _host = _bar(qtbot)
    bar.setValue(2400)
    seen: list[int] = []
    bar.valueChanged.connect(seen.append)
    glide = BottomGlide(bar, lambda: True)
    glide.start()
    assert glide.active and bar.value() == 2400  # nothing moved yet: it glides
    qtbot.waitUntil(lambda: not glide.active, timeout=3000)
    assert bar.value() == 3000
    assert len(seen) >= 3 and seen == sorted(seen)  # steps, each further down
    steps = [b - a for a, b in zip([2400, *seen], seen, strict=False)]
    assert steps[0] > steps[-2]  # eases out


def test_far_away_it_starts_one_page_above_the_bottom(qtbot) -> None:
    bar, _host = _bar(qtbot, maximum=100_000)
    glide = BottomGlide(bar, lambda: True)
    glide.start()
    assert bar.value() == 100_000 - 400 > MAX_PAGES * 400
    qtbot.waitUntil(lambda: bar.value() == 100_000, timeout=3000)


def test_the_bottom_moving_meanwhile_is_followed(qtbot) -> None:
    bar, _host = _bar(qtbot)
    bar.setValue(2600)
    glide = BottomGlide(bar, lambda: True)
    glide.start()
    bar.setMaximum(3500)  # the reply grew
    qtbot.waitUntil(lambda: not glide.active, timeout=3000)
    assert bar.value() == 3500


def test_the_reader_scrolling_stops_it(qtbot) -> None:
    bar, _host = _bar(qtbot)
    bar.setValue(2000)
    glide = BottomGlide(bar, lambda: True)
    glide.start()
    qtbot.waitUntil(lambda: bar.value() > 2000, timeout=3000)
    bar.setValue(100)  # the reader scrolls up
    qtbot.waitUntil(lambda: not glide.active, timeout=3000)
    assert bar.value() == 100


def test_hidden_it_jumps_and_no_timer_runs(qtbot) -> None:
    bar, _host = _bar(qtbot)
    bar.setValue(1000)
    glide = BottomGlide(bar, lambda: False)
    glide.start()
    assert bar.value() == 3000 and not glide.active
