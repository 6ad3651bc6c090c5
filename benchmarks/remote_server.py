"""A fast synthetic OpenAI-compatible server (stdlib only), for the remote
benchmark's 50,000 tok/s run.

    python -m benchmarks.remote_server --text-file F --rate 50000

Prints one JSON line ``{"port": N}`` on stdout once it listens on
127.0.0.1:N, then serves until its standard input is closed (the parent's
handle: it never outlives the benchmark).

* ``POST /v1/chat/completions``: ``text/event-stream``, ``Connection:
  close``, a close-delimited body. The text file is split into tokens the way
  Rill's scripted backend splits it (``app.core.backends.scripted.tokenize_text``), so
  both stream the same pieces. Every event's bytes are encoded ONCE at start
  (a role event ``{"choices":[{"delta":{"role":"assistant","content":null}}]}``,
  one ``{"choices":[{"index":0,"delta":{"content":TOKEN}}]}`` per token, a
  finish_reason "stop" chunk, ``data: [DONE]``) into one buffer. Pacing:
  every ~1 ms, everything that is due at ``--rate`` goes out in ONE
  ``sendall`` of a slice of that buffer. When the next event holds a
  multi-byte character, the write ends in the middle of that character, so
  UTF-8 sequences cross write (and so read) boundaries all the time.
* ``GET /v1/models``: ``{"data":[{"id":"synthetic"}]}``.
* ``GET /stats``: the last finished chat request: tokens, seconds from the
  first to the last write, writes, bytes, writes that split a character,
  and the request body it received (so a benchmark can check what a client
  sent).

JSON is written with ``ensure_ascii=False``: the characters go over the wire
as raw UTF-8, as llama-server sends them.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import sys
import threading
import time
from typing import Any

HEAD_SSE = (b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
            b"Cache-Control: no-cache\r\nConnection: close\r\n\r\n")


def _event(obj: Any) -> bytes:
    return b"data: " + json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n\n"


class Script:
    """The whole reply, encoded once: ``blob`` and where each event ends."""

    def __init__(self, tokens: list[str]) -> None:
        events = [_event({"choices": [{"delta": {"role": "assistant", "content": None}}]})]
        events += [_event({"choices": [{"index": 0, "delta": {"content": t}}]}) for t in tokens]
        events.append(_event({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}))
        events.append(b"data: [DONE]\n\n")
        self.n_tokens = len(tokens)
        self.blob = b"".join(events)
        #: ends[k]: the byte offset where event k ends (event 0: the role event,
        #: event i (1..n): token i, then the finish chunk and [DONE]).
        self.ends: list[int] = []
        #: cut[k]: an offset inside the first multi-byte character of event
        #: k (0 when it has none): a write ending there splits the character.
        self.cut: list[int] = []
        pos = 0
        for ev in events:
            start = pos
            pos += len(ev)
            self.ends.append(pos)
            mid = 0
            for j, byte in enumerate(ev):
                if byte >= 0xC0:  # the lead byte of a multi-byte sequence
                    mid = start + j + 1
                    break
            self.cut.append(mid)
        self.end_set = frozenset(self.ends)


class Server:
    def __init__(self, script: Script, rate: float, tick_s: float = 0.001) -> None:
        self.script = script
        self.rate = rate
        self.tick_s = tick_s
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.last_stats: dict[str, Any] = {}
        self.last_body = b""

    def serve_forever(self) -> None:
        while True:
            conn, _ = self.sock.accept()
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            threading.Thread(target=self._handle, args=(conn,), daemon=True).start()

    def _read_request(self, conn: socket.socket) -> tuple[str, str, bytes]:
        buf = b""
        while b"\r\n\r\n" not in buf:
            data = conn.recv(65536)
            if not data:
                raise ConnectionError("closed before the headers")
            buf += data
        head, _, body = buf.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        method, path, _ = lines[0].split(" ", 2)
        length = 0
        for line in lines[1:]:
            name, _, value = line.partition(":")
            if name.strip().lower() == "content-length":
                length = int(value.strip())
        while len(body) < length:
            data = conn.recv(65536)
            if not data:
                raise ConnectionError("closed in the body")
            body += data
        return method, path, body

    def _json(self, conn: socket.socket, obj: Any) -> None:
        body = json.dumps(obj).encode()
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n"
                     b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)

    def _handle(self, conn: socket.socket) -> None:
        try:
            method, path, body = self._read_request(conn)
            if method == "GET" and path.rstrip("/").endswith("/models"):
                self._json(conn, {"data": [{"id": "synthetic", "object": "model"}]})
            elif method == "GET" and path == "/stats":
                stats = dict(self.last_stats)
                stats["last_body"] = self.last_body.decode("utf-8", errors="replace")
                self._json(conn, stats)
            elif method == "POST" and path.rstrip("/").endswith("/chat/completions"):
                self.last_body = body
                self._stream(conn)
            else:
                conn.sendall(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        except OSError:
            pass
        finally:
            try:
                conn.shutdown(socket.SHUT_WR)
            except OSError:
                pass
            conn.close()

    def _stream(self, conn: socket.socket) -> None:
        s = self.script
        blob = memoryview(s.blob)
        total = len(s.blob)
        n = s.n_tokens
        rate = self.rate
        ends, cut = s.ends, s.cut
        conn.sendall(HEAD_SSE)
        sent = 0
        writes = 0
        split_writes = 0
        start = time.monotonic()
        first_write = last_write = start
        complete = False
        try:
            while True:
                due = min(n, int((time.monotonic() - start) * rate) + 1)  # tokens due now
                if due >= n:
                    target = total
                else:
                    target = ends[due]          # the role event and tokens 1..due
                    mid = cut[due + 1]
                    if mid:
                        target = mid            # and half a character of the next
                if target > sent:
                    conn.sendall(blob[sent:target])
                    if writes == 0:
                        first_write = time.monotonic()
                    writes += 1
                    if target not in s.end_set:
                        split_writes += 1
                    sent = target
                    last_write = time.monotonic()
                if sent >= total:
                    complete = True
                    break
                time.sleep(self.tick_s)
        finally:
            dur = last_write - first_write
            self.last_stats = {
                "tokens": n, "complete": complete, "bytes": sent, "writes": writes,
                "writes_splitting_a_character": split_writes,
                "write_span_s": round(dur, 4),
                "send_tok_s": round((n - 1) / dur, 1) if dur > 0 and complete else None,
            }


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--text-file", required=True)
    ap.add_argument("--rate", type=float, default=50_000.0, help="tokens per second")
    ap.add_argument("--tick-ms", type=float, default=1.0)
    args = ap.parse_args(argv)
    from app.core.backends.scripted import tokenize_text

    with open(args.text_file, encoding="utf-8") as f:
        text = f.read()
    tokens = [t.decode("utf-8") for t in tokenize_text(text)]
    script = Script(tokens)
    server = Server(script, args.rate, args.tick_ms / 1000)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    sys.stdout.write(json.dumps({"port": server.port, "tokens": script.n_tokens, "bytes": len(script.blob)}) + "\n")
    sys.stdout.flush()
    sys.stdin.read()  # until the parent closes our stdin (or exits)
    os._exit(0)


if __name__ == "__main__":
    main()
