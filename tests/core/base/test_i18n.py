"""app.core.base.i18n: the core's translations without Qt."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from app.core.base import i18n


@pytest.fixture(autouse=True)
def english() -> Iterator[None]:
    yield
    i18n.install(None)


def test_english_until_a_translator_is_installed() -> None:
    assert i18n.translate("Ctx", "Cannot reach {server}.") == "Cannot reach {server}."
    assert i18n.translate("Ctx", "%n message(s)", None, 3) == "3 message(s)"
    assert i18n.translate("Ctx", "100%n") == "100%n"  # no count: %n stays as written


def test_an_installed_translator_gets_every_argument_and_none_restores_english() -> None:
    calls: list[tuple[str, str, str | None, int]] = []

    def translator(context: str, text: str, disambiguation: str | None, n: int) -> str:
        calls.append((context, text, disambiguation, n))
        return "译文"

    i18n.install(translator)
    assert i18n.translate("Store", "source", "dis", 2) == "译文"
    assert calls == [("Store", "source", "dis", 2)]
    i18n.install(None)
    assert i18n.translate("Store", "source") == "source"


def test_noop_marks_without_translating() -> None:
    i18n.install(lambda *args: "never")
    assert i18n.QT_TRANSLATE_NOOP("Ctx", "label") == "label"
