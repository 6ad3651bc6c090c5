"""Translating the core's user-facing messages without importing Qt.

The core (``app.core``) never imports Qt, yet some of its strings reach the
user (a server's error, a store problem, a settings check). They are marked
for Qt's tools like this::

    from app.core.base.i18n import translate
    message = translate("RemoteErrors", "Cannot reach {server}.").format(server=name)

``pylupdate6`` extracts every call named ``translate`` (and
``QT_TRANSLATE_NOOP``) whose first two arguments are string literals, so these
land in ``resources/i18n/*.ts`` beside the UI's ``tr()`` strings. At run time
``translate`` forwards to the function installed by the UI
(``QCoreApplication.translate``, see ``app.ui.misc.i18n``); until then, and in the
command-line tools, it returns the English source (with ``%n`` replaced, as
Qt does).

Rules for a translatable string: one whole sentence (never glue pieces
together), placeholders by name (``{server}``), and ``%n`` with the count as the
FOURTH POSITIONAL argument where the number decides the English plural
(``translate("Ctx", "%n message(s)", None, count)``; pylupdate6 does not see
an ``n=`` keyword). A string defined at import time (a table of labels) is marked
with ``QT_TRANSLATE_NOOP("Ctx", "...")`` and translated where it is shown
with ``translate("Ctx", value)``.

Threading rule: ``translate`` may be called from any thread
(``QCoreApplication.translate`` is thread-safe); ``install`` runs once on the
GUI thread before any window is made.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["QT_TRANSLATE_NOOP", "install", "translate"]

Translator = Callable[[str, str, "str | None", int], str]


def _english(context: str, text: str, disambiguation: str | None = None, n: int = -1) -> str:
    return text.replace("%n", str(n)) if n >= 0 else text


_translator: Translator = _english


def install(translator: Translator | None) -> None:
    """Route ``translate`` through ``translator`` (None: back to English)."""
    global _translator
    _translator = translator if translator is not None else _english


def translate(context: str, text: str, disambiguation: str | None = None, n: int = -1) -> str:
    """``text`` in the user's language (see the module docstring)."""
    return _translator(context, text, disambiguation, n)


def QT_TRANSLATE_NOOP(context: str, text: str) -> str:  # noqa: N802 - the name pylupdate6 looks for
    """Marks ``text`` for extraction only; returns it unchanged."""
    return text
