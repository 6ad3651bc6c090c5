"""Vocab: a token's bytes, end-of-generation flag and text, each asked of
llama.cpp once per token (a fake llama_cpp here: no model needed)."""

from __future__ import annotations

import ctypes
from collections import Counter
from typing import Any

from app.core.backends.llama.vocab import Vocab

VOCAB = object()  # the vocab pointer
PIECES = {1: b"Hello", 2: " wörld".encode(), 3: b"", 4: ("x" * 200).encode()}
TEXTS = {1: b"Hello", 2: b"\xc4\xa0w\xc3\xb6rld", 3: b"<|im_end|>"}


class FakeLlamaCpp:
    """The three llama_cpp calls Vocab makes, counted."""

    def __init__(self) -> None:
        self.calls: Counter[tuple[str, int]] = Counter()

    def llama_vocab_is_eog(self, vocab: Any, token: int) -> bool:
        assert vocab is VOCAB
        self.calls["eog", token] += 1
        return token == 3

    def llama_token_to_piece(self, vocab: Any, token: int, buf: Any, size: int, lstrip: int, special: bool) -> int:
        assert vocab is VOCAB and size == len(buf) and not special
        self.calls["piece", token] += 1
        data = PIECES[token]
        if len(data) > size:
            return -len(data)
        ctypes.memmove(buf, data, len(data))
        return len(data)

    def llama_vocab_get_text(self, vocab: Any, token: int) -> bytes:
        self.calls["text", token] += 1
        return TEXTS[token]


def test_pieces_are_asked_once_and_a_long_one_grows_the_buffer() -> None:
    fake = FakeLlamaCpp()
    vocab = Vocab(fake, VOCAB)
    assert vocab.pointer is VOCAB
    for _ in range(3):
        assert vocab.piece(1) == b"Hello" and vocab.piece(2) == " wörld".encode()
    assert vocab.piece(3) == b""  # a special token renders as nothing
    assert vocab.piece(4) == b"x" * 200  # longer than the first buffer: asked again with a larger one
    assert vocab.piece(1) == b"Hello"
    assert fake.calls["piece", 1] == 1 and fake.calls["piece", 2] == 1 and fake.calls["piece", 4] == 2


def test_end_of_generation_and_text() -> None:
    fake = FakeLlamaCpp()
    vocab = Vocab(fake, VOCAB)
    assert [vocab.is_eog(t) for t in (1, 3, 1, 3)] == [False, True, False, True]
    assert fake.calls["eog", 1] == 1 and fake.calls["eog", 3] == 1
    assert vocab.text(3) == "<|im_end|>" and vocab.text(-1) == ""
    assert vocab.text(2) == "Ġwörld"
