"""Rill's per-user folders and its small settings file (Qt-free).

* Settings: ``$XDG_CONFIG_HOME/rill/settings.json`` (default ``~/.config/rill``).
  Today it holds one key, ``last_model``: the GGUF file last opened successfully
  through File › Open Model…, so the next start loads it again.
* Models: ``$XDG_DATA_HOME/rill/models`` (default ``~/.local/share/rill/models``);
  any ``*.gguf`` put there is found at start-up (see app.core.models.paths).

Nothing here raises on bad input: a missing, unreadable, oversized or malformed
settings file reads as empty settings (with a logged warning), and a failed
write (read-only home, a file where the folder should be...) is logged and
reported as False; the app carries on either way.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

APP_DIR_NAME = "rill"
SETTINGS_FILE_NAME = "settings.json"
#: A settings file larger than this is not ours (or is damaged): ignored.
MAX_SETTINGS_BYTES = 64 * 1024
LAST_MODEL_KEY = "last_model"


def _xdg_dir(variable: str, fallback: str) -> Path:
    """An XDG base directory; relative values are invalid per the spec and ignored."""
    value = os.environ.get(variable, "")
    if value and os.path.isabs(value):
        return Path(value)
    return Path.home() / fallback


def config_dir() -> Path:
    """``$XDG_CONFIG_HOME/rill`` or ``~/.config/rill`` (not created here)."""
    return _xdg_dir("XDG_CONFIG_HOME", ".config") / APP_DIR_NAME


def data_dir() -> Path:
    """``$XDG_DATA_HOME/rill`` or ``~/.local/share/rill`` (not created here)."""
    return _xdg_dir("XDG_DATA_HOME", ".local/share") / APP_DIR_NAME


def user_models_dir() -> Path:
    """Where the user can drop ``*.gguf`` files for Rill to find."""
    return data_dir() / "models"


def settings_path() -> Path:
    return config_dir() / SETTINGS_FILE_NAME


def load_settings(path: Path | None = None) -> dict[str, Any]:
    """The settings as a dict; ``{}`` when the file is missing or unusable."""
    path = path or settings_path()
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return {}
    except OSError as exc:
        log.warning("ignoring the settings file %s: %s", path, exc)
        return {}
    if size > MAX_SETTINGS_BYTES:
        log.warning("ignoring the settings file %s: too large (%d bytes)", path, size)
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        log.warning("ignoring the settings file %s: %s", path, exc)
        return {}
    if not isinstance(data, dict):
        log.warning("ignoring the settings file %s: not a JSON object", path)
        return {}
    return data


def save_settings(data: dict[str, Any], path: Path | None = None) -> bool:
    """Write the settings atomically (temp file + rename). False (logged) on failure."""
    path = path or settings_path()
    try:
        text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    except (TypeError, ValueError) as exc:
        log.warning("cannot save the settings: %s", exc)
        return False
    tmp_name = ""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(prefix=".settings-", suffix=".tmp", dir=path.parent)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp_name, path)
        tmp_name = ""
        return True
    except OSError as exc:
        log.warning("cannot save the settings to %s: %s", path, exc)
        return False
    finally:
        if tmp_name:
            try:
                os.unlink(tmp_name)
            except OSError:
                pass


def last_model_path(path: Path | None = None) -> Path | None:
    """The model last opened successfully, as recorded (it may since have gone)."""
    value = load_settings(path).get(LAST_MODEL_KEY)
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip() or "\x00" in value:
        log.warning("ignoring the settings key %r: not a file path: %r", LAST_MODEL_KEY, value)
        return None
    model = Path(value).expanduser()
    if not model.is_absolute():
        log.warning("ignoring the settings key %r: not an absolute path: %r", LAST_MODEL_KEY, value)
        return None
    return model


def remember_last_model(model: str | os.PathLike[str], path: Path | None = None) -> bool:
    """Record ``model`` as the last model opened. False (logged) when it cannot be saved."""
    data = load_settings(path)
    data[LAST_MODEL_KEY] = str(Path(model).expanduser().absolute())
    return save_settings(data, path)


# -- the models Rill knows (Model › Manage Models…) -----------------------------------

KNOWN_MODELS_KEY = "known_models"
#: At most this many remembered model files (the oldest go first).
MAX_KNOWN_MODELS = 200


def _model_path_value(value: object) -> Path | None:
    if not isinstance(value, str) or not value.strip() or "\x00" in value:
        return None
    model = Path(value).expanduser()
    return model if model.is_absolute() else None


def known_models(path: Path | None = None) -> list[Path]:
    """The model files added to Rill's list (opened, dropped or added in
    Manage Models…), oldest first; they may since have gone. Bad entries are
    skipped (logged)."""
    value = load_settings(path).get(KNOWN_MODELS_KEY)
    if value is None:
        return []
    if not isinstance(value, list):
        log.warning("ignoring the settings key %r: not a list", KNOWN_MODELS_KEY)
        return []
    models: list[Path] = []
    for item in value:
        model = _model_path_value(item)
        if model is None:
            log.warning("ignoring an entry of the settings key %r: not an absolute path: %r", KNOWN_MODELS_KEY, item)
        elif model not in models:
            models.append(model)
    return models


def add_known_model(model: str | os.PathLike[str], path: Path | None = None) -> bool:
    """Add ``model`` to the list (no write when it is there already). False
    (logged) when it cannot be saved."""
    model_path = Path(model).expanduser().absolute()
    current = known_models(path)
    if model_path in current:
        return True
    current = (current + [model_path])[-MAX_KNOWN_MODELS:]
    data = load_settings(path)
    data[KNOWN_MODELS_KEY] = [str(m) for m in current]
    return save_settings(data, path)


def remove_known_model(model: str | os.PathLike[str], path: Path | None = None) -> bool:
    """Take ``model`` off the list (the file itself is never touched); it is
    no longer the model to start with either. False (logged) when it cannot
    be saved."""
    model_path = Path(model).expanduser().absolute()
    data = load_settings(path)
    current = known_models(path)
    changed = model_path in current
    if changed:
        data[KNOWN_MODELS_KEY] = [str(m) for m in current if m != model_path]
    if last_model_path(path) == model_path:
        data.pop(LAST_MODEL_KEY, None)
        changed = True
    return save_settings(data, path) if changed else True
