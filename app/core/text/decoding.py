"""Incremental decoding of token bytes into text."""

from __future__ import annotations

import codecs


class TokenDecoder:
    """Turns a stream of token byte strings into text, one token at a time.

    A multi-byte UTF-8 character split across tokens is held back until it is
    complete, so a half character never reaches the screen. Invalid bytes
    become U+FFFD rather than raising. O(1) per token.
    """

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

    def feed(self, token_bytes: bytes) -> str:
        """Decode one token's bytes; returns the text that is now complete."""
        return self._decoder.decode(token_bytes)

    def flush(self) -> str:
        """End of stream: return whatever is left (an incomplete tail as U+FFFD)."""
        return self._decoder.decode(b"", final=True)

    def reset(self) -> None:
        self._decoder.reset()
