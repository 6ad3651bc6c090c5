"""The demo model's offer: the recommended model for this machine, Get It, Not Now."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.core.base import settings
from app.core.hub.recommended import Recommended
from app.ui.hub.offer import DISMISSED_KEY, DemoModelOffer


@pytest.fixture
def demo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "SmolLM2-135M-Instruct-Q4_1.gguf"
    path.write_bytes(b"GGUF")
    monkeypatch.setattr("app.core.models.paths.package_model_path", lambda: path)
    return path


def test_offered_for_the_demo_model_and_dismissed_for_good(qtbot, demo: Path) -> None:
    offer = DemoModelOffer()
    qtbot.addWidget(offer)
    offer.model_loaded(str(demo))
    qtbot.waitUntil(lambda: offer.offered is not None, timeout=5000)
    assert not offer.isHidden()
    assert "demo model" in offer.text.text() and offer.offered.name in offer.text.text()  # type: ignore[union-attr]
    with qtbot.waitSignal(offer.get_requested, timeout=1000) as got:
        offer.get_button.click()
    assert isinstance(got.args[0], Recommended)
    offer.dismiss_button.click()
    assert offer.isHidden() and settings.load_settings()[DISMISSED_KEY] is True
    offer.offered = None
    offer.model_loaded(str(demo))
    qtbot.waitUntil(lambda: not offer._calls.busy, timeout=5000)  # the (empty) answer was delivered
    assert offer.isHidden() and offer.offered is None


def test_not_offered_for_another_model(qtbot, demo: Path, tmp_path: Path) -> None:
    offer = DemoModelOffer()
    qtbot.addWidget(offer)
    offer.model_loaded(str(tmp_path / "Qwen3-8B-Q4_K_M.gguf"))
    offer.model_loaded("")
    qtbot.waitUntil(lambda: not offer._calls.busy, timeout=5000)  # the last answer was delivered
    assert offer.isHidden() and offer.offered is None


def test_the_window_wires_it_and_the_first_run_panel_offers_the_hub(qtbot, make_window, demo: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    from app.core.backends.scripted import ScriptedBackend

    window = make_window(lambda: ScriptedBackend(rate=2000))
    assert window.hub_offer.isHidden()            # the scripted backend is no demo model
    assert window.first_run.get_button.text() == "Get a Model from the Hub…"
    window.hub_offer.get_requested.emit(Recommended("a/b", "b.gguf", "B", "tiny", "1M", "Q8_0", 1000))
    dialog = window.model_dialogs.hub_dialog
    assert dialog is not None and dialog.isVisible()


def test_the_status_bar_has_a_model_picker_with_get_more_models(qtbot, make_window) -> None:
    from app.core.backends.scripted import ScriptedBackend

    window = make_window(lambda: ScriptedBackend(rate=2000))
    button = window.model_button
    assert button.isVisible() and button.menu() is window.model_menu
    assert window.menus.get_models_action in window.model_menu.actions()
    assert window.menus.manage_models_action in window.model_menu.actions()
