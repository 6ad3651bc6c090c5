"""A reasoning model's "thinking", kept apart from its answer (Qt-free).

Reasoning models either stream their thoughts inline, ``<think>…</think>``
before the answer (DeepSeek-R1, Qwen3 through a raw template), or in a
separate field (``reasoning_content`` from llama-server / vLLM / DeepSeek,
``thinking`` from Ollama). Rill's remote backends turn the separate field into
the inline form, so a message's content has ONE representation whatever the
server: an optional leading ``<think>`` block, then the answer.

The view folds the thinking under "Thinking…"; the prompt builder drops it
(a model is never sent its own earlier thoughts).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

OPEN_TAG = "<think>"
CLOSE_TAG = "</think>"

# Leading whitespace is allowed before the tag (models often emit "\n").
_OPEN_RE = re.compile(r"\A\s*<think>", re.IGNORECASE)
_CLOSE_RE = re.compile(r"</think>", re.IGNORECASE)


@dataclass(frozen=True)
class Thinking:
    """A message's content split into its thinking and its answer."""

    #: The thinking text (without the tags), or None when there is none.
    thoughts: str | None
    #: Everything after ``</think>`` (or the whole content without thinking).
    answer: str
    #: False while the model is still thinking (no ``</think>`` yet).
    closed: bool = True


def split_thinking(content: str) -> Thinking:
    """Split ``content`` into thinking and answer.

    Only a ``<think>`` at the very start (after whitespace) opens a thinking
    block; one elsewhere is ordinary text (a model explaining the tag).
    """
    opened = _OPEN_RE.match(content)
    if opened is None:
        return Thinking(None, content, True)
    rest = content[opened.end():]
    closing = _CLOSE_RE.search(rest)
    if closing is None:
        return Thinking(rest, "", False)
    return Thinking(rest[: closing.start()], rest[closing.end():].lstrip("\r\n"), True)


def strip_thinking(content: str) -> str:
    """``content`` without its leading thinking block (what a prompt carries)."""
    split = split_thinking(content)
    return split.answer if split.thoughts is not None else content


# ------------------------------------------------------------------ offsets and streams

# Any run of line breaks right after ``</think>`` (split_thinking drops it).
_LINE_BREAKS_RE = re.compile(r"[\r\n]*")
_SPACES_RE = re.compile(r"\s*")
_OPEN_TAG_RE = re.compile(re.escape(OPEN_TAG), re.IGNORECASE)


def _proper_prefixes(tag: str) -> re.Pattern[str]:
    """A pattern whose ``fullmatch`` accepts exactly the non-empty proper
    prefixes of ``tag``, with the same per-character (IGNORECASE) rule as the
    whole-tag patterns above, so a streamed prefix is judged as the whole
    text will be."""
    inner = ""
    for ch in reversed(tag[1:-1]):
        inner = f"(?:{re.escape(ch)}{inner})?"
    return re.compile(re.escape(tag[0]) + inner, re.IGNORECASE)


_OPEN_PREFIX_RE = _proper_prefixes(OPEN_TAG)
_CLOSE_PREFIX_RE = _proper_prefixes(CLOSE_TAG)


@dataclass(frozen=True)
class ThinkingSpans:
    """Where :func:`split_thinking`'s parts lie in the content (offsets)."""

    thoughts_start: int
    thoughts_end: int
    #: Start of the answer (``len(content)`` while still thinking).
    answer_start: int
    closed: bool


def thinking_spans(content: str) -> ThinkingSpans | None:
    """:func:`split_thinking` as offsets, copying nothing: None when there is
    no thinking, else ``content[thoughts_start:thoughts_end]`` is the thoughts
    and ``content[answer_start:]`` the answer. O(leading whitespace) for a
    message without thinking."""
    opened = _OPEN_RE.match(content)
    if opened is None:
        return None
    start = opened.end()
    closing = _CLOSE_RE.search(content, start)
    if closing is None:
        return ThinkingSpans(start, len(content), len(content), False)
    answer = _LINE_BREAKS_RE.match(content, closing.end())
    assert answer is not None
    return ThinkingSpans(start, closing.start(), answer.end(), True)


def count_words(text: str) -> int:
    """Words as ``str.split`` sees them (the "N words" of the thinking header)."""
    return len(text.split())


class ThinkingSplitter:
    """:func:`split_thinking` for a stream: ``feed`` each streamed piece, get
    the ``(thoughts, answer)`` text it makes known, in order.

    Whatever the pieces, the concatenated thoughts and answers (``finish``
    included) equal ``split_thinking`` of the whole text, and nothing given
    out is ever taken back: text that may still be (part of) a tag is held
    until the next piece tells (a leading ``"<thi"``, a trailing ``"</th"``;
    leading whitespace is held while a ``<think>`` may still follow it).

    States: ``"head"`` (undecided: whitespace and at most 6 characters of a
    possible ``<think>`` held), ``"thoughts"``, ``"strip"`` (after
    ``</think>``: line breaks dropped), ``"answer"`` (every piece passes
    through unchanged; the caller may drop the splitter then). A text that
    does not start with ``<think>`` is decided on its first non-space
    character. Cost: O(len(piece)) per piece, plus O(len(piece)) to count
    words while thinking. Not thread-safe (one per stream).
    """

    __slots__ = (
        "_held",
        "_in_word",
        "_partial",
        "answer_start",
        "closed",
        "pos",
        "state",
        "thoughts_start",
        "words",
    )

    def __init__(self) -> None:
        self.state = "head"
        #: Characters fed so far.
        self.pos = 0
        #: Offset of the thoughts' first character (None: no ``<think>`` yet).
        self.thoughts_start: int | None = None
        #: Offset of the answer's first character (None: not known yet).
        self.answer_start: int | None = None
        #: True once ``</think>`` was seen (or the text has no thinking).
        self.closed = False
        #: Words in the thoughts given out so far.
        self.words = 0
        self._held: list[str] = []      # head: leading whitespace
        self._partial = ""              # head: a possible <think>; thoughts: a possible </think>
        self._in_word = False           # the thoughts given out end inside a word

    @property
    def has_thinking(self) -> bool | None:
        """True / False once decided; None while the head is undecided."""
        if self.thoughts_start is not None:
            return True
        return None if self.state == "head" else False

    def feed(self, text: str) -> tuple[str, str]:
        """The thoughts and the answer text that ``text`` makes known."""
        base = self.pos
        self.pos += len(text)
        if self.state == "answer":
            return "", text
        if self.state == "head":
            return self._feed_head(text, base)
        if self.state == "thoughts":
            return self._feed_thoughts(text, base)
        return "", self._feed_strip(text)

    def finish(self) -> tuple[str, str]:
        """The stream ended: what was held, given out (a text that ends in
        ``"<thi"`` has no thinking; thoughts that end in ``"</th"`` keep it)."""
        if self.state == "head":
            return "", self._no_thinking("")
        if self.state == "thoughts" and self._partial:
            partial, self._partial = self._partial, ""
            return self._thought(partial), ""
        return "", ""

    # -- states -------------------------------------------------------------------

    def _no_thinking(self, rest: str) -> str:
        answer = "".join(self._held) + self._partial + rest
        self._held, self._partial = [], ""
        self.state, self.closed, self.answer_start = "answer", True, 0
        return answer

    def _feed_head(self, text: str, base: int) -> tuple[str, str]:
        if self._partial:
            cand, cand_start = self._partial + text, base - len(self._partial)
        else:
            spaces = _SPACES_RE.match(text)
            assert spaces is not None
            skip = spaces.end()
            if skip:
                self._held.append(text[:skip])
            if skip == len(text):
                return "", ""
            cand, cand_start = text[skip:], base + skip
        if _OPEN_TAG_RE.match(cand):
            self._held, self._partial = [], ""
            self.state = "thoughts"
            self.thoughts_start = cand_start + len(OPEN_TAG)
            return self._feed_thoughts(cand[len(OPEN_TAG):], self.thoughts_start)
        if len(cand) < len(OPEN_TAG) and _OPEN_PREFIX_RE.fullmatch(cand):
            self._partial = cand
            return "", ""
        self._partial = ""
        return "", self._no_thinking(cand)

    def _feed_thoughts(self, text: str, base: int) -> tuple[str, str]:
        buf, buf_start = self._partial + text, base - len(self._partial)
        self._partial = ""
        closing = _CLOSE_RE.search(buf)
        if closing is not None:
            thought = self._thought(buf[: closing.start()])
            self.state, self.closed = "strip", True
            self.answer_start = buf_start + closing.end()
            return thought, self._feed_strip(buf[closing.end():])
        lt = buf.rfind("<", max(0, len(buf) - (len(CLOSE_TAG) - 1)))
        if lt >= 0 and _CLOSE_PREFIX_RE.fullmatch(buf, lt):
            self._partial = buf[lt:]
            buf = buf[:lt]
        return self._thought(buf), ""

    def _feed_strip(self, text: str) -> str:
        breaks = _LINE_BREAKS_RE.match(text)
        assert breaks is not None and self.answer_start is not None
        skip = breaks.end()
        self.answer_start += skip
        if skip == len(text):
            return ""
        self.state = "answer"
        return text[skip:]

    def _thought(self, text: str) -> str:
        if text:
            n = len(text.split())
            if n and self._in_word and not text[0].isspace():
                n -= 1  # a word cut between two pieces
            self.words += n
            self._in_word = not text[-1].isspace()
        return text
