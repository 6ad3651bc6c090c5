"""The errors of export and import."""

from __future__ import annotations

from app.core.base.i18n import translate


class ExchangeError(Exception):
    """Export or import failed for a reason the user can act on (the message says which)."""


class ImportFormatError(ExchangeError, ValueError):
    """The import document is malformed; ``str()`` names the place at fault:
    ``line 14, column 9: conversations[0].messages[3].role: expected "user" or
    "assistant", got "bot"``. ``line``/``column`` are 1-based (None when the
    place could not be found in the text); ``path`` is the JSON path."""

    def __init__(self, problem: str, *, path: str = "", line: int | None = None, column: int | None = None) -> None:
        self.problem = problem
        self.path = path
        self.line = line
        self.column = column
        if line is not None and path:
            text = translate("Exchange", "line {line}, column {column}: {path}: {problem}")
        elif line is not None:
            text = translate("Exchange", "line {line}, column {column}: {problem}")
        elif path:
            text = "{path}: {problem}"
        else:
            text = "{problem}"
        super().__init__(text.format(line=line, column=column, path=path, problem=problem))


class UnknownConversationError(ExchangeError, KeyError):
    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""
