"""A loaded model's vocabulary, token by token (``LlamaBackend``'s): the
bytes a token stands for (llama.cpp's piece API: O(1) per token, special
tokens render as nothing), whether it ends the generation, its text.

Per-token ctypes calls are cached: each one releases and re-takes the GIL,
and when the GUI thread is running Python, re-taking it can cost up to a
switch interval (5 ms by default).

Threading rule: the thread that owns the model only (see
``app.core.backends.llama.backend``). Nothing here imports Qt.
"""

from __future__ import annotations

import ctypes
from typing import Any

__all__ = ["Vocab"]


class Vocab:
    """``vocab``: ``llama_model_get_vocab(model)`` of a model loaded with
    the ``llama_cpp`` module given; valid while that model is."""

    def __init__(self, llama_cpp: Any, vocab: Any) -> None:
        self._llama_cpp = llama_cpp
        self.pointer = vocab
        self._piece_cache: dict[int, bytes] = {}
        self._eog_cache: dict[int, bool] = {}
        self._piece_buf = ctypes.create_string_buffer(64)

    def is_eog(self, token: int) -> bool:
        """The token ends the generation (end of turn, end of text...)."""
        eog = self._eog_cache.get(token)
        if eog is None:
            eog = self._eog_cache[token] = bool(self._llama_cpp.llama_vocab_is_eog(self.pointer, token))
        return eog

    def piece(self, token: int) -> bytes:
        """The bytes of one token (O(1); special tokens render as nothing)."""
        piece = self._piece_cache.get(token)
        if piece is None:
            buf = self._piece_buf
            n = self._llama_cpp.llama_token_to_piece(self.pointer, token, buf, len(buf), 0, False)
            if n < 0:  # buffer too small: -n is the size needed
                buf = self._piece_buf = ctypes.create_string_buffer(-n)
                n = self._llama_cpp.llama_token_to_piece(self.pointer, token, buf, len(buf), 0, False)
            piece = buf.raw[: max(n, 0)]
            self._piece_cache[token] = piece
        return piece

    def text(self, token: int) -> str:
        """A token's text ('' for none: -1), special tokens included."""
        if token == -1:
            return ""
        return bytes(self._llama_cpp.llama_vocab_get_text(self.pointer, token)).decode("utf-8", errors="replace")
