"""Fonts carried by the standalone executable: a CJK family for Chinese text
and a colour emoji family, so both render on desktops that have neither.

``packaging/rill.spec`` copies them from the build machine (Noto Sans CJK
Regular and Noto Color Emoji, when fontconfig finds them there) into
``resources/fonts/`` of the bundle. A source checkout has no such folder:
there the system's fontconfig fallback does the job, and
``install_bundled_fonts`` does nothing.

``install_bundled_fonts`` adds every font file of that folder to Qt's
application font database, then registers the CJK family as the
application's fallback for Han script (``addApplicationFallbackFontFamily``,
Simplified Chinese glyphs preferred: the Chinese translation Rill ships is
zh_CN) and the emoji family as the application's emoji font
(``addApplicationEmojiFontFamily``). Problems are logged, never raised: the
text then renders with whatever the system has.

Threading rule: GUI thread only, after the ``QGuiApplication`` exists and
before any window is made (widgets resolve their fonts when laid out).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

from PyQt6.QtCore import QChar
from PyQt6.QtGui import QFontDatabase, QGuiApplication

from app.resources import resources_dir

__all__ = ["BundledFonts", "fonts_dir", "install_bundled_fonts", "remove_bundled_fonts"]

log = logging.getLogger(__name__)

FONT_SUFFIXES = frozenset({".ttf", ".ttc", ".otf", ".otc"})
# The Han fallback, best first (a .ttc of Noto Sans CJK holds JP/KR/SC/TC/HK).
HAN_FAMILIES = ("Noto Sans CJK SC", "Noto Sans SC", "Source Han Sans SC", "Source Han Sans CN")


@dataclass(frozen=True)
class BundledFonts:
    """What ``install_bundled_fonts`` registered (empty: nothing bundled)."""

    files: tuple[str, ...] = ()  # file names added to the font database
    families: tuple[str, ...] = ()  # the families they brought, in file order
    han_fallback: str | None = None  # registered for QChar.Script.Script_Han
    emoji: str | None = None  # registered as the application's emoji font


_font_ids: list[int] = []
_installed = BundledFonts()


def fonts_dir() -> Path:
    """``resources/fonts``: present in a bundle only."""
    return resources_dir() / "fonts"


def _pick_han_family(families: list[str]) -> str | None:
    for preferred in HAN_FAMILIES:
        if preferred in families:
            return preferred
    # Any other family that writes Simplified Chinese (monospaced ones last).
    chinese = [
        family for family in families
        if QFontDatabase.WritingSystem.SimplifiedChinese in QFontDatabase.writingSystems(family)
    ]
    chinese.sort(key=lambda family: "mono" in family.lower())
    return chinese[0] if chinese else None


def _pick_emoji_family(families: list[str]) -> str | None:
    return next((family for family in families if "emoji" in family.lower()), None)


def install_bundled_fonts(app: QGuiApplication, directory: Path | None = None) -> BundledFonts:
    """Add the fonts in ``directory`` (default: ``fonts_dir()``) and register
    the CJK and emoji fallbacks; return what was registered. A missing or
    empty folder is a no-op. Calling it again returns the first result
    unless ``remove_bundled_fonts`` ran in between. ``app`` is the running
    application (the font database needs it)."""
    global _installed
    if _font_ids:
        return _installed
    folder = directory if directory is not None else fonts_dir()
    try:
        if not folder.is_dir():
            log.debug("no bundled fonts in %s: the system's fallback fonts are used", folder)
            return _installed
        paths = sorted(p for p in folder.iterdir() if p.suffix.lower() in FONT_SUFFIXES and p.is_file())
        if QGuiApplication.instance() is None:
            log.warning("bundled fonts need a running QGuiApplication: not installed")
            return _installed
        files: list[str] = []
        families: list[str] = []
        for path in paths:
            font_id = QFontDatabase.addApplicationFont(str(path))
            if font_id < 0:
                log.warning("cannot load the bundled font %s", path)
                continue
            _font_ids.append(font_id)
            files.append(path.name)
            families += [f for f in QFontDatabase.applicationFontFamilies(font_id) if f not in families]
        han = _pick_han_family(families)
        if han is not None:
            QFontDatabase.addApplicationFallbackFontFamily(QChar.Script.Script_Han, han)
        elif files:
            log.info("no CJK family among the bundled fonts %s", files)
        emoji = _pick_emoji_family(families)
        if emoji is not None:
            QFontDatabase.addApplicationEmojiFontFamily(emoji)
        _installed = BundledFonts(tuple(files), tuple(families), han, emoji)
        if files:
            log.debug("bundled fonts: %s (Han fallback %s, emoji %s)", files, han, emoji)
    except Exception:  # a font problem must never stop the window from opening
        log.exception("cannot install the bundled fonts from %s", folder)
    return _installed


def remove_bundled_fonts() -> None:
    """Undo ``install_bundled_fonts`` (tests). GUI thread."""
    global _installed
    if _installed.han_fallback is not None:
        QFontDatabase.removeApplicationFallbackFontFamily(QChar.Script.Script_Han, _installed.han_fallback)
    if _installed.emoji is not None:
        QFontDatabase.removeApplicationEmojiFontFamily(_installed.emoji)
    while _font_ids:
        QFontDatabase.removeApplicationFont(_font_ids.pop())
    _installed = BundledFonts()
