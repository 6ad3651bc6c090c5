"""``rill search-models`` and ``rill pull``: the Hub from the command line (no Qt).

* ``rill search-models TEXT [--json] [--limit N]``: GGUF repositories on the
  Hub (``HF_ENDPOINT`` or the ``hub_endpoint`` setting), most downloaded first.
* ``rill pull REPO [--file NAME | --quant Q4_K_M] [--list] [--dir PATH]``:
  download one model into the models folder (where Rill finds it), with a
  progress bar on a terminal and plain lines otherwise. Interrupted (Ctrl+C,
  a dropped connection), it keeps its ``.partial`` file: the same command
  resumes it. The exit status is 0 only when the file is complete, its
  sha256 is the one the Hub lists and its GGUF header reads. ``--list``
  shows the repository's models with their size and whether they fit.

Messages go to standard error; ``pull`` prints the model's path on standard
output when it succeeds.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from app.core.text.display import utf8_std_streams, without_controls

if TYPE_CHECKING:
    from app.core.hub.api import HubClient, ModelFile

HUB_COMMANDS = ("search-models", "pull")


def add_hub_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    search = sub.add_parser("search-models", help="search the Hugging Face Hub for GGUF models",
                            description="Search the Hugging Face Hub (HF_ENDPOINT, or the address set in "
                                        "Settings) for GGUF model repositories, most downloaded first.")
    search.add_argument("text", metavar="TEXT", help="words in the repository's name")
    search.add_argument("--json", action="store_true", help="print a JSON list")
    search.add_argument("--limit", type=int, default=20, metavar="N", help="at most N repositories (default 20)")
    pull = sub.add_parser("pull", help="download a GGUF model from the Hugging Face Hub",
                          description="Download a GGUF model from a Hugging Face Hub repository into Rill's "
                                      "models folder, resumably (run it again to continue) and verified "
                                      "(sha256). Exit status 0 only with a verified file.")
    pull.add_argument("repo", metavar="REPO", help="the repository, owner/name (e.g. Qwen/Qwen2.5-0.5B-Instruct-GGUF)")
    which = pull.add_mutually_exclusive_group()
    which.add_argument("--file", metavar="NAME", help="the file to download (its name or path in the repository)")
    which.add_argument("--quant", metavar="Q", help="the quantization to download (Q4_K_M, Q8_0, IQ3_XXS…)")
    pull.add_argument("--list", action="store_true", help="list the repository's models instead of downloading")
    pull.add_argument("--dir", metavar="PATH", help="download into PATH (default: Rill's models folder)")
    pull.add_argument("--n-ctx", type=int, default=None, metavar="N",
                      help="judge whether it fits at this context size (default 4096)")


class _Failed(Exception):
    """A plain message; the command exits with status 1."""


def _say(text: str, stream: TextIO | None = None) -> None:
    print(without_controls(text, one_line=False), file=stream or sys.stderr, flush=True)


def _client() -> tuple[HubClient, str]:
    from app.core.hub.api import HubClient
    from app.core.hub.endpoint import HubToken, hub_endpoint

    token = HubToken().get()
    endpoint = hub_endpoint()
    return HubClient(endpoint, token), token


def _cmd_search(args: argparse.Namespace) -> int:
    if not args.text.strip():
        raise _Failed("Give some words to search for.")
    if args.limit < 1:
        raise _Failed("--limit must be at least 1.")
    client, _ = _client()
    with client:
        found = client.search(args.text, args.limit)
    if args.json:
        print(json.dumps([r.to_dict() for r in found], ensure_ascii=False, indent=2))
        return 0
    if not found:
        _say(f"No GGUF repositories match {args.text!r} on {client.endpoint}.")
        return 0
    for r in found:
        facts = [f"{r.downloads:,} downloads", f"{r.likes:,} likes"]
        if r.updated:
            facts.append(f"updated {r.updated}")
        if r.license:
            facts.append(r.license)
        if r.gated:
            facts.append("gated: needs a token")
        print(without_controls(f"{r.repo}  ·  " + "  ·  ".join(facts)))
    return 0


def _choose(models: list[ModelFile], args: argparse.Namespace) -> ModelFile:
    """The ModelFile to download: --file, --quant, else Q4_K_M, else the smallest balanced one."""
    from app.core.hub.quant import KIND_MODEL, QUANT_GROUPS, quant_group

    if args.file:
        wanted = args.file.strip()
        for m in models:
            if wanted in (m.path, m.name) or any(wanted in (p.path, p.name) for p in m.parts):
                return m
        raise _Failed(f"{args.repo} has no GGUF file named {wanted!r}. Its models: "
                      + ", ".join(m.path for m in models) + ".")
    chat = [m for m in models if m.kind == KIND_MODEL] or models
    if args.quant:
        wanted = args.quant.strip().upper()
        hits = [m for m in chat if m.quant == wanted]
        if not hits:
            have = sorted({m.quant for m in chat if m.quant})
            raise _Failed(f"{args.repo} has no {wanted} model. Its quantizations: {', '.join(have) or 'none named'}.")
        return hits[0]
    for m in chat:
        if m.quant == "Q4_K_M":
            return m
    balanced = [m for m in chat if quant_group(m.quant) == QUANT_GROUPS[1]]
    return (balanced or chat)[0]


def _bar(done: int, total: int, speed: float, eta: float | None) -> str:
    from app.core.models.sizes import format_bytes

    width = 28
    frac = done / total if total else 0.0
    filled = int(frac * width)
    left = f"{int(eta) // 60}:{int(eta) % 60:02d}" if eta is not None else "--:--"
    return (f"\r  [{'#' * filled}{'.' * (width - filled)}] {frac * 100:5.1f}%  {format_bytes(done)} / "
            f"{format_bytes(total)}  {format_bytes(int(speed))}/s  {left} left ")


def _cmd_pull(args: argparse.Namespace) -> int:
    from app.core.base.settings import user_models_dir
    from app.core.hub.download import DownloadRequest, FileDownload, Progress, partial_size
    from app.core.hub.endpoint import HubError
    from app.core.hub.fit import estimate_needed, fit_for, this_machine
    from app.core.models.gguf_info import read_gguf_info
    from app.core.models.paths import DEFAULT_N_CTX
    from app.core.models.sizes import format_bytes

    n_ctx = args.n_ctx or DEFAULT_N_CTX
    if n_ctx < 1:
        raise _Failed("--n-ctx must be at least 1.")
    client, token = _client()
    folder = Path(args.dir).expanduser() if args.dir else user_models_dir()
    with client:
        models = client.model_files(args.repo)
    if not models:
        raise _Failed(f"{args.repo} holds no GGUF model files.")
    machine = this_machine()
    if args.list:
        for m in models:
            fit = fit_for(estimate_needed(m.size, None, n_ctx), machine)
            extra = f"  [{m.kind}]" if m.kind != "model" else f"  {fit.label}"
            print(without_controls(f"{m.path}  ·  {m.quant or '?'}  ·  {format_bytes(m.size)}{extra}"))
        return 0
    chosen = _choose(models, args)
    fit = fit_for(estimate_needed(chosen.size, None, n_ctx), machine)
    _say(f"{args.repo}: {chosen.path} ({chosen.quant or 'unknown quantization'}, "
         f"{format_bytes(chosen.size)}) → {folder}")
    _say(f"  {fit.label}: {fit.explanation}")
    tty = sys.stderr.isatty()
    last_line = [-1, -1]

    def progress(p: Progress) -> None:
        if p.phase == "checking" or not p.total:
            return
        if tty:
            sys.stderr.write(_bar(p.done, p.total, p.speed, p.eta))
            sys.stderr.flush()
            return
        tenth = int(p.done * 10 / p.total)
        if tenth != last_line[1]:
            last_line[1] = tenth
            _say(f"  {p.done * 100 // p.total}%  {format_bytes(p.done)} of {format_bytes(p.total)}")

    paths: list[Path] = []
    for part in chosen.parts:
        request = DownloadRequest(args.repo, part.path, client.file_url(args.repo, part.path), folder, part.size,
                                  part.sha256)
        have = partial_size(request)
        if have and not request.target.exists():
            _say(f"  resuming {part.name} at {format_bytes(have)}")
        try:
            result = FileDownload(request, token, on_progress=progress).run()
        except HubError as exc:
            if tty:
                sys.stderr.write("\n")
            kept = partial_size(request)
            hint = (f" {format_bytes(kept)} downloaded so far is kept: run the same command again to resume."
                    if kept else "")
            raise _Failed(f"{exc}{hint}") from None
        if tty:
            sys.stderr.write("\n")
        if result.already_there:
            _say(f"  {part.name} is already in {folder}.")
        elif result.verified:
            _say(f"  {part.name}: {format_bytes(result.size)}, sha256 verified.")
        else:
            _say(f"  {part.name}: {format_bytes(result.size)} (the Hub lists no sha256 for it: size checked).")
        paths.append(result.path)
    info = read_gguf_info(paths[0])
    if not info.ok:
        raise _Failed(f"{paths[0]} was downloaded but does not read as a model: {info.error}")
    _say(f"  {info.architecture}, {info.parameters_label or '?'} parameters, context {info.context_length or '?'}, "
         f"template {info.template_label}. Open it in Rill (Model › Manage Models…) or: rill --model \"{paths[0]}\"")
    print(paths[0])
    return 0


def run_hub_command(args: argparse.Namespace) -> int:
    from app.core.hub.endpoint import HubError

    utf8_std_streams()
    command = {"search-models": _cmd_search, "pull": _cmd_pull}[args.command]
    try:
        return command(args)
    except (_Failed, HubError) as exc:
        _say(f"rill {args.command}: {exc}")
        return 1
    except KeyboardInterrupt:
        _say(f"\nrill {args.command}: stopped." + (" Run the same command again to resume." if args.command == "pull"
                                                    else ""))
        return 130
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
