"""Exports with math: a 2,000-message conversation with 1,000 formulas (issue #20).

``python -m benchmarks.math_export [--runs N] [--pdf]`` makes the
conversation in a temporary database (1,000 replies, each with one distinct
formula from ``math_cost.FORMULAS``, varied), then runs ``rill export
--format html`` (and ``pdf``) as a user would, a fresh process each time, with
the formulas typeset ahead on every core (``app.core.render.mathbatch``,
the default) and typeset one after another (``RILL_MATH_WORKERS=1``),
alternated (and ``--tree DIR``'s checkout, e.g. an older commit), and
prints the medians side by side as JSON. Goals: HTML ≤ 10 s,
PDF ≤ 30 s.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.math_cost import FORMULAS

MESSAGES = 2000


def make_db(path: Path) -> str:
    from app.core.conversation.model import Message
    from app.core.store import ConversationInfo, Store

    opened = Store.open(path)
    assert opened.store is not None
    store = opened.store
    cid = "e" * 32
    store.create_conversation(ConversationInfo(id=cid, title="Math homework", created_at=1.7e9, updated_at=1.7e9,
                                               pinned=False, model="", system_prompt="", params={}, current_leaf=None))
    parent = None
    for n in range(MESSAGES // 2):
        tex = FORMULAS[n % len(FORMULAS)].replace("2", str(2 + n // len(FORMULAS)))
        user = Message("user", f"Question {n}: what is it?", id=f"u{n}", created_at=1.7e9 + n, parent_id=parent)
        body = (f"The answer is $$\n{tex}\n$$" if n % 2 else f"The answer is ${tex}$, as shown.") + "\n\nDone."
        reply = Message("assistant", body, id=f"a{n}", created_at=1.7e9 + n, parent_id=user.id)
        store.add_message(cid, user)
        store.add_message(cid, reply)
        parent = reply.id
    store.update_conversation(cid, current_leaf=parent, updated_at=1.7e9)
    store.close()
    return cid


def run_export(db: Path, out: Path, fmt: str, workers: str | None, tree: str | None = None) -> float:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    if tree:
        env["PYTHONPATH"] = tree
    env.pop("RILL_MATH_WORKERS", None)
    if workers is not None:
        env["RILL_MATH_WORKERS"] = workers
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "app", "export", "--db", str(db), "--all", "--format", fmt, "-o", str(out)],
                   check=True, env=env, capture_output=True, cwd=tree or None)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--pdf", action="store_true", help="the PDF export too")
    parser.add_argument("--tree", metavar="DIR", default=None,
                        help="also time the export of this checkout (e.g. a worktree of an older commit)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "math.db"
        make_db(db)
        results: dict[str, dict[str, float]] = {}
        for fmt in ("html", "pdf") if args.pdf else ("html",):
            times: dict[str, list[float]] = {"ahead": [], "one_by_one": []}
            if args.tree:
                times["tree"] = []
            for _ in range(args.runs):
                times["ahead"].append(run_export(db, Path(tmp) / f"out.{fmt}", fmt, None))
                times["one_by_one"].append(run_export(db, Path(tmp) / f"out.{fmt}", fmt, "1"))
                if args.tree:
                    times["tree"].append(run_export(db, Path(tmp) / f"out.{fmt}", fmt, None, args.tree))
            results[fmt] = {k: round(statistics.median(v), 2) for k, v in times.items()}
            results[fmt]["ratio"] = round(results[fmt]["one_by_one"] / results[fmt]["ahead"], 2)
    print(json.dumps({"messages": MESSAGES, "formulas": MESSAGES // 2, "cores": os.cpu_count(),
                      "seconds": results}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
