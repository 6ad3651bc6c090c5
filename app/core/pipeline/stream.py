"""Carrying tokens from the inference thread to the GUI thread.

``Chunk`` is one batch of tokens; ``ChunkBuffer`` is the bounded hand-over
point; ``Batcher`` decides when the producer closes a batch.

Threading rule: exactly one producer thread calls ``ChunkBuffer.put`` and
exactly one consumer (the GUI thread) calls ``drain``/``discard``. The producer
blocks while the buffer is full, in short waits so it still notices its
cancel flag; nothing is ever dropped.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from dataclasses import dataclass

from app.core.base.limits import MAX_PIECE_CHARS


@dataclass(frozen=True)
class Chunk:
    """A batch of consecutive tokens of one request (immutable: it crosses threads)."""

    request_id: int
    seq: int                          # 0, 1, 2... per request, no gaps
    text: str
    produced_at: tuple[float, ...]    # time.monotonic() of each token in the batch

    @property
    def n_tokens(self) -> int:
        return len(self.produced_at)


class ChunkBuffer:
    """A bounded FIFO of chunks, bounded by the number of characters it holds.

    A chunk larger than the whole capacity is still admitted when the buffer
    is empty, so a producer can never deadlock on one huge token.
    """

    def __init__(self, max_chars: int = 65536, wait_slice_s: float = 0.02) -> None:
        self.max_chars = max_chars
        self._wait_slice_s = wait_slice_s
        self._chunks: deque[Chunk] = deque()
        self._chars = 0
        self._cond = threading.Condition()
        self.max_depth_chars = 0   # high-water mark, for stream health / doctor
        self.blocked_s = 0.0       # total time the producer spent waiting for room
        self.tokens_put = 0        # tokens ever accepted (read by stream health)

    def put(self, chunk: Chunk, cancel: threading.Event) -> bool:
        """Append ``chunk``, waiting while the buffer is full.

        Returns False (chunk not added) only if ``cancel`` was set while waiting.
        """
        size = len(chunk.text)
        with self._cond:
            if self._chars and self._chars + size > self.max_chars:
                t0 = time.monotonic()
                while self._chars and self._chars + size > self.max_chars:
                    if cancel.is_set():
                        self.blocked_s += time.monotonic() - t0
                        return False
                    self._cond.wait(self._wait_slice_s)
                self.blocked_s += time.monotonic() - t0
            self._chunks.append(chunk)
            self._chars += size
            self.tokens_put += chunk.n_tokens
            self.max_depth_chars = max(self.max_depth_chars, self._chars)
            return True

    def drain(self, max_chars: int | None = None) -> list[Chunk]:
        """Take chunks from the front, at least one if any, stopping once
        ``max_chars`` characters were taken. Never blocks."""
        out: list[Chunk] = []
        taken = 0
        with self._cond:
            while self._chunks and (max_chars is None or taken < max_chars):
                chunk = self._chunks.popleft()
                taken += len(chunk.text)
                out.append(chunk)
            if out:
                self._chars -= taken
                self._cond.notify_all()
        return out

    def discard(self, request_id: int) -> int:
        """Drop every chunk of ``request_id`` (a stale, cancelled request)."""
        with self._cond:
            kept = deque(c for c in self._chunks if c.request_id != request_id)
            dropped = len(self._chunks) - len(kept)
            self._chunks = kept
            self._chars = sum(len(c.text) for c in kept)
            self._cond.notify_all()
        return dropped

    @property
    def depth_chars(self) -> int:
        with self._cond:
            return self._chars

    def __len__(self) -> int:
        with self._cond:
            return len(self._chunks)


class Batcher:
    """Collects token pieces; a batch closes at ``max_tokens`` pieces, at
    ``max_chars`` characters or once ``window_s`` has passed since the last
    batch closed, whichever comes first.

    Timing from the last close (not from the batch's first token) means a slow
    model's tokens go out one by one with no added delay, while a fast
    producer's tokens are grouped into one signal per window.
    """

    def __init__(self, request_id: int, window_s: float = 0.012, max_tokens: int = 64,
                 max_chars: int = MAX_PIECE_CHARS) -> None:
        self.request_id = request_id
        self.window_s = window_s
        self.max_tokens = max_tokens
        self.max_chars = max_chars
        self._pieces: list[str] = []
        self._times: list[float] = []
        self._chars = 0
        self._last_close = time.monotonic()
        self._seq = 0

    def add(self, piece: str, now: float, n_tokens: int = 1) -> Chunk | None:
        """Add one token's text (or ``n_tokens`` tokens' text, produced
        together at ``now``: at least 1); returns a closed Chunk when one is due."""
        self._pieces.append(piece)
        if n_tokens == 1:
            self._times.append(now)
        else:
            self._times += [now] * max(1, n_tokens)
        self._chars += len(piece)
        if len(self._times) >= self.max_tokens or self._chars >= self.max_chars or now - self._last_close >= self.window_s:
            return self.close(now)
        return None

    def close(self, now: float | None = None) -> Chunk | None:
        """Close the current batch (end of stream); None if it is empty."""
        if not self._times:
            return None
        chunk = Chunk(self.request_id, self._seq, "".join(self._pieces), tuple(self._times))
        self._seq += 1
        self._pieces = []
        self._times = []
        self._chars = 0
        self._last_close = time.monotonic() if now is None else now
        return chunk
