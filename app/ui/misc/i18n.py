"""Loading translations: Rill's own (``resources/i18n/rill_<lang>.qm``, built
from the ``.ts`` files with Qt Linguist's tools, see ``scripts/translations.sh``)
and Qt's (``qtbase_<lang>.qm``: standard dialogs and buttons). English loads
``rill_en.qm``: only the plural messages' forms ("%n page(s)": "1 page", "2 pages").

The language follows the system locale unless the user chose one in the
settings (``app.core.config.appearance``). A language Rill has no translation for
gets English. The core's ``app.core.base.i18n.translate`` is routed through
``QCoreApplication.translate`` here, so both halves use the same catalogues.

Threading rule: ``install_translations`` runs on the GUI thread, before any
window is made (widgets take their texts when they are built).
"""

from __future__ import annotations

import logging
from pathlib import Path

from PyQt6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QTranslator

from app.core.base import i18n
from app.core.config.appearance import LANGUAGES, SYSTEM
from app.resources import resources_dir

__all__ = ["install_translations", "remove_translations", "resolve_language", "translations_dir"]

log = logging.getLogger(__name__)

_installed: list[QTranslator] = []


def translations_dir() -> Path:
    return resources_dir() / "i18n"


def resolve_language(preference: str, system: QLocale | None = None) -> str:
    """The language code to show: the preference, or for "system" the best
    match of the system's UI languages among those Rill ships ("en" if none):
    the first English or Chinese one decides; Chinese in Simplified script
    gets zh_CN."""
    if preference != SYSTEM and preference in LANGUAGES:
        return preference
    locale = system if system is not None else QLocale.system()
    for name in locale.uiLanguages() or [locale.name()]:
        candidate = QLocale(name)
        if candidate.language() == QLocale.Language.English:
            return "en"
        if candidate.language() == QLocale.Language.Chinese:
            # (QLocale fills in the likely script: zh_CN, zh_SG -> Simplified,
            # zh_TW, zh_HK -> Traditional, which Rill has no translation for)
            return "zh_CN" if candidate.script() == QLocale.Script.SimplifiedChineseScript else "en"
    return "en"


def _qt_translation_dirs() -> list[Path]:
    dirs = [Path(QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath))]
    # A frozen bundle keeps Qt's catalogues beside its own (see rill.spec).
    dirs.append(translations_dir() / "qt")
    return dirs


def _load(app: QCoreApplication, name: str, directories: list[Path]) -> bool:
    for directory in directories:
        path = directory / f"{name}.qm"
        if not path.is_file():
            continue
        translator = QTranslator(app)
        if translator.load(str(path)):
            app.installTranslator(translator)
            _installed.append(translator)
            return True
        log.warning("cannot load translation %s", path)
    return False


def _translate(context: str, text: str, disambiguation: str | None = None, n: int = -1) -> str:
    return QCoreApplication.translate(context, text, disambiguation or "", n)  # Qt: "" and null look up alike


def install_translations(app: QCoreApplication, preference: str = SYSTEM) -> str:
    """Install the translators for ``preference`` (replacing any installed
    before) and return the language code shown ("en" when nothing matched or
    a catalogue is missing; logged)."""
    remove_translations(app)
    language = resolve_language(preference)
    i18n.install(_translate)
    if language == "en":
        # the source strings are English; rill_en.qm gives the plural messages their forms ("1 page", "2 pages")
        if not _load(app, "rill_en", [translations_dir()]):
            log.warning("no English plural forms in %s: \"%%n page(s)\" stays as written", translations_dir())
        QLocale.setDefault(QLocale(QLocale.Language.English, QLocale.Country.UnitedStates))
        return "en"
    if not _load(app, f"rill_{language}", [translations_dir()]):
        log.warning("no translation for %s in %s: English", language, translations_dir())
        return "en"
    if not _load(app, f"qtbase_{language}", _qt_translation_dirs()):
        log.info("Qt's own %s translation not found: standard buttons stay English", language)
    QLocale.setDefault(QLocale(language))
    return language


def remove_translations(app: QCoreApplication) -> None:
    """Back to English (tests; switching languages)."""
    while _installed:
        translator = _installed.pop()
        app.removeTranslator(translator)
        translator.deleteLater()
    QLocale.setDefault(QLocale.system())
