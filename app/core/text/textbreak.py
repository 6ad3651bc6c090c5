"""Display-only line breaks that keep every displayed paragraph short (Qt-free).

Qt's layout cost grows with the length of the paragraph being edited, so a
streamed reply shown in a ``QTextDocument`` must never grow one paragraph
without bound -- and model output may have no spaces at all (base64, minified
JSON, long CJK paragraphs, "AAAA..." loops). ``DisplayBreaker`` chooses where
the view inserts a line break that exists only on screen; the stored text is
never changed.

A display break never falls inside an extended grapheme cluster (UAX #29).
Clusters come from the ``regex`` package's ``\\X``; no Unicode tables are
written here. Offsets are Python ``str`` indexes (code points), so surrogate
pairs cannot be split; converting to Qt's UTF-16 positions is the caller's
business.

Bounded context. Boundaries are judged from at most ``CONTEXT`` characters of
left context plus the next character (``is_boundary``). Three UAX #29 rules can
need more: a run of regional indicators (GB12/13, pairing parity), an emoji ZWJ
sequence ``ExtPict Extend* ZWJ x ExtPict`` (GB11) and an Indic conjunct
(GB9c). When such a chain fills the whole window the answer is *unknown* and
``is_boundary`` says False: it can miss a boundary, it never invents one.
Everywhere else it is exact.

Line length bound. With ``L`` the length of the longest grapheme cluster of the
text (``L >= 1``), every display line -- the text between two consecutive
display breaks or newlines -- has at most ``limit + L - 1`` characters (so at
most ``limit`` when every cluster is one code point), however the text is cut
into pieces. This holds whenever ``is_boundary`` misses no boundary of the
text, i.e. unless it holds a chain of the three kinds above at least
``CONTEXT`` characters long (32 flags in a row, say); such a chain can only
lengthen a line by at most its own length. Breaks are always at boundaries.

Threading rule: the module functions are pure and may be called from any
thread. A ``DisplayBreaker`` holds the state of one stream: use one instance
per stream, from one thread at a time (it is not thread-safe).
"""

from __future__ import annotations

from itertools import accumulate, pairwise

import regex

__all__ = [
    "CONTEXT",
    "DEFAULT_LIMIT",
    "DEFAULT_PREFER_WINDOW",
    "PREFER_AFTER",
    "DisplayBreaker",
    "display_pieces",
    "is_boundary",
]

DEFAULT_LIMIT = 1000  # characters per displayed paragraph piece
DEFAULT_PREFER_WINDOW = 80
CONTEXT = 64  # characters of left context that decide a boundary

# A break is preferred right after one of these (spaces, CJK punctuation).
PREFER_AFTER = frozenset(" \t\u3000，。、；：！？")

_CLUSTER = regex.compile(r"\X")

# Positions whose boundary depends on text before a CONTEXT-long window: the
# next character could continue a chain that fills the whole window.
_UNKNOWN = regex.compile(
    rf"(?=\p{{Regional_Indicator}})(?<=\p{{Regional_Indicator}}{{{CONTEXT}}})"
    rf"|(?=\p{{Extended_Pictographic}})"
    rf"(?<=\p{{Grapheme_Cluster_Break=Extend}}{{{CONTEXT - 1}}}\u200d)"
    rf"|(?=\p{{InCB=Consonant}})(?<=[\p{{InCB=Extend}}\p{{InCB=Linker}}]{{{CONTEXT}}})"
)


def _boundary_flags(buf: str, lo: int, at_start: bool) -> bytearray:
    """Flags for positions ``lo .. len(buf)-1`` of ``buf``: 1 when
    ``is_boundary`` of the whole text is True before that character.

    ``buf[0]`` is the start of the text when ``at_start``; otherwise ``lo`` must
    be at least ``CONTEXT`` (the caller keeps that much left context). One
    segmentation pass over ``buf`` -- O(len(buf)).
    """
    n = len(buf)
    known = bytearray(n + 1)
    for pos in accumulate(map(len, _CLUSTER.findall(buf)), initial=0):
        known[pos] = 1
    # Segmenting from buf[0] is exact unless a chain reaches back to buf[0];
    # such a chain also fills the window of is_boundary, which says False.
    for m in _UNKNOWN.finditer(buf, lo):
        j = m.start()
        if not (at_start and j == CONTEXT):  # that window starts the text
            known[j] = 0
    return known[lo:n]


def is_boundary(text: str, i: int) -> bool:
    """True when a grapheme cluster boundary lies before ``text[i]`` (0 < i < len(text)),
    decided from ``text[max(0, i-CONTEXT):i+1]`` only (the rules need the left context
    and the next character, never later characters). i == 0 or i == len(text) -> True.

    Conservative: when a regional-indicator run, emoji ZWJ chain or Indic
    conjunct chain fills the whole window the answer is unknown and this
    returns False. It never returns True inside a cluster.
    """
    if not 0 <= i <= len(text):
        raise IndexError(f"position {i} outside 0..{len(text)}")
    if i == 0 or i == len(text):
        return True
    start = max(0, i - CONTEXT)
    return bool(_boundary_flags(text[start : i + 1], i - start, start == 0)[0])


class DisplayBreaker:
    """Incremental: feed streamed text pieces; returns, for each piece, the list of
    offsets *within that piece* where a display-only line break must be inserted before
    the character at that offset (offset 0 = between the previous piece and this one).

    State: the length of the current display line (characters since the last
    ``'\\n'`` or display break) and the last ``CONTEXT`` characters seen.

    Rule: when a character would make the current line longer than ``limit``,
    break at the last boundary of the current line that lies in the current
    piece (earlier pieces are already on screen), preferring the last one right
    after a space or CJK punctuation (``PREFER_AFTER``) when that character is
    among the ``prefer_window`` characters before the limit point. When the
    piece offers no such boundary (a long combining-mark run, a cluster
    straddling two pieces), break at the first boundary after the limit. A
    break at offset 0 is checked against the stored left context. ``'\\n'``
    resets the line; no break is ever put right before a ``'\\n'`` or at the
    start of a line. See the module docstring for the line-length bound.

    Cost: O(len(piece) + CONTEXT) per ``feed``; earlier text is never rescanned.
    One instance per stream, not thread-safe.
    """

    def __init__(
        self, limit: int = DEFAULT_LIMIT, prefer_window: int = DEFAULT_PREFER_WINDOW
    ) -> None:
        if limit < 1:
            raise ValueError("limit must be at least 1")
        if prefer_window < 0:
            raise ValueError("prefer_window must not be negative")
        self.limit = limit
        self.prefer_window = prefer_window
        self.reset()

    def reset(self) -> None:
        """Forget the stream: the next piece starts a new text."""
        self._line = 0          # characters in the current display line
        self._ctx = ""          # the last CONTEXT characters seen
        self._at_start = True   # _ctx is the whole text seen so far

    def feed(self, piece: str) -> list[int]:
        if not piece:
            return []
        if self._fits(piece):
            return []
        sparse = self._feed_sparse(piece)
        if sparse is not None:
            return sparse
        return self._feed_exact(piece)

    def _flags(self, buf: str, base: int, a: int, b: int) -> bytearray:
        """``_boundary_flags`` for piece offsets ``a..b`` only (``buf`` is the
        left context + the piece, the piece starting at ``base``)."""
        lo = base + a
        if lo >= CONTEXT:
            return _boundary_flags(buf[lo - CONTEXT : base + b + 1], CONTEXT, False)
        return _boundary_flags(buf[: base + b + 1], lo, self._at_start)

    def _feed_sparse(self, piece: str) -> list[int] | None:
        """``_feed_exact``'s breaks, found by looking only near each break
        (C-speed string calls between them): a long line is segmented
        around its break points, not character by character. None when a
        break needs a wider look (no boundary near the limit point: a long
        combining run, a chain); ``_feed_exact`` decides then. The state
        moves on only when it answers."""
        limit, window = self.limit, self.prefer_window
        ctx = self._ctx
        buf = ctx + piece
        base = len(ctx)
        n = len(piece)
        line = self._line
        start = -line
        last = -1
        breaks: list[int] = []
        k = 0
        while k < n:
            nl = piece.find("\n", k)
            end = nl if nl >= 0 else n
            while True:
                at = k + max(0, limit - line)  # where the line reaches the limit
                if at >= end:
                    line += end - k
                    k = end
                    break
                lo = max(k, start + 1)
                a = max(lo, at - window)
                flags = self._flags(buf, base, a, at)
                found = flags.rfind(1)
                if found < 0:
                    if a > lo or last < 0:
                        return None  # the boundary is further back, or after the limit
                    q = last
                else:
                    last = max(last, a + found)
                    q = last
                    for j in range(at, max(a, at - window + 1) - 1, -1):
                        if flags[j - a] and buf[base + j - 1] in PREFER_AFTER:
                            q = j
                            break
                breaks.append(q)
                line, start = at - q + 1, q
                if last <= q:
                    last = -1
                k = at + 1
            if nl >= 0:
                line, start, last = 0, nl + 1, -1
                k = nl + 1
        self._line = line
        self._ctx = buf[-CONTEXT:]
        self._at_start = self._at_start and len(buf) <= CONTEXT
        return breaks

    def _feed_exact(self, piece: str) -> list[int]:
        """The rule, character by character (see the class docstring)."""
        ctx = self._ctx
        buf = ctx + piece
        base = len(ctx)
        ok = _boundary_flags(buf, base, self._at_start)
        limit, window = self.limit, self.prefer_window
        line = self._line
        start = -line            # piece offset where the current line starts
        last = pref = -1         # last movable boundary / preferred one (-1: none)
        breaks: list[int] = []
        for k, ch in enumerate(piece):
            if ch == "\n":
                line, start, last, pref = 0, k + 1, -1, -1
                continue
            if ok[k] and k > start:
                last = k
                if buf[base + k - 1] in PREFER_AFTER:
                    pref = k
            if line >= limit and last >= 0:
                q = pref if pref >= 0 and k - pref < window else last
                breaks.append(q)
                line, start, pref = k - q, q, -1
                if last <= q:
                    last = -1
            line += 1
        self._line = line
        self._ctx = buf[-CONTEXT:]
        self._at_start = self._at_start and len(buf) <= CONTEXT
        return breaks

    def _fits(self, piece: str) -> bool:
        """No line of ``piece`` reaches past the limit (the usual case: a
        piece of short lines): no break, the state moves on without
        segmenting it (C-speed string calls only)."""
        limit = self.limit
        first = piece.find("\n")
        if first < 0:
            if self._line + len(piece) > limit:
                return False
            self._line += len(piece)
        else:
            if self._line + first > limit or max(map(len, piece.split("\n"))) > limit:
                return False
            self._line = len(piece) - piece.rfind("\n") - 1
        buf = self._ctx + piece
        self._ctx = buf[-CONTEXT:]
        self._at_start = self._at_start and len(buf) <= CONTEXT
        return True


def display_pieces(
    text: str, limit: int = DEFAULT_LIMIT, prefer_window: int = DEFAULT_PREFER_WINDOW
) -> list[str]:
    """One-shot: split `text` into display pieces at the same places a DisplayBreaker fed
    the whole text at once would break. ''.join(result) == text."""
    cuts = DisplayBreaker(limit, prefer_window).feed(text)
    bounds = [0, *cuts, len(text)]
    return [text[a:b] for a, b in pairwise(bounds)]
