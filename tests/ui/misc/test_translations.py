"""Translations: the .ts files are complete and up to date with the code, and
each .qm says exactly what its .ts says."""

from __future__ import annotations

import re
import shutil
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

import pytest
from PyQt6.lupdate import lupdate
from PyQt6.QtCore import QAbstractListModel, QCoreApplication, Qt, QTranslator
from PyQt6.QtWidgets import QAbstractItemView, QApplication, QWidget

from app.core.config.appearance import LANGUAGES, SYSTEM
from app.ui.misc.i18n import translations_dir

ROOT = next(p for p in Path(__file__).resolve().parents if (p / "pyproject.toml").is_file())
LANGS = [code for code in LANGUAGES if code not in (SYSTEM, "en")]


@dataclass
class Entry:
    context: str
    source: str
    comment: str
    numerus: bool
    kind: str  # the translation's type attribute: "" when finished
    forms: list[str]


def read_ts(path: Path) -> list[Entry]:
    entries = []
    for context in ET.parse(path).getroot().iter("context"):
        name = context.findtext("name") or ""
        for message in context.iter("message"):
            translation = message.find("translation")
            assert translation is not None
            numerus = message.get("numerus") == "yes"
            forms = [f.text or "" for f in translation.iter("numerusform")] if numerus else [translation.text or ""]
            entries.append(
                Entry(name, message.findtext("source") or "", message.findtext("comment") or "", numerus,
                      translation.get("type") or "", forms)
            )
    return entries


def ts_path(lang: str) -> Path:
    return translations_dir() / f"rill_{lang}.ts"


@pytest.mark.parametrize("lang", LANGS)
def test_every_entry_is_finished_and_current(lang: str) -> None:
    entries = read_ts(ts_path(lang))
    assert len(entries) > 300
    unfinished = [(e.context, e.source) for e in entries if e.kind == "unfinished" or not all(e.forms)]
    obsolete = [(e.context, e.source) for e in entries if e.kind in ("obsolete", "vanished")]
    assert not unfinished, f"{len(unfinished)} unfinished in {lang}: {unfinished[:10]}"
    assert not obsolete, f"{len(obsolete)} obsolete in {lang} (scripts/translations.sh drops them): {obsolete[:10]}"


@pytest.mark.parametrize("lang", LANGS)
def test_ts_has_every_string_of_the_code(lang: str, tmp_path: Path) -> None:
    """pylupdate6 over app/ adds nothing and drops nothing: a string added to
    (or removed from) the code without running scripts/translations.sh fails."""
    fresh = tmp_path / ts_path(lang).name
    shutil.copy(ts_path(lang), fresh)
    lupdate([str(ROOT / "app")], [str(fresh)], no_obsolete=True, no_summary=True)
    committed = {(e.context, e.source, e.comment) for e in read_ts(ts_path(lang))}
    extracted = {(e.context, e.source, e.comment) for e in read_ts(fresh)}
    assert not extracted - committed, f"not in the .ts yet: {sorted(extracted - committed)[:10]}"
    assert not committed - extracted, f"no longer in the code: {sorted(committed - extracted)[:10]}"


_PLACEHOLDER = re.compile(r"\{[^{}]*\}|%n|%L?\d")
_TAG = re.compile(r"</?([a-zA-Z]+)")
_ACCEL = re.compile(r"&(?!&|[a-z]+;|#)(\w)")


@pytest.mark.parametrize("lang", LANGS)
def test_translations_keep_placeholders_tags_and_accelerators(lang: str) -> None:
    problems = []
    for e in read_ts(ts_path(lang)):
        for form in e.forms:
            where = f"{e.context}: {e.source!r} -> {form!r}"
            if sorted(_PLACEHOLDER.findall(e.source)) != sorted(_PLACEHOLDER.findall(form)):
                problems.append("placeholders " + where)
            if sorted(_TAG.findall(e.source)) != sorted(_TAG.findall(form)):
                problems.append("tags " + where)
            if bool(_ACCEL.search(e.source)) != bool(_ACCEL.search(form)):
                problems.append("accelerator " + where)
            if e.source.count("\t") != form.count("\t"):
                problems.append("tab " + where)
    assert not problems, "\n".join(problems[:20])


@pytest.mark.parametrize("lang", LANGS)
def test_qm_says_what_the_ts_says(qapp: QApplication, lang: str) -> None:
    """The committed .qm was built from the committed .ts (rebuild with
    scripts/translations.sh --compile)."""
    translator = QTranslator()
    assert translator.load(str(translations_dir() / f"rill_{lang}.qm"))
    qapp.installTranslator(translator)  # (QCoreApplication.translate takes UTF-8 text; QTranslator's own, ASCII)
    wrong = []
    try:
        for e in read_ts(ts_path(lang)):
            n = 7 if e.numerus else -1
            got = QCoreApplication.translate(e.context, e.source, e.comment or None, n)
            expected = e.forms[0].replace("%n", "7") if e.numerus else e.forms[0]  # Chinese: one plural form
            if got != expected:
                wrong.append((e.context, e.source, got))
    finally:
        qapp.removeTranslator(translator)
    assert not wrong, f"{len(wrong)} differ, e.g. {wrong[:5]}"


def test_english_has_the_forms_of_every_plural_message(tmp_path: Path) -> None:
    """rill_en.ts holds exactly the code's plural messages, each with its two
    English forms (scripts/translations.sh writes it)."""
    fresh = tmp_path / "extracted.ts"
    lupdate([str(ROOT / "app")], [str(fresh)], no_obsolete=True, no_summary=True)
    plural = {(e.context, e.source, e.comment) for e in read_ts(fresh) if e.numerus}
    english = read_ts(ts_path("en"))
    assert {(e.context, e.source, e.comment) for e in english} == plural
    assert all(e.numerus and len(e.forms) == 2 and all(e.forms) and e.kind == "" for e in english)


def test_english_numbers_get_their_form(qapp: QApplication) -> None:
    from app.ui.misc.i18n import install_translations, remove_translations

    assert install_translations(qapp, "en") == "en"
    try:
        page = next(e for e in read_ts(ts_path("en")) if e.source == "%n page(s)")
        assert QCoreApplication.translate(page.context, page.source, None, 1) == "1 page"
        assert QCoreApplication.translate(page.context, page.source, None, 300) == "300 pages"
        wrong = []
        for e in read_ts(ts_path("en")):
            for n, form in ((1, e.forms[0]), (7, e.forms[1])):
                got = QCoreApplication.translate(e.context, e.source, e.comment or None, n)
                if got != form.replace("%n", str(n)):
                    wrong.append((e.source, n, got))
        assert not wrong, wrong[:5]
    finally:
        remove_translations(qapp)


# ------------------------------------------------------------- every window in Chinese

# Words that stay as they are in a Chinese UI: names, keys, units, formats.
KEEP = {
    "rill", "gguf", "openai", "ollama", "llama", "cpp", "markdown", "token", "tokens", "json", "url", "api", "http",
    "https", "ctrl", "shift", "alt", "enter", "esc", "del", "return", "ins", "home", "end", "pgup", "pgdown",
    "english", "top", "min", "base", "smollm", "instruct", "scripted", "gpu", "cpu", "ram", "mib", "gib", "kib",
    "tok", "ttft", "chatml", "sse", "ndjson", "qt", "pyqt", "python", "localhost", "key", "png", "svg", "txt",
    "zip", "jsonl", "html", "utf", "think",
}
_WORD = re.compile(r"[A-Za-z]{3,}")
_CJK = re.compile(r"[\u3400-\u9fff\uff00-\uffef\u3000-\u303f]")


def untranslated(text: str) -> bool:
    """English words outside the KEEP list and no Chinese at all."""
    text = re.sub(r"<[^>]+>", " ", text)  # rich text: its tags
    text = re.sub(r"(?:[\w.-]+/)+[\w.-]+|\S+\.(?:gguf|json|db|md)\b|https?://\S+", " ", text)  # paths, URLs
    if _CJK.search(text):
        return False
    return any(w.lower() not in KEEP for w in _WORD.findall(text))


def texts_of(root: QWidget) -> list[tuple[str, str]]:
    """(where, text) of everything a user can read in ``root``: titles,
    labels, buttons, placeholders, tooltips, accessible names and
    descriptions, combo items, group titles, tabs, headers, menus."""
    from PyQt6.QtWidgets import (
        QAbstractButton,
        QComboBox,
        QGroupBox,
        QLabel,
        QLineEdit,
        QMenu,
        QPlainTextEdit,
        QTableWidget,
        QTabWidget,
    )

    out: list[tuple[str, str]] = [("title", root.windowTitle())]
    for w in [root, *root.findChildren(QWidget)]:
        where = f"{type(w).__name__} {w.objectName()!r}"
        if not w.isVisibleTo(root) and not isinstance(w, QMenu):
            continue
        out += [(where + " tooltip", w.toolTip()), (where + " name", w.accessibleName()),
                (where + " description", w.accessibleDescription())]
        if isinstance(w, (QLabel, QAbstractButton)):
            out.append((where, w.text()))
        if isinstance(w, (QLineEdit, QPlainTextEdit)):
            out.append((where + " placeholder", w.placeholderText()))
        if isinstance(w, QComboBox):
            out += [(where + " item", w.itemText(i)) for i in range(w.count())]
        if isinstance(w, QGroupBox):
            out.append((where, w.title()))
        if isinstance(w, QTabWidget):
            out += [(where + " tab", w.tabText(i)) for i in range(w.count())]
        if isinstance(w, QTableWidget):
            for c in range(w.columnCount()):
                item = w.horizontalHeaderItem(c)
                out.append((where + " header", item.text() if item is not None else ""))
            for r in range(w.rowCount()):
                item = w.item(r, 0)
                out.append((where + " row", item.text() if item is not None else ""))
        if isinstance(w, QMenu):
            out.append((where + " menu", w.title()))
            for a in w.actions():
                out += [(f"menu {w.title()!r} action", a.text()), (f"menu {w.title()!r} tip", a.toolTip())]
    for model_view in root.findChildren(QAbstractItemView):
        model = model_view.model()
        if model is None or isinstance(model, QAbstractListModel):
            continue
        for c in range(model.columnCount()):
            header = model.headerData(c, Qt.Orientation.Horizontal)
            out.append((f"{type(model).__name__} header", str(header or "")))
    return [(where, text) for where, text in out if text and text.strip()]


@pytest.fixture
def chinese(qapp: QApplication):
    from app.ui.misc.i18n import install_translations, remove_translations

    assert install_translations(qapp, "zh_CN") == "zh_CN"
    yield
    remove_translations(qapp)


def test_every_window_dialog_and_menu_is_chinese(qtbot, chinese, make_window) -> None:
    from app.core.backends.scripted import ScriptedBackend
    from app.ui.misc.shortcuts import ShortcutsDialog

    window = make_window(lambda: ScriptedBackend.from_text("你好！\n\n```python\nprint(1)\n```\n", rate=5000))
    window.prompt.setPlainText("hi")
    with qtbot.waitSignal(window.chat.reply_settled, timeout=20000):
        qtbot.keyClick(window.prompt, Qt.Key.Key_Return)
    window.menus.find_action.trigger()  # the find bar
    found = texts_of(window)
    # Reply footers and the view's own labels, as painted
    mid = window.view.message_ids()[-1]
    found += [("footer", window.view.probe.message_footer(mid))]
    # Menus: every action of every menu, submenus included
    menus = [a.menu() for a in window.menuBar().actions() if a.menu() is not None]
    while menus:
        menu = menus.pop()
        found.append(("menu title", menu.title()))
        for a in menu.actions():
            found += [(f"menu {menu.title()}", a.text())]
            if a.menu() is not None:
                menus.append(a.menu())
    # The conversation's context menu (the last message's actions)
    from PyQt6.QtCore import QPointF

    menu = window.view.make_context_menu(QPointF(5, 5), keyboard=True)
    found += [("context menu", a.text()) for a in menu.actions()]
    menu.deleteLater()
    # Dialogs
    before = set(QApplication.topLevelWidgets())
    for action in (window.menus.settings_action, window.menus.conversation_settings_action, window.menus.servers_action,
                   window.model_menu.manage_action, window.menus.search_action, window.navigation.shortcuts_action):
        action.trigger()
    qtbot.waitUntil(lambda: any(isinstance(w, ShortcutsDialog) and w.isVisible() for w in QApplication.topLevelWidgets()),
                    timeout=5000)
    dialogs = [w for w in set(QApplication.topLevelWidgets()) - before if w.isVisible()]
    assert window.search_dialog.isVisible()
    dialogs.append(window.search_dialog)  # (made with the window)
    assert len(dialogs) == 6, [type(d).__name__ for d in dialogs]
    window.menus.about_action.trigger()
    qtbot.waitUntil(lambda: window.about_box.isVisible(), timeout=5000)
    dialogs.append(window.about_box)
    for dialog in dialogs:
        found += [(f"{type(dialog).__name__}: {where}", text) for where, text in texts_of(dialog)]
    data = {"QToolButton 'composerModel'"}  # the model's own name (data, not a word of Rill's)
    bad = sorted({(where, text) for where, text in found if untranslated(text) and where not in data})
    for dialog in dialogs:
        dialog.close()
    assert not bad, "\n".join(f"{where}: {text!r}" for where, text in bad)
    assert any("新建对话" in text for _, text in found)
