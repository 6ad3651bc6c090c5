"""Helpers shared by the benchmark suites (no Qt here: the orchestrator
process never creates a QApplication; every measurement runs in a child).

* ``run_json``: run ``python -m ...`` in a child process and parse the last
  JSON line it prints on stdout.
* ``rss_mb``: this process's resident set size, from /proc.
* ``spread``: median and min-max over repetitions.
* ``stream_text``: a Markdown-ish text of a given number of scripted tokens.
* ``content_text``: the hard content rows of the UI suite (a long unbroken
  line, a CJK paragraph, a big code block, a wide table) and what a reader
  must see of each (``visible_text``).
* ``machine_info``: cores, CPU model, load, versions.
"""

from __future__ import annotations

import json
import math
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable


class ChildFailed(RuntimeError):
    """A measurement child exited without printing a JSON result."""


@dataclass(frozen=True)
class ChildResult:
    data: dict[str, Any]
    returncode: int
    wall_s: float


def child_env(profile: str | None = None) -> dict[str, str]:
    """The environment of a measurement child. With ``profile`` (a folder),
    Rill's settings, data (saved conversations, user models) and state live
    there: every child starts as a fresh install with the default model,
    never the user's last model or last conversation, and leaves nothing
    behind in the user's profile."""
    env = dict(os.environ)
    env.setdefault("QT_QPA_PLATFORM", "offscreen")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    env.setdefault("PYTHONHASHSEED", "0")
    if profile:
        use_profile(profile, env)
    return env


#: Set in a measurement child's environment: its Rill profile is a fresh temporary one.
PROFILE_VAR = "RILL_BENCH_PROFILE"


def use_profile(profile: str, env: dict[str, str] | os._Environ[str] = os.environ) -> None:
    """Point Rill's settings, data and state in ``env`` at ``profile`` (a folder)."""
    for var, sub in (("XDG_CONFIG_HOME", "config"), ("XDG_DATA_HOME", "data"), ("XDG_STATE_HOME", "state")):
        env[var] = os.path.join(profile, sub)
    env[PROFILE_VAR] = profile


def run_json(args: Sequence[str], timeout_s: float = 900.0) -> ChildResult:
    """Run ``python <args>`` from the repository root, in a fresh temporary
    Rill profile (``child_env``); return its last JSON line.

    A child that exits non-zero but still printed JSON is a measurement (the
    doctor exits 1 when a reply did not come through completely, which is a
    result, not a crash); one that printed nothing raises ChildFailed.
    """
    import shutil
    import tempfile

    t0 = time.monotonic()
    profile = tempfile.mkdtemp(prefix="rill-bench-profile-")
    try:
        proc = subprocess.run(
            [PYTHON, *args], cwd=ROOT, env=child_env(profile), capture_output=True,
            text=True, timeout=timeout_s,
        )
    except subprocess.TimeoutExpired as exc:
        raise ChildFailed(f"{' '.join(args)}: timed out after {timeout_s:g} s") from exc
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    wall = time.monotonic() - t0
    for line in reversed(proc.stdout.splitlines()):
        line = line.strip()
        if line.startswith("{"):
            try:
                return ChildResult(json.loads(line), proc.returncode, wall)
            except json.JSONDecodeError:
                break
    tail = "\n".join(proc.stderr.strip().splitlines()[-15:])
    raise ChildFailed(f"{' '.join(args)}: exit {proc.returncode}, no JSON result\n{tail}")


def rss_mb() -> float:
    """Resident set size of this process in MB (VmRSS from /proc/self/status)."""
    with open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    return 0.0


def spread(values: Iterable[float | int | None]) -> dict[str, float | None]:
    """{median, min, max, n} of the non-None values (None fields when there are none)."""
    vals = [float(v) for v in values if v is not None and not (isinstance(v, float) and math.isnan(v))]
    if not vals:
        return {"median": None, "min": None, "max": None, "n": 0}
    return {
        "median": round(statistics.median(vals), 3),
        "min": round(min(vals), 3),
        "max": round(max(vals), 3),
        "n": len(vals),
    }


def ratio(a: float | None, b: float | None) -> float | None:
    if a is None or b is None or b == 0:
        return None
    return round(a / b, 3)


def stream_text(n_tokens: int) -> str:
    """About ``n_tokens`` scripted tokens of Markdown (paragraphs, a table,
    code, lists, CJK and emoji): the built-in sample, cycled and cut at a
    token boundary."""
    from app.core.backends.scripted import SAMPLE_MARKDOWN, tokenize_text

    sample = SAMPLE_MARKDOWN + "\n"
    per_copy = len(tokenize_text(sample))
    text = sample * (n_tokens // per_copy + 2)
    tokens = tokenize_text(text)[:n_tokens]
    return b"".join(tokens).decode("utf-8")


def write_stream_text(folder: Path, n_tokens: int) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"stream-{n_tokens}.md"
    if not path.exists():
        path.write_text(stream_text(n_tokens), encoding="utf-8")
    return path


# ------------------------------------------------------------------ content rows

_CJK_SENTENCES = (
    "流式输出让界面保持响应，模型每生成一个词元，窗口就立刻显示出来，而不是等整段回答结束。",
    "上下文窗口是模型一次能看到的词元数量，对话太长时，较早的内容只能被删去或者概括。",
    "量化用更少的位数存储权重，四位量化的文件只有原来的四分之一大小，在处理器上也能流畅运行。",
    "温度控制随机性：接近零时模型总是选择最可能的词元，温度越高，回答越多样，也越容易跑题。",
    "长段落没有换行也必须能够正常显示、选择和复制，界面不能因为一行文字太长而卡住。",
)

CONTENT_KINDS = ("long_line_a", "long_line_base64", "cjk_paragraph", "code_block_8k", "table_50_rows")


def _code_block(target_chars: int) -> str:
    lines = ["```python"]
    i = 0
    size = len(lines[0]) + 1
    templates = (
        "def step_{i}(values: list[int], scale: float = {f}) -> list[float]:",
        "    \"\"\"Scale every value by {f} and keep the {i} largest.\"\"\"",
        "    result = sorted((v * scale for v in values), reverse=True)[:{i}]",
        "    if not result:  # nothing to keep for step {i}",
        "        return []",
        "    return [round(x, 3) for x in result]",
        "",
    )
    while True:
        line = templates[i % len(templates)].format(i=i // len(templates), f=round(0.5 + (i % 7) / 10, 1))
        if size + len(line) + 1 + 4 > target_chars:
            break
        lines.append(line)
        size += len(line) + 1
        i += 1
    lines.append("```")
    return "\n".join(lines) + "\n"


def _table(rows: int) -> str:
    out = ["| Model | Size | Context | Speed | Notes |", "|---|---|---|---|---|"]
    names = ("SmolLM2 135M", "Qwen2.5 0.5B", "Llama 3.2 1B", "Phi 3 mini", "Gemma 2 2B")
    for i in range(rows):
        out.append(f"| {names[i % len(names)]} r{i} | {90 + 13 * i} MB | {2048 * (1 + i % 8)} | "
                   f"{round(12.5 + i * 0.7, 1)} tok/s | row {i} of the table, plain words |")
    return "\n".join(out) + "\n"


def content_text(kind: str) -> str:
    """The text a content row streams (deterministic)."""
    if kind == "long_line_a":
        return "A" * 20_000
    if kind == "long_line_base64":
        import base64
        import random

        rnd = random.Random(20_000)
        return base64.b64encode(bytes(rnd.getrandbits(8) for _ in range(15_000))).decode("ascii")
    if kind == "cjk_paragraph":
        text = ""
        i = 0
        while len(text) < 100_000:
            text += _CJK_SENTENCES[i % len(_CJK_SENTENCES)]
            i += 1
        return text[:100_000]
    if kind == "code_block_8k":
        return _code_block(8192)
    if kind == "table_50_rows":
        return _table(50)
    raise ValueError(f"unknown content kind {kind!r}")


def _squash(text: str) -> str:
    return "".join(text.split())


def visible_text(kind: str, text: str) -> str:
    """What a reader must see of ``content_text(kind)``, whitespace removed
    (display breaks, unit boundaries and table cells may add or drop it)."""
    if kind == "code_block_8k":
        body = text.split("\n", 1)[1].rsplit("```", 1)[0]
        return _squash(body)
    if kind == "table_50_rows":
        lines = [ln for ln in text.splitlines() if ln.strip() and not set(ln) <= set("|-: ")]
        return _squash("".join(cell for ln in lines for cell in ln.split("|")))
    return _squash(text)


def text_intact(kind: str, source: str, shown: str) -> bool:
    """True when the text shown (the doctor's ``reply_text``) holds every
    character of the source a reader must see, in order. A block over the
    view's render limit (``app.core.render.blocks.RENDER_LIMIT``: the 8 KB code
    block) is shown as its plain source, fences included: that counts too."""
    squashed = _squash(shown)
    return squashed == visible_text(kind, source) or squashed == _squash(source)


def write_content_text(folder: Path, kind: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"content-{kind}.md"
    if not path.exists():
        path.write_text(content_text(kind), encoding="utf-8")
    return path


def load_average() -> tuple[float, float, float]:
    try:
        return os.getloadavg()
    except OSError:
        return (0.0, 0.0, 0.0)


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _version(module: str) -> str:
    from importlib import metadata

    try:
        return metadata.version(module)
    except metadata.PackageNotFoundError:
        return ""


def _git(*args: str) -> str:
    try:
        out = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=10)
        return out.stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def machine_info() -> dict[str, Any]:
    mem_total = 0.0
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    mem_total = int(line.split()[1]) / 1024 / 1024
    except OSError:
        pass
    from app import __version__ as rill_version

    return {
        "cores": os.cpu_count(),
        "cpu_model": _cpu_model(),
        "memory_gb": round(mem_total, 1),
        "os": platform.platform(),
        "python": platform.python_version(),
        "versions": {
            "rill": rill_version,
            "PyQt6": _version("PyQt6"),
            "Qt": _version("PyQt6-Qt6"),
            "llama_cpp_python": _version("llama_cpp_python"),
            "markdown": _version("Markdown"),
            "pygments": _version("Pygments"),
            "matplotlib": _version("matplotlib"),
        },
        "git_commit": _git("rev-parse", "--short", "HEAD"),
        "git_dirty_files": len([ln for ln in _git("status", "--porcelain").splitlines() if ln.strip()]),
        "qt_platform": os.environ.get("QT_QPA_PLATFORM", "offscreen"),
    }


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)

