"""``app.doctor``'s parts, in process: the heartbeat, the memory reading,
the history it opens and the environment it reports (the whole command is
in tests/test_cli.py)."""

from __future__ import annotations

import time

from PyQt6.QtCore import QTimer, QTranslator

from app.core.conversation.model import MessageStatus, Role
from app.core.conversation.sample import history_messages
from app.doctor import HEARTBEAT_MS, Heartbeat, history_conversation, rss_mb, ui_environment
from app.ui.misc.fonts import BundledFonts


def test_history_conversation_is_one_finished_path_of_the_messages() -> None:
    messages = history_messages(6)
    conv = history_conversation(messages)
    assert conv.title == "Earlier conversation"
    assert [m.id for m in conv.messages] == [m.id for m in messages]
    assert [m.role for m in conv.messages] == [Role.USER.value, Role.ASSISTANT.value] * 3
    assert all(m.status == MessageStatus.COMPLETE for m in conv.messages)
    assert conv.current_leaf == messages[-1].id
    assert history_conversation([]).messages == []


def test_rss_mb_reads_this_process() -> None:
    before = rss_mb()
    assert before > 0
    ballast = bytearray(64 * 2**20)  # touched: resident
    for i in range(0, len(ballast), 4096):
        ballast[i] = 1
    assert rss_mb() >= before + 32
    del ballast


def test_the_heartbeat_ticks_and_measures_how_late_each_tick_is(qtbot) -> None:
    beat = Heartbeat()
    beat.lags_s.append(99.0)  # an earlier run's
    beat.start()
    assert beat.lags_s == []  # start() begins a new measurement
    qtbot.waitUntil(lambda: len(beat.lags_s) >= 3, timeout=5000)
    # The GUI thread busy for 60 ms (12 heartbeats): the next tick is that late.
    n = len(beat.lags_s)
    end = time.perf_counter() + 0.060
    while time.perf_counter() < end:
        pass
    qtbot.waitUntil(lambda: len(beat.lags_s) > n, timeout=5000)
    assert max(beat.lags_s[n:]) >= 0.060 - HEARTBEAT_MS / 1000 - 0.005
    assert all(lag >= 0.0 for lag in beat.lags_s)
    beat.stop()
    count = len(beat.lags_s)
    later = QTimer()
    later.setSingleShot(True)
    later.setInterval(10 * HEARTBEAT_MS)
    with qtbot.waitSignal(later.timeout, timeout=5000):
        later.start()
    assert len(beat.lags_s) == count  # stopped: no more ticks


def test_a_late_heartbeat_is_a_stall_blamed_on_what_the_gui_thread_did(qtbot) -> None:
    from app.ui.services.activity import traced

    @traced("a test's busy loop")
    def busy(seconds: float) -> None:
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            pass

    beat = Heartbeat()
    beat.start()
    qtbot.waitUntil(lambda: len(beat.lags_s) >= 3, timeout=5000)
    n = len(beat.lags_s)
    busy(0.040)   # the GUI thread busy for 40 ms: the next heartbeat is at least 35 ms late
    qtbot.waitUntil(lambda: len(beat.lags_s) > n, timeout=5000)
    beat.stop()
    report = beat.stall_report()
    assert report, "a 40 ms block is a stall"
    worst = max(report, key=lambda s: s["late_ms"])
    assert worst["late_ms"] > Heartbeat.STALL_S * 1000
    assert worst["doing"][0][0] == "a test's busy loop", worst
    assert set(worst) == {"at_ms", "late_ms", "doing", "gui_cpu_ms"}
    assert worst["gui_cpu_ms"] > 30, "the busy loop ran on the GUI thread: CPU, not a wait"


def test_ui_environment_reports_language_catalogues_and_fonts(qapp) -> None:
    from app.ui.misc.i18n import install_translations, remove_translations

    fonts = BundledFonts(files=("NotoSansSC.ttf",), families=("Noto Sans SC",))
    plain = ui_environment(qapp, "en", fonts)
    assert plain["language"] == "en"
    assert plain["fonts"]["bundled"] == ["NotoSansSC.ttf"]
    assert isinstance(plain["fonts"]["han_fallback"], list) and isinstance(plain["fonts"]["emoji"], list)
    assert not any(path.endswith("rill_zh_CN.qm") for path in plain["translators"])
    empty = QTranslator(qapp)  # nothing loaded: not a catalogue
    try:
        assert len(ui_environment(qapp, "en", fonts)["translators"]) == len(plain["translators"])
        assert install_translations(qapp, "zh_CN") == "zh_CN"
        chinese = ui_environment(qapp, "zh_CN", BundledFonts())
        assert chinese["language"] == "zh_CN" and chinese["fonts"]["bundled"] == []
        assert any(path.endswith("rill_zh_CN.qm") for path in chinese["translators"])
    finally:
        remove_translations(qapp)
        empty.setParent(None)
