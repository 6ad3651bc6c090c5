"""How Rill looks: language, colour scheme and text size (Qt-free).

Stored in the settings file under ``"appearance"``::

    {"language": "system" | "en" | "zh_CN",
     "theme": "system" | "light" | "dark",
     "zoom": -4 … 8,
     "column": 0 | 40 … 160}    (the reading column's width in characters; 0: the whole window)

``"system"`` follows the desktop (the locale, the colour scheme); the others
override it. Anything unreadable falls back to the default, field by field.
Language changes apply at the next start (Qt widgets are built with their
texts); the theme and the zoom apply at once.

Threading rule: GUI thread (it reads and writes the settings file, a few
hundred bytes).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from app.core.base import settings
from app.core.base.i18n import QT_TRANSLATE_NOOP

__all__ = [
    "COLUMN_DEFAULT", "COLUMN_MAX", "COLUMN_MIN", "LANGUAGES", "THEMES", "ZOOM_MAX", "ZOOM_MIN", "Appearance",
    "load_appearance", "save_appearance",
]

APPEARANCE_KEY = "appearance"
SYSTEM = "system"
#: Language codes Rill ships, with their names (each in its own language, as
#: language pickers show them; "system" is translated where shown).
LANGUAGES: dict[str, str] = {
    SYSTEM: QT_TRANSLATE_NOOP("Appearance", "System Language"),
    "en": "English",
    "zh_CN": "简体中文",
}
THEMES: dict[str, str] = {
    SYSTEM: QT_TRANSLATE_NOOP("Appearance", "Follow the System"),
    "light": QT_TRANSLATE_NOOP("Appearance", "Light"),
    "dark": QT_TRANSLATE_NOOP("Appearance", "Dark"),
}
ZOOM_MIN = -4   # steps of 10 % of the base text size
ZOOM_MAX = 8
COLUMN_DEFAULT = 75  # characters of body text a line holds at most
COLUMN_MIN = 40      # (0 is allowed too: no column, the text takes the window's width)
COLUMN_MAX = 160


@dataclass(frozen=True)
class Appearance:
    language: str = SYSTEM
    theme: str = SYSTEM
    zoom: int = 0
    column: int = COLUMN_DEFAULT

    def with_zoom(self, zoom: int) -> Appearance:
        """This appearance with ``zoom`` clamped to [ZOOM_MIN, ZOOM_MAX]."""
        return replace(self, zoom=max(ZOOM_MIN, min(ZOOM_MAX, zoom)))

    @property
    def zoom_factor(self) -> float:
        """The text size as a multiple of the base size (1.0 at zoom 0)."""
        return 1.0 + 0.1 * self.zoom


def _from_dict(value: Any) -> Appearance:
    if not isinstance(value, dict):
        return Appearance()
    language = value.get("language")
    theme = value.get("theme")
    zoom = value.get("zoom")
    column = value.get("column")
    column_ok = isinstance(column, int) and not isinstance(column, bool) and (
        column == 0 or COLUMN_MIN <= column <= COLUMN_MAX)
    return Appearance(
        language=language if language in LANGUAGES else SYSTEM,
        theme=theme if theme in THEMES else SYSTEM,
        zoom=zoom if isinstance(zoom, int) and not isinstance(zoom, bool) and ZOOM_MIN <= zoom <= ZOOM_MAX else 0,
        column=column if column_ok and isinstance(column, int) else COLUMN_DEFAULT,
    )


def load_appearance(path: Path | None = None) -> Appearance:
    """The saved appearance (defaults for anything missing or unreadable)."""
    return _from_dict(settings.load_settings(path).get(APPEARANCE_KEY))


def save_appearance(appearance: Appearance, path: Path | None = None) -> bool:
    """Save ``appearance``; False (logged by ``settings``) when the file cannot be written."""
    data = settings.load_settings(path)
    data[APPEARANCE_KEY] = asdict(appearance)
    return settings.save_settings(data, path)
