"""How long ``app.core.models.gguf_info.read_gguf_info`` takes (goal: <= 50 ms for a
4 GB file; Model › Manage Models… reads one header per listed file, off the
GUI thread).

Files measured (the big ones are sparse: only their headers take disk space):

* ``smollm2`` -- the real default model (98 MB, 49,152-token vocabulary);
* ``smollm2-header-4gb`` -- its first 2 MiB (header, metadata with the whole
  tokenizer, tensor infos) extended to 4 GiB with ``truncate``;
* ``llama3-8b-like`` -- written with ``gguf.GGUFWriter``: Llama 3 8B's 291
  tensor shapes in Q4_K (~4.6 GB), a 128,256-token vocabulary and 280,147
  merges (the largest tokenizer metadata in common use), a Llama 3 template.

Each: ``--reps`` reads (default 20) after one warm-up read (page cache warm:
what a second opening of the dialog sees; a cold disk adds the time to read
the first ~2-8 MB). Also: ``import gguf`` (paid once, on the background
thread, the first time), and ``gguf.GGUFReader`` on the real file, the
obvious alternative, for comparison.

    python -m benchmarks.gguf_read [--reps 20] [--keep DIR]

Prints a table, then one JSON line.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

GOAL_MS = 50.0
LLAMA3_TEMPLATE = (
    "{% set loop_messages = messages %}{% for message in loop_messages %}"
    "{% set content = '<|start_header_id|>' + message['role'] + '<|end_header_id|>\n\n'"
    "+ message['content'] | trim + '<|eot_id|>' %}{{ content }}{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|start_header_id|>assistant<|end_header_id|>\n\n' }}{% endif %}"
)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    k = (len(ordered) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def time_reads(path: Path, reps: int) -> dict[str, Any]:
    from app.core.models.gguf_info import read_gguf_info

    info = read_gguf_info(path)  # warm-up (page cache, gguf import)
    times = []
    for _ in range(reps):
        started = time.perf_counter()
        info = read_gguf_info(path)
        times.append((time.perf_counter() - started) * 1000)
    return {
        "file_bytes": path.stat().st_size,
        "disk_bytes": path.stat().st_blocks * 512,
        "error": info.error,
        "parameters": info.parameters,
        "vocab_size": info.vocab_size,
        "tensors": info.tensor_count,
        "reps": reps,
        "median_ms": round(statistics.median(times), 2),
        "p95_ms": round(percentile(times, 0.95), 2),
        "min_ms": round(min(times), 2),
        "max_ms": round(max(times), 2),
        "goal_ms": GOAL_MS,
        "met": percentile(times, 0.95) <= GOAL_MS,
    }


def header_copy(source: Path, dest: Path, size: int) -> Path:
    with open(source, "rb") as src, open(dest, "wb") as out:
        out.write(src.read(2 * 1024 * 1024))
    os.truncate(dest, size)
    return dest


def llama3_like(dest: Path) -> Path:
    """Llama 3 8B's shapes and tokenizer sizes, Q4_K, the data a sparse hole."""
    import gguf
    import numpy as np

    qk = gguf.GGMLQuantizationType.Q4_K
    w = gguf.GGUFWriter(dest, "llama")
    w.add_name("Meta Llama 3 8B Instruct (synthetic header)")
    w.add_size_label("8B")
    w.add_license("llama3")
    w.add_context_length(8192)
    w.add_embedding_length(4096)
    w.add_block_count(32)
    w.add_feed_forward_length(14336)
    w.add_head_count(32)
    w.add_head_count_kv(8)
    w.add_rope_freq_base(500000.0)
    w.add_layer_norm_rms_eps(1e-5)
    w.add_file_type(gguf.LlamaFileType.MOSTLY_Q4_K_M)
    w.add_vocab_size(128256)
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre("llama-bpe")
    w.add_token_list([f"tok{i:06d}" for i in range(128256)])
    w.add_token_types([1] * 128256)
    w.add_token_merges([f"t{i % 9973} k{i}" for i in range(280147)])
    w.add_bos_token_id(128000)
    w.add_eos_token_id(128009)
    w.add_chat_template(LLAMA3_TEMPLATE)
    shapes: list[tuple[str, tuple[int, ...]]] = [("token_embd.weight", (128256, 4096))]
    for i in range(32):
        shapes += [
            (f"blk.{i}.attn_norm.weight", (4096,)),
            (f"blk.{i}.attn_q.weight", (4096, 4096)),
            (f"blk.{i}.attn_k.weight", (1024, 4096)),
            (f"blk.{i}.attn_v.weight", (1024, 4096)),
            (f"blk.{i}.attn_output.weight", (4096, 4096)),
            (f"blk.{i}.ffn_norm.weight", (4096,)),
            (f"blk.{i}.ffn_gate.weight", (14336, 4096)),
            (f"blk.{i}.ffn_up.weight", (14336, 4096)),
            (f"blk.{i}.ffn_down.weight", (4096, 14336)),
        ]
    shapes += [("output_norm.weight", (4096,)), ("output.weight", (128256, 4096))]
    total = 0
    for name, shape in shapes:
        qtype = qk if len(shape) == 2 else gguf.GGMLQuantizationType.F32
        block, type_size = gguf.GGML_QUANT_SIZES[qtype]
        nbytes = int(np.prod(shape)) // block * type_size
        w.add_tensor_info(name, shape, np.dtype(np.float32), nbytes, raw_dtype=qtype)
        total += -(-nbytes // 32) * 32
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_ti_data_to_file()
    w.close()
    start = -(-dest.stat().st_size // 32) * 32
    os.truncate(dest, start + total)
    return dest


def import_cost() -> float:
    """``import gguf`` in a fresh interpreter, ms (median of 3)."""
    code = "import time; t = time.perf_counter(); import gguf.constants; print((time.perf_counter() - t) * 1000)"
    runs = [float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
            for _ in range(3)]
    return round(statistics.median(runs), 1)


def gguf_reader_ms(path: Path, reps: int = 3) -> float:
    import gguf

    times = []
    for _ in range(reps):
        started = time.perf_counter()
        gguf.GGUFReader(path)
        times.append((time.perf_counter() - started) * 1000)
    return round(statistics.median(times), 1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--keep", metavar="DIR", help="write the big files here and keep them (default: a temp dir)")
    parser.add_argument("--no-reader", action="store_true", help="skip the gguf.GGUFReader comparison (~2 s a read)")
    args = parser.parse_args(argv)

    from app.core.models.paths import package_model_path

    real = package_model_path()
    folder = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="rill-gguf-bench-"))
    folder.mkdir(parents=True, exist_ok=True)
    results: dict[str, Any] = {"benchmark": "gguf_read", "goal_ms": GOAL_MS, "cases": {}}
    try:
        results["import_gguf_ms"] = import_cost()
        cases: dict[str, Path] = {}
        if real is not None:
            cases["smollm2"] = real
            big = folder / "smollm2-header-4gb.gguf"
            if not big.exists():
                header_copy(real, big, 4 * 1024**3)
            cases["smollm2-header-4gb"] = big
        synthetic = folder / "llama3-8b-like.gguf"
        if not synthetic.exists():
            started = time.perf_counter()
            llama3_like(synthetic)
            results["llama3_like_written_s"] = round(time.perf_counter() - started, 1)
        cases["llama3-8b-like"] = synthetic
        for name, path in cases.items():
            results["cases"][name] = time_reads(path, args.reps)
        if real is not None and not args.no_reader:
            results["gguf_reader_smollm2_ms"] = gguf_reader_ms(real)
    finally:
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)

    print(f"{'case':<22} {'file':>10} {'median':>9} {'p95':>9} {'max':>9}  goal {GOAL_MS:.0f} ms")
    for name, r in results["cases"].items():
        print(f"{name:<22} {r['file_bytes'] / 1024**3:>8.2f}GB {r['median_ms']:>7.1f}ms {r['p95_ms']:>7.1f}ms "
              f"{r['max_ms']:>7.1f}ms  {'met' if r['met'] else 'NOT met'}{'  ' + r['error'] if r['error'] else ''}")
    print(f"import gguf (once, fresh process): {results['import_gguf_ms']} ms")
    if "gguf_reader_smollm2_ms" in results:
        print(f"gguf.GGUFReader on smollm2, for comparison: {results['gguf_reader_smollm2_ms']} ms")
    print(json.dumps(results))
    return 0 if all(r["met"] and not r["error"] for r in results["cases"].values()) else 1


if __name__ == "__main__":
    sys.exit(main())
