"""Keeping secrets out of every message composed from what a server sent (Qt-free).

A server may echo the API key (or the URL's password) back anywhere: in its
reason phrase, a header, a body, an error event. ``Redactor.redact`` replaces

* every secret it was given, and every run of 8 or more characters of one
  (a key cut by someone's truncation is still caught), by ``***``;
* shorter secrets (4 to 7 characters) where they appear whole;
* anything that looks like a key whatever it is (``sk-…``, ``Bearer …``,
  ``api_key=…``), so a server quoting another key leaks nothing either.

``Redactor.quote`` is the one way to put server text in a message: redact
FIRST, then drop control and bidi-override characters, fold whitespace and cut
to ``MAX_QUOTED_CHARS``. Redaction runs over a window much longer than the
quote, so a secret crossing the cut is removed before the cut can halve it.

Any thread; a Redactor is immutable.
"""

from __future__ import annotations

import re
import unicodedata

from app.core.base.limits import MAX_ERROR_BODY_BYTES, MAX_QUOTED_CHARS

#: Runs of this many characters of a secret are redacted wherever they appear.
PARTIAL = 8
MASK = "***"

_TOKEN_PATTERNS = (
    re.compile(r"(?i)\bsk-[a-z0-9_\-]{4,}"),
    re.compile(r"(?i)(\bbearer\s+)[^\s\"',;]+"),
    re.compile(r"(?i)(\b(?:api[_-]?key|access[_-]?token|token|password)[\"']?\s*[:=]\s*[\"']?)[^\s\"',;}&]+"),
)
_BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c")


class Redactor:
    """Redacts ``secrets`` (empty ones and ones under 4 characters are ignored)."""

    def __init__(self, *secrets: str) -> None:
        kept = sorted({s for s in secrets if s and len(s) >= 4}, key=len, reverse=True)
        self._whole = tuple(s for s in kept if len(s) < PARTIAL)
        grams: set[str] = set()
        for secret in kept:
            if len(secret) >= PARTIAL:
                grams.update(secret[i:i + PARTIAL] for i in range(len(secret) - PARTIAL + 1))
        self._grams = frozenset(grams)

    def with_secret(self, secret: str) -> Redactor:
        """This redactor plus one more secret."""
        return Redactor(*self._secrets_for_copy(), secret)

    def _secrets_for_copy(self) -> tuple[str, ...]:
        # The grams stand for the long secrets: redacting with them as
        # secrets of their own is exactly as strict.
        return self._whole + tuple(self._grams)

    def redact(self, text: str) -> str:
        """``text`` with every secret (whole or any 8-character run of one)
        and every key-looking token replaced by ``***``."""
        if not text:
            return text
        spans: list[tuple[int, int]] = []
        for gram in self._grams:
            start = text.find(gram)
            while start != -1:
                spans.append((start, start + PARTIAL))
                start = text.find(gram, start + 1)
        for secret in self._whole:
            start = text.find(secret)
            while start != -1:
                spans.append((start, start + len(secret)))
                start = text.find(secret, start + 1)
        if spans:
            text = _mask(text, spans)
        for pattern in _TOKEN_PATTERNS:
            text = pattern.sub(_keep_prefix, text)
        return text

    def quote(self, text: str, limit: int = MAX_QUOTED_CHARS) -> str:
        """Server text fit to quote: redacted, control and bidi characters
        dropped, whitespace folded, at most ``limit`` characters (… when cut)."""
        window = text[:MAX_ERROR_BODY_BYTES]  # far beyond any quote: the cut below never halves a secret
        clean = "".join(" " if _is_control(ch) else ch for ch in self.redact(window))
        folded = " ".join(clean.split())
        if len(folded) <= limit and len(window) == len(text):
            return folded
        if len(folded) <= limit:
            return folded + "…"
        return folded[: limit - 1].rstrip() + "…"


def _mask(text: str, spans: list[tuple[int, int]]) -> str:
    spans.sort()
    out: list[str] = []
    last = 0
    start, end = spans[0]
    for a, b in spans[1:]:
        if a <= end:
            end = max(end, b)
            continue
        out += [text[last:start], MASK]
        last, (start, end) = end, (a, b)
    out += [text[last:start], MASK, text[end:]]
    return "".join(out)


def _keep_prefix(match: re.Match[str]) -> str:
    prefix = match.group(1) if match.re.groups else ""
    if not prefix and match.group(0)[:3].lower() == "sk-":
        prefix = match.group(0)[:3]
    return prefix + MASK


def _is_control(ch: str) -> bool:
    return ch in _BIDI_CONTROLS or unicodedata.category(ch) == "Cc"
