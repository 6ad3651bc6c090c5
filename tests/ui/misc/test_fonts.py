"""Bundled fonts (app/ui/misc/fonts.py): a bundle's resources/fonts/ registers its
CJK family as the Han fallback and its emoji family as the emoji font; a
checkout (no such folder) and an empty folder change nothing."""

from __future__ import annotations

import logging
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from PyQt6.QtCore import QChar
from PyQt6.QtGui import QFont, QFontDatabase, QTextLayout
from PyQt6.QtWidgets import QApplication

from app.ui.misc.fonts import BundledFonts, fonts_dir, install_bundled_fonts, remove_bundled_fonts

HAN = QChar.Script.Script_Han


def system_font(family: str) -> Path | None:
    """The file fontconfig has for ``family`` (as packaging/rill.spec asks), or None."""
    if shutil.which("fc-match") is None:
        return None
    out = subprocess.run(["fc-match", "-f", "%{family}|%{file}", f"{family}:style=Regular"],
                         capture_output=True, text=True).stdout
    families, _, file = out.partition("|")
    return Path(file) if family in families.split(",") and Path(file).is_file() else None


@pytest.fixture
def bundle(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, qapp: QApplication) -> Iterator[Path]:
    """A fake frozen bundle (sys._MEIPASS) whose resources/fonts/ is returned
    empty; the fonts installed by the test are removed afterwards."""
    monkeypatch.setattr(sys, "_MEIPASS", str(tmp_path), raising=False)
    folder = tmp_path / "resources" / "fonts"
    folder.mkdir(parents=True)
    remove_bundled_fonts()
    yield folder
    remove_bundled_fonts()


def han_family_drawn(text: str = "汉字") -> str:
    """The family Qt really draws ``text`` with, in the application font."""
    layout = QTextLayout(text, QFont(QApplication.font()))
    layout.beginLayout()
    layout.createLine()
    layout.endLayout()
    runs = layout.glyphRuns()
    assert runs
    return runs[0].rawFont().familyName()


def test_the_bundle_folder_follows_the_frozen_layout(bundle: Path) -> None:
    assert fonts_dir() == bundle


def test_bundled_cjk_and_emoji_fonts_become_the_fallbacks(bundle: Path, qapp: QApplication) -> None:
    cjk, emoji = system_font("Noto Sans CJK SC"), system_font("Noto Color Emoji")
    if cjk is None or emoji is None:
        pytest.skip("this machine has no Noto Sans CJK SC / Noto Color Emoji to bundle")
    (bundle / cjk.name).symlink_to(cjk)
    (bundle / emoji.name).symlink_to(emoji)
    (bundle / "README.txt").write_text("not a font")

    installed = install_bundled_fonts(qapp)

    assert installed.files == tuple(sorted((cjk.name, emoji.name)))
    assert "Noto Sans CJK SC" in installed.families and "Noto Color Emoji" in installed.families
    assert installed.han_fallback == "Noto Sans CJK SC"
    assert installed.emoji == "Noto Color Emoji"
    assert QFontDatabase.applicationFallbackFontFamilies(HAN) == ["Noto Sans CJK SC"]
    assert "Noto Color Emoji" in QFontDatabase.applicationEmojiFontFamilies()
    assert han_family_drawn() == "Noto Sans CJK SC"
    # Once per process: a second call adds nothing more.
    assert install_bundled_fonts(qapp) is installed
    assert QFontDatabase.applicationFallbackFontFamilies(HAN) == ["Noto Sans CJK SC"]

    remove_bundled_fonts()
    assert QFontDatabase.applicationFallbackFontFamilies(HAN) == []
    assert "Noto Color Emoji" not in QFontDatabase.applicationEmojiFontFamilies()


def test_an_empty_fonts_folder_changes_nothing(bundle: Path, qapp: QApplication) -> None:
    emoji_before = QFontDatabase.applicationEmojiFontFamilies()
    assert install_bundled_fonts(qapp) == BundledFonts()
    assert QFontDatabase.applicationFallbackFontFamilies(HAN) == []
    assert QFontDatabase.applicationEmojiFontFamilies() == emoji_before


def test_a_checkout_without_the_folder_changes_nothing(bundle: Path, qapp: QApplication) -> None:
    bundle.rmdir()
    assert install_bundled_fonts(qapp) == BundledFonts()
    assert QFontDatabase.applicationFallbackFontFamilies(HAN) == []


def test_a_broken_font_file_is_logged_not_raised(bundle: Path, qapp: QApplication,
                                                 caplog: pytest.LogCaptureFixture) -> None:
    (bundle / "broken.ttf").write_bytes(b"\0" * 64)
    with caplog.at_level(logging.WARNING, logger="app.ui.misc.fonts"):
        assert install_bundled_fonts(qapp) == BundledFonts()
    assert "cannot load the bundled font" in caplog.text
    assert QFontDatabase.applicationFallbackFontFamilies(HAN) == []
