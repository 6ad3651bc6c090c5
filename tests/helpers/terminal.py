"""Reading what a child process wrote to a pseudo-terminal."""

from __future__ import annotations

import os
import select


def read_terminal(leader: int, idle_s: float = 60.0) -> bytes:
    """Everything written to the terminal whose ``leader`` end this is, until
    the child closes it (or writes nothing for ``idle_s``)."""
    chunks: list[bytes] = []
    while True:
        ready, _, _ = select.select([leader], [], [], idle_s)
        if not ready:
            break
        try:
            data = os.read(leader, 65536)
        except OSError:   # the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    return b"".join(chunks)
