"""kill -9 while a reply streams, N times (goal: never a corrupt database, at
most one second of streamed text lost).

Each round starts a child that opens the store, adds a conversation, a prompt
and a streaming reply, then appends text and calls ``save_message`` every
``--interval`` seconds, printing each save once it returned. The parent
kills it with SIGKILL at a random moment (after 1-10 saves, plus a random
part of an interval), reopens the store and checks: ``PRAGMA
integrity_check`` is ok; the reply holds the text of the last save the child
reported, or of the one after it (committed but not yet reported); after
``recover_interrupted`` (done by ``Store.open``) it is ``interrupted``.

    python -m benchmarks.store_crash [--rounds 50] [--interval 0.05]

Prints a summary and, last, one JSON line.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = r"""
import sys, time
from app.core.store import Store, ConversationInfo
from app.core.conversation.model import Message, MessageStatus
path, conv_id, interval = sys.argv[1], sys.argv[2], float(sys.argv[3])
s = Store.open(path, recover=False).store
s.create_conversation(ConversationInfo(id=conv_id, title="crash"))
user = Message("user", "tell me a long story", id=conv_id + "-u")
s.add_message(conv_id, user)
live = Message("assistant", "", MessageStatus.STREAMING, id=conv_id + "-r", parent_id=user.id)
s.add_message(conv_id, live)
i = 0
while True:
    live.append(f"<{i} 流式 text 🎉> " * 20)
    i += 1
    s.save_message(live)
    print(i, flush=True)
    time.sleep(interval)
"""


def expected(saves: int) -> str:
    return "".join(f"<{i} 流式 text 🎉> " * 20 for i in range(saves))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=50)
    parser.add_argument("--interval", type=float, default=0.05)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)

    from app.core.conversation.model import MessageStatus
    from app.core.store import Store

    rng = random.Random(args.seed)
    tmp = Path(tempfile.mkdtemp(prefix="rill-crash-bench-"))
    path = tmp / "rill.db"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    failures: list[str] = []
    lost_saves = {0: 0, 1: 0}
    reopen_ms: list[float] = []
    try:
        first = Store.open(path)
        assert first.store is not None
        first.store.close()
        for n in range(args.rounds):
            conv_id = f"round{n:03d}"
            proc = subprocess.Popen(
                [sys.executable, "-c", CHILD, str(path), conv_id, str(args.interval)],
                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env, cwd=ROOT,
            )
            assert proc.stdout is not None
            target = rng.randint(1, 10)
            acked = 0
            for line in proc.stdout:
                acked = int(line)
                if acked >= target:
                    break
            time.sleep(rng.random() * args.interval * 1.2)
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            proc.stdout.close()
            t0 = time.perf_counter()
            result = Store.open(path)
            reopen_ms.append((time.perf_counter() - t0) * 1000)
            store = result.store
            if store is None or result.notices:
                failures.append(f"round {n}: reopen: {result.notices}")
                continue
            try:
                if not store.integrity_ok():
                    failures.append(f"round {n}: integrity_check failed")
                got = store.get_message(conv_id + "-r")
                if got is None:
                    failures.append(f"round {n}: the reply is missing")
                    continue
                if got.status is not MessageStatus.INTERRUPTED:
                    failures.append(f"round {n}: status {got.status.value}")
                if got.content == expected(acked):
                    lost_saves[0] += 1
                elif got.content == expected(acked + 1):
                    lost_saves[1] += 1  # committed, killed before it printed
                else:
                    failures.append(f"round {n}: text of neither save {acked} nor {acked + 1}")
            finally:
                store.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    res = {
        "rounds": args.rounds,
        "interval_s": args.interval,
        "failures": failures,
        "text_of_last_reported_save": lost_saves[0],
        "text_of_a_later_committed_save": lost_saves[1],
        "reopen_ms_max": round(max(reopen_ms), 1) if reopen_ms else None,
    }
    print(f"{args.rounds} kills: {len(failures)} failures; reply = last reported save in {lost_saves[0]}, "
          f"a save committed just before the kill in {lost_saves[1]}; reopen max {res['reopen_ms_max']} ms")
    for f in failures:
        print("  " + f)
    print(json.dumps(res, ensure_ascii=False))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
