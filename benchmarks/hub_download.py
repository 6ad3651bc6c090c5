"""The Hub downloader against a loopback fake Hub (tests/helpers/fake_hub.py),
for issue #19's goals:

* throughput: ``FileDownload`` (sha256 while writing, a sidecar, fsync,
  atomic rename) against a bare ``httpx`` stream of the same file from the
  same server into a file (goal: >= 0.95x), best of ``--reps``; the fake
  Hub runs in a process of its own (in this one it would share the GIL);
* resume: the connection is dropped at 40 % of the file; bytes of what was
  already on disk fetched again (goal: <= 1 MB);
* remote header: a GGUF header read by ``Range`` requests (a 49k and a 250k
  token vocabulary): requests and time (goal: <= 3 requests, <= 1 s).

    python -m benchmarks.hub_download [--mb 256] [--reps 3]

Measured on the development machine (2 cores shared with other work, the
fake Hub on the same machine): 140-145 MB/s against 180-190 MB/s for the
bare stream (0.76-0.78x); the gap is the sha256 (~0.3 s of CPU for 256 MB,
with no free core to run it beside the reads) and the fsync before the
rename (~0.15 s); without both, 0.97x. Resume: 0 bytes of the partial file
fetched again (the range starts at its size). Remote headers: 1 request
(~20-60 ms) for a 49k-token vocabulary, 2 (~80-130 ms) for 250k tokens.

Prints a table, then one JSON line.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app.core.hub.download import DownloadRequest, FileDownload  # noqa: E402
from app.core.hub.endpoint import HubError, file_url  # noqa: E402
from app.core.hub.remote_gguf import read_remote_info  # noqa: E402
from tests.helpers.fake_hub import FakeHub, FakeRepo, Fault  # noqa: E402
from tests.helpers.gguf_files import tiny_model  # noqa: E402

MB = 1024 * 1024


def bare_httpx(url: str, target: Path) -> float:
    start = time.perf_counter()
    with httpx.Client(follow_redirects=True) as client, client.stream("GET", url) as r, open(target, "wb") as f:
        for chunk in r.iter_raw():  # as they arrive, as FileDownload reads them
            f.write(chunk)
    return time.perf_counter() - start


def rill_download(request: DownloadRequest) -> float:
    start = time.perf_counter()
    FileDownload(request).run()
    return time.perf_counter() - start


def serve(folder: Path) -> int:
    """The fake Hub (and its CDN) serving the files of ``folder``, until standard input closes."""
    files = {p.name: p.read_bytes() for p in folder.iterdir() if p.suffix == ".gguf"}
    with FakeHub() as cdn, FakeHub(cdn=cdn) as hub:
        hub.repos["b/Bench-GGUF"] = FakeRepo(files)
        print(hub.url, flush=True)
        sys.stdin.read()
    return 0


def resume_check(blob: bytes, sha: str, work: Path) -> tuple[int, int, int]:
    """(bytes of the partial file fetched again, where the resumed range
    started, the partial file's size) after a drop at 40 %."""
    with FakeHub() as cdn, FakeHub(cdn=cdn) as hub:
        hub.repos["b/Bench-GGUF"] = FakeRepo({"m-Q4_K_M.gguf": blob})
        url = file_url(hub.url, "b/Bench-GGUF", "m-Q4_K_M.gguf")
        request = DownloadRequest("b/Bench-GGUF", "m-Q4_K_M.gguf", url, work / "resume", len(blob), sha)
        cdn.faults.append(Fault("drop", n=int(len(blob) * 0.4)))
        try:
            FileDownload(request, retries=0).run()
        except HubError:
            pass
        kept = request.partial.stat().st_size
        FileDownload(request).run()
        ranges = [r.headers.get("range", "") for r in cdn.file_requests()]
        resumed_at = int(ranges[-1].removeprefix("bytes=").rstrip("-"))
        return max(0, kept - resumed_at), resumed_at, kept


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=int, default=256)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--serve", metavar="DIR", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        return serve(Path(args.serve))
    work = Path(tempfile.mkdtemp(prefix="rill-hub-bench-"))
    try:
        blob = tiny_model(work / "m.gguf", data_bytes=args.mb * MB, seed=7).read_bytes()
        small_vocab = tiny_model(work / "v49k.gguf", vocab=49_152, data_bytes=MB).read_bytes()
        big_vocab = tiny_model(work / "v250k.gguf", vocab=250_000, data_bytes=MB).read_bytes()
        sha = hashlib.sha256(blob).hexdigest()
        (work / "m.gguf").rename(work / "m-Q4_K_M.gguf")
        server = subprocess.Popen([sys.executable, "-m", "benchmarks.hub_download", "--serve", str(work)], cwd=ROOT,
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        try:
            assert server.stdout is not None
            hub_url = server.stdout.readline().strip()
            url = file_url(hub_url, "b/Bench-GGUF", "m-Q4_K_M.gguf")
            bare, ours = [], []
            for i in range(args.reps):
                bare.append(bare_httpx(url, work / f"bare{i}"))
                (work / f"bare{i}").unlink()
                folder = work / f"rill{i}"
                ours.append(rill_download(DownloadRequest("b/Bench-GGUF", "m-Q4_K_M.gguf", url, folder, len(blob), sha)))
                shutil.rmtree(folder)
            headers = {}
            with httpx.Client(follow_redirects=True) as client:
                for name, data in (("v49k.gguf", small_vocab), ("v250k.gguf", big_vocab)):
                    start = time.perf_counter()
                    info, requests = read_remote_info(client, file_url(hub_url, "b/Bench-GGUF", name), len(data), name)
                    headers[name] = {"requests": requests, "ms": round((time.perf_counter() - start) * 1000, 1),
                                     "ok": info.ok, "vocab": info.vocab_size}
        finally:
            server.communicate("", timeout=30)
        refetched, resumed_at, kept = resume_check(blob, sha, work)
        size_mb = len(blob) / MB
        result = {
            "file_mb": round(size_mb, 1),
            "bare_httpx_mb_s": round(size_mb / min(bare), 1),
            "rill_mb_s": round(size_mb / min(ours), 1),
            "ratio": round(min(bare) / min(ours), 3),
            "resume_refetched_bytes": refetched,
            "resume_range_start": resumed_at,
            "resume_partial_bytes": kept,
            "remote_header": headers,
        }
        print(f"file {result['file_mb']} MB: bare httpx {result['bare_httpx_mb_s']} MB/s, "
              f"Rill {result['rill_mb_s']} MB/s (x{result['ratio']}, sha256 + fsync included)")
        print(f"resume after a drop at 40 %: the partial file held {kept} bytes, the next request asked from "
              f"byte {resumed_at}: {refetched} bytes of what was on disk fetched again")
        for name, h in headers.items():
            print(f"remote header {name}: {h['requests']} request(s), {h['ms']} ms, vocab {h['vocab']}")
        print(json.dumps(result))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    os.environ.setdefault("NO_PROXY", "127.0.0.1")
    sys.exit(main())
